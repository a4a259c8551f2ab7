"""Every registered env checks its constructor arguments when it is made, not at its first step.

A wrong argument (a misspelt backend, a negative limit, a number in quotes, a bool where a
number goes, an unknown name) raises ValueError or TypeError from ``gym.make`` with a
message that names the argument and the bad value; good values still make the env.
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

import codegym  # noqa: F401 - registers the ids
from codegym.registration import ENVS

IDS = [e.id for e in ENVS]
AGENTIC = ("CodeRepair-v0", "TestGen-v0", "Terminal-v0")
IMAGE = ("ImageToSVG-v0", "ImageToTikZ-v0")

#: (kwargs, words the message must contain) wrong for every env.
COMMON = [
    ({"sandbox": "dockr"}, ["sandbox", "'dockr'", "Did you mean 'docker'"]),
    ({"sandbox": {"backend": "dokcer"}}, ["sandbox", "'dokcer'"]),
    ({"sandbox": {"memory_mb": -1}}, ["sandbox", "memory_mb", "-1"]),
    ({"sandbox": {"memory_mb": 0}}, ["sandbox", "memory_mb", "0"]),
    ({"sandbox": {"memory_mb": "512"}}, ["sandbox", "memory_mb", "'512'", "memory_mb=512 (a number"]),
    ({"sandbox": {"memory_mb": True}}, ["sandbox", "memory_mb", "True"]),
    ({"sandbox": {"memory_mb": 512.5}}, ["sandbox", "memory_mb", "512.5"]),
    ({"sandbox": {"timeout_s": -3}}, ["sandbox", "timeout_s", "-3"]),
    ({"sandbox": {"timeout_s": math.inf}}, ["sandbox", "timeout_s", "inf"]),
    ({"sandbox": {"memroy_mb": 512}}, ["sandbox", "memroy_mb", "Did you mean 'memory_mb'"]),
    ({"sandbox": {"workdir_from": "/etc"}}, ["sandbox", "workdir_from"]),
    ({"sandbox": 42}, ["sandbox", "42"]),
    ({"max_turns": "3"}, ["max_turns", "'3'", "max_turns=3 (a number"]),
    ({"max_turns": 0}, ["max_turns", "0"]),
    ({"max_turns": -2}, ["max_turns", "-2"]),
    ({"max_turns": True}, ["max_turns", "True"]),
    ({"max_turns": 2.5}, ["max_turns", "2.5"]),
    ({"tasks": 42}, ["tasks", "42"]),
    ({"tasks": [{"id": "a"}, 7]}, ["tasks[1]", "7"]),
    ({"render_mode": "humann"}, ["render_mode", "'humann'"]),
    ({"split": "tset"}, ["split", "'tset'"]),
    ({"difficulty": "hardd"}, ["difficulty", "'hardd'"]),
    ({"difficulty": 3}, ["difficulty", "3"]),
    ({"record_timing": "yes"}, ["record_timing", "'yes'"]),
    ({"max_turn": 3}, ["max_turn", "3", "Did you mean 'max_turns'"]),
]

#: env id -> (kwargs, words) wrong for that family only.
FAMILY = {
    "CodeGen-v0": [
        ({"reward_mode": "binry"}, ["reward_mode", "'binry'"]),
        ({"feedback": "al"}, ["feedback", "'al'"]),
        ({"timeout": -1}, ["timeout", "-1"]),
        ({"timeout": "4"}, ["timeout", "'4'"]),
        ({"timeout": math.nan}, ["timeout", "nan"]),
        ({"trace": "no"}, ["trace", "'no'"]),
    ],
    "CodeOptimization-v0": [
        ({"perf_timeout": -1}, ["perf_timeout", "-1"]),
        ({"perf_timeout": 0}, ["perf_timeout", "0"]),
        ({"perf_timeout": "20"}, ["perf_timeout", "'20'"]),
        ({"repeats": 0}, ["repeats", "0"]),
        ({"repeats": "5"}, ["repeats", "'5'"]),
        ({"repeats": True}, ["repeats", "True"]),
        ({"timeout": -1}, ["timeout", "-1"]),
    ],
    **{
        env_id: [
            ({"harness": "bsh"}, ["harness", "'bsh'", "Did you mean 'bash'"]),
            ({"command_timeout": -1}, ["command_timeout", "-1"]),
            ({"command_timeout": "60"}, ["command_timeout", "'60'"]),
            ({"output_limit": 0}, ["output_limit", "0"]),
            ({"step_rewards": "yes"}, ["step_rewards", "'yes'"]),
            ({"prestart": 1}, ["prestart", "1"]),
        ]
        for env_id in AGENTIC
    },
    **{
        env_id: [
            ({"render_timeout_s": -1}, ["render_timeout_s", "-1"]),
            ({"memory_mb": 0}, ["memory_mb", "0"]),
            ({"memory_mb": "1024"}, ["memory_mb", "'1024'"]),
            ({"image_size": "big"}, ["image_size", "'big'"]),
            ({"image_size": (64, "x")}, ["image_size", "(64, 'x')"]),
            ({"length_weight": -1}, ["length_weight", "-1"]),
            ({"fail_penalty": "0.1"}, ["fail_penalty", "'0.1'"]),
        ]
        for env_id in IMAGE
    },
    "TextToCAD-v0": [
        ({"timeout_s": 0}, ["timeout_s", "0"]),
        ({"timeout_s": -5.0}, ["timeout_s", "-5.0"]),
        ({"memory_mb": -5}, ["memory_mb", "-5"]),
        ({"detail": "exprt"}, ["detail", "'exprt'", "Did you mean 'expert'"]),
        ({"pool": "hot"}, ["pool", "'hot'"]),
        ({"pool": "warm", "sandbox": "docker"}, ["pool", "'warm'", "docker"]),
        ({"n_points": "8192"}, ["n_points", "'8192'"]),
        ({"token_rewards": "yes"}, ["token_rewards", "'yes'"]),
        ({"view_size": 0}, ["view_size", "0"]),
    ],
    "ProgramEvolution-v0": [
        ({"num_islands": 0}, ["num_islands", "0"]),
        ({"rewriter": "gpt"}, ["rewriter", "'gpt'"]),
        ({"estimators": ("credit", "valu")}, ["estimators", "valu"]),
        ({"history": "8"}, ["history", "'8'"]),
    ],
    "EvolveStep-v0": [
        ({"history_steps": -1}, ["history_steps", "-1"]),
        ({"history_steps": "3"}, ["history_steps", "'3'"]),
    ],
    "WebApp-v0": [
        ({"load_timeout_s": -1}, ["load_timeout_s", "-1"]),
        ({"item_timeout_s": 0}, ["item_timeout_s", "0"]),
        ({"screenshots": "some"}, ["screenshots", "'some'"]),
        ({"pool": "warm"}, ["pool", "'warm'"]),
        ({"credit": "no"}, ["credit", "'no'"]),
    ],
}

CASES = [
    pytest.param(env_id, kwargs, words, id=f"{env_id}-{'-'.join(f'{k}={v!r}' for k, v in kwargs.items())}")
    for env_id in IDS
    for kwargs, words in [*COMMON, *FAMILY.get(env_id, [])]
]


def test_every_registered_env_has_family_specific_bad_arguments_here():
    assert set(FAMILY) == set(IDS), "add the new family's arguments to FAMILY"


@pytest.mark.parametrize(("env_id", "kwargs", "words"), CASES)
def test_a_bad_argument_fails_at_make_naming_the_argument_and_the_value(env_id, kwargs, words):
    with pytest.raises((ValueError, TypeError)) as caught:
        gym.make(env_id, **kwargs)
    message = str(caught.value)
    missing = [w for w in words if w not in message]
    assert not missing, f"{missing} not in the message: {message}"


def _good(env_id: str) -> dict:
    """Arguments of the right type and range, other than the defaults, for each family."""
    sandbox = {"backend": "local", "memory_mb": np.int64(768), "timeout_s": 20, "max_processes": 64}
    good = {"sandbox": sandbox, "record_timing": True}
    if env_id in AGENTIC:
        good |= {"harness": "bash", "max_turns": 4, "command_timeout": 30, "output_limit": 500}
    elif env_id == "TextToCAD-v0":
        good |= {"max_turns": 2, "timeout_s": 20, "memory_mb": 1536, "detail": "beginner", "pool": "cold"}
    elif env_id in IMAGE:
        good |= {"max_turns": 2, "image_size": (64, 48), "render_timeout_s": 10, "memory_mb": 512}
    elif env_id == "WebApp-v0":
        good |= {"max_turns": 2, "load_timeout_s": 4, "item_timeout_s": 6.5}
    elif env_id == "ProgramEvolution-v0":
        good |= {"max_turns": 5, "num_islands": 3, "estimators": ("credit", "bandit"), "history": 4}
    elif env_id == "EvolveStep-v0":
        good |= {"max_turns": 2, "history_steps": 1}
    else:
        good |= {"max_turns": 3, "timeout": 2, "reward_mode": "binary"}
        if env_id == "CodeOptimization-v0":
            good |= {"perf_timeout": 10, "repeats": 3}
    return good


@pytest.mark.parametrize("env_id", IDS)
def test_good_arguments_still_make_every_env(env_id):
    kwargs = _good(env_id)
    env = gym.make(env_id, **kwargs)
    try:
        tasks = env.unwrapped.tasks
        split = tasks[0].split
        difficulty = next((t.difficulty for t in tasks if t.split == split and t.difficulty), None)
        assert env.unwrapped.max_turns == kwargs["max_turns"]
        assert env.unwrapped.sandbox_spec["memory_mb"] == 768
    finally:
        env.close()
    env = gym.make(env_id, split=split, difficulty=difficulty)
    env.close()


def test_the_sandbox_environment_variable_is_checked_at_make_too(monkeypatch):
    monkeypatch.setenv("CODEGYM_SANDBOX", "dockr")
    with pytest.raises(ValueError, match=r"CODEGYM_SANDBOX='dockr'.*Did you mean 'docker'"):
        gym.make("CodeGen-v0")


def test_limits_refuse_strings_and_bools_with_the_fix():
    from codegym.sandbox import Limits

    with pytest.raises(TypeError, match=r"memory_mb.*'512'.*pass memory_mb=512 \(a number"):
        Limits.from_kwargs(memory_mb="512")
    with pytest.raises(TypeError, match=r"cpu_s.*True"):
        Limits(cpu_s=True)
    with pytest.raises(ValueError, match=r"disk_mb.*-1"):
        Limits(disk_mb=-1)
    assert Limits(timeout_s=1, memory_mb=np.int64(64)).memory_mb == 64


def test_text_to_cad_on_docker_runs_its_attempts_in_a_docker_sandbox():
    # The CAD worker that forks per attempt needs the local backend; on docker every attempt
    # runs in a fresh interpreter in a docker sandbox (pool="cold"), never silently locally.
    from codegym.envs.cad.worker import ColdRunner

    env = gym.make("TextToCAD-v0", sandbox="docker").unwrapped
    try:
        assert env.pool == "cold"
        runner = env._runner()
        assert isinstance(runner, ColdRunner) and runner.sandbox_spec["backend"] == "docker"
    finally:
        env.close()


@pytest.mark.docker
def test_text_to_cad_gold_earns_full_reward_inside_docker():
    from conftest import docker_available

    if not docker_available():
        pytest.skip("no Docker engine (scripts/setup.sh starts one)")
    from codegym.sandbox.docker import DockerSandbox

    env = gym.make("TextToCAD-v0", sandbox="docker", token_rewards=False).unwrapped
    try:
        env.reset(options={"task_id": "plate-00"})
        _, reward, *_, info = env.step(env.gold_action())
        assert isinstance(env._worker._sandbox, DockerSandbox)
        assert reward >= 0.99 and "infra_error" not in info, info["feedback"]
    finally:
        env.close()
