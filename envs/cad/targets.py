"""Target geometry: each part's gold script executed once, its mesh cached by content hash.

The cache key is the SHA-256 of the gold script, the tessellation tolerance and
:data:`TARGET_FORMAT`, so editing a part (or the export) makes a new entry and a stale one
is never read. The cache folder is ``$CODEGYM_CAD_CACHE``, else ``~/.cache/codegym/cad``
(not in the repository: about 50 kB per part). Entries are ``.npz`` files written
atomically; a corrupt one is recomputed.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from codegym.errors import InfraError

from .geometry import Mesh

TARGET_FORMAT = "cad-target-v2"  # v2: absolute tessellation deflection


@dataclass(frozen=True)
class Target:
    """A part's reference geometry.

    Attributes:
        mesh: its tessellation.
        stats: B-rep counts (``faces``, ``edges``, ``solids``) from the kernel.
    """

    mesh: Mesh
    stats: dict[str, Any]


def cache_dir() -> Path:
    """Where targets are cached (made on first use)."""
    root = os.environ.get("CODEGYM_CAD_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "codegym", "cad")
    return Path(root)


def target_key(gold: str, tol: float) -> str:
    """Content hash naming a target in the cache."""
    return hashlib.sha256(f"{TARGET_FORMAT}\0{tol!r}\0{gold}".encode()).hexdigest()[:32]


_memory: dict[str, Target] = {}


def load_target(gold: str, tol: float, execute: Any) -> Target:
    """The target of ``gold``: from memory, the disk cache, or by running it with ``execute``.

    Args:
        gold: the reference script (leaves the part in ``result``).
        tol: relative tessellation tolerance.
        execute: ``(steps, source, final, tol) -> RawAttempt`` (a worker's ``execute``).

    Raises:
        InfraError: the gold script failed (a broken bundled part is not the attempt's fault).
    """
    key = target_key(gold, tol)
    if key in _memory:
        return _memory[key]
    path = cache_dir() / f"{key}.npz"
    if path.exists():
        try:
            with np.load(path, allow_pickle=False) as z:
                target = Target(Mesh.checked(z["vertices"], z["triangles"]), json.loads(str(z["stats"])))
            _memory[key] = target
            return target
        except Exception:  # noqa: BLE001 - a corrupt entry is recomputed below
            pass
    raw = execute([{"code": gold, "snap": None}], gold, "result", tol)
    if raw.meta.get("error") or not raw.meta.get("final") or "vfinal" not in raw.arrays:
        detail = raw.meta.get("error") or raw.killed or ("timed out" if raw.timed_out else "no geometry")
        raise InfraError(f"the gold script of this part failed in the CAD worker: {detail}")
    mesh = Mesh.checked(raw.arrays["vfinal"], raw.arrays["tfinal"])
    stats = {k: raw.meta["final"].get(k) for k in ("faces", "edges", "solids", "valid")}
    target = Target(mesh, stats)
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.savez_compressed(buf, vertices=mesh.vertices, triangles=mesh.triangles, stats=np.array(json.dumps(stats)))
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(buf.getvalue())
    os.replace(tmp, path)
    _memory[key] = target
    return target
