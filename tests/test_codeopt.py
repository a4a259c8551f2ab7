"""CodeOptimization-v0: staged reward, calibrated cost, percentile view, bundled problems."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from sweeps import sample

import codegym  # noqa: F401 - registers the ids

TASK = "opt-two_sum_exists"


@pytest.fixture(scope="module")
def env():
    e = gym.make("CodeOptimization-v0", repeats=3).unwrapped
    yield e
    e.close()


def attempt(env, code: str, task_id: str = TASK):
    env.reset(options={"task_id": task_id})
    _, reward, terminated, _, info = env.step(f"```python\n{code}\n```" if code else "")
    assert "infra_error" not in info, info["infra_error"]
    return reward, info


def test_bundled_set_has_forty_problems_with_baseline_expert_and_big_tests(env) -> None:
    assert len(env.tasks) >= 40
    assert all(t["baseline"] and t["gold"] and t["perf_tests"] for t in env.tasks)


def test_expert_earns_one_and_the_baseline_earns_the_correct_stage_only(env) -> None:
    task = env.tasks.get(TASK)
    gold, info = attempt(env, task["gold"])
    assert gold == 1.0, info["verdict"]
    assert info["verdict"]["top30"] and info["verdict"]["percentile"] > 0
    base, info = attempt(env, task["baseline"])
    assert 0.4 <= base < 0.7, info["verdict"]
    assert info["reward_components"]["correct"] == 1.0


def test_the_experts_own_program_ties_with_the_expert_however_its_timings_came_out(env, monkeypatch) -> None:
    # The same program timed twice in one run differed by up to 22% on this VM (a 12% miss
    # failed top30 in CI). Pin the timings: the attempt 25% dearer than the expert reference.
    task = env.tasks.get(TASK)
    monkeypatch.setattr(env, "_measure", lambda task, code: ([10**8, 10**6, 3 * 10**6, 1_250_000], 0.0))
    relaid = "# the expert's code, laid out anew\n" + task["gold"].replace("\n", "\n\n") + "\n"
    assert attempt(env, relaid)[1]["verdict"]["top30"]
    other = task["references"][2]  # another program: within 10% or no tie
    assert not attempt(env, other)[1]["verdict"]["top30"]


def test_failed_programs_are_ordered_by_how_far_they_got(env) -> None:
    none, _ = attempt(env, "")
    syntax, _ = attempt(env, "def two_sum_exists(xs, t) return")
    runtime, _ = attempt(env, "def two_sum_exists(xs, t):\n    return xs[10**9]\n")
    wrong_some, _ = attempt(env, "def two_sum_exists(xs, t):\n    return len(xs) > 3\n")
    wrong_all, _ = attempt(env, "def two_sum_exists(xs, t):\n    return 'no'\n")
    assert none < syntax < runtime <= wrong_all < wrong_some < 0.4


def test_a_fake_fast_answer_that_returns_wrong_values_is_not_timed(env) -> None:
    reward, info = attempt(env, "def two_sum_exists(xs, t):\n    return False\n")
    assert reward < 0.4 and info["verdict"]["stage"] == "wrong_answer"


def test_offloading_work_to_a_subprocess_is_flagged(env) -> None:
    task = env.tasks.get(TASK)
    code = "import subprocess\n" + task["gold"]
    reward, info = attempt(env, code)
    assert "offloads_work" in info["audit"]["flags"] and info["audit"]["audit_reward"] == 0.0


def test_check_env_passes_on_code_optimization(env) -> None:
    check_env(env)


@pytest.mark.slow
def test_a_seeded_sample_of_experts_earns_one_three_runs_in_a_row_and_baselines_less() -> None:
    # Every problem, three runs each, is `codegym validate --env CodeOptimization-v0` or
    # CODEGYM_FULL_SWEEP=1 (about 5 minutes here; past pytest's 600 s on a slower CI box).
    e = gym.make("CodeOptimization-v0", repeats=3).unwrapped
    try:
        for task_id in sample(e.tasks.ids, 8):
            task = e.tasks.get(task_id)
            for _ in range(3):
                r, info = attempt(e, task["gold"], task.id)
                assert r == 1.0, (task.id, info["verdict"])
            r, info = attempt(e, task["baseline"], task.id)
            assert r < 1.0, (task.id, info["verdict"])
    finally:
        e.close()


def test_a_middle_solution_lands_between_baseline_and_expert_in_reward_and_percentile(env) -> None:
    task = env.tasks.get(TASK)
    middle = task["references"][2]
    reward, info = attempt(env, middle)
    v = info["verdict"]
    assert 0.4 < reward <= 1.0, v
    assert v["baseline_ns"] > v["cost_ns"] and len(v["reference_ns"]) == 3
    assert v["top50"] and 0 < v["percentile"] < 1
