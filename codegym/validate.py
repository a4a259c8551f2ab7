"""``codegym validate``: the full repeated gold check over every bundled task, or a user's own.

For each task of each env: gold earns full reward in ``runs`` runs that agree, and an
empty attempt earns the floor. CI runs a seeded sample of this; the full sweep is this
command (quoted in closing notes). With ``tasks=`` (``--tasks``) it checks a user's own
task file or folder, in any format ``tasks=`` reads, before training on it: without
``--env`` on every env that loads it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from pathlib import Path

import gymnasium as gym
from rich.console import Console
from rich.table import Table

import codegym  # noqa: F401 - registers the ids
from codegym.errors import CodegymError, TaskFormatError
from codegym.play import code_env, env_kwargs
from codegym.registration import ENVS


def envs_for_tasks(tasks: str | Path, repo_root: str | Path | None = None) -> tuple[list[str], list[str]]:
    """The env ids that load ``tasks``, and why each other env refused them (one line each)."""
    loads, refused = [], []
    for entry in ENVS:
        kwargs = env_kwargs(None, tasks, repo_root if entry.id in ("CodeRepair-v0", "TestGen-v0") else None)
        try:
            gym.make(entry.id, **kwargs).close()
        except (TaskFormatError, CodegymError, ValueError, TypeError) as exc:
            refused.append(f"{entry.id}: {str(exc).splitlines()[0][:300]}")
            continue
        loads.append(entry.id)
    return loads, refused


def validate(
    env_ids: Sequence[str] | None,
    *,
    runs: int = 3,
    sample: int | None = None,
    seed: int = 0,
    sandbox: str | None = None,
    console: Console | None = None,
    tasks: str | Path | None = None,
    repo_root: str | Path | None = None,
) -> list[str]:
    """Check every (or a seeded sample of) task; return the failures, one line each.

    Args:
        env_ids: envs to check (None: every env; with ``tasks``, every env that loads them).
        runs: gold runs per task that must agree.
        sample: check only this many tasks per env, drawn with ``seed``.
        seed: the reset seed and the sample's seed.
        sandbox: ``local`` or ``docker`` (None: the default).
        console: where the table goes.
        tasks: a task file or folder in place of the bundled sets.
        repo_root: local mirrors of SWE-bench repositories (CodeRepair / TestGen).

    """
    console = console or Console()
    failures: list[str] = []
    table = Table("env", "tasks", "gold ok", "no-op ok", "seconds")
    if tasks is not None and not env_ids:
        env_ids, refused = envs_for_tasks(tasks, repo_root)
        if not env_ids:
            failures = [f"{tasks}: no env loads these tasks"] + [f"  {line}" for line in refused]
            for line in failures:
                console.print(f"[red]FAIL[/red] {line}", highlight=False, soft_wrap=True)
            return failures
    for env_id in env_ids or [e.id for e in ENVS]:
        mirrors = repo_root if env_id in ("CodeRepair-v0", "TestGen-v0") else None
        env = gym.make(env_id, **env_kwargs(sandbox, tasks, mirrors))
        base = code_env(env)
        ids = list(base.tasks.ids)
        if sample is not None and sample < len(ids):
            ids = sorted(random.Random(seed).sample(ids, sample))
        started, gold_ok, noop_ok = time.monotonic(), 0, 0
        for task_id in ids:
            rewards: list[float | str] = []
            for _ in range(runs):
                env.reset(seed=seed, options={"task_id": task_id})
                try:
                    gold = base.gold_action()
                except (ValueError, CodegymError) as exc:  # a user's task may ship no gold
                    rewards.append(f"no gold: {exc}")
                    break
                _, reward, _, _, info = env.step(gold)
                rewards.append(
                    round(float(reward), 6) if "infra_error" not in info else f"infra: {info['infra_error']}"
                )
            if all(isinstance(r, float) and r >= base.full_reward - 0.01 for r in rewards) and len(set(rewards)) == 1:
                gold_ok += 1
            else:
                failures.append(f"{env_id}/{task_id}: gold rewards {rewards}")
            env.reset(seed=seed, options={"task_id": task_id})
            _, reward, _, _, info = env.step("")
            if "infra_error" in info:
                failures.append(f"{env_id}/{task_id}: no-op infra error: {info['infra_error']}")
            elif abs(float(reward) - base.floor_reward) < 1e-9:
                noop_ok += 1
            else:
                failures.append(f"{env_id}/{task_id}: no-op reward {reward}")
        env.close()
        table.add_row(
            env_id, str(len(ids)), f"{gold_ok}/{len(ids)}", f"{noop_ok}/{len(ids)}", f"{time.monotonic() - started:.0f}"
        )
    console.print(table)
    for line in failures:
        console.print(f"[red]FAIL[/red] {line}", highlight=False, soft_wrap=True)
    console.print(f"{len(failures)} failures")
    return failures
