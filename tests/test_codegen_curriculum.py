"""DHRCL curriculum wrapper: stage rewards, and stage changes driven by the metric's trend."""

from __future__ import annotations

import random

import pytest
from codegym.envs.codegen import CodeGenEnv, generate_tasks
from codegym.wrappers.curriculum import CurriculumWrapper, slope_t_statistic, stage_reward

COMP = {"syntax": 1.0, "execution": 0.5, "pass_rate": 0.25, "structure": 0.5, "solved": 0.0}


def test_each_stage_rewards_its_own_level_of_the_hierarchy() -> None:
    assert stage_reward(0, COMP) == 1.0
    assert stage_reward(1, COMP) == pytest.approx(0.3 + 0.35)
    assert stage_reward(2, COMP) == pytest.approx(0.8 * 0.25 + 0.2 * 0.5)
    assert stage_reward(2, {**COMP, "solved": 1.0}) == 1.0


def test_slope_statistic_separates_a_rising_metric_from_a_noisy_flat_one() -> None:
    rng = random.Random(0)
    rising = [0.02 * i + rng.gauss(0, 0.02) for i in range(20)]
    flat = [0.5 + rng.gauss(0, 0.05) for _ in range(20)]
    assert slope_t_statistic(rising) > 5
    assert abs(slope_t_statistic(flat)) < 3


def test_a_still_rising_metric_holds_the_stage_even_at_a_high_level_and_a_plateau_advances_it_even_at_a_low_level() -> (
    None
):
    env = CodeGenEnv(tasks=generate_tasks(2, 0))
    try:
        cur = CurriculumWrapper(env, window=10, min_episodes=10)
        for i in range(30):  # high and still improving: no fixed threshold moves it on
            cur.report_validation(0.90 + 0.003 * i)
        assert cur.stage == 0
        for _ in range(10):  # low but flat: the trend says move on
            cur.report_validation(0.2)
        assert cur.stage_name == "execution"
        assert cur.history[0]["from"] == "syntax"
    finally:
        env.close()


def test_the_wrapped_env_returns_the_stage_reward_and_keeps_the_env_reward_in_info() -> None:
    env = CodeGenEnv(tasks=generate_tasks(2, 0))
    try:
        cur = CurriculumWrapper(env, window=3, min_episodes=3)
        rewards = []
        for _ in range(3):
            cur.reset(seed=0)
            _, r, term, _, info = cur.step("```python\ndef f(x):\n    return None\n```")
            rewards.append(r)
            assert term and info["curriculum"]["env_reward"] == 0.0
        assert rewards == [1.0, 1.0, 1.0]  # syntax stage: it parses
        assert cur.stage_name == "execution"  # a flat trend moved it on
    finally:
        env.close()
