"""Attempts graded per second: our one-run runner against one process per test.

Both grade the same gold attempts of the same bundled Python problems in the same kind of
sandbox on the same machine. The baseline starts one sandboxed ``python3`` per test (how
most harnesses run tests: load the solution, run one test, print the result), and
compares on the host like ours. Prints attempts/s of each and the ratio (goal >= 3x).

    .venv/bin/python bench/codegen_grading.py [--problems 20]
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium as gym
from codegym.envs.codegen.compare import outputs_equal, values_equal
from codegym.envs.codegen.grading import prepare, run_attempt

import codegym  # noqa: F401
from codegym.sandbox import create

ONE_TEST = """
import json, sys, importlib.machinery
encode = importlib.machinery.SourceFileLoader("r", ".cg_runner.py").load_module().encode
spec = json.loads(sys.stdin.read())
ns = {"__name__": "solution"}
exec(open("solution.py").read(), ns)
print(json.dumps(encode(ns[spec["entry"]](*spec["args"]))))
"""


def per_test_baseline(sb, task) -> int:
    """Grade one attempt with one sandboxed process per test; returns tests passed."""
    sb.write_file("solution.py", task["gold"])
    passed = 0
    for t in task["tests"]:
        if task["kind"] == "function":
            res = sb.run(
                ["python3", "-c", ONE_TEST],
                stdin=json.dumps({"entry": task["entry_point"], "args": t["args"]}),
                timeout=10,
            )
            try:
                passed += values_equal(json.loads(res.stdout), t["expected"])
            except ValueError:
                pass
        else:
            res = sb.run(["python3", "solution.py"], stdin=t["input"], timeout=10)
            passed += outputs_equal(res.stdout, t["output"])
    return passed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--problems", type=int, default=20)
    args = ap.parse_args()
    env = gym.make("CodeGen-v0").unwrapped
    tasks = [t.data for t in env.tasks if t["language"] == "python"][: args.problems]
    env.close()
    n_tests = sum(len(t["tests"]) for t in tasks)
    with create() as sb:
        clean = prepare(sb)
        t0 = time.perf_counter()
        ours = 0
        for t in tasks:
            sb.restore(clean)
            r = run_attempt(
                sb,
                t["gold"],
                kind=t["kind"],
                language="python",
                tests=t["tests"],
                entry_point=t.get("entry_point"),
                trace=False,
            )
            ours += r.passed
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        base = sum(per_test_baseline(sb, t) for t in tasks)
        t_base = time.perf_counter() - t0
    assert ours == base == n_tests, (ours, base, n_tests)
    print(f"{len(tasks)} attempts, {n_tests} tests, all passed by both graders")
    print(f"ours (one run per attempt):      {len(tasks) / t_ours:7.2f} attempts/s  ({t_ours:.2f} s)")
    print(f"baseline (one process per test): {len(tasks) / t_base:7.2f} attempts/s  ({t_base:.2f} s)")
    print(f"ratio: {t_base / t_ours:.1f}x")


if __name__ == "__main__":
    main()
