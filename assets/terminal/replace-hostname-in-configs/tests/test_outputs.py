from pathlib import Path
import subprocess

W = Path('/app')

def test_conf_files_updated():
    assert (W / 'conf/app.conf').read_text() == 'db_host = db-new.internal\ncache = cache.internal\n'
    assert (W / 'conf/sub/worker.conf').read_text() == 'upstream db-new.internal:5432\nretry db-new.internal\n'


def test_backups_and_others_untouched_and_no_old_host():
    assert 'db-old' not in ''.join(p.read_text() for p in (W / 'conf').rglob('*.conf'))
    assert (W / 'conf/app.conf.bak').read_text() == 'db_host = db-old.internal\n'
    assert (W / 'conf/README').read_text().startswith('db-old')
