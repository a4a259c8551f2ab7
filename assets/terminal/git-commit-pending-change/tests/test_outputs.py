from pathlib import Path
import subprocess

W = Path('/app')

def git(*args):
    return subprocess.run(['git', '-C', str(W / 'repo'), *args], capture_output=True, text=True).stdout


def test_fix_is_committed_with_message():
    assert git('log', '-1', '--format=%s').strip() == 'Fix greeting typo'
    assert git('show', 'HEAD:greeting.txt') == 'Hello world\n'


def test_tree_clean_and_history_kept():
    assert git('status', '--porcelain') == ''
    assert git('rev-list', '--count', 'HEAD').strip() == '2'
