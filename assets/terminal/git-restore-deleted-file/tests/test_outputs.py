from pathlib import Path
import subprocess

W = Path('/app')

def git(*args):
    return subprocess.run(['git', '-C', str(W / 'repo'), *args], capture_output=True, text=True).stdout


def test_file_restored_in_new_commit():
    assert git('show', 'HEAD:config/settings.yaml') == 'debug: false\nport: 8080\n'
    assert git('rev-list', '--count', 'HEAD').strip() == '3'


def test_history_kept_and_tree_clean():
    assert 'cleanup' in git('log', '--format=%s') and git('status', '--porcelain') == ''
    assert (W / 'repo/config/settings.yaml').read_text() == 'debug: false\nport: 8080\n'
