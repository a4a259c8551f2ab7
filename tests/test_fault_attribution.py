"""Who is blamed when a grading run dies without a word: the attempt, or the machine.

The attempt runs as the sandbox's uid, so it can kill the runner that grades it; so can the
machine (an OOM killer outside the sandbox, an operator, a restarted daemon). A runner that
dies once is run again; dying again with the attempt while the references alone time fine
is the attempt's doing (flagged); failing without the attempt too is the machine's
(``info["infra_error"]``). The failures are injected at the sandbox's ``run``.
"""

from __future__ import annotations

import os

import gymnasium as gym
import pytest
from codegym.envs.codegen import CodeGenEnv
from conftest import docker_available

import codegym  # noqa: F401 - registers the ids
from codegym.sandbox import ExecResult

ADD3 = {
    "id": "add3",
    "kind": "function",
    "language": "python",
    "entry_point": "f",
    "prompt": "Write `def f(x: int) -> int` returning x + 3.",
    "tests": [{"args": [x], "expected": x + 3} for x in (-4, 0, 1, 7)],
    "gold": "def f(x):\n    return x + 3\n",
}

KILLED = ExecResult(exit_code=137, stdout="", stderr="")
MARK = "# attempt-under-test"


def failing(sandbox, monkeypatch, should_fail):
    """Make ``sandbox.run`` answer as a killed runner whenever ``should_fail(stdin)`` says so."""
    real = sandbox.run
    calls = []

    def run(cmd, *args, stdin=None, **kw):
        text = stdin.decode(errors="replace") if isinstance(stdin, bytes) else str(stdin or "")
        calls.append(text)
        if should_fail(text, len(calls)):
            return KILLED
        return real(cmd, *args, stdin=stdin, **kw)

    monkeypatch.setattr(sandbox, "run", run)
    return calls


def test_codegen_runner_killed_once_from_outside_still_grades_gold_at_one(monkeypatch):
    env = CodeGenEnv(tasks=[ADD3])
    try:
        env.reset(options={"task_id": "add3"})
        calls = failing(env._ensure_sandbox(), monkeypatch, lambda text, n: n == 1)
        _, reward, _, _, info = env.step(f"```python\n{ADD3['gold']}\n```")
        assert len(calls) == 2  # run once more
        assert reward == 1.0 and info["audit"]["flags"] == [] and "infra_error" not in info
    finally:
        env.close()


def test_codegen_runner_dying_every_time_with_the_attempt_is_the_attempts_doing(monkeypatch):
    env = CodeGenEnv(tasks=[ADD3])
    try:
        env.reset(options={"task_id": "add3"})
        failing(env._ensure_sandbox(), monkeypatch, lambda text, n: True)
        _, reward, _, _, info = env.step(f"```python\n{ADD3['gold']}\n```")
        assert reward < 1.0 and "harness_exit" in info["audit"]["flags"]
    finally:
        env.close()


@pytest.fixture()
def opt():
    env = gym.make("CodeOptimization-v0", repeats=1).unwrapped
    env.reset(options={"task_id": "opt-two_sum_exists"})
    yield env
    env.close()


def gold_step(env):
    code = env.tasks.get("opt-two_sum_exists")["gold"] + MARK + "\n"
    return env.step(f"```python\n{code}\n```")


def env_refs_in(text):
    """The timing run carries the references too; the correctness run the attempt alone."""
    return text.count("def two_sum_exists") >= 2


def test_codeopt_timing_run_killed_once_from_outside_still_grades_gold_at_one(opt, monkeypatch):
    once = []

    def kill_first_timing(text, n):
        if env_refs_in(text) and not once:
            once.append(n)
            return True
        return False

    failing(opt._ensure_sandbox(), monkeypatch, kill_first_timing)
    _, reward, _, _, info = gold_step(opt)
    assert once and "infra_error" not in info
    assert reward == 1.0 and info["audit"]["flags"] == [], info["verdict"]


def test_codeopt_timing_run_that_dies_only_with_the_attempt_is_flagged_not_blamed_on_the_machine(opt, monkeypatch):
    failing(opt._ensure_sandbox(), monkeypatch, lambda text, n: env_refs_in(text) and MARK in text)
    _, reward, _, _, info = gold_step(opt)
    assert "infra_error" not in info
    assert "harness_exit" in info["audit"]["flags"] and info["audit"]["audit_reward"] == 0.0
    assert reward < 0.4  # not even the correct stage: it was never timed


