"""Render-progress reward: ours (one pass over all prefixes) against rendering each prefix alone.

Workloads: a 100-element SVG and a 30-command TikZ picture, each scored against a target
(the finished drawing, so every prefix moves the similarity). Timed: the whole progress
reward (render every prefix + similarity of every prefix + spans).

* SVG ours: one sandboxed worker process draws the elements one by one on one cairo
  surface, reading pixels between them; similarity updated incrementally.
  Baselines: (a) every closed prefix rendered by its own sandboxed process (what a grader
  that calls the renderer per prefix does); (b) every prefix rendered from scratch by
  cairosvg.svg2png inside ONE sandboxed process, PNG decoded, similarity by scikit-image
  (isolates the one-surface trick from the process start-up).
* TikZ ours: one pdflatex run with a page per prefix, one pdftoppm call.
  Baseline: one pdflatex run + one pdftoppm call per prefix.

Run: ``.venv/bin/python bench/render_progress.py [--quick]``. Goals: >= 10x (SVG), >= 5x (TikZ).
"""

from __future__ import annotations

import argparse
import json
import random
import time

import numpy as np
from codegym.envs.image2code import generate
from codegym.envs.image2code.grading import grade_render
from codegym.envs.image2code.render import RenderResult, install_worker, render_svg, render_svg_naive
from codegym.envs.image2code.similarity import similarity
from codegym.envs.image2code.svgsplit import annotate, split_svg
from codegym.envs.image2code.tasks import default_cache_dir
from codegym.envs.image2code.tikz import render_tikz, render_tikz_naive, split_tikz, tex_stage

from codegym.sandbox import create

SIZE = (256, 256)

IN_PROCESS_NAIVE = r"""
import io, json, sys
import cairosvg, numpy as np
from PIL import Image
prefixes = json.load(open(sys.argv[1]))
out = []
for p in prefixes:
    png = cairosvg.svg2png(bytestring=p.encode(), output_width=256, output_height=256, background_color="white")
    out.append(np.asarray(Image.open(io.BytesIO(png)).convert("RGB")))
np.save("naive.npy", np.stack(out))
"""

# Inside one process, after the imports: our one-surface drawing of every prefix against
# cairosvg.svg2png of every closed prefix (PNG encoded and decoded), both timed in-process.
IN_PROCESS_DRAW_ONLY = r"""
import io, json, sys, time
import cairosvg, numpy as np
from PIL import Image
import svg_worker
job, prefixes = json.load(open("job.json")), json.load(open("prefixes.json"))
frames = []
t = time.perf_counter()
def keep(k, img, grouped):  # to an RGB array, as the host does with the raw frames
    frames.append(np.frombuffer(img, np.uint8).reshape(256, -1, 4)[:, :256, 2::-1].copy())
svg_worker.render(job["doc"], (256, 256), keep)
ours = time.perf_counter() - t
t = time.perf_counter()
for p in prefixes:
    png = cairosvg.svg2png(bytestring=p.encode(), output_width=256, output_height=256, background_color="white")
    np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
naive = time.perf_counter() - t
print(json.dumps({"ours": ours, "naive": naive, "frames": len(frames)}))
"""


