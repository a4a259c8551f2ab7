from pathlib import Path
import subprocess

W = Path('/app')

def test_unique_addresses():
    assert (W / 'unique.txt').read_text() == 'alice@example.com\nbob@example.com\ncarol@test.org\ndave@test.org\n'
