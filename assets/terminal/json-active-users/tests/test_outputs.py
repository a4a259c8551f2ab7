from pathlib import Path
import subprocess

W = Path('/app')

def test_active_users():
    assert (W / 'active.txt').read_text() == 'li\nzoe\n'
