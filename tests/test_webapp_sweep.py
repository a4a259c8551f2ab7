"""WebApp-v0 sweep (slow): gold earns 1.0 and every broken app fails exactly the rubric items
it is declared to break, on a seeded sample of 20 tasks (every one under CODEGYM_FULL_SWEEP=1)."""

from __future__ import annotations

import pytest
from codegym.envs.webapp import WebAppEnv
from sweeps import sample

pytestmark = pytest.mark.slow

IDS = sample(WebAppEnv().tasks.ids, 20)


@pytest.fixture(scope="module")
def env():
    e = WebAppEnv(screenshots="none")
    yield e
    e.close()


@pytest.mark.parametrize("task_id", IDS)
def test_gold_earns_one_and_broken_apps_fail_exactly_their_items(env, task_id):
    env.reset(options={"task_id": task_id})
    _, reward, _, _, info = env.step(env.gold_action())
    assert reward == 1.0, info["feedback"]
    assert info["audit"]["flags"] == []
    for bad in env.broken_actions():
        env.reset(options={"task_id": task_id})
        _, reward, _, _, info = env.step(bad["action"])
        failed = sorted(it["id"] for it in info["verdict"]["items"] if not it["passed"])
        assert failed == sorted(bad["breaks"]), (bad["name"], info["feedback"])
        assert reward < 1.0
