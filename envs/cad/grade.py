"""Scoring one executed attempt against its target: metrics, reward, step spans, feedback.

Pure functions of the meshes the worker exported and the cached target (see
:mod:`.geometry` for the metric definitions and :class:`TextToCADEnv` for the reward).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .geometry import Mesh, compare, frame, sample_surface, voxel_iou
from .targets import Target

#: Weights of the reward: F1, the Chamfer score 1 / (1 + (chamfer / tau)^2), and volume IoU.
W_F1, W_CD, W_IOU = 0.6, 0.2, 0.2


def reward_from(f1: float, cd_score: float, iou: float | None) -> float:
    """``0.6 f1 + 0.2 chamfer_score + 0.2 iou``; without an IoU its weight goes to F1."""
    return W_F1 * f1 + W_CD * cd_score + W_IOU * (f1 if iou is None else iou)


@dataclass
class Scorer:
    """Scores meshes against one target under fixed settings; caches the target's points.

    Args:
        target: the reference geometry.
        scale_mode: ``"unit_cube"`` or ``"true"`` (see :mod:`.geometry`).
        n_points: points sampled on each surface.
        tau: F1 distance threshold, in units of the target's size.
        seed: sampling seed (the same for attempt and target).
        iou_grid: voxels per side for the volume IoU.
    """

    target: Target
    scale_mode: str
    n_points: int = 8192
    tau: float = 0.02
    seed: int = 0
    iou_grid: int = 40
    timing: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        lo, hi = self.target.mesh.bbox()
        self.size = max(float((hi - lo).max()), 1e-12)
        self.t_frame = frame(lo, hi, self.scale_mode, self.size)
        pts, _ = sample_surface(self.target.mesh, self.n_points, self.seed)
        self.t_points = (pts - self.t_frame[0]) / self.t_frame[1]
        self.t_closed = self.target.mesh.is_closed()

    def _tick(self, name: str, since: float) -> float:
        now = time.perf_counter()
        self.timing[name] = self.timing.get(name, 0.0) + now - since
        return now

    def score(self, mesh: Mesh, with_iou: bool = True) -> dict[str, Any]:
        """Metrics and reward of ``mesh``: f1, precision, recall, chamfer, cd_score, iou, reward."""
        t0 = time.perf_counter()
        lo, hi = mesh.bbox()
        a_frame = frame(lo, hi, self.scale_mode, self.size)
        pts, _ = sample_surface(mesh, self.n_points, self.seed)
        pts = (pts - a_frame[0]) / a_frame[1]
        t0 = self._tick("sampling", t0)
        m: dict[str, Any] = compare(pts, self.t_points, self.tau)
        # A soft score: sampling noise alone (different samples of the same surface, about a
        # tenth of tau) costs ~1%, a Chamfer distance of tau halves it.
        m["cd_score"] = 1.0 / (1.0 + (m["chamfer"] / self.tau) ** 2)
        m["iou"] = None
        if with_iou and self.t_closed and mesh.is_closed():
            m["iou"] = voxel_iou(mesh, self.target.mesh, a_frame, self.t_frame, self.iou_grid)
        m["reward"] = reward_from(m["f1"], m["cd_score"], m["iou"])
        self._tick("metric", t0)
        return m


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
