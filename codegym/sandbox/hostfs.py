"""Work-dir files and snapshots for backends whose work dir is a host folder.

Both backends keep the work dir in a :mod:`~codegym.sandbox.workspace` on the host (bwrap
and the container bind it at ``/sandbox``), so reading and writing files, snapshots and
restores are host file operations: no command runs in the sandbox for them. Paths are
resolved with :func:`~codegym.sandbox.paths.inside`, so a link planted by the sandboxed
code never leads the host out of the work dir.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from codegym.errors import SandboxError

from .paths import inside
from .workspace import CopyWorkspace, Layer, OverlayWorkspace


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
        target = inside(self._fs.path, path, follow_last=False)
        self._make_parents(target)
        if target.is_symlink() or target.is_dir():
            raise SandboxError(f"cannot write {path!r}: it is a link or a folder")
        target.write_bytes(data.encode() if isinstance(data, str) else data)
        os.chmod(target, mode)
        self._own(target)

    def read_file(self, path: str) -> bytes:
        """The bytes of a file in the work dir (links are followed only inside it)."""
        self._check_open()
        target = inside(self._fs.path, path)
        if not target.is_file():
            raise SandboxError(f"no file {path!r} in the work dir")
        return target.read_bytes()

    def copy_in(self, host_path: str, dest: str) -> None:
        """Copy a host file or folder into the work dir at ``dest``, replacing what is there."""
        self._check_open()
        target = inside(self._fs.path, dest, follow_last=False)
        self._make_parents(target)
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.is_dir():
            shutil.rmtree(target)
        if os.path.isdir(host_path):
            shutil.copytree(host_path, target, symlinks=True)
        else:
            shutil.copy2(host_path, target)
        for dirpath, dirnames, filenames in os.walk(target):
            for name in (*dirnames, *filenames):
                self._own(Path(dirpath, name))
        self._own(target)

    @property
    def host_path(self) -> Path:
        """The host folder commands see as the work dir (for graders that read it)."""
        return self._fs.path

    def _make_parents(self, target: Path) -> None:
        root = self._fs.path
        for parent in reversed(target.relative_to(root).parents):
            p = root / parent
            if p.is_symlink() or (p.exists() and not p.is_dir()):
                raise SandboxError(f"cannot write under {parent}: it is a link or a file")
            if not p.exists():
                p.mkdir()
                self._own(p)

    def _own(self, path: Path) -> None:
        if self._uid is not None:
            os.lchown(path, self._uid, self._uid)

    # ------------------------------------------------------------------ snapshots
    def snapshot(self) -> tuple[Layer, ...]:
        """The work dir's layers now; costs what changed since the last snapshot."""
        self._check_open()
        return self._fs.freeze()

    def restore(self, snap: tuple[Layer, ...]) -> None:
        """Make the work dir what it was at ``snap``."""
        self._check_open()
        self._fs.reset_to(snap)
