"""SWE-bench-format instances built from real PyPI sdists, for tests and bench/outside_tasks.py.

Each library in ``tests/data/swebench_real.json`` is downloaded once with
``pip download --no-deps --no-binary :all:`` (a pinned sdist; cached under the codegym
cache dir) and turned into an instance: the base commit of a local git mirror is the sdist
with bugs injected and one real test file removed; ``patch`` undoes the bugs (the real
code) and ``test_patch`` adds the real test file back. Other diffs of the same shape: the
partial fix, a fix that breaks a pass-to-pass test, a README-only edit.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

DATA = json.loads((Path(__file__).parent / "data" / "swebench_real.json").read_text())
LIBRARIES = sorted(k for k in DATA if not k.startswith("_"))
GIT = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",  # the same base commit id in every run
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
}


class Offline(Exception):
    """The sdist could not be downloaded (no network to PyPI)."""


def sdist_cache() -> Path:
    """Where downloaded sdists are kept between runs."""
    return Path(os.environ.get("CODEGYM_CACHE", "/tmp/codegym-cache")) / "sdists"


def fetch_sdist(pin: str) -> Path:
    """The cached sdist archive of ``pin`` (``name==version``), downloaded the first time."""
    name, _, version = pin.partition("==")
    folder = sdist_cache() / pin
    found = sorted(folder.glob("*.tar.gz"))
    if found:
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", pin, "-d", str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    found = sorted(folder.glob("*.tar.gz"))
    if proc.returncode != 0 or not found:
        raise Offline(f"pip download {pin} failed: {proc.stderr.strip()[-300:]}")
    return found[0]


def _git(args: list[str], cwd: Path) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **GIT})
    if proc.returncode != 0:
        raise RuntimeError(f"git {args} failed: {proc.stderr}")
    return proc.stdout


def _replace(root: Path, path: str, old: str, new: str) -> None:
    file = root / path
    text = file.read_text()
    assert old in text, f"{old!r} not in {path}"
    file.write_text(text.replace(old, new, 1))


@dataclass
class Instance:
    """One built instance: the task dict, the mirror folder and the attempts' diffs."""

    name: str
    task: dict
    repo_root: Path
    diffs: dict[str, str]


def build_instance(name: str, root: Path) -> Instance:
    """Build library ``name``'s instance under ``root`` (a mirror at ``root/<owner>__<repo>``)."""
    lib = DATA[name]
    archive = fetch_sdist(lib["sdist"])
    mirror = root / lib["repo"].replace("/", "__")
    shutil.rmtree(mirror, ignore_errors=True)
    unpacked = root / f"unpack-{name}"
    shutil.rmtree(unpacked, ignore_errors=True)
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        for member in members:  # ours, or git calls the mirror's ownership dubious
            member.uid, member.gid, member.uname, member.gname = os.getuid(), os.getgid(), "", ""
        tar.extractall(unpacked, members)  # noqa: S202 - a pinned sdist from PyPI
    (top,) = unpacked.iterdir()
    shutil.move(str(top), mirror)
    shutil.rmtree(unpacked)
    for junk in mirror.rglob(".pytest_cache"):
        shutil.rmtree(junk)
    test_text = (mirror / lib["test_file"]).read_text()
    (mirror / lib["test_file"]).unlink()
    for path, good, bad in lib["bugs"]:
        _replace(mirror, path, good, bad)
    _git(["init", "-q", "-b", "main"], mirror)
    _git(["add", "-A", "-f", "."], mirror)
    _git(["commit", "-q", "-m", "base"], mirror)
    base = _git(["rev-parse", "HEAD"], mirror).strip()

    def diff(*edits: tuple[str, str, str], add_test: bool = False, readme: bool = False) -> str:
        for path, old, new in edits:
            _replace(mirror, path, old, new)
        if add_test:
            (mirror / lib["test_file"]).write_text(test_text)
            _git(["add", "-N", lib["test_file"]], mirror)
        if readme:
            notes = sorted(mirror.glob("README*"))[0]
            notes.write_text(notes.read_text() + "\nThis issue is fixed.\n")
        text = _git(["diff", "HEAD"], mirror)
        _git(["reset", "-q", "--hard", "HEAD"], mirror)
        _git(["clean", "-q", "-fdx"], mirror)
        return text

    fixes = [(path, bad, good) for path, good, bad in lib["bugs"]]
    brk = tuple(lib["breaks"])
    diffs = {
        "gold": diff(*fixes),
        "test_patch": diff(add_test=True),
        "partial": diff(fixes[0]),
        "breaks": diff(*fixes, brk),
        "readme": diff(readme=True),
    }
    task = {
        "instance_id": f"{lib['repo'].replace('/', '__')}-real",
        "repo": lib["repo"],
        "version": lib["version"],
        "base_commit": base,
        "patch": diffs["gold"],
        "test_patch": diffs["test_patch"],
        "problem_statement": f"A bug in {name}: the tests in {lib['test_file']} fail.",
        "FAIL_TO_PASS": json.dumps(lib.get("FAIL_TO_PASS", [])),
        "PASS_TO_PASS": json.dumps(lib.get("PASS_TO_PASS", [])),
        **lib["spec"],
    }
    return Instance(name, task, root, diffs)
