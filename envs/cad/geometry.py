"""Host-side geometry: meshes from the worker, surface sampling, Chamfer/F1/IoU, views.

Everything here runs in the grader's process on plain numpy arrays that the sandboxed
worker exported, so nothing the attempt's code did can reach the metric: volume, bounding
box and closedness are recomputed from the triangles, never taken from the worker's word.

Metric (all distances in units of the target's largest bounding-box side ``s``):

* ``P`` = ``n`` points sampled on the attempt's surface, ``Q`` = ``n`` on the target's
  (area-weighted, seeded: the same seed gives the same points);
* ``scale_mode="unit_cube"``: both point sets are first centred on their bounding-box
  centre and divided by their own largest side (position and size do not matter);
  ``"true"``: both are kept where they are (a moved or resized part scores lower);
* ``d(x, Y)`` = distance from ``x`` to the nearest point of ``Y``;
* ``chamfer = (mean_p d(p, Q) + mean_q d(q, P)) / 2``;
* ``precision = |{p : d(p, Q) < tau}| / n``, ``recall = |{q : d(q, P) < tau}| / n``,
  ``f1 = 2 PR / (P + R)``;
* ``iou`` = volume intersection over union on a ``grid^3`` voxel grid over both parts in
  the same frame, only when both meshes are closed (watertight); else None.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.spatial import cKDTree

SCALE_MODES = ("unit_cube", "true")
MAX_TRIANGLES = 2_000_000


@dataclass(frozen=True)
class Mesh:
    """A triangle mesh: ``vertices`` (n, 3) float64 and ``triangles`` (m, 3) int64."""

    vertices: np.ndarray
    triangles: np.ndarray

    @classmethod
    def checked(cls, vertices: Any, triangles: Any) -> Mesh:
        """A mesh from untrusted arrays; raises ValueError on anything malformed."""
        v = np.asarray(vertices, dtype=np.float64)
        t = np.asarray(triangles, dtype=np.int64)
        if v.ndim != 2 or v.shape[1] != 3 or t.ndim != 2 or t.shape[1] != 3:
            raise ValueError(f"expected vertices (n, 3) and triangles (m, 3), got {v.shape} and {t.shape}")
        if len(t) > MAX_TRIANGLES:
            raise ValueError(f"mesh has {len(t)} triangles; at most {MAX_TRIANGLES} are graded")
        if not np.isfinite(v).all():
            raise ValueError("mesh has non-finite vertex coordinates")
        if len(t) and (t.min() < 0 or t.max() >= len(v)):
            raise ValueError("mesh triangles index vertices that do not exist")
        return cls(v, t)

    @property
    def empty(self) -> bool:
        """No triangle of positive area."""
        return len(self.triangles) == 0 or float(self.areas().sum()) <= 0.0

    def corners(self) -> np.ndarray:
        """(m, 3, 3): the three corners of each triangle."""
        return self.vertices[self.triangles]

    def areas(self) -> np.ndarray:
        """(m,) triangle areas."""
        c = self.corners()
        return 0.5 * np.linalg.norm(np.cross(c[:, 1] - c[:, 0], c[:, 2] - c[:, 0]), axis=1)

    def bbox(self) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi) corners of the bounding box of the used vertices."""
        used = self.vertices[np.unique(self.triangles)] if len(self.triangles) else self.vertices
        if len(used) == 0:
            return np.zeros(3), np.zeros(3)
        return used.min(axis=0), used.max(axis=0)

    def volume(self) -> float:
        """Enclosed volume by the divergence theorem (meaningful for closed meshes)."""
        c = self.corners()
        return float(abs(np.einsum("ij,ij->i", c[:, 0], np.cross(c[:, 1], c[:, 2])).sum()) / 6.0)

    def is_closed(self) -> bool:
        """Watertight: after welding coincident vertices every edge has exactly two triangles."""
        if self.empty:
            return False
        lo, hi = self.bbox()
        step = max(float((hi - lo).max()), 1e-12) * 1e-7
        keys = np.round((self.vertices - lo) / step).astype(np.int64)
        _, weld = np.unique(keys, axis=0, return_inverse=True)
        t = weld.reshape(-1)[self.triangles]
        t = t[(t[:, 0] != t[:, 1]) & (t[:, 1] != t[:, 2]) & (t[:, 0] != t[:, 2])]
        edges = np.sort(np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]]), axis=1)
        _, counts = np.unique(edges, axis=0, return_counts=True)
        return bool(len(counts)) and bool((counts == 2).all())

    def to_bytes(self) -> bytes:
        """Compact ``.npz`` bytes (for the target cache)."""
        buf = io.BytesIO()
        np.savez_compressed(buf, vertices=self.vertices, triangles=self.triangles)
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> Mesh:
        """Inverse of :meth:`to_bytes`; never unpickles."""
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            return cls.checked(z["vertices"], z["triangles"])


