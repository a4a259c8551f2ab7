"""Work-dir files and snapshots for backends whose work dir is a host folder.

Both backends keep the work dir in a :mod:`~codegym.sandbox.workspace` on the host (bwrap
and the container bind it at ``/sandbox``), so reading and writing files, snapshots and
restores are host file operations: no command runs in the sandbox for them. Every path is
walked from descriptors by :func:`~codegym.sandbox.paths.open_parent` and the file itself
opened relative to its folder with ``O_NOFOLLOW`` and ``O_NONBLOCK``: a link planted (or
swapped in while the host works) never leads the host out of the work dir, and a FIFO
never blocks it. A file is written under a new name and renamed over the old one, so
what the host writes is always a regular file it created.
"""

from __future__ import annotations

import os
import stat
import uuid
from collections.abc import Callable
from pathlib import Path

from codegym.errors import SandboxError

from .paths import open_parent, remove_tree
from .workspace import CopyWorkspace, Layer, OverlayWorkspace

_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class HostWorkdir:
    """Mixin for a :class:`~codegym.sandbox.base.Sandbox` with ``_fs`` (its workspace) and ``_uid``.

    ``_uid`` owns what the host writes into the work dir (None: the calling user).
    """

    _fs: OverlayWorkspace | CopyWorkspace
    _uid: int | None

    _check_open: Callable[[], None]  # from Sandbox

    def write_file(self, path: str, data: str | bytes, mode: int = 0o644) -> None:
        """Create or replace a file in the work dir, making parent folders."""
        self._check_open()
        folder, name = self._parent(path, follow_last=False)
        try:
            st = _lstat(folder, name)
            if st is not None and (stat.S_ISLNK(st.st_mode) or stat.S_ISDIR(st.st_mode)):
                raise SandboxError(f"cannot write {path!r}: it is a link or a folder")
            temp = f".codegym-{uuid.uuid4().hex}"
            _write_new(folder, temp, data.encode() if isinstance(data, str) else data, mode, self._uid)
            try:
                os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            except OSError as exc:  # a folder made there meanwhile
                os.unlink(temp, dir_fd=folder)
                raise SandboxError(f"cannot write {path!r}: {exc.strerror}") from None
        finally:
            os.close(folder)

    def read_file(self, path: str) -> bytes:
        """The bytes of a regular file in the work dir (links are followed only inside it)."""
        self._check_open()
        folder, name = self._parent(path)
        try:
            fd = os.open(name, _READ, dir_fd=folder)
        except OSError:
            raise SandboxError(f"no file {path!r} in the work dir") from None
        finally:
            os.close(folder)
        with open(fd, "rb", closefd=True) as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise SandboxError(f"{path!r} is not a regular file")
            return f.read()

    def copy_in(self, host_path: str, dest: str) -> None:
        """Copy a host file or folder into the work dir at ``dest``, replacing what is there."""
        self._check_open()
        folder, name = self._parent(dest, follow_last=False)
        try:
            remove_tree(folder, name)
            _copy(host_path, folder, name, self._uid)
        finally:
            os.close(folder)

    def remove(self, path: str) -> None:
        """Delete a file or folder of the work dir (a link itself, never what it points at)."""
        self._check_open()
        folder, name = self._parent(path, follow_last=False)
        try:
            remove_tree(folder, name)
        finally:
            os.close(folder)

    def _parent(self, path: str, follow_last: bool = True) -> tuple[int, str]:
        uid = self._uid

        def own(dir_fd: int, name: str) -> None:
            if uid is not None:
                os.chown(name, uid, uid, dir_fd=dir_fd, follow_symlinks=False)

        try:
            return open_parent(self._fs.path, path, follow_last=follow_last, make_dirs=own)
        except SandboxError as exc:
            if "not a folder" in str(exc):
                raise SandboxError(f"cannot write under {path!r}: a link or a file is in the way") from None
            raise

    @property
    def host_path(self) -> Path:
        """The host folder commands see as the work dir (for graders that read it)."""
        return self._fs.path

    # ------------------------------------------------------------------ snapshots
    def snapshot(self) -> tuple[Layer, ...]:
        """The work dir's layers now; costs what changed since the last snapshot."""
        self._check_open()
        return self._fs.freeze()

    def restore(self, snap: tuple[Layer, ...]) -> None:
        """Make the work dir what it was at ``snap``."""
        self._check_open()
        self._fs.reset_to(snap)


def _lstat(folder: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _write_new(folder: int, name: str, data: bytes, mode: int, uid: int | None) -> None:
    """Create ``name`` (it must not exist) in ``folder`` holding ``data``."""
    fd = os.open(name, _CREATE, 0o600, dir_fd=folder)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, mode)
        if uid is not None:
            os.fchown(fd, uid, uid)
    finally:
        os.close(fd)


def _copy(src: str, folder: int, name: str, uid: int | None) -> None:
    """Copy the host tree ``src`` to ``name`` in ``folder``, creating every entry itself (``O_EXCL``)."""
    st = os.lstat(src)
    if stat.S_ISLNK(st.st_mode):
        os.symlink(os.readlink(src), name, dir_fd=folder)
        if uid is not None:
            os.chown(name, uid, uid, dir_fd=folder, follow_symlinks=False)
        return
    if stat.S_ISDIR(st.st_mode):
        os.mkdir(name, 0o700, dir_fd=folder)
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
        try:
            for entry in os.scandir(src):
                _copy(entry.path, fd, entry.name, uid)
            os.fchmod(fd, stat.S_IMODE(st.st_mode))
            if uid is not None:
                os.fchown(fd, uid, uid)
        finally:
            os.close(fd)
        return
    if not stat.S_ISREG(st.st_mode):
        raise SandboxError(f"cannot copy {src!r} into the work dir: not a regular file, folder or link")
    with open(src, "rb") as f:
        _write_new(folder, name, f.read(), stat.S_IMODE(st.st_mode), uid)
    os.utime(name, ns=(st.st_atime_ns, st.st_mtime_ns), dir_fd=folder, follow_symlinks=False)
