"""PNG plots of a run's metrics (reward, pass rate, length, KL, entropy, clip fraction)."""

from __future__ import annotations

import json
from pathlib import Path

PANELS = ("reward", "pass_rate", "length", "kl", "entropy", "clip_frac")


def read_metrics(path: str | Path) -> list[dict]:
    """Records of a ``metrics.jsonl`` file."""
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def plot_run(metrics_path: str | Path, out_png: str | Path) -> Path:
    """Draw one panel per metric against the step (held-out evals as points)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    recs = read_metrics(metrics_path)
    train = [r for r in recs if r.get("kind") == "train"]
    evals = [r for r in recs if r.get("kind") == "eval"]
    fig, axes = plt.subplots(2, 3, figsize=(12, 6))
    for ax, name in zip(axes.flat, PANELS, strict=True):
        xs = [r["step"] for r in train if name in r]
        ax.plot(xs, [r[name] for r in train if name in r], label="train")
        if name in ("reward", "pass_rate"):
            ax.plot([r["step"] for r in evals], [r[name] for r in evals], "o-", label="held-out (greedy)")
            sampled = [r for r in evals if f"sampled_{name}" in r]
            if sampled:
                ax.plot(
                    [r["step"] for r in sampled],
                    [r[f"sampled_{name}"] for r in sampled],
                    "s--",
                    label="held-out (sampled)",
                )
            ax.legend()
        ax.set_title(name)
        ax.set_xlabel("step")
    fig.tight_layout()
    out_png = Path(out_png)
    fig.savefig(out_png, dpi=80)
    plt.close(fig)
    return out_png


def plot_curves(
    curves: dict[str, tuple[list[float], list[float]]],
    out_png: str | Path,
    title: str,
    ylabel: str,
    threshold: float | None = None,
) -> Path:
    """Several labelled ``(x, y)`` curves on one plot (used by the learning proofs)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for label, (xs, ys) in curves.items():
        ax.plot(xs, ys, label=label)
    if threshold is not None:
        ax.axhline(threshold, ls="--", c="gray", label=f"threshold {threshold}")
    ax.set_title(title)
    ax.set_xlabel("step")
    ax.set_ylabel(ylabel)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out_png, dpi=80)
    plt.close(fig)
    return Path(out_png)
