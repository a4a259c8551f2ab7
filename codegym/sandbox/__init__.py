"""Sandboxes where untrusted code runs (docs/contract.md, Sandbox contract).

``create()`` picks a backend: the ``backend`` argument, else ``CODEGYM_SANDBOX``, else
``local`` (bubblewrap). ``docker`` runs one long-lived container per sandbox.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codegym.errors import did_you_mean

from .base import WORKDIR, ExecResult, Limits, Runtime, Sandbox, check_aliases

BACKENDS = ("local", "docker")

__all__ = ["BACKENDS", "WORKDIR", "ExecResult", "Limits", "Runtime", "Sandbox", "check_aliases", "check_spec", "create"]


def check_backend(name: object, source: str = "backend") -> None:
    """Raise unless ``name`` is a backend name; ``source`` says where it came from (for the message)."""
    if not isinstance(name, str):
        raise TypeError(f"{source} must be one of {list(BACKENDS)}, got {name!r} ({type(name).__name__})")
    if name not in BACKENDS:
        raise ValueError(
            f"{source}={name!r} is not a sandbox backend; use one of {list(BACKENDS)}.{did_you_mean(name, BACKENDS)}"
        )


def check_spec(spec: dict[str, Any]) -> None:
    """Check the arguments an env will pass to :func:`create`: ``backend`` and :class:`Limits` fields.

    A missing backend is read from ``CODEGYM_SANDBOX`` at ``create`` time; it is checked now too.
    Raises TypeError / ValueError naming the key, the value and the fix.
    """
    backend = spec.get("backend")
    if backend is not None:
        check_backend(backend, "backend")
    elif os.environ.get("CODEGYM_SANDBOX"):
        check_backend(os.environ["CODEGYM_SANDBOX"], "CODEGYM_SANDBOX")
    Limits.from_kwargs(**{k: v for k, v in spec.items() if k != "backend"})


def create(
    backend: str | None = None,
    *,
    workdir_from: str | Path | None = None,
    runtime: Runtime | None = None,
    aliases: Sequence[str] = (),
    system_image: str | None = None,
    **limits: Any,
) -> Sandbox:
    """Make a sandbox.

    Args:
        backend: ``"local"`` or ``"docker"``; None takes ``CODEGYM_SANDBOX``, else ``local``.
        workdir_from: host folder the work dir starts as a copy of (None: empty).
        runtime: a read-only venv the commands run with (a repository task's own), or None.
        aliases: top-level paths such as ``"/app"``, each made a link to the work dir's folder
            of the same name (``/sandbox/app``), which the caller provides.
        system_image: ``docker`` only: a local image with a system of its own (a task's built
            image) that commands run on, instead of the host's ``/usr``, ``/etc`` and Python.
        **limits: fields of :class:`Limits` (``timeout_s``, ``memory_mb``, ...).

    """
    name = backend or os.environ.get("CODEGYM_SANDBOX") or "local"
    lim = Limits.from_kwargs(**limits)
    if name == "local":
        from .local import LocalSandbox

        if system_image is not None:
            raise ValueError(f"system_image={system_image!r} needs the docker backend; local runs on the host's system")
        return LocalSandbox(lim, workdir_from, runtime=runtime, aliases=aliases)
    if name == "docker":
        from .docker import DockerSandbox

        return DockerSandbox(lim, workdir_from, runtime=runtime, aliases=aliases, system_image=system_image)
    check_backend(name, "backend" if backend else "CODEGYM_SANDBOX")
    raise AssertionError("unreachable")
