from pathlib import Path
import subprocess

W = Path('/app')

def test_binary_built():
    assert (W / 'sum').exists()
    out = subprocess.run(['./sum', '2', '3', '-4'], cwd=W, capture_output=True, text=True)
    assert out.stdout == '1\n'


def test_make_succeeds_from_clean():
    subprocess.run(['rm', '-f', 'sum'], cwd=W)
    assert subprocess.run(['make', '-s'], cwd=W).returncode == 0
    assert subprocess.run(['./sum'], cwd=W, capture_output=True, text=True).stdout == '0\n'
