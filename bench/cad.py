"""TextToCAD-v0 benchmark: warm forking worker vs a fresh interpreter per evaluation.

Both sides grade the same gold attempts through the same env (same sandbox isolation, same
grader); only the execution differs: ``pool="warm"`` forks a child of a sandboxed process
that has cadquery imported, ``pool="cold"`` starts ``python`` in the sandbox per attempt
(cadquery imported every time). Prints evaluations per minute, their ratio (goal >= 5x), and
where the time of a warm evaluation goes: execution (of which tessellation, measured in the
worker), sampling, metric, and the rest (rendering the views, PNG, bookkeeping).

    .venv/bin/python bench/cad.py [--evals 12] [--cold-evals 4] [--token-rewards]
"""

from __future__ import annotations

import argparse
import time

from codegym.envs.cad import TextToCADEnv

PARTS = ["plate-00", "flange-01", "shaft-02", "enclosure-00", "gear-01", "revolved-01", "loft-00", "standoff-01"]


def run(pool: str, evals: int, token_rewards: bool) -> tuple[float, dict[str, float]]:
    """Evaluations per minute and the summed time split of ``evals`` gold evaluations."""
    env = TextToCADEnv(pool=pool, record_timing=True, token_rewards=token_rewards)
    try:
        for part in PARTS:  # targets are computed (or read from the cache) outside the timing
            env.reset(options={"task_id": part})
        env.reset(options={"task_id": PARTS[0]})
        env.step(env.gold_action())  # start the worker outside the timing too
        split: dict[str, float] = {}
        started = time.perf_counter()
        for i in range(evals):
            env.reset(options={"task_id": PARTS[i % len(PARTS)]})
            _, reward, _, _, info = env.step(env.gold_action())
            assert reward >= 0.99, (PARTS[i % len(PARTS)], info["feedback"])
            for key, value in info["timing"].items():
                split[key] = split.get(key, 0.0) + value
        elapsed = time.perf_counter() - started
    finally:
        env.close()
    return evals * 60.0 / elapsed, split


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evals", type=int, default=16, help="warm evaluations")
    parser.add_argument("--cold-evals", type=int, default=4, help="cold evaluations (each imports cadquery)")
    parser.add_argument("--token-rewards", action="store_true", help="also score every step (one tessellation each)")
    args = parser.parse_args()
    warm, split = run("warm", args.evals, args.token_rewards)
    cold, cold_split = run("cold", args.cold_evals, args.token_rewards)
    print(f"token rewards: {'on' if args.token_rewards else 'off'}")
    print(f"warm worker pool     : {warm:8.1f} evaluations/min ({args.evals} evals)")
    print(f"fresh interpreter    : {cold:8.1f} evaluations/min ({args.cold_evals} evals)")
    print(f"ratio warm / fresh   : {warm / cold:8.1f}x (goal >= 5x)")
    total = split.get("step_s", 0.0)
    print("time split of a warm evaluation (share of step time):")
    shown = 0.0
    for key in ("execution_s", "tessellation_s", "sampling_s", "metric_s"):
        value = split.get(key, 0.0)
        note = "  (inside execution)" if key == "tessellation_s" else ""
        if key != "tessellation_s":
            shown += value
        print(f"  {key[:-2]:14} {value / args.evals * 1000:8.1f} ms  {value / total:6.1%}{note}")
    other = total - shown
    print(f"  {'other':14} {other / args.evals * 1000:8.1f} ms  {other / total:6.1%}  (views, PNG, checks)")
    cold_exec = cold_split.get("execution_s", 0.0) / args.cold_evals
    print(
        f"fresh interpreter execution: {cold_exec * 1000:.0f} ms per evaluation "
        f"(warm: {split.get('execution_s', 0.0) / args.evals * 1000:.0f} ms)"
    )


if __name__ == "__main__":
    main()
