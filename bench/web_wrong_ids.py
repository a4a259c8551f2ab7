"""Seconds to grade an app whose element ids are all wrong: ours against waiting in full at every item.

A model's app with the right behaviour and the wrong ids (``#inc`` named ``#plus``) is the most
common failure early in training: every rubric item waits ``ACTION_TIMEOUT_MS`` for an element
that never comes. Ours waits in full once per grading; then every selector the items use on the
app as loaded that matches nothing is known absent, and later items wait ``ABSENT_WAIT_MS`` for
it (``flows.py``). The baseline is the same grader waiting in full every time
(``ABSENT_WAIT_MS = ACTION_TIMEOUT_MS``). The two alternate app by app on one warm pool, and
both must give each app the same verdicts (every item failed, for the same step).

    .venv/bin/python bench/web_wrong_ids.py [--apps 12]
"""

from __future__ import annotations

import argparse
import re
import time

from codegym.envs.webapp import WebAppEnv, flows
from web import SAMPLE


def wrong_ids(html: str) -> str:
    """The app with each element id renamed everywhere it appears (markup, CSS and scripts)."""
    for name in sorted(set(re.findall(r'id="([\w-]+)"', html)), key=len, reverse=True):
        html = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", f"my_{name.replace('-', '_')}", html)
    return html


def grade(env, task_id, app, absent_wait_ms):
    flows.ABSENT_WAIT_MS = absent_wait_ms
    env.reset(options={"task_id": task_id})
    start = time.perf_counter()
    _, _, _, _, info = env.step(f"```html\n{app}\n```")
    verdicts = [(it["passed"], it.get("failed_step")) for it in info["verdict"]["items"]]
    return time.perf_counter() - start, verdicts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--apps", type=int, default=len(SAMPLE), help=f"how many of {len(SAMPLE)} apps")
    args = ap.parse_args()
    ours_ms = flows.ABSENT_WAIT_MS
    env = WebAppEnv(screenshots="none")
    ours = naive = 0.0
    try:
        env.reset(options={"task_id": SAMPLE[0]})
        env.step(env.gold_action())  # the pool's launch, outside the clock
        for task_id in SAMPLE[: args.apps]:
            app = wrong_ids(env.tasks.get(task_id)["gold"])
            t_naive, v_naive = grade(env, task_id, app, flows.ACTION_TIMEOUT_MS)
            t_ours, v_ours = grade(env, task_id, app, ours_ms)
            assert v_ours == v_naive and not any(p for p, _ in v_ours), (task_id, v_ours, v_naive)
            ours, naive = ours + t_ours, naive + t_naive
            print(f"{task_id:12s} waiting in full {t_naive:5.2f} s   ours {t_ours:5.2f} s", flush=True)
    finally:
        flows.ABSENT_WAIT_MS = ours_ms
        env.close()
    n = min(args.apps, len(SAMPLE))
    print(f"apps with wrong ids: {n}; waiting in full {naive / n:.2f} s/app, ours {ours / n:.2f} s/app")
    print(f"ratio (waiting in full / ours): {naive / ours:.2f}x")


if __name__ == "__main__":
    main()
