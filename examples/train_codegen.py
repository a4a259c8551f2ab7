"""Train a tiny model on CodeGen-v0's generated easy tasks: SFT warm start, then GRPO.

The learner knows nothing of CodeGen: this script binds the family's task generator to an
env and hands the env to :class:`codegym.learner.trainer.Trainer`.

    .venv/bin/python examples/train_codegen.py                       # GRPO, seed 0
    .venv/bin/python examples/train_codegen.py algorithm=bot_grpo steps=40 seed=1

Prints the held-out pass rate before and after RL; writes metrics.jsonl and metrics.png
under ``out_dir`` (default ``runs/codegen``).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import gymnasium as gym

import codegym  # noqa: F401 - registers CodeGen-v0
from codegym.envs.codegen.generate import generate_tasks
from codegym.learner.config import LearnerConfig
from codegym.learner.trainer import Trainer

# The recipe of the learning proof (tests/slow/test_learner_proof.py): sized for 2 CPU cores.
RECIPE: dict[str, Any] = dict(
    model="tiny", tiny_layers=4, tiny_hidden=128, tiny_heads=4, vocab_size=1024,
    sft_steps=250, sft_batch_size=32, sft_learning_rate=2e-3,
    steps=40, num_generations=8, tasks_per_step=4, max_new_tokens=40, temperature=1.0,
    learning_rate=5e-5, eval_tasks=64, train_split="train", eval_split="test", out_dir="runs/codegen",
)


def make_env(n_train: int = 300, n_test: int = 64, seed: int = 0, **env_kwargs: Any) -> gym.Env:
    """CodeGen-v0 over ``n_train`` generated easy train tasks and ``n_test`` held-out ones."""
    tasks = generate_tasks(n_train, seed, "easy", "train") + generate_tasks(n_test, seed, "easy", "test")
    return gym.make("CodeGen-v0", tasks=tasks, **env_kwargs)


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
