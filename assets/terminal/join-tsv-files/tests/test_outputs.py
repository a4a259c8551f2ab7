from pathlib import Path
import subprocess

W = Path('/app')

def test_joined_rows():
    assert (W / 'joined.tsv').read_text() == 'abe\t95\nbo\t88\neve\t88\n'
