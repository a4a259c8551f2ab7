from pathlib import Path
import subprocess

W = Path('/app')

def run(*args):
    return subprocess.run(['python', '-m', 'unitconv', *args], cwd=W, capture_output=True, text=True)


def test_km_to_m():
    assert run('5', 'km', 'm').stdout == '5000.0\n'


def test_cm_to_m():
    r = run('250', 'cm', 'm')
    assert r.returncode == 0 and r.stdout == '2.5\n'
