"""BoT-GRPO with CodeGen's token rewards against GRPO with the sequence reward.

Both start from the same SFT warm start (made once here), see the same tasks in the same order
(same seed), and run the same number of steps; the only difference is the advantage:
GRPO broadcasts the group-normalised sequence reward, BoT-GRPO normalises per-token rewards
(sequence reward + CodeGen's Ochiai fault-localisation spans) against the length-weighted
group statistics. Reports the steps each needs for the moving-average train reward to reach
a threshold, and draws both curves on one plot.

    PYTHONPATH=. .venv/bin/python examples/train_bot_vs_grpo.py [steps=25] [seed=0] [threshold=0.4]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from codegym.learner.config import LearnerConfig  # noqa: E402
from codegym.learner.plots import plot_curves  # noqa: E402
from codegym.learner.trainer import Trainer  # noqa: E402
from train_codegen import RECIPE, make_env  # noqa: E402


def moving_average(xs: list[float], window: int = 5) -> list[float]:
    """Trailing mean over ``window`` steps."""
    return [sum(xs[max(0, i - window + 1) : i + 1]) / len(xs[max(0, i - window + 1) : i + 1]) for i in range(len(xs))]


def steps_to(curve: list[float], threshold: float) -> int | None:
    """First step (1-based) at which ``curve`` reaches ``threshold``; None if never."""
    return next((i + 1 for i, v in enumerate(curve) if v >= threshold), None)


def compare(
    steps: int = 25, seed: int = 0, threshold: float = 0.4, out_dir: str = "runs/bot_vs_grpo", **overrides: Any
) -> dict[str, Any]:
    """Run the comparison; returns curves, steps to threshold and the plot path."""
    out = Path(out_dir)
    base = {**RECIPE, "seed": seed, "progress": False, "eval_every": 0, **overrides}
    env = make_env(seed=seed)
    try:
        sft = Trainer(LearnerConfig(**{**base, "steps": 0, "out_dir": str(out / "sft")}), env=env)
        sft.warm_start()
        sft.save()
        result: dict[str, Any] = {"threshold": threshold, "seed": seed, "steps": steps}
        curves = {}
        for algo in ("grpo", "bot_grpo"):
            cfg = LearnerConfig(
                **{
                    **base,
                    "model": str(out / "sft" / "checkpoint"),
                    "sft_steps": 0,
                    "steps": steps,
                    "algorithm": algo,
                    "out_dir": str(out / algo),
                }
            )
            run = Trainer(cfg, env=env).train()
            rewards = [r["reward"] for r in run["history"]]
            ma = moving_average(rewards)
            curves[algo] = (list(range(1, len(ma) + 1)), ma)
            result[algo] = {
                "steps_to_threshold": steps_to(ma, threshold),
                "rewards": rewards,
                "final_ma_reward": ma[-1],
                "first_ma_reward": ma[0],
                "heldout_before": run["before"],
                "heldout_after": run["after"],
            }
        result["plot"] = str(
            plot_curves(
                curves,
                out / "bot_vs_grpo.png",
                f"CodeGen-v0 easy, seed {seed}: train reward (moving avg, 5 steps)",
                "reward",
                threshold,
            )
        )
    finally:
        env.close()
    return result


if __name__ == "__main__":
    args = dict(a.split("=", 1) for a in sys.argv[1:])
    res = compare(
        steps=int(args.pop("steps", 25)),
        seed=int(args.pop("seed", 0)),
        threshold=float(args.pop("threshold", 0.4)),
        out_dir=args.pop("out_dir", "runs/bot_vs_grpo"),
    )
    Path(res["plot"]).with_suffix(".json").write_text(json.dumps(res, indent=2))
    print(json.dumps(res, indent=2))
