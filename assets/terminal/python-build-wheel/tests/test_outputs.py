from pathlib import Path
import subprocess

W = Path('/app')

import zipfile


def wheels():
    return sorted((W / 'dist').glob('tinymath-0.3.0-*.whl'))


def test_wheel_built():
    assert len(wheels()) == 1


def test_wheel_contains_package():
    names = zipfile.ZipFile(wheels()[0]).namelist()
    assert 'tinymath/__init__.py' in names
