"""Unified diffs: split into files and hunks (with character offsets), classify, apply.

Pure text functions except :func:`apply_patch`, which applies a diff in a sandbox the way
SWE-bench's harness does: ``git apply``, then ``git apply --3way``, then ``patch --fuzz``.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from codegym.sandbox import Sandbox

from .repo import STATE_DIR

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")

#: Files whose edits change how tests run rather than what the code does (SWE-bench reverts
#: test files; conftest and startup hooks are the classic ways around that).
RUNNER_FILES = (
    "conftest.py",
    "pytest.ini",
    "tox.ini",
    "setup.cfg",
    "sitecustomize.py",
    "usercustomize.py",
    "pytest.py",
    "*.pth",
    "_pytest",
    "pytest_*.py",
)


@dataclass
class Hunk:
    """One ``@@`` hunk: its text and where it sits in the whole diff."""

    start: int
    end: int
    text: str


@dataclass
class FileDiff:
    """The part of a diff about one file.

    Attributes:
        old_path / new_path: paths without ``a/`` / ``b/`` (None for /dev/null).
        header: the lines before the first hunk.
        hunks: the hunks, with offsets into the whole diff text.
        start / end: offsets of this file's section in the whole diff.
        binary: a binary patch (no hunks to split).

    """

    old_path: str | None
    new_path: str | None
    header: str
    hunks: list[Hunk] = field(default_factory=list)
    start: int = 0
    end: int = 0
    binary: bool = False

    @property
    def path(self) -> str:
        """The file's path (the new one, else the old one)."""
        return self.new_path or self.old_path or ""

    @property
    def status(self) -> str:
        """``added``, ``deleted`` or ``modified``."""
        if self.old_path is None:
            return "added"
        if self.new_path is None:
            return "deleted"
        return "modified"

    def text(self, skip: int | None = None) -> str:
        """The diff of this file, optionally without hunk number ``skip``."""
        return self.header + "".join(h.text for i, h in enumerate(self.hunks) if i != skip)


def _strip(path: str) -> str | None:
    path = path.strip().split("\t")[0]
    if path == "/dev/null":
        return None
    if path.startswith(("a/", "b/")):
        return path[2:]
    return path


def parse_diff(text: str) -> list[FileDiff]:
    """Split a unified (git or plain) diff into per-file parts with hunk offsets."""
    lines = text.splitlines(keepends=True)
    files: list[FileDiff] = []
    offset = 0
    current: FileDiff | None = None
    in_header = False
    for i, line in enumerate(lines):
        starts_file = line.startswith("diff --git ") or (
            line.startswith("--- ")
            and i + 1 < len(lines)
            and lines[i + 1].startswith("+++ ")
            and (current is None or not in_header)
        )
        if starts_file:
            if current is not None:
                current.end = offset
            current = FileDiff(None, None, "", start=offset)
            files.append(current)
            in_header = True
            if line.startswith("diff --git "):
                m = re.match(r"diff --git a/(.*) b/(.*)$", line.rstrip("\n"))
                if m:
                    current.old_path, current.new_path = m.group(1), m.group(2)
        if current is None:
            offset += len(line)
            continue
        if in_header and _HUNK.match(line):
            in_header = False
        if in_header:
            current.header += line
            if line.startswith("--- "):
                current.old_path = _strip(line[4:])
            elif line.startswith("+++ "):
                current.new_path = _strip(line[4:])
            elif line.startswith("new file mode"):
                current.old_path = None
            elif line.startswith("deleted file mode"):
                current.new_path = None
            elif line.startswith(("GIT binary patch", "Binary files")):
                current.binary = True
        elif _HUNK.match(line):
            current.hunks.append(Hunk(offset, offset + len(line), line))
        elif current.hunks and line[:1] in (" ", "+", "-", "\\", "\n", ""):
            hunk = current.hunks[-1]
            hunk.text += line
            hunk.end = offset + len(line)
        elif line.startswith("diff --git ") is False and current.hunks:
            # Text after the hunks of the last file (a model's trailing prose) ends it.
            pass
        offset += len(line)
    if current is not None:
        current.end = offset
    return files


def join(files: list[FileDiff]) -> str:
    """The diff made of ``files``."""
    return "".join(f.text() for f in files)


def is_test_path(path: str, extra: tuple[str, ...] = ()) -> bool:
    """True for test files and folders (``tests/``, ``test_*.py``, ``*_test.py``, conftest)."""
    p = PurePosixPath(path)
    name = p.name
    if path in extra:
        return True
    if any(part in ("tests", "test", "testing") for part in p.parts[:-1]):
        return True
    return fnmatch.fnmatch(name, "test_*.py") or fnmatch.fnmatch(name, "*_test.py") or is_runner_path(path)


def is_runner_path(path: str) -> bool:
    """True for files that change how the test runner behaves (conftest, ini files, .pth)."""
    p = PurePosixPath(path)
    return any(fnmatch.fnmatch(p.name, pat) or pat in p.parts for pat in RUNNER_FILES)


def is_state_path(path: str) -> bool:
    """True for the harness's own state folder, never part of an attempt."""
    return PurePosixPath(path).parts[:1] == (STATE_DIR,)


def apply_patch(sb: Sandbox, diff: str, timeout: float = 30) -> tuple[bool, str, str]:
    """Apply ``diff`` in the work dir: git apply, then 3-way, then ``patch --fuzz``.

    Returns:
        (applied, method, message): the method that worked (``git``, ``3way``, ``fuzz``)
        or the last error.

    """
    if not diff.strip():
        return False, "", "the patch is empty"
    if not diff.endswith("\n"):
        diff += "\n"
    path = f"{STATE_DIR}/incoming.patch"
    sb.write_file(path, diff)
    attempts = [
        ("git", f"git apply --whitespace=nowarn {path} && rm -f {path}"),
        ("3way", f"git apply --3way --whitespace=nowarn {path} && rm -f {path}"),
        ("fuzz", f"patch --batch --fuzz=5 -p1 --no-backup-if-mismatch -i {path} && rm -f {path}"),
    ]
    message = ""
    for method, cmd in attempts:
        res = sb.run(cmd, timeout=timeout)
        if res.ok:
            return True, method, ""
        message = (res.stderr or res.stdout).strip()[-1500:]
        if method == "3way":  # a failed 3-way apply can leave conflict markers: start clean
            sb.run("git checkout -q -- . 2>/dev/null; true", timeout=timeout)
    sb.run(f"rm -f {path}", timeout=timeout)
    return False, "", message


def file_diff(path: str, old: str | None, new: str | None) -> str:
    """A git-style diff of one text file (``None``: the file does not exist on that side)."""
    import difflib

    a = [] if old is None else old.splitlines(keepends=True)
    b = [] if new is None else new.splitlines(keepends=True)
    body = []
    for line in difflib.unified_diff(a, b, n=3):
        if line.startswith(("---", "+++")):
            continue
        body.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    if not body:
        return ""
    head = f"diff --git a/{path} b/{path}\n"
    if old is None:
        head += f"new file mode 100644\n--- /dev/null\n+++ b/{path}\n"
    elif new is None:
        head += f"deleted file mode 100644\n--- a/{path}\n+++ /dev/null\n"
    else:
        head += f"--- a/{path}\n+++ b/{path}\n"
    return head + "".join(body)
