"""Prepared repositories: a task's starting tree, cached once per task as a git repo.

A reset must be cheap, so every task's work tree is prepared once per machine into a cache
folder (``CODEGYM_CACHE``, default ``/tmp/codegym-cache``): the ``environment/`` folder is
copied, ``git init`` + one commit at the base makes ``git diff`` work, and there is no other
history (the "future" of the repository is never there to find with ``git log``). The
sandbox backends then keep that folder as a cached copy-on-write layer (local: overlay
lower dir; docker: committed image), so an episode starts without copying the repository.

The commit uses fixed author, committer and dates, so the base commit id is the same on
every machine: verdicts that name it stay deterministic.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from codegym.errors import TaskFormatError

#: Shell state and grader scratch live here inside the work dir; git ignores it.
STATE_DIR = ".codegym"

GIT_ENV = {
    "GIT_AUTHOR_NAME": "codegym",
    "GIT_AUTHOR_EMAIL": "codegym@localhost",
    "GIT_COMMITTER_NAME": "codegym",
    "GIT_COMMITTER_EMAIL": "codegym@localhost",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}

#: Bump when the way trees are prepared changes: old cached trees are then not reused.
PREPARE_VERSION = "2"

#: Paths never part of an attempt's patch (caches and the harness's own state).
EXCLUDES = (STATE_DIR, ".pytest_cache", "__pycache__", "*.pyc", "*.egg-info")


def cache_root() -> Path:
    """The folder prepared trees are kept in."""
    return Path(os.environ.get("CODEGYM_CACHE", "/tmp/codegym-cache")) / "agentic"


def git(args: list[str], cwd: Path, stdin: str | None = None) -> str:
    """Run git on the host (on trees we made, never on a work dir an agent wrote)."""
    env = {**os.environ, **GIT_ENV, "HOME": str(cwd)}
    proc = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {cwd}: {proc.stderr.strip()}")
    return proc.stdout


def tree_key(*parts: str | Path) -> str:
    """A cache key over strings and the stat data of every file under the given folders."""
    h = hashlib.sha256(PREPARE_VERSION.encode())
    for part in parts:
        h.update(str(part).encode())
        p = Path(part)
        if isinstance(part, Path) and p.is_dir():
            for dirpath, dirnames, filenames in os.walk(p):
                dirnames.sort()
                for name in sorted(filenames):
                    st = os.lstat(os.path.join(dirpath, name))
                    h.update(f"{dirpath}/{name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:20]


def cached_tree(key: str, build: Callable[[Path], None]) -> Path:
    """The cached folder for ``key``, built by ``build(folder)`` the first time (atomically)."""
    dest = cache_root() / key
    if (dest / ".codegym-ready").exists():
        return dest / "tree"
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=dest.parent))
    try:
        (tmp / "tree").mkdir()
        build(tmp / "tree")
        (tmp / ".codegym-ready").write_text("ok\n")
        try:
            os.rename(tmp, dest)
        except OSError:  # another process built it first: theirs is as good as ours
            pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest / "tree"


def init_base_commit(tree: Path) -> str:
    """Make ``tree`` a git repository with a single commit of everything; its id."""
    git(["init", "-q", "-b", "main"], tree)
    shutil.rmtree(tree / ".git" / "hooks", ignore_errors=True)
    (tree / ".git" / "info").mkdir(exist_ok=True)
    (tree / ".git" / "info" / "exclude").write_text("\n".join(EXCLUDES) + "\n")
    git(["add", "-A", "-f", "."], tree)
    git(["-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-m", "base"], tree)
    # One pack instead of a loose object per file: graders copy .git in at every grading.
    git(["repack", "-a", "-d", "-q"], tree)
    git(["prune-packed"], tree)
    return git(["rev-parse", "HEAD"], tree).strip()


def prepare_from_folder(src: Path, label: str) -> Path:
    """A cached git repo whose single commit is a copy of ``src``."""
    if not src.is_dir():
        raise TaskFormatError(str(src), "environment", "missing folder; a task needs environment/ with its files")

    def build(tree: Path) -> None:
        shutil.copytree(
            src,
            tree,
            dirs_exist_ok=True,
            symlinks=True,
            ignore=shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache"),
        )
        init_base_commit(tree)

    return cached_tree(f"{label}-{tree_key(label, src)}", build)


def prepare_from_mirror(mirror: Path, commit: str, label: str) -> Path:
    """A cached repo with the tree of ``commit`` from a local mirror, history stripped."""
    if not (mirror / ".git").exists() and not (mirror / "HEAD").exists():
        raise TaskFormatError(str(mirror), "repo", "not a git repository; pass repo_root= a folder of local mirrors")

    def build(tree: Path) -> None:
        archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=mirror, capture_output=True)
        if archive.returncode != 0:
            raise TaskFormatError(
                str(mirror), "base_commit", f"{commit!r} not found: {archive.stderr.decode().strip()}"
            )
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        init_base_commit(tree)

    return cached_tree(f"{label}-{tree_key(label, str(mirror), commit)}", build)


def base_commit(tree: Path) -> str:
    """The id of the single commit of a prepared tree."""
    return git(["rev-parse", "HEAD"], tree).strip()
