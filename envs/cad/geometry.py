"""Host-side geometry: meshes from the worker, surface sampling, distances, F1/IoU, views.

Everything here runs in the grader's process on plain numpy arrays that the sandboxed
worker exported, so nothing the attempt's code did can reach the metric: volume, bounding
box and closedness are recomputed from the triangles, never taken from the worker's word.

Metric (all distances in units of the target's largest bounding-box side ``s``):

* ``P`` = ``n`` points sampled on the attempt's surface, ``Q`` = ``n`` on the target's
  (area-weighted, seeded: the same seed gives the same points);
* ``scale_mode="unit_cube"``: both parts are first centred on their bounding-box centre
  and divided by their own largest side (position and size do not matter); ``"true"``:
  both are kept where they are (a moved or resized part scores lower);
* ``d(x, B)`` = distance from ``x`` to the nearest point of surface ``B``'s *triangles*
  (:class:`Surface`), so two tessellations of one solid are 0 apart; never the distance
  to the other part's samples, which are a sample spacing (about ``tau``) apart even on
  the same surface;
* ``chamfer = (mean_p d(p, B) + mean_q d(q, A)) / 2``;
  ``hausdorff = max(max_p d(p, B), max_q d(q, A))`` (over the samples, exact);
* ``precision = |{p : d(p, B) < tau}| / n``, ``recall = |{q : d(q, A) < tau}| / n``,
  ``f1 = 2 PR / (P + R)``;
* ``iou`` = volume intersection over union along a ``grid^2`` lattice of z-rays over both
  parts in the same frame (:func:`ray_iou`: exact along each ray), only when both meshes
  are closed (watertight); else None.
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


class Surface:
    """A triangle surface indexed for point-to-surface distances.

    Why not the distance to the nearest *sample* of the other surface: two samplings of one
    surface are a sample spacing apart (about 1.3 mm at 8,192 points on a bracket), as
    large as ``tau``, so an exact part built another way (other triangles, so other
    samples) lost ~6% of its score. Here a point's distance is to the nearest *triangle*:
    0 on the same surface, whatever either tessellation.

    How: triangles are bisected until no edge is longer than ``h`` (the grader passes
    ``h = tau``), so every point of a triangle is within ``rho < 2h/3`` of its centroid.
    A point's distance ``d`` is its exact distance to the nearest of the triangles whose
    centroids are its ``K`` nearest. Never below the true distance ``d0``; and the
    triangle holding the nearest surface point has its centroid within ``d0 + rho``, so
    either it is a candidate (``d = d0``) or ``K`` centroids are nearer than that, each on
    its own triangle: ``d0 <= d <= d0 + rho``. So a point within ``tau - rho`` (over a third
    of ``tau``) of the surface always counts as a hit, and a different tessellation of the
    same surface (a few thousandths of the part size apart) scores as the same surface.
    """

    K = 8

    def __init__(self, corners: np.ndarray, h: float) -> None:
        """``corners``: (m, 3, 3) triangles (in the frame the distances are wanted in)."""
        c = corners[_areas(corners) > 0]
        self.corners = _bisect(c, h) if len(c) else np.zeros((1, 3, 3))
        centroids = self.corners.mean(axis=1)
        arm = self.corners - centroids[:, None]
        self.rho = float(np.sqrt(np.einsum("ijk,ijk->ij", arm, arm).max()))
        # An unbalanced tree builds several times faster and queries about as fast here.
        self.tree = cKDTree(centroids, balanced_tree=False, compact_nodes=False)

    def distance(self, points: np.ndarray) -> np.ndarray:
        """(n,) distance from each point to the surface (accuracy in the class docstring)."""
        k = min(self.K, len(self.corners))
        idx = self.tree.query(points, k=k)[1].reshape(-1)
        tri = self.corners[idx]
        d = _point_triangle(np.repeat(points, k, axis=0), tri[:, 0], tri[:, 1], tri[:, 2])
        return d.reshape(-1, k).min(axis=1)

    def largest(self, points: np.ndarray, d: np.ndarray, slack: float = 0.0) -> float:
        """The largest distance to the surface over ``points``, given their :meth:`distance` ``d``.

        ``d`` is an upper bound, so the points are made exact in decreasing order of ``d``
        (every triangle with a centroid within ``d + rho``) until the largest exact value
        is at least the bound of the next point, or that bound is below ``slack``: a
        sampled Hausdorff distance that one overestimated point cannot inflate, exact or
        at most ``slack``.
        """
        order = np.argsort(-d)
        m, best = 16, 0.0
        while True:
            top = order[:m]
            lists = self.tree.query_ball_point(points[top], d[top] + self.rho)
            counts = np.array([len(x) for x in lists])
            cand = np.concatenate([np.asarray(x, dtype=np.int64) for x in lists])
            tri = self.corners[cand]
            exact = _point_triangle(np.repeat(points[top], counts, axis=0), tri[:, 0], tri[:, 1], tri[:, 2])
            best = float(np.minimum.reduceat(exact, np.cumsum(counts) - counts).max())
            if m >= len(order) or best >= d[order[m]] or d[order[m]] <= slack:
                return best
            m *= 4


def _areas(c: np.ndarray) -> np.ndarray:
    return 0.5 * np.linalg.norm(np.cross(c[:, 1] - c[:, 0], c[:, 2] - c[:, 0]), axis=1)


def _bisect(c: np.ndarray, h: float) -> np.ndarray:
    """Split triangles at the midpoint of their longest edge until no edge exceeds ``h``."""
    done = []
    while len(c):
        edge = c[:, [1, 2, 0]] - c  # edge i runs from corner i to corner i + 1
        sq = np.einsum("ijk,ijk->ij", edge, edge)
        longest = sq.argmax(axis=1)
        small = sq[np.arange(len(c)), longest] <= h * h
        done.append(c[small])
        c, i = c[~small], longest[~small]
        rows = np.arange(len(c))
        p0, p1, p2 = c[rows, i], c[rows, (i + 1) % 3], c[rows, (i + 2) % 3]
        mid = (p0 + p1) / 2
        c = np.concatenate([np.stack([p0, mid, p2], axis=1), np.stack([mid, p1, p2], axis=1)])
    return np.concatenate(done)


def _point_triangle(p: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """(m,) distance from ``p[i]`` to triangle ``(a[i], b[i], c[i])``.

    The closest point ``a + v (b - a) + w (c - a)`` by Voronoi region of the triangle
    (Ericson, *Real-Time Collision Detection*, 5.1.5), vectorised: later regions overrule
    earlier ones, in the book's order reversed.
    """
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = _dot(ab, ap), _dot(ac, ap)
    d3, d4 = _dot(ab, p - b), _dot(ac, p - b)
    d5, d6 = _dot(ab, p - c), _dot(ac, p - c)
    va, vb, vc = d3 * d6 - d5 * d4, d5 * d2 - d1 * d6, d1 * d4 - d3 * d2
    den = va + vb + vc
    v, w = _div(vb, den), _div(vc, den)  # inside the face
    regions = [
        ((va <= 0) & (d4 >= d3) & (d5 >= d6), None, _div(d4 - d3, (d4 - d3) + (d5 - d6))),  # edge bc
        ((vb <= 0) & (d2 >= 0) & (d6 <= 0), 0.0, _div(d2, d2 - d6)),  # edge ac
        ((vc <= 0) & (d1 >= 0) & (d3 <= 0), _div(d1, d1 - d3), 0.0),  # edge ab
        ((d6 >= 0) & (d5 <= d6), 0.0, 1.0),  # corner c
        ((d3 >= 0) & (d4 <= d3), 1.0, 0.0),  # corner b
        ((d1 <= 0) & (d2 <= 0), 0.0, 0.0),  # corner a
    ]
    for mask, rv, rw in regions:
        v = np.where(mask, 1.0 - rw if rv is None else rv, v)
        w = np.where(mask, rw, w)
    r = ap - ab * v[:, None] - ac * w[:, None]
    return np.sqrt(_dot(r, r))


def _dot(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", x, y)


def _div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return x / np.where(y == 0, 1.0, y)


def compare(d_at: np.ndarray, d_ta: np.ndarray, tau: float, hausdorff: float) -> dict[str, float]:
    """Chamfer, precision, recall and F1 from the two directions' point-to-surface distances."""
    precision = float((d_at < tau).mean())
    recall = float((d_ta < tau).mean())
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return {
        "chamfer": float((d_at.mean() + d_ta.mean()) / 2.0),
        "hausdorff": hausdorff,
        "precision": precision,
        "recall": recall,
        "f1": f1,
    }


