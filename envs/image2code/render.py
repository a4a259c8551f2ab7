"""Sandboxed renderers: the result type both share, and the SVG renderer.

Every render runs inside a :mod:`codegym.sandbox` sandbox with time and memory limits; the
host only writes the job, runs one command and reads back raw pixels. The SVG renderer
runs :mod:`svg_worker` (cairosvg) once per grading, which draws every prefix of the
document on one surface; :func:`render_svg_naive` renders each closed prefix on its own and
exists for the benchmark and the tests that hold the fast path to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from codegym.errors import InfraError
from codegym.sandbox import Sandbox

from .svgsplit import annotate, split_svg

WORKER = Path(__file__).with_name("svg_worker.py")
WORKER_NAME = "svg_worker.py"
#: Progress frames a render keeps at most (each is the whole canvas); see svg_worker.py.
MAX_FRAMES = 256


@dataclass
class RenderResult:
    """What a renderer made of one program.

    Attributes:
        spans: character span ``(start, end)`` of each element in the rendered code.
        frames: per element, the render of the prefix ending with it (failed elements
            excluded from it and later prefixes), or None when that element failed.
        final: the render of the whole program, or None when it did not compile.
        error: the renderer's error for the whole program (line and message), or "".
        failed: element index -> the renderer's message for elements that failed.
        timed_out: the render hit its time limit.
        oom: the render hit its memory limit.
        mode: how the prefixes were made (``incremental``, ``pages``, ``prefix``...).

    """

    spans: list[tuple[int, int]]
    frames: list[np.ndarray | None]
    final: np.ndarray | None
    error: str = ""
    failed: dict[int, str] = field(default_factory=dict)
    timed_out: bool = False
    oom: bool = False
    mode: str = ""


def _limit_error(res, what: str) -> str:
    if res.timed_out:
        return f"{what} hit the time limit (the program takes too long to render)"
    if res.oom_killed:
        return f"{what} hit the memory limit"
    return ""


def install_worker(sandbox: Sandbox) -> None:
    """Put the SVG worker script into the sandbox's work dir."""
    sandbox.write_file(WORKER_NAME, WORKER.read_text(encoding="utf-8"))


def render_svg(
    sandbox: Sandbox, code: str, size: tuple[int, int], *, progress: bool = True, timeout: float | None = None
) -> RenderResult:
    """Render ``code`` and (with ``progress``) every element prefix in one sandboxed process.

    Args:
        sandbox: a sandbox holding the worker (:func:`install_worker`).
        code: the SVG source.
        size: output ``(width, height)`` in pixels.
        progress: also render each element's prefix (False: only the final image).
        timeout: seconds for the whole render (None: the sandbox's limit).

    Raises:
        InfraError: the worker broke without the document being the cause.

    """
    elements = split_svg(code)
    doc, spans = annotate(code, elements)
    open_tags = elements[0].open_tags if elements else []
    job = {
        "doc": doc,
        "spans": spans,
        "open_tags": open_tags,
        "size": list(size),
        "progress": progress,
        "max_frames": MAX_FRAMES,
    }
    sandbox.write_file("job.json", json.dumps(job))
    res = sandbox.run(["python3", WORKER_NAME, "job.json"], timeout=timeout)
    plain_spans = [(e.start, e.end) for e in elements]
    limit = _limit_error(res, "the SVG render")
    if limit:
        return RenderResult(
            plain_spans, [None] * len(elements), None, limit, timed_out=res.timed_out, oom=res.oom_killed, mode="killed"
        )
    try:
        report = json.loads(res.stdout.strip().splitlines()[-1])
        frames = _frames(sandbox.read_file("frames.raw"), report["geometry"])
    except (ValueError, IndexError, OSError) as exc:
        raise InfraError(f"the SVG render worker failed (exit {res.exit_code}): {res.stderr[-400:]}") from exc

    def frame(i: int | None) -> np.ndarray | None:
        return None if i is None or i < 0 else frames[i]

    per: list[np.ndarray | None] = []
    failed = {int(k): v for k, v in report["failed"].items()}
    last = None
    for k, i in enumerate(report["frames"]):
        if k in failed:
            per.append(None)
            continue
        img = frame(i)
        if img is None:  # never drawn (display:none, ...): the canvas did not change
            img = last
        per.append(img)
        last = img if img is not None else last
    return RenderResult(plain_spans, per, frame(report["final"]), report["final_error"], failed, mode=report["mode"])


def _frames(raw: bytes, geometry: dict[str, int]) -> np.ndarray:
    """The worker's raw frames (cairo BGRA rows, opaque) as ``(n, H, W, 3)`` RGB."""
    w, h, stride = geometry["width"], geometry["height"], geometry["stride"]
    if not raw or not stride:
        return np.zeros((0, h, w, 3), np.uint8)
    data = np.frombuffer(raw, np.uint8).reshape(-1, h, stride // 4, 4)
    return np.ascontiguousarray(data[:, :, :w, 2::-1])  # BGRA -> RGB (opaque: premultiplied = straight)


def render_svg_naive(
    sandbox: Sandbox, code: str, size: tuple[int, int], timeout: float | None = None
) -> list[np.ndarray | None]:
    """Baseline: render each closed prefix from scratch, one sandboxed process per prefix.

    Returns the render of each prefix (None where it failed).
    """
    out: list[np.ndarray | None] = []
    for e in split_svg(code):
        prefix = code[: e.end] + e.closers
        out.append(render_svg(sandbox, prefix, size, progress=False, timeout=timeout).final)
    return out
