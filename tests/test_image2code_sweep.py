"""Slow: every bundled gold program of both image-to-code envs earns full reward (the oracle check).

Also checks that a blank answer earns (almost) nothing on every task, reusing the same
target, so each task shows both sides of its grader.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import codegym  # noqa: F401 - registers the env ids

BLANK = {
    "ImageToSVG-v0": '```svg\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 256 256"></svg>\n```',
    "ImageToTikZ-v0": "```latex\n\\begin{tikzpicture}\n\\end{tikzpicture}\n```",
}


@pytest.mark.slow
@pytest.mark.timeout(3600)  # 80 tasks x 3 renders; pdflatex alone is ~0.5 s a run
@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
@pytest.mark.parametrize("env_id", ["ImageToSVG-v0", "ImageToTikZ-v0"])
def test_every_bundled_gold_earns_full_reward_and_blank_earns_little(env_id, difficulty, tmp_path):
    env = gym.make(env_id, cache_dir=tmp_path)
    bad = []
    try:
        for task_id in env.unwrapped.tasks.filter(difficulty=difficulty).ids:
            env.reset(seed=0, options={"task_id": task_id})
            _, reward, _, _, info = env.step(env.unwrapped.gold_action())
            if reward < 0.99 or info["reward_components"]["render_similarity"] < 0.99:
                bad.append((task_id, reward, info["feedback"][:200]))
            env.reset(seed=0, options={"task_id": task_id})
            _, blank_reward, _, _, _ = env.step(BLANK[env_id])
            if blank_reward > 0.02:
                bad.append((task_id, "blank", blank_reward))
    finally:
        env.close()
    assert bad == []
