from pathlib import Path
import subprocess

W = Path('/app')

def test_top_three():
    assert (W / 'top_ips.txt').read_text() == '9 172.16.0.9\n7 10.0.0.1\n4 192.168.1.5\n'
