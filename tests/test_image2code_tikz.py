"""ImageToTikZ-v0: gold, blank, progress spans, failing commands, hostile TikZ, check_env.

pdflatex costs ~0.3-1 s a run, so these tests share one env and compile little; the sweep
over every bundled gold picture is in the slow suite (test_image2code_sweep.py).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from codegym.envs.image2code.tasks import default_cache_dir
from codegym.envs.image2code.tikz import render_tikz, render_tikz_naive, tex_stage
from gymnasium.utils.env_checker import check_env

import codegym  # noqa: F401 - registers the env ids
from codegym.errors import SandboxError
from codegym.sandbox import create

TASK = "tikz-hard-002"


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("tikzcache")


@pytest.fixture(scope="module")
def env(cache):
    e = gym.make("ImageToTikZ-v0", cache_dir=cache, render_mode="rgb_array")
    yield e
    e.close()


@pytest.fixture(scope="module")
def sandbox():
    with create(timeout_s=60, workdir_from=tex_stage(default_cache_dir())) as sb:
        yield sb


def picture(*commands: str) -> str:
    return "```latex\n\\begin{tikzpicture}\n" + "\n".join(commands) + "\n\\end{tikzpicture}\n```"


def test_gold_tikz_earns_full_similarity_and_reward(env):
    env.reset(seed=0, options={"task_id": TASK})
    _, reward, terminated, _, info = env.step(env.unwrapped.gold_action())
    assert info["reward_components"]["render_similarity"] >= 0.99 and reward >= 0.99 and terminated
    assert np.array_equal(env.render()[:, :256], env.render()[:, 260:])


def test_blank_picture_earns_nothing(env):
    env.reset(seed=0, options={"task_id": TASK})
    _, reward, _, _, info = env.step(picture("% nothing drawn"))
    assert info["reward_components"]["compile"] == 1.0 and reward <= 0.02


def test_progress_spans_telescope_on_an_unfinished_picture(env):
    env.reset(seed=0, options={"task_id": TASK})
    gold = env.unwrapped.gold_action().splitlines()
    cmds = [line for line in gold if line.strip().startswith("\\") and "tikzpicture" not in line]
    action = picture(*cmds[: len(cmds) // 2])
    _, reward, _, _, info = env.step(action)
    spans = info["token_rewards"]
    assert len(spans) == len(cmds) // 2 and 0.05 < reward < 0.95
    assert sum(v for _, _, v in spans) == pytest.approx(info["reward_components"]["progress"], abs=1e-9)
    assert all(action[s:e].startswith("\\") and action[e - 1] == ";" for s, e, _ in spans)


def test_failing_command_gets_negative_span_and_later_commands_still_render(env):
    env.reset(seed=0, options={"task_id": TASK})
    gold = env.unwrapped.gold_action().splitlines()
    cmds = [line for line in gold if line.strip().startswith("\\") and "tikzpicture" not in line]
    action = picture("\\fill[fill=nosuchcolour] (1,1) circle (1);", *cmds)  # a LaTeX error
    _, reward, _, _, info = env.step(action)
    values = [v for _, _, v in info["token_rewards"]]
    assert reward == 0.0 and info["reward_components"]["compile"] == 0.0
    assert "line 2" in info["feedback"]  # the line of the bad command in the code block
    assert values[0] < 0 and sum(values[1:]) > 0.9  # the rest still renders and is credited
    assert info["verdict"]["failed_elements"][0]["index"] == 0


def test_shell_escape_and_file_reads_are_blocked_and_flagged(env):
    for body, flag in [
        ("\\immediate\\write18{touch pwned}", "shell_escape"),
        ("\\input{/etc/passwd}", "external_reference"),
    ]:
        env.reset(seed=0, options={"task_id": TASK})
        _, reward, _, _, info = env.step(picture("\\draw (0,0) -- (1,1);", body))
        assert reward == 0.0 and flag in info["audit"]["flags"]


def test_renderer_contains_shell_escape_and_file_reads_past_the_screen(sandbox):
    code = "\\begin{tikzpicture}\n\\immediate\\write18{touch pwned}\n\\input{/etc/passwd}\n\\end{tikzpicture}"
    res = render_tikz(sandbox, code, (64, 64), timeout=30)
    assert res.final is None and res.error
    with pytest.raises(SandboxError):
        sandbox.read_file("pwned")  # no shell ran
    log = sandbox.read_file("job.log").decode(errors="replace")
    assert "root:x:0:0" not in log


def test_endless_macro_loop_is_killed_at_the_time_limit(sandbox, env):
    res = render_tikz(sandbox, "\\begin{tikzpicture}\\def\\a{\\a}\\a\\end{tikzpicture}", (64, 64), timeout=3)
    assert res.timed_out and res.final is None
    env.reset(seed=0, options={"task_id": TASK})  # the env is unaffected
    assert env.step(env.unwrapped.gold_action())[1] >= 0.99


def test_runaway_loop_through_the_env_is_flagged_and_env_stays_usable(cache):
    e = gym.make("ImageToTikZ-v0", cache_dir=cache, render_timeout_s=4)
    try:
        e.reset(seed=0, options={"task_id": TASK})
        _, reward, _, _, info = e.step(
            picture("\\foreach \\i in {1,...,10000} {\\foreach \\j in {1,...,10000} {\\fill (0,0) circle (1pt);}}")
        )
        assert reward == 0.0 and "render_timeout" in info["audit"]["flags"] and "time limit" in info["feedback"]
        e.reset(seed=0, options={"task_id": TASK})
        assert e.step(e.unwrapped.gold_action())[1] >= 0.99
    finally:
        e.close()


def test_one_latex_run_pages_match_compiling_each_prefix_alone(sandbox):
    code = (
        "\\begin{tikzpicture}\n\\fill[red] (1,1) rectangle (3,3);\n\\begin{scope}[shift={(2,2)}]\n"
        "\\draw[blue, line width=3pt] (0,0) -- (4,1);\n\\fill[green] (1,3) circle (1);\n\\end{scope}\n"
        "\\node[font=\\Large] at (6,6) {A};\n\\end{tikzpicture}"
    )
    fast = render_tikz(sandbox, code, (64, 64))
    slow = render_tikz_naive(sandbox, code, (64, 64))
    assert fast.mode == "pages x1" and len(fast.frames) == len(slow) == 4
    for k, (a, b) in enumerate(zip(fast.frames, slow, strict=True)):
        assert a is not None and b is not None and np.array_equal(a, b), k
    assert np.array_equal(fast.final, slow[-1])


def test_check_env_passes(cache):
    e = gym.make("ImageToTikZ-v0", cache_dir=cache, image_size=64)
    try:
        check_env(e.unwrapped, skip_render_check=True)
    finally:
        e.close()
