"""``codegym validate``: the full repeated gold check over every bundled task.

For each task of each env: gold earns full reward in ``runs`` runs that agree, and an
empty attempt earns the floor. CI runs a seeded sample of this; the full sweep is this
command (quoted in closing notes).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import gymnasium as gym
from rich.console import Console
from rich.table import Table

import codegym  # noqa: F401 - registers the ids
from codegym.play import code_env
from codegym.registration import ENVS


def validate(
    env_ids: Sequence[str] | None,
    *,
    runs: int = 3,
    sample: int | None = None,
    seed: int = 0,
    sandbox: str | None = None,
    console: Console | None = None,
) -> list[str]:
    """Check every (or a seeded sample of) task; return the failures, one line each."""
    console = console or Console()
    failures: list[str] = []
    table = Table("env", "tasks", "gold ok", "no-op ok", "seconds")
    for env_id in env_ids or [e.id for e in ENVS]:
        env = gym.make(env_id, **({"sandbox": sandbox} if sandbox else {}))  # type: ignore[arg-type]
        base = code_env(env)
        ids = list(base.tasks.ids)
        if sample is not None and sample < len(ids):
            ids = sorted(random.Random(seed).sample(ids, sample))
        started, gold_ok, noop_ok = time.monotonic(), 0, 0
        for task_id in ids:
            rewards: list[float | str] = []
            for _ in range(runs):
                env.reset(seed=seed, options={"task_id": task_id})
                _, reward, _, _, info = env.step(base.gold_action())
                rewards.append(
                    round(float(reward), 6) if "infra_error" not in info else f"infra: {info['infra_error']}"
                )
            if all(isinstance(r, float) and r >= base.full_reward - 0.01 for r in rewards) and len(set(rewards)) == 1:
                gold_ok += 1
            else:
                failures.append(f"{env_id}/{task_id}: gold rewards {rewards}")
            env.reset(seed=seed, options={"task_id": task_id})
            _, reward, _, _, info = env.step("")
            if abs(float(reward) - base.floor_reward) < 1e-9:
                noop_ok += 1
            else:
                failures.append(f"{env_id}/{task_id}: no-op reward {reward}")
        env.close()
        table.add_row(
            env_id, str(len(ids)), f"{gold_ok}/{len(ids)}", f"{noop_ok}/{len(ids)}", f"{time.monotonic() - started:.0f}"
        )
    console.print(table)
    for line in failures:
        console.print(f"[red]FAIL[/red] {line}")
    console.print(f"{len(failures)} failures")
    return failures
