"""Host-side access to a work dir that untrusted code has written.

A command in the sandbox can leave links anywhere (``ln -s /etc/shadow x``, or a ``tests``
folder that points at the host). The grader runs as root on the host, so every path it
touches in a work dir is resolved here with links interpreted inside the work dir, and a
path that would leave it is refused.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from codegym.errors import SandboxError

from .base import WORKDIR

_MAX_LINKS = 40


def inside(root: Path, path: str, *, follow_last: bool = True) -> Path:
    """The host path of ``path`` (relative to the work dir, or absolute under ``/work``).

    Links are resolved as the sandbox sees them; any step out of the work dir raises.

    Args:
        root: the host folder that commands see as ``/work``.
        path: the path as a command would name it.
        follow_last: resolve a link in the last component too (False when replacing it).

    """
    parts = list(_relative_parts(path))
    resolved: list[str] = []
    hops = 0
    while parts:
        name = parts.pop(0)
        if name in ("", "."):
            continue
        if name == "..":
            if not resolved:
                raise SandboxError(f"path {path!r} leaves the work dir")
            resolved.pop()
            continue
        candidate = root.joinpath(*resolved, name)
        if candidate.is_symlink() and (parts or follow_last):
            hops += 1
            if hops > _MAX_LINKS:
                raise SandboxError(f"path {path!r}: too many levels of links")
            target = os.readlink(candidate)
            if target.startswith("/"):
                resolved = []
            parts = list(_relative_parts(target)) + parts
            continue
        resolved.append(name)
    return root.joinpath(*resolved)


def _relative_parts(path: str) -> tuple[str, ...]:
    p = PurePosixPath(path)
    if p.is_absolute():
        try:
            p = p.relative_to(WORKDIR)
        except ValueError:
            raise SandboxError(f"path {path!r} is outside the work dir {WORKDIR}") from None
    return p.parts
