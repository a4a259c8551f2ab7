from pathlib import Path
import subprocess

W = Path('/app')

def test_hello_runs():
    assert subprocess.run(['./hello'], cwd=W, capture_output=True, text=True).stdout == 'hello, sandbox\n'


def test_make_clean_and_rebuild():
    assert subprocess.run(['make', '-s', 'clean'], cwd=W).returncode == 0
    assert not (W / 'hello').exists()
    assert subprocess.run(['make', '-s'], cwd=W).returncode == 0 and (W / 'hello').exists()
