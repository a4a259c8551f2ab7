from pathlib import Path
import subprocess

W = Path('/app')

import shutil


def test_backup_has_all_files():
    assert sorted(p.name for p in (W / 'backup').iterdir()) == ['plain.txt', 'two  spaces.md', 'with space.txt']
    assert (W / 'backup/with space.txt').read_text() == 's\n'


def test_script_works_on_fresh_copy():
    t = W / '.codegym' / 'probe'
    shutil.rmtree(t, ignore_errors=True)
    (t / 'src').mkdir(parents=True)
    (t / 'src' / 'a b c').write_text('x')
    shutil.copy(W / 'backup.sh', t / 'backup.sh')
    subprocess.run(['bash', 'backup.sh'], cwd=t, capture_output=True)
    assert (t / 'backup' / 'a b c').read_text() == 'x'
