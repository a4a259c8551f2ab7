from pathlib import Path
import subprocess

W = Path('/app')

import os, stat


def test_scripts_executable():
    for name in ('start.sh', 'stop.sh'):
        assert os.stat(W / 'bin' / name).st_mode & stat.S_IXUSR
    assert subprocess.run(['./bin/start.sh'], cwd=W, capture_output=True, text=True).stdout == 'start\n'


def test_secrets_private():
    assert stat.S_IMODE(os.stat(W / 'secrets.env').st_mode) == 0o600