def test_codeopt_timing_run_that_dies_without_the_attempt_too_is_the_machines_fault(opt, monkeypatch):
    failing(opt._ensure_sandbox(), monkeypatch, lambda text, n: env_refs_in(text))
    _, reward, _, _, info = gold_step(opt)
    assert "infra_error" in info and "harness_exit" not in info["audit"]["flags"]


FULL_DISK_SCRIPT = """
import json, sys
import gymnasium as gym
import codegym
out = {}
for env_id in sys.argv[1:]:
    env = gym.make(env_id).unwrapped
    obs, info = env.reset(seed=0)
    _, reward, terminated, _, step_info = env.step(env.gold_action() if "infra_error" not in info else "x")
    out[env_id] = [info.get("infra_error"), obs in env.observation_space, reward, terminated,
                   step_info.get("infra_error")]
    env.close()
print(json.dumps(out))
"""


@pytest.fixture()
def full_disk(tmp_path):
    """A folder on a 1 MiB tmpfs with no byte free (root only: mount)."""
    import os
    import subprocess

    mnt = tmp_path / "disk"
    mnt.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)]).returncode:
        pytest.skip("needs root to mount a small tmpfs")
    try:
        (mnt / "sandbox").mkdir()
        (mnt / "cache").mkdir()
        with open(mnt / "filler", "wb") as f:
            try:
                while True:
                    f.write(b"\0" * 65536)
                    f.flush()
            except OSError:
                pass
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


@pytest.mark.parametrize("env_id", ["CodeRepair-v0", "Terminal-v0"])
def test_a_full_disk_at_reset_is_reported_in_info_not_raised(full_disk, env_id):
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, CODEGYM_TMP=str(full_disk / "sandbox"), CODEGYM_CACHE=str(full_disk / "cache"))
    run = subprocess.run(
        [sys.executable, "-c", FULL_DISK_SCRIPT, env_id], env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    start_error, obs_ok, reward, terminated, step_error = json.loads(run.stdout.splitlines()[-1])[env_id]
    assert start_error and "No space left" in start_error, start_error
    assert obs_ok and reward == 0.0 and terminated and step_error == start_error


def _restart_dockerd() -> None:
    """SIGKILL dockerd, start it again as scripts/setup.sh does, and wait until it answers."""
    import subprocess
    import time

    import docker

    subprocess.run(["pkill", "-9", "-x", "dockerd"], check=False)
    for _ in range(100):
        if subprocess.run(["pgrep", "-x", "dockerd"], capture_output=True).returncode:
            break
        time.sleep(0.1)
    with open("/var/log/codegym-dockerd.log", "ab") as log:
        subprocess.Popen(["dockerd"], stdout=log, stderr=log, start_new_session=True)
    for _ in range(300):
        try:
            docker.from_env(timeout=5).ping()
            return
        except Exception:  # noqa: BLE001 - not up yet
            time.sleep(0.2)
    raise AssertionError("dockerd did not come back within 60 s")


@pytest.mark.slow
@pytest.mark.docker
@pytest.mark.skipif(os.geteuid() != 0 or not docker_available(), reason="restarting dockerd needs root and an engine")
def test_an_episode_goes_on_after_dockerd_is_killed_and_restarted_mid_episode() -> None:
    # Slow and machine-wide (every container of the engine stops): run it alone.
    import time

    env = gym.make("CodeRepair-v0", sandbox="docker", harness="bash", max_turns=5).unwrapped
    try:
        env.reset(seed=0)
        _, _, _, _, info = env.step("```bash\necho before > marker.txt\n```")
        assert "infra_error" not in info, info["infra_error"]
        _restart_dockerd()
        obs, _, _, _, info = env.step("```bash\ncat marker.txt\n```")
        assert "infra_error" not in info, info["infra_error"]
        assert "before" in obs, obs
        env.reset(seed=0)
        _, reward, _, _, info = env.step(env.gold_action())
        assert reward == 1.0 and "infra_error" not in info, info.get("infra_error") or info["feedback"]
    finally:
        env.close()
    from leaks import containers

    for _ in range(100):  # removal right after a daemon restart takes a while
        if not containers():
            break
        time.sleep(0.1)
    assert containers() == set()
