from pathlib import Path
import subprocess

W = Path('/app')

import hashlib, tarfile


def test_checksum_matches_payload():
    with tarfile.open(W / 'bundle.tar.gz') as t:
        member = next(m for m in t.getmembers() if m.name.endswith('payload.bin'))
        digest = hashlib.sha256(t.extractfile(member).read()).hexdigest()
    assert (W / 'checksum.txt').read_text() == digest + '\n'
