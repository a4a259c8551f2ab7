from pathlib import Path
import subprocess

W = Path('/app')

def test_jpeg_files_renamed():
    assert sorted(p.relative_to(W).as_posix() for p in (W / 'photos').rglob('*.jpg')) == ['photos/a.jpg', 'photos/trip/b.jpg', 'photos/trip/deep/e.jpg']
    assert (W / 'photos/trip/deep/e.jpg').read_text() == 'E'


def test_no_jpeg_left_and_others_untouched():
    assert not list((W / 'photos').rglob('*.jpeg'))
    assert (W / 'photos/trip/c.JPEG.txt').read_text() == 'not an image'
    assert (W / 'photos/d.png').exists()