def ray_iou(a: np.ndarray, b: np.ndarray, grid: int = 128) -> float:
    """Volume IoU of two closed triangle soups ``a``, ``b`` ((m, 3, 3), one frame).

    ``grid^2`` rays along z over both parts' xy box; along each ray the inside intervals
    of each part come from its sorted surface crossings, and the lengths of their
    intersection and union are exact. So two tessellations of one solid agree on every ray
    (IoU 1 up to the tessellation's own deviation), and only the xy sampling of the rays
    approximates. A ray with an odd number of crossings (it grazed an edge) is skipped.
    """
    both = np.concatenate([a, b]).reshape(-1, 3)
    lo, hi = both[:, :2].min(axis=0), both[:, :2].max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    # Irrational offsets keep the rays off triangle edges and vertices.
    xs, ys = (lo[i] + span[i] * (np.arange(grid) + 0.5 + 0.0137 * (i + 1) * math.sqrt(2)) / grid for i in range(2))
    ray_a, z_a = _crossings(a, xs, ys)
    ray_b, z_b = _crossings(b, xs, ys)
    odd = (np.bincount(ray_a, minlength=grid * grid) % 2 == 1) | (np.bincount(ray_b, minlength=grid * grid) % 2 == 1)
    ray = np.concatenate([ray_a, ray_b])
    z = np.concatenate([z_a, z_b])
    is_a = np.concatenate([np.ones(len(z_a), bool), np.zeros(len(z_b), bool)])
    keep = ~odd[ray]
    ray, z, is_a = ray[keep], z[keep], is_a[keep]
    order = np.lexsort((z, ray))
    ray, z, is_a = ray[order], z[order], is_a[order]
    if len(z) < 2:
        return 0.0
    # Inside a part just after a crossing: an odd number of its crossings so far on this ray.
    first = np.r_[True, ray[1:] != ray[:-1]]
    start = np.flatnonzero(first)
    seg = np.repeat(start, np.diff(np.r_[start, len(ray)]))
    cum_a, cum_b = np.cumsum(is_a), np.cumsum(~is_a)
    in_a = (cum_a - (cum_a[seg] - is_a[seg])) % 2 == 1
    in_b = (cum_b - (cum_b[seg] - ~is_a[seg])) % 2 == 1
    gap = np.diff(z)
    same = ray[1:] == ray[:-1]
    inter = float(gap[same & in_a[:-1] & in_b[:-1]].sum())
    union = float(gap[same & (in_a[:-1] | in_b[:-1])].sum())
    return inter / union if union > 0 else 0.0


