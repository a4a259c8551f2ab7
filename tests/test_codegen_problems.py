"""Every bundled CodeGen problem: gold earns 1.0 (three runs in a row), wrong earns less.

The default run checks a seeded sample; the full sweep is marked slow (CI runs it).
"""

from __future__ import annotations

import random
from collections import Counter

import gymnasium as gym
import pytest

import codegym  # noqa: F401 - registers the ids


@pytest.fixture(scope="module")
def env():
    e = gym.make("CodeGen-v0").unwrapped
    yield e
    e.close()


def check(env, task_ids: list[str], runs: int) -> None:
    for tid in task_ids:
        task = env.tasks.get(tid)
        for _ in range(runs):
            env.reset(options={"task_id": tid})
            _, reward, terminated, _, info = env.step(env.gold_action())
            assert reward == 1.0 and terminated, (tid, info["feedback"])
        if task.get("wrong"):
            env.reset(options={"task_id": tid})
            _, reward, _, _, info = env.step(f"```{task['language']}\n{task['wrong']}\n```")
            assert reward < 1.0, (tid, "the wrong solution passes every test")


def test_bundled_set_has_the_promised_shape(env) -> None:
    tasks = list(env.tasks)
    assert all(len(t["tests"]) >= 10 and t.get("gold") for t in tasks)
    assert Counter(t.difficulty for t in tasks).keys() == {"easy", "medium", "hard"}
    assert {t["language"] for t in tasks if t["kind"] == "stdio"} == {"python", "cpp", "javascript", "rust"}
    assert sum(1 for t in tasks if t.get("wrong")) >= 30
    assert {t.split for t in tasks} == {"train", "test"}
    problems = {t.id.rsplit("-", 1)[0] if t["kind"] == "stdio" else t.id for t in tasks}
    assert len(problems) >= 150


def test_a_seeded_sample_of_bundled_problems_gold_passes_and_wrong_fails(env) -> None:
    ids = sorted(t.id for t in env.tasks if t["language"] == "python")  # other languages: test_codegen.py
    sample = random.Random(2026).sample(ids, 10) + [t.id for t in env.tasks if t.get("wrong")][:4]
    check(env, sample, runs=1)


@pytest.mark.slow
def test_every_bundled_problem_gold_earns_one_and_wrong_earns_less(env) -> None:
    # Once per problem here; three runs in a row on a seeded sample below, and over every
    # problem with `codegym validate --env CodeGen-v0 --runs 3`.
    check(env, [t.id for t in env.tasks], runs=1)


@pytest.mark.slow
def test_a_seeded_sample_of_golds_earns_one_three_runs_in_a_row(env) -> None:
    check(env, sorted(random.Random(7).sample([t.id for t in env.tasks], 12)), runs=3)
