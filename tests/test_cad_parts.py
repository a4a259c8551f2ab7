"""TextToCAD-v0: every bundled part's gold earns full reward (the full sweep is slow)."""

from __future__ import annotations

import pytest
from codegym.envs.cad import TextToCADEnv
from codegym.envs.cad.families import build_parts

PARTS = [p["id"] for p in build_parts()]


@pytest.fixture(scope="module")
def env():
    e = TextToCADEnv(timeout_s=60, token_rewards=False)
    yield e
    e.close()


@pytest.mark.slow
@pytest.mark.parametrize("task_id", PARTS)
def test_gold_earns_f1_1_and_zero_chamfer_on_every_bundled_part(env, task_id):
    env.reset(options={"task_id": task_id})
    _, reward, terminated, _, info = env.step(env.gold_action())
    comps = info["reward_components"]
    assert comps["f1"] == 1.0 and comps["chamfer"] < 1e-4 and comps["hausdorff"] < 1e-6, info["feedback"]
    assert reward >= 0.99, info["feedback"]
    assert comps["iou"] >= 0.99, "gold parts are closed solids: the volume IoU must be computed and full"
    assert terminated and info["audit"]["flags"] == []
