"""Make an env, play the gold solution and a broken one, and read what the grader says.

Run: .venv/bin/python examples/quickstart.py [ENV_ID]
"""

from __future__ import annotations

import sys

import gymnasium as gym

import codegym  # noqa: F401 - registers the env ids

env_id = sys.argv[1] if len(sys.argv) > 1 else "CodeGen-v0"
env = gym.make(env_id)
obs, info = env.reset(seed=0)
print(f"task {info['task_id']}:\n{obs if isinstance(obs, str) else obs['text']}\n")

gold = env.unwrapped.gold_action()
for name, action in (("gold", gold), ("broken", gold[: len(gold) // 2])):
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(action)
    print(f"{name}: reward {reward:.3f} components {info['reward_components']}")
    print(f"  token spans: {info['token_rewards'][:5]}{' ...' if len(info['token_rewards']) > 5 else ''}")
    print(f"  audit: {info['audit']}")
    print(f"  feedback: {info['feedback'][:300]!r}\n")
env.close()