def sample_surface(mesh: Mesh, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points area-weighted on the surface, and their unit normals; seeded."""
    rng = np.random.default_rng(seed)
    areas = mesh.areas()
    cdf = np.cumsum(areas)
    idx = np.searchsorted(cdf, rng.random(n) * cdf[-1], side="right").clip(0, len(areas) - 1)
    r1, r2 = rng.random(n), rng.random(n)
    s = np.sqrt(r1)
    c = mesh.corners()[idx]
    pts = (1 - s)[:, None] * c[:, 0] + (s * (1 - r2))[:, None] * c[:, 1] + (s * r2)[:, None] * c[:, 2]
    nrm = np.cross(c[:, 1] - c[:, 0], c[:, 2] - c[:, 0])
    nrm /= np.maximum(np.linalg.norm(nrm, axis=1, keepdims=True), 1e-30)
    return pts, nrm


def frame(lo: np.ndarray, hi: np.ndarray, scale_mode: str, ref_size: float) -> tuple[np.ndarray, float]:
    """(centre, size) that :func:`normalise` divides by, per ``scale_mode``."""
    if scale_mode == "unit_cube":
        return (lo + hi) / 2.0, max(float((hi - lo).max()), 1e-12)
    return np.zeros(3), max(ref_size, 1e-12)


def compare(attempt: np.ndarray, target: np.ndarray, tau: float) -> dict[str, float]:
    """Chamfer, precision, recall and F1 between two normalised point sets (module docstring)."""
    d_at = cKDTree(target).query(attempt, k=1)[0]
    d_ta = cKDTree(attempt).query(target, k=1)[0]
    precision = float((d_at < tau).mean())
    recall = float((d_ta < tau).mean())
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return {
        "chamfer": float((d_at.mean() + d_ta.mean()) / 2.0),
        "precision": precision,
        "recall": recall,
        "f1": f1,
    }


def voxel_iou(
    a: Mesh, b: Mesh, a_frame: tuple[np.ndarray, float], b_frame: tuple[np.ndarray, float], grid: int = 40
) -> float:
    """Volume IoU of two closed meshes (each mapped by its frame) on a ``grid^3`` lattice."""
    va = (a.vertices - a_frame[0]) / a_frame[1]
    vb = (b.vertices - b_frame[0]) / b_frame[1]
    lo = np.minimum(va.min(axis=0), vb.min(axis=0))
    hi = np.maximum(va.max(axis=0), vb.max(axis=0))
    span = np.maximum(hi - lo, 1e-9)
    # Irrational offsets keep lattice rays off triangle edges and vertices (parity stays exact).
    ticks = [lo[i] + span[i] * (np.arange(grid) + 0.5 + 0.0137 * (i + 1) * math.sqrt(2)) / grid for i in range(3)]
    ina = _inside(va[a.triangles], ticks)
    inb = _inside(vb[b.triangles], ticks)
    union = np.logical_or(ina, inb).sum()
    return float(np.logical_and(ina, inb).sum() / union) if union else 0.0


def _inside(tri: np.ndarray, ticks: list[np.ndarray]) -> np.ndarray:
    """(g, g, g) booleans: lattice points inside the closed mesh ``tri`` (ray parity along z)."""
    xs, ys, zs = ticks
    g = len(xs)
    # Candidate (triangle, ray) pairs: only the lattice rays inside each triangle's xy box.
    lo, hi = tri[:, :, :2].min(axis=1), tri[:, :, :2].max(axis=1)
    step = np.array([xs[1] - xs[0], ys[1] - ys[0]]) if g > 1 else np.ones(2)
    origin = np.array([xs[0], ys[0]])
    i0 = np.clip(np.ceil((lo - origin) / step), 0, g).astype(np.int64)
    i1 = np.clip(np.floor((hi - origin) / step), -1, g - 1).astype(np.int64)
    n = np.maximum(i1 - i0 + 1, 0)
    count = n[:, 0] * n[:, 1]
    ti = np.repeat(np.arange(len(tri)), count)
    local = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    ix = i0[ti, 0] + local // np.maximum(n[ti, 1], 1)
    iy = i0[ti, 1] + local % np.maximum(n[ti, 1], 1)
    px, py = xs[ix], ys[iy]
    t = tri[ti]
    x0, y0, x1, y1, x2, y2 = t[:, 0, 0], t[:, 0, 1], t[:, 1, 0], t[:, 1, 1], t[:, 2, 0], t[:, 2, 1]
    det = (y1 - y2) * (x0 - x2) + (x2 - x1) * (y0 - y2)
    safe = np.where(np.abs(det) > 1e-18, det, 1.0)
    l0 = ((y1 - y2) * (px - x2) + (x2 - x1) * (py - y2)) / safe
    l1 = ((y2 - y0) * (px - x2) + (x0 - x2) * (py - y2)) / safe
    l2 = 1 - l0 - l1
    hit = (np.abs(det) > 1e-18) & (l0 >= 0) & (l1 >= 0) & (l2 >= 0)
    ray = (ix * g + iy)[hit]
    z = (l0 * t[:, 0, 2] + l1 * t[:, 1, 2] + l2 * t[:, 2, 2])[hit]
    # A lattice point is inside when an odd number of surface crossings lie below it.
    below = np.stack([np.bincount(ray[z < zk], minlength=g * g) for zk in zs], axis=1)
    return (below % 2 == 1).reshape(g, g, len(zs))


# ---------------------------------------------------------------------- views
VIEWS = {
    # name: rows of a rotation taking model coordinates to (right, up, towards viewer)
    "front": np.array([[1.0, 0, 0], [0, 0, 1], [0, -1, 0]]),
    "top": np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1]]),
    "iso": None,
}


def _iso() -> np.ndarray:
    view = np.array([1.0, -1.0, 1.0]) / math.sqrt(3)
    right = np.array([1.0, 1.0, 0.0]) / math.sqrt(2)
    up = np.cross(view, right)
    return np.stack([right, up, view])


def _rotate(x: np.ndarray, rot: np.ndarray) -> np.ndarray:
    """``x @ rot.T`` without BLAS (its thread pool is slow for (n, 3) x (3, 3) on busy machines)."""
    return x[:, :1] * rot[:, 0] + x[:, 1:2] * rot[:, 1] + x[:, 2:] * rot[:, 2]


def render_views(mesh: Mesh | None, size: int = 128) -> dict[str, np.ndarray]:
    """Three shaded views (front, top, iso) of ``mesh`` as (size, size, 3) uint8 images.

    A dense seeded point splat with a z-buffer: deterministic, numpy only, and enough to
    see holes, steps and fillets. A missing or empty mesh gives blank views.
    """
    views: dict[str, np.ndarray] = {}
    blank = np.full((size, size, 3), 235, dtype=np.uint8)
    if mesh is None or mesh.empty:
        return {name: blank.copy() for name in VIEWS}
    pts, nrm = sample_surface(mesh, 6 * size * size, seed=12345)
    lo, hi = mesh.bbox()
    centre = (lo + hi) / 2
    light = np.array([0.3, 0.5, 0.81])
    for name, rot in VIEWS.items():
        rot = _iso() if rot is None else rot
        p = _rotate(pts - centre, rot)
        extent = max(float(np.abs(p[:, :2]).max()), 1e-12) * 1.1
        px = ((p[:, 0] / extent + 1) / 2 * (size - 1)).round().astype(np.int64)
        py = ((1 - (p[:, 1] / extent + 1) / 2) * (size - 1)).round().astype(np.int64)
        pix = py * size + px
        # z-buffer: keep, per pixel, the points nearest the viewer (largest depth coordinate)
        zbuf = np.full(size * size, -np.inf)
        np.maximum.at(zbuf, pix, p[:, 2])
        front = p[:, 2] >= zbuf[pix]
        shade = 0.25 + 0.75 * np.abs((_rotate(nrm[front], rot) * light).sum(axis=1))
        img = blank.copy()
        colour = np.stack([shade * 70, shade * 130, shade * 200], axis=1)
        img.reshape(-1, 3)[pix[front]] = colour.clip(0, 255).astype(np.uint8)
        views[name] = img
    return views


def png_bytes(image: np.ndarray) -> bytes:
    """Encode an RGB array as PNG (deterministic)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(image).save(buf, format="PNG")
    return buf.getvalue()
