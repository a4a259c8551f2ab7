from pathlib import Path
import subprocess

W = Path('/app')

import json


def test_check_passes():
    r = subprocess.run(['python', 'app.py', '--check'], cwd=W, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout


def test_values_kept():
    cfg = json.loads((W / 'config.json').read_text())
    assert cfg == {'name': 'shop', 'port': 8080, 'mode': 'prod', 'workers': 4}
