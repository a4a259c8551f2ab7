"""Image similarity of a render to its target, and its fast update along a render sequence.

The similarity is a fixed combination of two standard measures (both in ``[0, 1]`` for
identical-size RGB ``uint8`` images, 1 meaning identical)::

    ssim        = SSIM of the grey-level images (scikit-image defaults: 7x7 uniform window,
                  K1=0.01, K2=0.03, data_range=255, sample covariance)
    l2          = 1 - RMSE(render, target) / 255        (over all pixels and RGB channels)
    similarity  = SSIM_WEIGHT * ssim + (1 - SSIM_WEIGHT) * l2

SSIM sees structure (edges, shapes) and L2 sees colour, which grey-level SSIM cannot.

A render-progress reward scores many renders that differ from the previous one only where
the new element was drawn. :class:`SimilarityTracker` keeps the SSIM map of the previous
render and recomputes it only inside the changed box (plus the window's reach), so a long
sequence costs what its changed pixels cost; :func:`ssim_reference` is the plain
scikit-image call that the tests hold the tracker to.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.ndimage import uniform_filter
from skimage.metrics import structural_similarity

#: Weight of SSIM in the similarity; the rest goes to the L2 term.
SSIM_WEIGHT = 0.5
_WIN = 7
_PAD = (_WIN - 1) // 2
_C1 = (0.01 * 255) ** 2
_C2 = (0.03 * 255) ** 2
_COV_NORM = _WIN * _WIN / (_WIN * _WIN - 1.0)
_GREY = np.array([0.299, 0.587, 0.114])


@dataclass(frozen=True)
class Similarity:
    """How close one render is to the target.

    Attributes:
        ssim: grey-level SSIM.
        l2: ``1 - RMSE / 255`` over RGB.
        value: the combined similarity (module docstring).

    """

    ssim: float
    l2: float

    @property
    def value(self) -> float:
        """``SSIM_WEIGHT * ssim + (1 - SSIM_WEIGHT) * l2``."""
        return SSIM_WEIGHT * self.ssim + (1.0 - SSIM_WEIGHT) * self.l2


def grey(image: np.ndarray) -> np.ndarray:
    """Grey level (float64, ITU-R 601 weights) of an ``(H, W, 3)`` uint8 image."""
    return image.astype(np.float64) @ _GREY


def ssim_reference(render: np.ndarray, target: np.ndarray) -> float:
    """Grey-level SSIM computed by scikit-image directly (the definition)."""
    return float(structural_similarity(grey(render), grey(target), data_range=255))


def l2_similarity(render: np.ndarray, target: np.ndarray) -> float:
    """``1 - RMSE / 255`` over all pixels and channels."""
    diff = render.astype(np.float64) - target.astype(np.float64)
    return float(1.0 - np.sqrt(np.mean(diff * diff)) / 255.0)


def similarity(render: np.ndarray, target: np.ndarray) -> Similarity:
    """The similarity of one render to the target (module docstring)."""
    return Similarity(ssim_reference(render, target), l2_similarity(render, target))


class SimilarityTracker:
    """Scores a sequence of renders of one target, recomputing SSIM only where they changed.

    Args:
        target: the ``(H, W, 3)`` uint8 target image (at least 7x7).

    """

    def __init__(self, target: np.ndarray) -> None:
        self.target = target
        self._ty = grey(target)
        # Target-side local statistics never change: computed once on the whole image.
        self._uy = uniform_filter(self._ty, _WIN)
        self._uyy = uniform_filter(self._ty * self._ty, _WIN)
        self._target_f = target.astype(np.float64)
        self._sq: np.ndarray | None = None  # per-pixel squared error summed over channels
        self._prev: np.ndarray | None = None
        self._prev_grey: np.ndarray | None = None
        self._smap: np.ndarray | None = None
        self._last = Similarity(0.0, 0.0)

    def score(self, render: np.ndarray) -> Similarity:
        """Similarity of ``render``; cheap when it differs from the last scored render in a small box."""
        if self._prev is None or self._prev.shape != render.shape:
            self._prev_grey = grey(render)
            self._smap = self._ssim_map(self._prev_grey, (0, render.shape[0]), (0, render.shape[1]))
            diff = render.astype(np.float64) - self._target_f
            self._sq = np.einsum("hwc,hwc->hw", diff, diff)
        else:
            # The changed box; reductions run along contiguous rows (an any() over the
            # channel axis is ~15x slower and was most of the grading time).
            h, w = render.shape[:2]
            changed = np.not_equal(render, self._prev).reshape(h, -1)
            rows = np.flatnonzero(changed.any(axis=1))
            if rows.size == 0:
                return self._last
            r0, r1 = int(rows[0]), int(rows[-1]) + 1
            cols = np.flatnonzero(changed[r0:r1].any(axis=0).reshape(w, -1).any(axis=1))
            c0, c1 = int(cols[0]), int(cols[-1]) + 1
            assert self._prev_grey is not None and self._smap is not None and self._sq is not None
            patch = render[r0:r1, c0:c1]
            self._prev_grey[r0:r1, c0:c1] = grey(patch)
            self._update_ssim((r0, r1, c0, c1))
            diff = patch.astype(np.float64) - self._target_f[r0:r1, c0:c1]
            self._sq[r0:r1, c0:c1] = np.einsum("hwc,hwc->hw", diff, diff)
        self._prev = render.copy()
        assert self._smap is not None and self._sq is not None
        mssim = float(self._smap[_PAD:-_PAD, _PAD:-_PAD].mean(dtype=np.float64))
        l2 = float(1.0 - np.sqrt(self._sq.sum() / self._sq.size / 3) / 255.0)
        self._last = Similarity(mssim, l2)
        return self._last

    def _update_ssim(self, box: tuple[int, int, int, int]) -> None:
        h, w = self._ty.shape
        r0, r1, c0, c1 = box
        # S changes within the window's reach of the changed box; computing it needs the
        # window's reach again around that (filters use 'reflect' at the image border, so
        # clamping at the border gives the same values as the whole-image filter).
        out_r = (max(0, r0 - _PAD), min(h, r1 + _PAD))
        out_c = (max(0, c0 - _PAD), min(w, c1 + _PAD))
        in_r = (max(0, r0 - 2 * _PAD), min(h, r1 + 2 * _PAD))
        in_c = (max(0, c0 - 2 * _PAD), min(w, c1 + 2 * _PAD))
        assert self._prev_grey is not None and self._smap is not None
        sub = self._ssim_map(self._prev_grey[in_r[0] : in_r[1], in_c[0] : in_c[1]], in_r, in_c)
        self._smap[out_r[0] : out_r[1], out_c[0] : out_c[1]] = sub[
            out_r[0] - in_r[0] : out_r[1] - in_r[0], out_c[0] - in_c[0] : out_c[1] - in_c[0]
        ]

    def _ssim_map(self, x: np.ndarray, rows: tuple[int, int], cols: tuple[int, int]) -> np.ndarray:
        """scikit-image's SSIM map formula over a window of the image (rows, cols of it)."""
        y = self._ty[rows[0] : rows[1], cols[0] : cols[1]]
        ux = uniform_filter(x, _WIN)
        uy = self._uy[rows[0] : rows[1], cols[0] : cols[1]]
        uxx = uniform_filter(x * x, _WIN)
        uyy = self._uyy[rows[0] : rows[1], cols[0] : cols[1]]
        uxy = uniform_filter(x * y, _WIN)
        vx = _COV_NORM * (uxx - ux * ux)
        vy = _COV_NORM * (uyy - uy * uy)
        vxy = _COV_NORM * (uxy - ux * uy)
        a1, a2 = 2 * ux * uy + _C1, 2 * vxy + _C2
        b1, b2 = ux**2 + uy**2 + _C1, vx + vy + _C2
        return (a1 * a2) / (b1 * b2)
