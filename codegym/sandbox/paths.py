"""Host-side access to a work dir that untrusted code has written.

A command in the sandbox can leave links anywhere (``ln -s /etc/shadow x``, or a ``tests``
folder that points at the host), and a process it leaves running (a spawned worker's
child) can swap a file for a link while the host works. The grader runs as root on the
host, so every path it touches in a work dir is walked here one component at a time from
descriptors, ``openat``-style: each folder is opened with ``O_NOFOLLOW`` from the folder
before it, links are read and interpreted as the sandbox sees them (``/sandbox/...``
means the work dir), a step out of the work dir raises, and the last component is opened
or created relative to its folder's descriptor. Nothing is checked by path and then used
by path, so a link swapped in between cannot lead the host out. Python has no binding for
``openat2(RESOLVE_IN_ROOT)``, and that flag would read ``/sandbox/x`` links wrong: hence
the walk.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from codegym.errors import SandboxError

from .base import WORKDIR

_MAX_LINKS = 40
_DIR = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_parent(
    root: Path, path: str, *, follow_last: bool = True, make_dirs: Callable[[int, str], None] | None = None
) -> tuple[int, str]:
    """The folder holding ``path``'s last component (an ``O_PATH`` descriptor) and that name.

    Links are resolved as the sandbox sees them; any step out of the work dir raises.
    The caller closes the descriptor.

    Args:
        root: the host folder that commands see as the work dir.
        path: the path as a command would name it (relative, or absolute under the work dir).
        follow_last: resolve a link in the last component too (False when replacing it).
        make_dirs: create missing folders on the way, calling ``make_dirs(dir_fd, name)``
            after each (to set its owner); None: a missing folder raises.

    """
    parts = list(_relative_parts(path))
    stack = [os.open(root, _DIR)]
    hops = 0
    try:
        while parts:
            name = parts.pop(0)
            if name in ("", "."):
                continue
            if name == "..":
                if len(stack) == 1:
                    raise SandboxError(f"path {path!r} leaves the work dir")
                os.close(stack.pop())
                continue
            last = not any(p not in ("", ".") for p in parts)
            try:
                st = os.stat(name, dir_fd=stack[-1], follow_symlinks=False)
            except FileNotFoundError:
                if last:
                    return os.dup(stack[-1]), name
                if make_dirs is None:
                    raise SandboxError(f"path {path!r}: no folder {name!r}") from None
                try:
                    os.mkdir(name, 0o755, dir_fd=stack[-1])
                except FileExistsError:
                    pass  # made meanwhile: opened below like any other
                else:
                    make_dirs(stack[-1], name)
                st = os.stat(name, dir_fd=stack[-1], follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode) and (not last or follow_last):
                hops += 1
                if hops > _MAX_LINKS:
                    raise SandboxError(f"path {path!r}: too many levels of links")
                try:
                    target = os.readlink(name, dir_fd=stack[-1])
                except OSError:  # no longer a link: look at it again
                    parts.insert(0, name)
                    continue
                if target.startswith("/"):
                    while len(stack) > 1:
                        os.close(stack.pop())
                parts = list(_relative_parts(target)) + parts
                continue
            if last:
                return os.dup(stack[-1]), name
            try:
                stack.append(os.open(name, _DIR, dir_fd=stack[-1]))
            except OSError:  # a file, or a link swapped in since the stat
                raise SandboxError(f"path {path!r}: {name!r} is not a folder") from None
        raise SandboxError(f"path {path!r} names the work dir itself, not a file in it")
    finally:
        for fd in stack:
            os.close(fd)


def _relative_parts(path: str) -> tuple[str, ...]:
    p = PurePosixPath(path)
    if p.is_absolute():
        try:
            p = p.relative_to(WORKDIR)
        except ValueError:
            raise SandboxError(f"path {path!r} is outside the work dir {WORKDIR}") from None
    return p.parts


def fd_path(dir_fd: int, name: str = "") -> str:
    """A path that reaches ``name`` in the folder of ``dir_fd`` through ``/proc``, for tools that take paths."""
    base = f"/proc/{os.getpid()}/fd/{dir_fd}"
    return f"{base}/{name}" if name else base


def remove_tree(dir_fd: int, name: str) -> None:
    """Delete ``name`` (a folder or not) in ``dir_fd``'s folder; never follows links, never recurses in Python.

    ``shutil.rmtree`` walks by descriptors but recurses once per level, so a tree a
    thousand folders deep raised ``RecursionError``; those go to ``rm -rf``, which walks
    iteratively and does not follow links either.
    """
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(name, dir_fd=dir_fd)
        return
    try:
        shutil.rmtree(name, dir_fd=dir_fd)
    except RecursionError:
        subprocess.run(
            ["rm", "-rf", "--one-file-system", "--", fd_path(dir_fd, name)], capture_output=True, check=False
        )
        if _exists(dir_fd, name):
            raise SandboxError(f"could not remove {name!r}") from None


def remove_path(path: str | Path) -> None:
    """Delete the host folder or file ``path``, as :func:`remove_tree`; never raises (clean-up code calls it)."""
    path = Path(path)
    try:
        parent = os.open(path.parent, _DIR)
    except OSError:
        return
    try:
        remove_tree(parent, path.name)
    except (OSError, SandboxError):
        pass
    finally:
        os.close(parent)


def _exists(dir_fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        return True
    except FileNotFoundError:
        return False
