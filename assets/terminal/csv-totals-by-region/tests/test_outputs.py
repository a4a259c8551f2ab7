from pathlib import Path
import subprocess

W = Path('/app')

EXPECTED = 'region,total\neast,5348\nnorth,2730\nsouth,2789\nwest,4082\n'


def test_totals_file_matches():
    assert (W / 'totals.csv').read_text() == EXPECTED


def test_totals_add_up():
    lines = (W / 'totals.csv').read_text().splitlines()[1:]
    assert sum(int(l.split(',')[1]) for l in lines) == 14949
