"""Train a tiny model on CodeGen-v0's generated easy tasks: SFT warm start, then GRPO.

The learner knows nothing of CodeGen: this script binds the family's task generator to an
env and hands the env to :class:`codegym.learner.trainer.Trainer`. Three disjoint sets of
functions (see :func:`make_tasks`): the warm start imitates the gold of ``sft``; GRPO learns
from rewards alone on ``train`` functions it never saw; ``test`` is held out.

    PYTHONPATH=. .venv/bin/python examples/train_codegen.py                  # GRPO, seed 0
    PYTHONPATH=. .venv/bin/python examples/train_codegen.py algorithm=bot_grpo seed=1

Prints the held-out pass rate before and after RL (greedy, and pass@1 from 4 samples);
writes metrics.jsonl and metrics.png under ``out_dir`` (default ``runs/codegen``).
Seed 0 on the shared 2-core CPU (1.9 minutes): held-out greedy pass rate 0.60 -> 0.675,
sampled pass@1 0.39 -> 0.49 after 30 GRPO steps (seed 1: 0.50 -> 0.575, 0.27 -> 0.36).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import gymnasium as gym
from codegym.envs.codegen.generate import generate_tasks
from codegym.learner.config import LearnerConfig
from codegym.learner.trainer import Trainer

import codegym  # noqa: F401 - registers CodeGen-v0

# The recipe of the learning proof (tests/slow/test_learner_proof.py): sized for 2 CPU cores.
RECIPE: dict[str, Any] = dict(
    model="tiny",
    tiny_layers=4,
    tiny_hidden=128,
    tiny_heads=4,
    vocab_size=1024,
    sft_split="sft",
    sft_steps=200,
    sft_batch_size=16,
    sft_learning_rate=2e-3,
    steps=30,
    num_generations=8,
    tasks_per_step=4,
    max_new_tokens=40,
    temperature=1.0,
    learning_rate=2e-4,
    eval_tasks=40,
    eval_samples=4,
    eval_every=10,
    train_split="train",
    eval_split="test",
    out_dir="runs/codegen",
)


def make_tasks(seed: int = 0, n_rl: int = 55, n_test: int = 40) -> list[dict[str, Any]]:
    """CodeGen easy tasks in three disjoint sets of functions: ``sft``, ``train`` (RL), ``test``.

    The easy space holds 185 distinct functions (template x constant). The warm start imitates
    the gold of the ``sft`` set; GRPO then trains, from rewards only, on ``train`` functions
    the model never saw; the held-out ``test`` functions are new (template, constant)
    combinations of skills seen in training. (CodeGen's own ``split="test"`` uses constants
    that never occur in training, which a model whose tokenizer and embeddings were built from
    the training text cannot write.)
    """
    import random

    pool: dict[str, dict[str, Any]] = {}
    for s in range(6):
        for t in generate_tasks(500, s, "easy", "train"):
            pool.setdefault(t["gold"], t)
    funcs = sorted(pool)
    random.Random(seed).shuffle(funcs)
    with_constant = [f for f in funcs if any(ch.isdigit() for ch in f)]
    test = with_constant[:n_test]
    rl = with_constant[n_test : n_test + n_rl]
    out = []
    for split, chosen in (("test", test), ("train", rl), ("sft", [f for f in funcs if f not in test + rl])):
        out += [{**pool[f], "id": f"{split}-{k}", "split": split} for k, f in enumerate(chosen)]
    return out


def make_env(seed: int = 0, **env_kwargs: Any) -> gym.Env:
    """CodeGen-v0 over :func:`make_tasks`."""
    # A generous per-test timeout: on a loaded 2-core machine the default 4 s made correct
    # attempts time out now and then, which showed up as noise in held-out pass rates.
    env_kwargs.setdefault("timeout", 15.0)
    return gym.make("CodeGen-v0", tasks=make_tasks(seed), **env_kwargs)


def main(argv: list[str]) -> dict[str, Any]:
    cfg = LearnerConfig.from_dict(RECIPE, argv)
    env = make_env(seed=cfg.seed)
    try:
        trainer = Trainer(cfg, env=env)
        trainer.warm_start()
        result = trainer.train()
    finally:
        env.close()
    print(json.dumps({k: result[k] for k in ("before", "after", "plot", "parameters")}, indent=2))
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
