"""Apps graded per minute: the warm browser pool against launching Chromium per grading.

Both sides grade the same gold apps with the same grader (``grade_in_browser``): the pool
reuses one Chromium and opens a fresh context per grading; the baseline starts Playwright
and Chromium for every grading and closes them after, as a grader without a pool would.

    .venv/bin/python bench/web.py [--apps 8] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from codegym.envs.webapp import BrowserPool, WebAppEnv
from codegym.envs.webapp.grader import grade_in_browser
from codegym.envs.webapp.pool import launch_once
from codegym.envs.webapp.server import StaticServer

SAMPLE = ["counter-01", "tabs-01", "modal-02", "convert-01", "todo-01", "quiz-01", "timer-01", "table-01"]


def files_of(task):
    return {"index.html": task["gold"]}


def check(report, task):
    passed = sum(r["passed"] for r in report["items"])
    assert passed == len(task["rubric"]), (task.id, [r["reason"] for r in report["items"] if not r["passed"]])


def grade_warm(pool, task):
    with StaticServer(files_of(task)) as s:
        check(pool.run(lambda b: grade_in_browser(b, s.origin, False, task["rubric"]), 120), task)


def grade_cold(task):
    with StaticServer(files_of(task)) as s:
        check(asyncio.run(launch_once(lambda b: grade_in_browser(b, s.origin, False, task["rubric"]))), task)


def run(tasks, rounds):
    """Time both sides app by app, interleaved, so that load from other processes on a
    shared machine falls on both alike."""
    pool = BrowserPool()
    warm = cold = 0.0
    try:
        grade_warm(pool, tasks[0])  # the pool's one launch happens here, outside the clock
        for _ in range(rounds):
            for t in tasks:
                start = time.perf_counter()
                grade_cold(t)
                cold += time.perf_counter() - start
                start = time.perf_counter()
                grade_warm(pool, t)
                warm += time.perf_counter() - start
    finally:
        pool.close()
    return cold, warm


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--apps", type=int, default=len(SAMPLE))
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    env = WebAppEnv()
    tasks = [env.tasks.get(i) for i in SAMPLE[: args.apps]]
    n = len(tasks) * args.rounds
    cold, warm = run(tasks, args.rounds)
    print(f"apps graded: {n} ({sum(len(t['rubric']) for t in tasks) * args.rounds} rubric items)")
    print(f"launch per grading: {cold:7.2f} s  {60 * n / cold:6.1f} apps/min")
    print(f"warm pool:          {warm:7.2f} s  {60 * n / warm:6.1f} apps/min")
    print(f"ratio (pool / launch per grading): {cold / warm:.2f}x  (goal >= 3x)")


if __name__ == "__main__":
    main()
