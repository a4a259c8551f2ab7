from pathlib import Path
import subprocess

W = Path('/app')

def test_large_files_listed():
    assert (W / 'large.txt').read_text().split() == ['data/big1.bin', 'data/sub/big2.log']


def test_boundary_file_excluded():
    text = (W / 'large.txt').read_text()
    assert 'edge.txt' not in text and text.endswith('\n')