def _crossings(tri: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ray index ``ix * g + iy``, z) of every crossing of the z-rays at ``(xs[ix], ys[iy])`` with ``tri``."""
    g = len(xs)
    sx, sy = (xs[1] - xs[0], ys[1] - ys[0]) if g > 1 else (1.0, 1.0)
    # Candidate (triangle, ray) pairs, row by row: the rays of each row of the lattice that
    # lie within the triangle's x-range on that row (one ray of slack either side; the
    # barycentric test below decides). A bounding box would pair a long diagonal sliver
    # with every ray of its box.
    ylo, yhi = tri[:, :, 1].min(axis=1), tri[:, :, 1].max(axis=1)
    j0 = np.clip(np.ceil((ylo - ys[0]) / sy), 0, g).astype(np.int64)
    j1 = np.clip(np.floor((yhi - ys[0]) / sy), -1, g - 1).astype(np.int64)
    ti, iy = _expand(np.arange(len(tri)), j0, np.maximum(j1 - j0 + 1, 0))
    t = tri[ti]
    xa, ya, xb, yb = t[:, :, 0], t[:, :, 1], t[:, [1, 2, 0], 0], t[:, [1, 2, 0], 1]
    dy = yb - ya
    u = (ys[iy][:, None] - ya) / np.where(dy == 0, 1.0, dy)
    spans = (dy != 0) & (u >= 0) & (u <= 1)
    xe = xa + u * (xb - xa)
    xmin, xmax = np.where(spans, xe, np.inf).min(axis=1), np.where(spans, xe, -np.inf).max(axis=1)
    ok = np.isfinite(xmin)
    i0 = np.zeros(len(t), np.int64)
    i1 = np.full(len(t), -1, np.int64)
    i0[ok] = np.clip(np.ceil((xmin[ok] - xs[0]) / sx) - 1, 0, g)
    i1[ok] = np.clip(np.floor((xmax[ok] - xs[0]) / sx) + 1, -1, g - 1)
    row, ix = _expand(np.arange(len(t)), i0, np.maximum(i1 - i0 + 1, 0))
    ti, iy = ti[row], iy[row]
    px, py = xs[ix], ys[iy]
    t = tri[ti]
    x0, y0, x1, y1, x2, y2 = t[:, 0, 0], t[:, 0, 1], t[:, 1, 0], t[:, 1, 1], t[:, 2, 0], t[:, 2, 1]
    det = (y1 - y2) * (x0 - x2) + (x2 - x1) * (y0 - y2)
    safe = np.where(np.abs(det) > 1e-18, det, 1.0)
    l0 = ((y1 - y2) * (px - x2) + (x2 - x1) * (py - y2)) / safe
    l1 = ((y2 - y0) * (px - x2) + (x0 - x2) * (py - y2)) / safe
    l2 = 1 - l0 - l1
    hit = (np.abs(det) > 1e-18) & (l0 >= 0) & (l1 >= 0) & (l2 >= 0)
    ray, z = (ix * g + iy)[hit], (l0 * t[:, 0, 2] + l1 * t[:, 1, 2] + l2 * t[:, 2, 2])[hit]
    # A ray through an edge shared by two triangles crosses once, not twice.
    order = np.lexsort((z, ray))
    ray, z = ray[order], z[order]
    dup = np.r_[False, (ray[1:] == ray[:-1]) & (np.diff(z) <= 1e-9 * max(float(np.ptp(tri[:, :, 2])), 1e-12))]
    return ray[~dup], z[~dup]


def _expand(item: np.ndarray, first: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(item[i], first[i] + j)`` for ``j < count[i]``, for every ``i``."""
    rep = np.repeat(item, count)
    local = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    return rep, np.repeat(first, count) + local


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
