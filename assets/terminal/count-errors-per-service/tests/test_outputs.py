from pathlib import Path
import subprocess

W = Path('/app')

EXPECTED = 'auth 18\napi 12\nbilling 12\nsearch 10\n'


def test_report_exists_and_matches():
    assert (W / 'report.txt').read_text() == EXPECTED


def test_report_is_sorted_by_count():
    lines = (W / 'report.txt').read_text().split()
    counts = [int(x) for x in lines[1::2]]
    assert counts and counts == sorted(counts, reverse=True)
