"""Soak: many mixed episodes (gold, empty and hostile actions), then nothing is left behind.

Every sandboxed family runs episodes in a seeded random order; some actions leave daemons,
kill their parents or carry NUL bytes. Envs are made and closed again along the way, as a
user's vector env would. Afterwards this process has no sandbox process, work dir, mount,
container, cgroup or temp folder left, and every gold action along the way earned 1.0.

The default run soaks 16 episodes on the local backend; ``-m slow`` runs 80 on each
backend (1 to 1.7 s an episode here), ``CODEGYM_FULL_SWEEP=1`` with ``--timeout 0`` 1,000
(about 20 minutes per backend).
"""

from __future__ import annotations

import random

import gymnasium as gym
import pytest
from leaks import cgroups, containers, mounts, sandbox_processes, temp_folders, work_dirs
from sweeps import size

import codegym  # noqa: F401 - registers the ids

MARK = "codegym-soak-daemon"
HOSTILE = {
    "CodeGen-v0": (
        "```python\nimport subprocess\n"
        f"subprocess.Popen(['sh', '-c', 'exec -a {MARK} sleep 600'], start_new_session=True)\n"
        "def f(*a):\n    return 0\n```"
    ),
    "CodeRepair-v0": "```diff\ndiff --git a/x\x00--share-net b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n```",
    "TestGen-v0": (
        "```python\nimport os, subprocess\n"
        f"subprocess.Popen(['sh', '-c', 'exec -a {MARK} sleep 600'], start_new_session=True)\n"
        "def test_x():\n    os.kill(os.getppid(), 9)\n```"
    ),
    "Terminal-v0": (
        f"```bash\n(exec -a {MARK} sleep 600 &) ; nohup sh -c 'sleep 601' >/dev/null 2>&1 & kill -9 $PPID\n```"
    ),
}


def episode(env, kind: str) -> tuple[float, dict]:
    env.reset()
    action = {"gold": env.unwrapped.gold_action(), "empty": "", "hostile": HOSTILE[env.spec.id]}[kind]
    _, reward, terminated, truncated, info = env.step(action)
    while not (terminated or truncated):  # Terminal-v0 takes commands until `submit`
        _, reward, terminated, truncated, info = env.step("submit")
    return reward, info


def soak(backend: str, episodes: int, seed: int) -> None:
    rng = random.Random(seed)
    live: dict[str, gym.Env] = {}
    golds = []
    try:
        for n in range(episodes):
            env_id = rng.choice(sorted(HOSTILE))
            if env_id not in live:
                live[env_id] = gym.make(env_id, sandbox=backend)
                live[env_id].reset(seed=rng.randrange(1 << 30))
            kind = rng.choice(["gold", "gold", "empty", "hostile"])
            reward, info = episode(live[env_id], kind)
            assert "infra_error" not in info, (n, env_id, kind, info["infra_error"])
            if kind == "gold":
                golds.append(reward)
                assert reward == 1.0, (n, env_id, info["feedback"][:500])
            if rng.random() < 0.1:  # made and closed along the way
                live.pop(env_id).close()
    finally:
        for env in live.values():
            env.close()
    assert golds
    assert sandbox_processes(MARK) == []
    assert work_dirs() == set() and mounts() == 0
    assert containers() == set() and cgroups() == [] and temp_folders() == []


def test_a_seeded_sample_of_mixed_episodes_leaves_nothing_behind():
    soak("local", episodes=16, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["local", "docker"])
def test_hundreds_of_mixed_episodes_leave_nothing_behind(backend, request):
    if backend == "docker":
        docker = pytest.importorskip("docker")
        try:
            docker.from_env(timeout=5).ping()
        except Exception:  # noqa: BLE001
            pytest.skip("no docker engine")
    soak(backend, episodes=size(full=1000, sampled=80), seed=2)
