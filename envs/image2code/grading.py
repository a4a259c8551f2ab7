"""Grading of one render: final reward and render-progress token spans (pure functions).

Notation (per element ``k = 1..n`` of the action, in document order):

* ``s_blank``: similarity of a blank white canvas to the target;
* ``s_k``: similarity of the render of prefix ``k`` (elements ``1..k`` without the failed
  ones); for a failed element ``s_k = s_{k-1}`` (it adds nothing to the picture);
* ``D = max(1 - s_blank, 1e-6)``: the similarity left to gain over a blank canvas;
* ``progress(img) = (sim(img) - s_blank) / D``: 0 for a blank canvas, 1 for a perfect one.

Token spans: element ``k`` gets ``v_k = (s_k - s_{k-1}) / D - fail_penalty * [k failed]``
(with ``s_0 = s_blank``) over its characters. When the final render differs from the last
prefix (text after the last element changed the picture), that difference goes to the
text after it. So the spans telescope::

    sum_k v_k = progress(final) - fail_penalty * n_failed

Reward: ``clip(progress(final), 0, 1) - length_weight * length_term`` with
``length_term = min(1, max(0, len(code) / len(reference) - 1))`` (0 when no reference or
``length_weight`` is 0). A program that does not compile (any element failing counts: the
real renderer would fail) earns the floor 0 with the renderer's error as feedback; its
spans still carry the progress of the prefixes that did render.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from codegym.core.info import Outcome

from .render import RenderResult
from .similarity import Similarity, SimilarityTracker


def blank_canvas(shape: tuple[int, ...]) -> np.ndarray:
    """A white canvas of ``shape``."""
    return np.full(shape, 255, dtype=np.uint8)


def line_of(code: str, offset: int) -> int:
    """1-based line number of ``offset`` in ``code``."""
    return code.count("\n", 0, offset) + 1


def grade_render(
    render: RenderResult,
    target: np.ndarray,
    code: str,
    code_offset: int,
    *,
    reference_length: int | None = None,
    length_weight: float = 0.0,
    fail_penalty: float = 0.05,
) -> tuple[Outcome, np.ndarray]:
    """Score a render against the target (module docstring).

    Args:
        render: what the renderer made of ``code``.
        target: the ``(H, W, 3)`` target.
        code: the extracted program.
        code_offset: offset of ``code`` in the action (spans are over the action).
        reference_length: length of the reference program, for the length term.
        length_weight: weight of the length term (0 turns it off).
        fail_penalty: value given to each failed element's span, in reward units.

    Returns:
        The outcome and the image to show as the current render.

    """
    tracker = SimilarityTracker(target)
    s_blank = tracker.score(blank_canvas(target.shape))
    denom = max(1.0 - s_blank.value, 1e-6)
    spans: list[tuple[int, int, float]] = []
    prev, prev_img = s_blank, blank_canvas(target.shape)
    per_element: list[float] = []
    for k, (start, end) in enumerate(render.spans):
        img = render.frames[k] if k < len(render.frames) else None
        failed = img is None or k in render.failed
        cur = prev if img is None or failed else tracker.score(img)
        value = (cur.value - prev.value) / denom - (fail_penalty if failed else 0.0)
        per_element.append(value)
        if end > start:
            spans.append((code_offset + start, code_offset + end, value))
        if img is not None and not failed:
            prev, prev_img = cur, img
    final = render.final
    compiled = final is not None and not render.error and not render.failed
    shown = final if final is not None else prev_img
    if compiled and final is not None:
        s_final = tracker.score(final)
        tail = (s_final.value - prev.value) / denom
        if tail != 0.0:
            tail_start = render.spans[-1][1] if render.spans else 0
            if tail_start < len(code):
                spans.append((code_offset + tail_start, code_offset + len(code), tail))
            elif spans:
                s, e, v = spans[-1]
                spans[-1] = (s, e, v + tail)
    else:
        s_final = prev
    progress = (s_final.value - s_blank.value) / denom
    length_term = 0.0
    if length_weight and reference_length:
        length_term = min(1.0, max(0.0, len(code) / reference_length - 1.0))
    reward = float(np.clip(progress, 0.0, 1.0) - length_weight * length_term) if compiled else 0.0
    components = {
        "compile": float(compiled),
        "render_similarity": s_final.value if compiled else 0.0,
        "ssim": s_final.ssim if compiled else 0.0,
        "l2_similarity": s_final.l2 if compiled else 0.0,
        "progress": float(progress) if compiled else 0.0,
        "length_penalty": -length_weight * length_term,
    }
    verdict: dict[str, Any] = {
        "compiled": compiled,
        "similarity": round(s_final.value, 6),
        "blank_similarity": round(s_blank.value, 6),
        "elements": len(render.spans),
        "failed_elements": [
            {"index": k, "line": line_of(code, render.spans[k][0]), "message": msg[:300]}
            for k, msg in sorted(render.failed.items())
            if k < len(render.spans)
        ],
        "error": render.error,
        "timed_out": render.timed_out,
        "oom": render.oom,
    }
    feedback = _feedback(render, code, compiled, s_final, progress, per_element)
    return Outcome(reward, components, feedback, spans, verdict), shown


def _feedback(
    render: RenderResult, code: str, compiled: bool, sim: Similarity, progress: float, per_element: list[float]
) -> str:
    lines = []
    if not compiled:
        error = render.error
        if not error and render.failed:
            k = min(render.failed)
            error = f"line {line_of(code, render.spans[k][0])}: {render.failed[k]}"
        lines.append(f"The program does not render: {error or 'no image was produced'}")
    else:
        lines.append(
            f"Rendered. Similarity to the target {sim.value:.3f} (SSIM {sim.ssim:.3f}, "
            f"pixel L2 {sim.l2:.3f}); progress over a blank canvas {progress:.3f}."
        )
    lines.append(f"{len(render.spans)} drawing elements found.")
    for k, msg in sorted(render.failed.items())[:5]:
        if k < len(render.spans):
            lines.append(f"- element {k + 1} (line {line_of(code, render.spans[k][0])}) failed: {msg[:200]}")
    worst = sorted((v, k) for k, v in enumerate(per_element) if k not in render.failed and v < -0.005)[:3]
    for v, k in worst:
        lines.append(
            f"- element {k + 1} (line {line_of(code, render.spans[k][0])}) moved the render away "
            f"from the target ({v:+.3f})"
        )
    return "\n".join(lines)
