"""Noise of CodeOptimization-v0's cost measure against plain wall-clock timing.

For a few bundled problems, the same program (the task's baseline, submitted as the
attempt) is measured 10 times:

* ours: the attempt's worker-CPU cost (min over repeats, read from outside the worker)
  divided by the baseline reference's cost measured in the same run: the calibrated
  relative cost the reward uses;
* ours, raw: the attempt's worker-CPU cost alone (no calibration);
* wall clock: seconds of one sandboxed run of the same call, timed on the host with
  ``time.perf_counter`` (how most harnesses time code).

Prints the coefficient of variation (stdev / mean) of each and the ratio (goal <= 2%).
Then the bias: the expert's code submitted as the attempt, its cost divided by the expert
reference's in the same run (the same code: 1.0 unless the order of the calls favours one).

    .venv/bin/python bench/optimization_noise.py [--repeats 10] [--problems 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import gymnasium as gym

import codegym  # noqa: F401

CALL = """
import json, sys
spec = json.loads(sys.stdin.read())
ns = {}
exec(open("solution.py").read(), ns)
ns[spec["entry"]](*spec["args"])
"""


def cv(xs: list[float]) -> float:
    return statistics.stdev(xs) / statistics.mean(xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--problems", type=int, default=3)
    ap.add_argument("--inner", type=int, default=5, help="calls per code inside one measurement")
    args = ap.parse_args()
    env = gym.make("CodeOptimization-v0", repeats=args.inner).unwrapped
    ids = ["opt-two_sum_exists", "opt-max_subarray", "opt-count_pairs_sum", "opt-pair_with_min_diff"][: args.problems]
    print(f"{'problem':28s} {'ours (calibrated)':>18s} {'ours (raw CPU)':>15s} {'wall clock':>11s} {'ratio':>7s}")
    worst, biases = [], []
    try:
        for tid in ids:
            env.reset(options={"task_id": tid})
            task = env.episode.task
            ours, raw, wall, same = [], [], [], []
            for _ in range(args.repeats):
                costs, _ = env._measure(task, task["baseline"])
                ours.append(costs[-1] / costs[0])
                raw.append(costs[-1])
                costs, _ = env._measure(task, task["gold"])
                same.append(costs[-1] / costs[1])
            sb = env._ensure_sandbox()
            sb.write_file("solution.py", task["baseline"])
            payload = json.dumps({"entry": task["entry_point"], "args": task["perf_tests"][0]["args"]})
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                res = sb.run(["python3", "-c", CALL], stdin=payload, timeout=120)
                wall.append(time.perf_counter() - t0)
                assert res.exit_code == 0, res.stderr
            c_ours, c_raw, c_wall = cv(ours), cv(raw), cv(wall)
            worst.append((c_ours, c_wall))
            print(f"{tid:28s} {c_ours:17.2%} {c_raw:14.2%} {c_wall:10.2%} {c_wall / max(c_ours, 1e-9):6.1f}x")
            biases.append(f"{tid}: mean {statistics.mean(same):.3f}, range {min(same):.3f}-{max(same):.3f}")
    finally:
        env.close()
    mo, mw = statistics.mean(w[0] for w in worst), statistics.mean(w[1] for w in worst)
    print(f"mean CV: ours {mo:.2%}, wall clock {mw:.2%}; wall-clock CV / ours: {mw / max(mo, 1e-9):.1f}x")
    print("the expert as the attempt, cost / the expert reference's (1.0: no bias):")
    print("\n".join("  " + b for b in biases))


if __name__ == "__main__":
    main()
