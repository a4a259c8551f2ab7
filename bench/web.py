"""Apps graded per minute: the warm browser pool against launching Chromium per grading.

Both sides grade the same gold apps with the same grader (``grade_in_browser``), the same
Chromium switches and a static server per grading: the pool reuses one Chromium and gives
every grading a fresh server and fresh contexts, one per lane (the next grading's open while
this one runs); the baseline starts Playwright and Chromium for every grading and closes them
after, as a grader without a pool would, and opens nothing ahead (it would be thrown away). The two sides
alternate app by app, so load from other processes falls on both alike, and the pool's
clock runs until the contexts it opened ahead are open, so that its own work never falls on
the baseline. Every grading must pass every rubric item, or the run stops.

The ratio is (launch + grade) / grade: the printed split says how much of a cold grading is
the launch itself and how much the grading, which both sides pay. For scale, two floors, what
the warm browser takes for nothing but bare contexts and pages that load the app (no flows,
no containment, no evidence; their server and contexts open in the clock, a few ms):

* one context that loads the app once per rubric item;
* the contexts a grading opens, side by side: the untouched probe's, which loads the app once,
  and ``LANES`` lanes that share the items, one load each.

The ratio a grading that cost only that would reach is printed with each. The second floor
says how much a grading may spend on everything else (every flow step, check, hook and piece
of evidence) for the pool to reach 3x.

The CPU line says how busy the whole machine was (every process, from /proc/stat) while
each side graded: when a warm grading keeps the cores busy, running gradings side by side
cannot beat the launch per grading by more than the ratio of their CPU time either.

    .venv/bin/python bench/web.py [--apps 12] [--rounds 1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from codegym.envs.webapp import BrowserPool, WebAppEnv
from codegym.envs.webapp.grader import LANES, grade_in_browser
from codegym.envs.webapp.pool import CHROMIUM, launch_once
from codegym.envs.webapp.server import StaticServer
from codegym.envs.webapp.session import spare_opened

# One app of each HTML family (the React ones differ only in the page they mount in).
SAMPLE = [
    "counter-01",
    "tabs-01",
    "modal-02",
    "convert-01",
    "todo-01",
    "quiz-01",
    "timer-01",
    "table-01",
    "reorder-01",
    "form-01",
    "calc-01",
    "canvas-01",
]


def files_of(task):
    return {"index.html": task["gold"]}


def check(report, task):
    passed = sum(r["passed"] for r in report["items"])
    assert passed == len(task["rubric"]), (task.id, [r["reason"] for r in report["items"] if not r["passed"]])


def grade_warm(pool, task):
    check(pool.run(lambda b: grade_in_browser(b, files_of(task), False, task["rubric"]), 120), task)
    pool.run(spare_opened, 30)  # the next grading's contexts, opened during this one


async def bare_loads(browser, task, lanes=0):
    """A floor: bare contexts and pages that load the app, one load per rubric item.

    ``lanes=0``: one context loads it for every item. Otherwise, as a grading does, a probe
    context loads it once while ``lanes`` contexts share the items, all side by side.
    """
    n = len(task["rubric"])
    with StaticServer() as server:
        server.serve(files_of(task))
        contexts = await asyncio.gather(*(browser.new_context() for _ in range(1 + lanes)))
        try:
            pages = await asyncio.gather(*(c.new_page() for c in contexts))

            async def load(page, times):
                for _ in range(times):
                    await page.goto(server.origin + "/", wait_until="load")

            if lanes == 0:
                await load(pages[0], n)
            else:
                shares = [len(range(i, n, lanes)) for i in range(lanes)]
                await asyncio.gather(load(pages[0], 1), *map(load, pages[1:], shares))
        finally:
            await asyncio.gather(*(c.close() for c in contexts))


def grade_cold(task):
    check(asyncio.run(launch_once(lambda b: grade_in_browser(b, files_of(task), False, task["rubric"]))), task)


def busy_cpu_s() -> float | None:
    """CPU seconds every core of the machine has spent busy since boot (None off Linux)."""
    try:
        with open("/proc/stat") as stat:
            user, nice, system, _idle, _iowait, irq, softirq = map(int, stat.readline().split()[1:8])
    except (OSError, ValueError):
        return None
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def timed(fn, *args):
    """Wall seconds and busy CPU seconds (0 off Linux) that ``fn(*args)`` took."""
    cpu, start = busy_cpu_s() or 0.0, time.perf_counter()
    fn(*args)
    return time.perf_counter() - start, (busy_cpu_s() or 0.0) - cpu


def run(tasks, rounds):
    """Time both sides app by app, interleaved, so that load from other processes on a
    shared machine falls on both alike."""
    pool = BrowserPool()
    warm = cold = floor = lanes_floor = 0.0
    cpu = {"cold": 0.0, "warm": 0.0}
    try:
        grade_warm(pool, tasks[0])  # the pool's one launch happens here, outside the clock
        for _ in range(rounds):
            for t in tasks:
                wall, used = timed(grade_cold, t)
                cold, cpu["cold"] = cold + wall, cpu["cold"] + used
                wall, used = timed(grade_warm, pool, t)
                warm, cpu["warm"] = warm + wall, cpu["warm"] + used
                floor += timed(pool.run, lambda b, t=t: bare_loads(b, t), 60)[0]
                lanes_floor += timed(pool.run, lambda b, t=t: bare_loads(b, t, LANES), 60)[0]
    finally:
        pool.close()
    return cold, warm, (floor, lanes_floor), cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--apps", type=int, default=len(SAMPLE), help=f"how many of {len(SAMPLE)} apps")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    env = WebAppEnv()
    tasks = [env.tasks.get(i) for i in SAMPLE[: args.apps]]
    n = len(tasks) * args.rounds
    cold, warm, (floor, lanes_floor), cpu = run(tasks, args.rounds)
    items = sum(len(t["rubric"]) for t in tasks) * args.rounds
    print(f"chromium: {CHROMIUM}")
    print(f"apps graded: {n} per side ({items} rubric items)")
    print(f"launch per grading: {cold:7.2f} s  {60 * n / cold:6.1f} apps/min  {cold / n:5.2f} s/app")
    print(f"warm pool:          {warm:7.2f} s  {60 * n / warm:6.1f} apps/min  {warm / n:5.2f} s/app")
    launch = (cold - warm) / n
    print(
        f"split of a cold grading: launch {launch:5.2f} s + grading {warm / n:5.2f} s "
        f"({1000 * warm / items:.0f} ms per rubric item)"
    )
    print(f"ratio (pool / launch per grading): {cold / warm:.2f}x  (goal >= 3x)")
    for name, total in (("one context", floor), (f"probe + {LANES} lanes", lanes_floor)):
        print(
            f"floor (bare loads, {name}): {total / n:5.2f} s/app; "
            f"ratio at the floor: {(launch + total / n) / (total / n):.2f}x"
        )
    spare_ms = 1000 * (launch / 2 - lanes_floor / n)
    print(
        f"3x needs a grading of at most {launch / 2:.2f} s/app: beyond its bare contexts and loads, "
        f"{spare_ms:.0f} ms per app ({spare_ms * n / items:.0f} ms per rubric item) for every flow step, "
        "check and piece of evidence"
    )
    if busy_cpu_s() is not None:
        cores = os.cpu_count() or 1
        print(
            f"CPU per app (whole machine, {cores} cores): launch per grading {cpu['cold'] / n:.2f} CPU-s, "
            f"warm pool {cpu['warm'] / n:.2f} CPU-s ({100 * cpu['warm'] / warm / cores:.0f}% of the cores "
            f"busy); gradings side by side: at most {cpu['cold'] / cpu['warm']:.2f}x"
        )


if __name__ == "__main__":
    main()
