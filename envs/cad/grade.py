"""Scoring one executed attempt against its target: metrics, reward, step spans, feedback.

Pure functions of the meshes the worker exported and the cached target (see
:mod:`.geometry` for the metric definitions and :class:`TextToCADEnv` for the reward).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .geometry import Mesh, Surface, compare, frame, ray_iou, sample_surface
from .targets import Target

#: Weights of the reward: F1, the Chamfer and Hausdorff scores ``1 / (1 + (dist / tau)^2)``,
#: and volume IoU. Chosen on the 104 bundled parts (issue 28): every exact part built
#: another way scores >= 0.997, and making the dimension that sets a part's size 5% too
#: large scores <= 0.85 (F1, Chamfer and IoU move little when one face moves; the
#: Hausdorff distance is the displacement itself).
W_F1, W_CD, W_HD, W_IOU = 0.4, 0.1, 0.3, 0.2


def reward_from(f1: float, cd_score: float, hd_score: float, iou: float | None) -> float:
    """``0.4 f1 + 0.1 chamfer_score + 0.3 hausdorff_score + 0.2 iou``; without an IoU its weight goes to F1."""
    return W_F1 * f1 + W_CD * cd_score + W_HD * hd_score + W_IOU * (f1 if iou is None else iou)


@dataclass
class Scorer:
    """Scores meshes against one target under fixed settings; caches the target's points.

    Args:
        target: the reference geometry.
        scale_mode: ``"unit_cube"`` or ``"true"`` (see :mod:`.geometry`).
        n_points: points sampled on each surface.
        tau: F1 distance threshold, in units of the target's size.
        seed: sampling seed (the same for attempt and target).
        iou_grid: rays per side for the volume IoU (see :func:`.geometry.ray_iou`).
    """

    target: Target
    scale_mode: str
    n_points: int = 8192
    tau: float = 0.02
    seed: int = 0
    iou_grid: int = 128
    timing: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        lo, hi = self.target.mesh.bbox()
        self.size = max(float((hi - lo).max()), 1e-12)
        self.t_frame = frame(lo, hi, self.scale_mode, self.size)
        pts, _ = sample_surface(self.target.mesh, self.n_points, self.seed)
        self.t_points = (pts - self.t_frame[0]) / self.t_frame[1]
        self.t_corners = (self.target.mesh.corners() - self.t_frame[0]) / self.t_frame[1]
        self.t_surface = Surface(self.t_corners, self.tau)
        self.t_closed = self.target.mesh.is_closed()

    def _tick(self, name: str, since: float) -> float:
        now = time.perf_counter()
        self.timing[name] = self.timing.get(name, 0.0) + now - since
        return now

    def score(self, mesh: Mesh, with_iou: bool = True) -> dict[str, Any]:
        """Metrics and reward of ``mesh``: f1, precision, recall, chamfer, hausdorff, cd/hd_score, iou, reward."""
        t0 = time.perf_counter()
        lo, hi = mesh.bbox()
        a_frame = frame(lo, hi, self.scale_mode, self.size)
        pts, _ = sample_surface(mesh, self.n_points, self.seed)
        pts = (pts - a_frame[0]) / a_frame[1]
        corners = (mesh.corners() - a_frame[0]) / a_frame[1]
        t0 = self._tick("sampling", t0)
        a_surface = Surface(corners, self.tau)
        d_at = self.t_surface.distance(pts)
        d_ta = a_surface.distance(self.t_points)
        # Exact, or below tau / 100 (where it costs the Hausdorff score under 0.01%).
        slack = self.tau / 100
        hausdorff = max(self.t_surface.largest(pts, d_at, slack), a_surface.largest(self.t_points, d_ta, slack))
        m: dict[str, Any] = compare(d_at, d_ta, self.tau, hausdorff)
        m["cd_score"] = 1.0 / (1.0 + (m["chamfer"] / self.tau) ** 2)
        m["hd_score"] = 1.0 / (1.0 + (hausdorff / self.tau) ** 2)
        m["iou"] = None
        if with_iou and self.t_closed and mesh.is_closed():
            m["iou"] = ray_iou(corners, self.t_corners, self.iou_grid)
        m["reward"] = reward_from(m["f1"], m["cd_score"], m["hd_score"], m["iou"])
        self._tick("metric", t0)
        return m

    def f1(self, mesh: Mesh) -> float:
        """Only the F1 of ``mesh`` (what a token-reward step span gets): no Hausdorff, no IoU."""
        t0 = time.perf_counter()
        lo, hi = mesh.bbox()
        a_frame = frame(lo, hi, self.scale_mode, self.size)
        pts = (sample_surface(mesh, self.n_points, self.seed)[0] - a_frame[0]) / a_frame[1]
        a_surface = Surface((mesh.corners() - a_frame[0]) / a_frame[1], self.tau)
        d_at, d_ta = self.t_surface.distance(pts), a_surface.distance(self.t_points)
        self._tick("metric", t0)
        return compare(d_at, d_ta, self.tau, 0.0)["f1"]


def describe(mesh: Mesh, stats: dict[str, Any]) -> dict[str, Any]:
    """Bounding box, volume and B-rep counts of a part (JSON-friendly, rounded)."""
    lo, hi = mesh.bbox()
    return {
        "bbox_min": [round(float(x), 3) for x in lo],
        "bbox_size": [round(float(x), 3) for x in hi - lo],
        "volume": round(mesh.volume(), 2),
        "closed": mesh.is_closed(),
        "faces": _count(stats.get("faces")),
        "edges": _count(stats.get("edges")),
        "solids": _count(stats.get("solids")),
    }


def _count(x: Any) -> int | None:
    return int(x) if isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 10**9 else None


def comparison_text(
    mine: dict[str, Any], target: dict[str, Any], metrics: dict[str, Any], tau: float, scale_mode: str
) -> str:
    """The table a model reads after a successful run: its part against the target."""

    def vec(v: list[float]) -> str:
        return " x ".join(f"{x:g}" for x in v)

    rows = [
        ("bbox size", vec(mine["bbox_size"]), vec(target["bbox_size"])),
        ("bbox min corner", vec(mine["bbox_min"]), vec(target["bbox_min"])),
        ("volume", f"{mine['volume']:g}", f"{target['volume']:g}"),
        ("solids", str(mine["solids"]), str(target["solids"])),
        ("faces", str(mine["faces"]), str(target["faces"])),
        ("edges", str(mine["edges"]), str(target["edges"])),
    ]
    lines = [f"{'':16} {'yours':>24} {'target':>24}"]
    lines += [f"{name:16} {a:>24} {b:>24}" for name, a, b in rows]
    iou = "n/a (a part is not closed)" if metrics["iou"] is None else f"{metrics['iou']:.3f}"
    lines.append(
        f"geometry ({scale_mode} scale): F1 {metrics['f1']:.3f} (precision {metrics['precision']:.3f}, "
        f"recall {metrics['recall']:.3f} at {tau:g} of the part size), Chamfer {metrics['chamfer']:.4f}, "
        f"Hausdorff {metrics['hausdorff']:.4f}, "
        f"volume IoU {iou}; score {metrics['reward']:.3f}"
    )
    return "\n".join(lines)


def step_spans(snap_scores: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    """Spans ``(start, end, f1 - previous f1)`` from each scored step's span and F1 (from 0)."""
    spans, prev = [], 0.0
    for start, end, f1 in snap_scores:
        delta = f1 - prev
        prev = f1
        if end > start and delta != 0.0:
            spans.append((start, end, float(np.round(delta, 6))))
    return spans
