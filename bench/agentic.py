"""Agentic envs: reset latency vs the naive way, grading time, fork cost per step.

Ours: a reset starts a sandbox on the task's cached copy-on-write base (local: overlay
lower dir; docker: committed image). Naive baseline: a fresh, empty sandbox per reset
(a new container on docker), the repository copied in, and ``git init`` + commit inside.

Run: ``.venv/bin/python bench/agentic.py [--backends local docker] [--resets 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from codegym.envs.agentic import CodeRepairEnv

from codegym.sandbox import create

ASSETS = Path(__file__).resolve().parents[1] / "assets" / "repair"
TASKS = [
    "textkit.case.camel_to_snake.drop_condition.0",
    "numkit.search.find.drop_condition.0",
    "ledger.money.parse_amount.flip_operator.2",
]


def naive_reset(backend: str, task_id: str) -> float:
    """A fresh sandbox (for docker a fresh container: no spare) with the repo copied in."""
    from codegym.sandbox.docker import _spares

    spares, _spares.target = _spares.target, 0
    started = time.perf_counter()
    sb = create(backend, timeout_s=60)
    _spares.target = spares
    sb.copy_in(str(ASSETS / task_id / "environment"), "repo")
    res = sb.run(
        "cd repo && git init -q && git add -A && git -c user.name=x -c user.email=x@x commit -qm base"
        " && git status --short | wc -l"
    )
    assert res.ok, res.stderr
    elapsed = time.perf_counter() - started
    sb.close()
    return elapsed


def ours_reset(env: CodeRepairEnv, task_id: str, first_command: bool = False) -> float:
    started = time.perf_counter()
    env.reset(options={"task_id": task_id})
    if first_command:  # waits for the sandbox started in the background at reset
        env.sandbox.run("git status --short | wc -l")
    return time.perf_counter() - started


def bench_backend(backend: str, resets: int) -> None:
    env = CodeRepairEnv(sandbox=backend, harness="bash")
    for task in TASKS:  # warm the per-machine caches (prepared trees, base layers/images)
        ours_reset(env, task)
        naive_reset(backend, task)
    # Resets of one task in a row, as a GRPO group samples it (the spare sandbox is used);
    # and resets that switch task every time (no spare fits: a fresh start each time).
    ours = [ours_reset(env, TASKS[0]) for _ in range(resets)]
    ours_cmd = [ours_reset(env, TASKS[0], first_command=True) for _ in range(resets)]
    switching = [ours_reset(env, TASKS[i % len(TASKS)], first_command=True) for i in range(resets)]
    naive = [naive_reset(backend, TASKS[i % len(TASKS)]) for i in range(resets)]
    o, oc, n = statistics.median(ours), statistics.median(ours_cmd), statistics.median(naive)
    print(
        f"[{backend}] reset to first observation: ours {o * 1000:.1f} ms, naive {n * 1000:.0f} ms, "
        f"speed-up x{n / o:.1f}"
    )
    print(
        f"[{backend}] reset to first command result, same task in a row (a GRPO group): ours {oc * 1000:.0f} ms, "
        f"naive {n * 1000:.0f} ms, speed-up x{n / oc:.1f}"
    )
    sw = statistics.median(switching)
    print(
        f"[{backend}] reset to first command result, another task every reset: ours {sw * 1000:.0f} ms, "
        f"naive {n * 1000:.0f} ms, speed-up x{n / sw:.1f}"
    )

    grading = []
    patch_env = CodeRepairEnv(sandbox=backend, hunk_credit=False)
    for task in TASKS:
        patch_env.reset(options={"task_id": task})
        started = time.perf_counter()
        _, reward, *_ = patch_env.step(patch_env.gold_action())
        grading.append(time.perf_counter() - started)
        assert reward == 1.0
    patch_env.close()
    print(
        f"[{backend}] grading (gold patch, fresh grader sandbox, full F2P+P2P run): "
        f"median {statistics.median(grading):.2f} s per task"
    )

    env.reset(options={"task_id": TASKS[0]})
    forks, snaps = [], []
    for i in range(6):
        env.step(f"echo step{i} >> log.txt && mkdir -p d{i} && echo x > d{i}/f")
        started = time.perf_counter()
        env.snapshot()
        snaps.append(time.perf_counter() - started)
        env.step(f"echo more{i} >> log.txt")
        started = time.perf_counter()
        clone = env.fork()
        forks.append(time.perf_counter() - started)
        clone.close()
    env.close()
    print(
        f"[{backend}] fork() per step: median {statistics.median(forks) * 1000:.0f} ms; "
        f"snapshot(): median {statistics.median(snaps) * 1000:.0f} ms; "
        f"fork vs naive reset x{statistics.median(naive) / statistics.median(forks):.1f} cheaper"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", nargs="+", default=["local", "docker"])
    parser.add_argument("--resets", type=int, default=6)
    args = parser.parse_args()
    for backend in args.backends:
        bench_backend(backend, args.resets)


if __name__ == "__main__":
    main()
