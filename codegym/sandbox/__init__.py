"""Sandboxes where untrusted code runs (DESIGN.md, Sandbox contract).

``create()`` picks a backend: the ``backend`` argument, else ``CODEGYM_SANDBOX``, else
``local`` (bubblewrap). ``docker`` runs one long-lived container per sandbox.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from codegym.errors import did_you_mean

from .base import WORKDIR, ExecResult, Limits, Sandbox

BACKENDS = ("local", "docker")

__all__ = ["BACKENDS", "WORKDIR", "ExecResult", "Limits", "Sandbox", "create"]


def create(backend: str | None = None, *, workdir_from: str | Path | None = None, **limits: Any) -> Sandbox:
    """Make a sandbox.

    Args:
        backend: ``"local"`` or ``"docker"``; None takes ``CODEGYM_SANDBOX``, else ``local``.
        workdir_from: host folder the work dir starts as a copy of (None: empty).
        **limits: fields of :class:`Limits` (``timeout_s``, ``memory_mb``, ...).

    """
    name = backend or os.environ.get("CODEGYM_SANDBOX") or "local"
    lim = Limits.from_kwargs(**limits)
    if name == "local":
        from .local import LocalSandbox

        return LocalSandbox(lim, workdir_from)
    if name == "docker":
        from .docker import DockerSandbox

        return DockerSandbox(lim, workdir_from)
    raise ValueError(f"unknown sandbox backend {name!r}; use one of {list(BACKENDS)}.{did_you_mean(name, BACKENDS)}")
