from pathlib import Path
import subprocess

W = Path('/app')

def git(*args):
    return subprocess.run(['git', '-C', str(W / 'repo'), *args], capture_output=True, text=True).stdout


def test_main_has_merge_commit_with_both_parents():
    assert git('rev-parse', '--abbrev-ref', 'HEAD').strip() == 'main'
    parents = git('log', '-1', '--format=%P').split()
    assert len(parents) == 2
    assert git('rev-parse', 'feature').strip() in parents


def test_files_of_both_branches_present_and_clean():
    assert (W / 'repo/feature.txt').read_text() == 'f\n' and (W / 'repo/b.txt').exists()
    assert git('status', '--porcelain') == '' and 'feature work' in git('log', '--format=%s')
