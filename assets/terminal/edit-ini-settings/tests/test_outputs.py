from pathlib import Path
import subprocess

W = Path('/app')

import configparser


def test_server_section_updated():
    c = configparser.ConfigParser()
    c.read(W / 'service.ini')
    assert (c['server']['port'], c['server']['workers']) == ('9090', '8')


def test_everything_else_kept():
    assert (W / 'service.ini').read_text() == '; service configuration\n[server]\nhost = 0.0.0.0\nport = 9090\nworkers = 8\n\n[metrics]\nport = 8000\nenabled = true\n'
