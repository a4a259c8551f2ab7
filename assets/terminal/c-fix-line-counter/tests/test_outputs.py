from pathlib import Path
import subprocess

W = Path('/app')

import tempfile, os


def count(text):
    p = W / '.codegym' / 'probe.txt'
    p.parent.mkdir(exist_ok=True)
    p.write_text(text)
    return subprocess.run(['./countlines', str(p)], cwd=W, capture_output=True, text=True).stdout.strip()


def test_counts_lines_like_wc():
    assert count('a\nb\nc\n') == '3'


def test_empty_and_unterminated():
    assert count('') == '0'
    assert count('x\ny') == '1'