def scene_of(n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    return [generate._random_shape(rng) for _ in range(n)]


def progress_reward(result: RenderResult, target: np.ndarray, code: str) -> float:
    outcome, _ = grade_render(result, target, code, 0)
    return sum(v for _, _, v in outcome.token_rewards)


def naive_progress(frames: list[np.ndarray | None], target: np.ndarray) -> list[float]:
    blank = np.full_like(target, 255)
    prev = s_blank = similarity(blank, target).value
    values = []
    for f in frames:
        cur = prev if f is None else similarity(f, target).value
        values.append((cur - prev) / (1.0 - s_blank))  # the same units as our spans
        prev = cur
    return values


def timed(fn, repeat: int = 1):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def bench_svg(n: int, repeat: int) -> dict:
    code = generate.to_svg(scene_of(n))
    assert len(split_svg(code)) == n
    with create(timeout_s=600, memory_mb=2048) as sb:
        install_worker(sb)
        target = render_svg(sb, code, SIZE, progress=False).final
        assert target is not None
        t_ours, (res, total) = timed(
            lambda: (r := render_svg(sb, code, SIZE), progress_reward(r, target, code)), repeat
        )
        t_render_only, _ = timed(lambda: render_svg(sb, code, SIZE), repeat)
        t_naive_proc, frames = timed(lambda: render_svg_naive(sb, code, SIZE))
        t_naive_proc_sim, naive_values = timed(lambda: naive_progress(frames, target))
        prefixes = [code[: e.end] + e.closers for e in split_svg(code)]
        sb.write_file("naive.py", IN_PROCESS_NAIVE)
        sb.write_file("prefixes.json", json.dumps(prefixes))

        def in_process():
            r = sb.run(["python3", "naive.py", "prefixes.json"], timeout=600)
            assert r.ok, r.stderr[-500:]
            import io

            return list(np.load(io.BytesIO(sb.read_file("naive.npy"))))

        t_naive_one, frames_one = timed(in_process)
        t_naive_one_sim, _ = timed(lambda: naive_progress(frames_one, target))
        doc, spans = annotate(code, split_svg(code))
        sb.write_file("job.json", json.dumps({"doc": doc, "spans": spans}))
        sb.write_file("draw_only.py", IN_PROCESS_DRAW_ONLY)
        draw = json.loads(sb.run(["python3", "draw_only.py"], timeout=600).stdout.strip().splitlines()[-1])
    same = all(a is not None and np.array_equal(a, b) for a, b in zip(res.frames, frames, strict=True))
    t_naive_a = t_naive_proc + t_naive_proc_sim
    t_naive_b = t_naive_one + t_naive_one_sim
    return {
        "elements": n,
        "ours_s": t_ours,
        "ours_render_s": t_render_only,
        "naive_per_process_s": t_naive_a,
        "naive_one_process_s": t_naive_b,
        "ratio_per_process": t_naive_a / t_ours,
        "ratio_one_process": t_naive_b / t_ours,
        "renders_per_s_ours": n / t_ours,
        "renders_per_s_naive_per_process": n / t_naive_a,
        "renders_per_s_naive_one_process": n / t_naive_b,
        "frames_identical": same,
        "sum_spans": total,
        "sum_naive": sum(naive_values),
        "draw_only_ours_s": draw["ours"],
        "draw_only_naive_s": draw["naive"],
        "draw_only_ratio": draw["naive"] / draw["ours"],
    }


def bench_tikz(n: int, repeat: int) -> dict:
    code = generate.to_tikz(scene_of(n, seed=1))
    assert len(split_tikz(code)) == n
    with create(timeout_s=600, workdir_from=tex_stage(default_cache_dir())) as sb:
        target = render_tikz(sb, code, SIZE, progress=False).final
        assert target is not None
        t_ours, (res, total) = timed(
            lambda: (r := render_tikz(sb, code, SIZE), progress_reward(r, target, code)), repeat
        )
        t_naive, frames = timed(lambda: render_tikz_naive(sb, code, SIZE))
        t_naive_sim, naive_values = timed(lambda: naive_progress(frames, target))
    same = all(a is not None and np.array_equal(a, b) for a, b in zip(res.frames, frames, strict=True))
    t_b = t_naive + t_naive_sim
    return {
        "commands": n,
        "ours_s": t_ours,
        "naive_s": t_b,
        "ratio": t_b / t_ours,
        "renders_per_s_ours": n / t_ours,
        "renders_per_s_naive": n / t_b,
        "frames_identical": same,
        "sum_spans": total,
        "sum_naive": sum(naive_values),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller workloads (20 SVG elements, 8 TikZ commands)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of our path (best is kept)")
    args = parser.parse_args()
    n_svg, n_tikz = (20, 8) if args.quick else (100, 30)
    svg = bench_svg(n_svg, args.repeat)
    print(
        f"SVG  {svg['elements']} elements: ours {svg['ours_s']:.3f}s (render {svg['ours_render_s']:.3f}s) | "
        f"each prefix own process {svg['naive_per_process_s']:.2f}s -> {svg['ratio_per_process']:.1f}x | "
        f"each prefix from scratch in one process {svg['naive_one_process_s']:.2f}s -> {svg['ratio_one_process']:.1f}x"
    )
    print(
        f"     renders/s: ours {svg['renders_per_s_ours']:.0f}, "
        f"per-process {svg['renders_per_s_naive_per_process']:.1f}, "
        f"one-process {svg['renders_per_s_naive_one_process']:.0f}; frames identical: {svg['frames_identical']}; "
        f"sum of spans {svg['sum_spans']:.4f}"
    )
    print(
        f"     in-process drawing only (after imports): ours {svg['draw_only_ours_s']:.3f}s, "
        f"svg2png per prefix {svg['draw_only_naive_s']:.3f}s -> {svg['draw_only_ratio']:.1f}x"
    )
    tikz = bench_tikz(n_tikz, args.repeat)
    print(
        f"TikZ {tikz['commands']} commands: ours {tikz['ours_s']:.3f}s | each prefix its own LaTeX run "
        f"{tikz['naive_s']:.2f}s -> {tikz['ratio']:.1f}x"
    )
    print(
        f"     renders/s: ours {tikz['renders_per_s_ours']:.1f}, naive {tikz['renders_per_s_naive']:.1f}; "
        f"frames identical: {tikz['frames_identical']}; sum of spans {tikz['sum_spans']:.4f}"
    )
    print(json.dumps({"svg": svg, "tikz": tikz}, default=float))


if __name__ == "__main__":
    main()
