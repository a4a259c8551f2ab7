"""The shared core: text space, code extraction, task sets, and CodeEnv's contract."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env
from toy_env import TASKS, ToyEnv

from codegym.core import Outcome, TaskSet, UnicodeText, extract_code, make_info
from codegym.errors import TaskFormatError, UnknownTaskError


# ---------------------------------------------------------------------- text space
def test_text_space_contains_any_unicode_code() -> None:
    space = UnicodeText(100)
    assert space.contains("def f(x):\n    return x  # ünïcode λ 你好\t{}")
    assert not space.contains("x" * 101)
    assert not space.contains(b"bytes")


def test_text_space_samples_printable_text_with_spaces_and_newlines() -> None:
    space = UnicodeText(10_000, seed=0)
    samples = "".join(space.sample() for _ in range(50))
    assert " " in samples and "\n" in samples and "(" in samples
    assert all(space.contains(space.sample()) for _ in range(20))


# ---------------------------------------------------------------------- extraction
def test_extract_prefers_the_block_in_the_asked_language() -> None:
    text = "Plan:\n```text\nnot code\n```\n```python\nprint(1)\n```\n```cpp\nint main(){}\n```"
    got = extract_code(text, "python")
    assert got is not None and got.code == "print(1)" and got.language == "python"
    assert text[got.start : got.end] == got.code


def test_extract_handles_unclosed_fence_and_raw_code() -> None:
    cut = "```py\ndef f():\n    return 1"
    got = extract_code(cut, "python")
    assert got is not None and got.code == "def f():\n    return 1"
    raw = extract_code("\n  x = 1\n", None)
    assert raw is not None and raw.code == "x = 1" and not raw.fenced
    assert extract_code("   \n", None) is None
    assert extract_code("```python\n\n```", "python") is None


def test_a_code_line_that_starts_with_a_fence_and_more_does_not_close_the_block() -> None:
    app = "<script>\nconst s = `\n```js console.log(1)```\n`;\n</script>"
    got = extract_code("Here:\n```html\n" + app + "\n```  \nDone.", "html")
    assert got is not None and got.code == app
    # while blanks, prose after a space, or a carriage return after a closing fence still close it
    for reply in ("```html\n<p>A</p>\n``` That's it.\n```\nnot code\n```", "```html\r\n<p>A</p>\r\n```\r\nBye."):
        got = extract_code(reply, "html")
        assert got is not None and got.code.rstrip("\r") == "<p>A</p>"
    got = extract_code("~~~html `x`\n<p>A</p>\n~~~\n", "html")  # a backtick in a tilde fence's info string
    assert got is not None and got.code == "<p>A</p>"


def test_runs_of_fence_characters_are_read_once() -> None:
    # Each of these took seconds to minutes when every backtick was tried as a fence opening.
    for text in ("`" * 4000, "``` " * 4000, "~~~a" * 4000, "```" + " " * 20000 + "x"):
        got = extract_code(text, "html")
        assert got is not None and not got.fenced and got.code == text.strip()
    got = extract_code("```html\n" + "`" * 4000, "html")
    assert got is not None and got.fenced and got.code == "`" * 4000


# ---------------------------------------------------------------------- task sets
def test_task_set_loads_every_format(tmp_path: Path) -> None:
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text("\n".join(json.dumps(t) for t in TASKS))
    (tmp_path / "t.json").write_text(json.dumps(TASKS))
    task_dir = tmp_path / "dirs" / "hello"
    task_dir.mkdir(parents=True)
    (task_dir / "task.toml").write_text('difficulty = "easy"\n[verifier]\ntimeout = 5\n')
    (task_dir / "instruction.md").write_text("Say hello.")
    for source in (TASKS, jsonl, tmp_path / "t.json"):
        assert TaskSet.load(source).ids == ["add", "mul", "neg"]
    dirs = TaskSet.load(tmp_path / "dirs")
    task = dirs.get("hello")
    assert task.path == task_dir and task["instruction"] == "Say hello." and task["verifier"]["timeout"] == 5


def test_task_set_choice_is_seeded_and_filtered() -> None:
    tasks = TaskSet.load(TASKS)
    picks = [tasks.choose(np.random.default_rng(7)).id for _ in range(3)]
    assert len(set(picks)) == 1
    assert tasks.choose(np.random.default_rng(0), split="test").id == "neg"
    assert {t.id for t in tasks.filter(difficulty="easy")} == {"add", "mul"}


def test_malformed_tasks_name_the_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a"}\n{"id": 3}\n')
    with pytest.raises(TaskFormatError, match=r"bad.jsonl:2: field 'id': missing or not a string"):
        TaskSet.load(bad)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n")
    with pytest.raises(TaskFormatError, match=r"broken.jsonl:1: field '<json>': not valid JSON"):
        TaskSet.load(broken)
    with pytest.raises(TaskFormatError, match="duplicate task id 'x'"):
        TaskSet.load([{"id": "x"}, {"id": "x"}])
    with pytest.raises(TaskFormatError, match="does not exist"):
        TaskSet.load(tmp_path / "missing")


def test_unknown_task_id_suggests_the_closest() -> None:
    with pytest.raises(UnknownTaskError, match="no task 'ad' in this task set. Did you mean 'add'?"):
        TaskSet.load(TASKS).get("ad")


# ---------------------------------------------------------------------- info contract
def test_info_rejects_spans_outside_the_action_and_non_finite_numbers() -> None:
    with pytest.raises(ValueError, match="not a finite half-open span"):
        make_info("t", Outcome(1.0, token_rewards=[(0, 10, 1.0)]), action_length=5)
    with pytest.raises(ValueError, match="must be finite"):
        make_info("t", Outcome(1.0, components={"x": float("nan")}), action_length=5)
    with pytest.raises(ValueError, match="JSON-serialisable"):
        make_info("t", Outcome(1.0, verdict={"x": object()}), action_length=5)


# ---------------------------------------------------------------------- CodeEnv
def test_toy_env_passes_gymnasiums_checker() -> None:
    env = ToyEnv()
    check_env(env, skip_render_check=False)
    env.close()


def test_gold_earns_full_reward_and_a_wrong_attempt_the_floor() -> None:
    env = ToyEnv()
    for task_id in ("add", "mul", "neg"):
        env.reset(options={"task_id": task_id})
        _, reward, terminated, truncated, info = env.step(env.gold_action())
        assert reward == 1.0 and terminated and not truncated and info["task_id"] == task_id
        assert info["token_rewards"] and set(info) >= {"reward_components", "feedback", "audit", "verdict"}
    env.reset(options={"task_id": "add"})
    assert env.step("def add(a, b):\n    return a - b")[1] == 0.0
    env.close()


def test_bad_input_never_raises_and_the_env_stays_usable() -> None:
    env = ToyEnv()
    env.reset(options={"task_id": "add"})
    _, reward, terminated, _, info = env.step(None)  # type: ignore[arg-type]
    assert reward == 0.0 and terminated and "must be a str" in info["feedback"]
    env.reset(options={"task_id": "add"})
    _, reward, *_ = env.step("\x00\udcff garbage ```")
    assert reward == 0.0
    env.reset(options={"task_id": "add"})
    assert env.step(env.gold_action())[1] == 1.0
    env.close()
    env = ToyEnv(max_turns=3)  # multi-turn: a malformed action is a wasted turn, not the end
    env.reset(options={"task_id": "add"})
    _, reward, terminated, truncated, _ = env.step(None)  # type: ignore[arg-type]
    assert reward == 0.0 and not terminated and not truncated
    assert env.step(env.gold_action())[1:3] == (1.0, True)
    env.close()


def test_a_grader_crash_is_an_infra_error_not_a_zero() -> None:
    class Broken(ToyEnv):
        def _grade(self, action: str) -> Outcome:
            raise RuntimeError("renderer segfault")

    env = Broken()
    env.reset()
    _, _, _, _, info = env.step("x")
    assert info["infra_error"] == "grader crashed: RuntimeError: renderer segfault"


def test_step_before_reset_and_after_the_end_asks_for_reset() -> None:
    env = ToyEnv()
    with pytest.raises(ResetNeeded):
        env.step("x")
    env.reset()
    env.step("x")
    with pytest.raises(ResetNeeded):
        env.step("x")


def test_reset_options_pick_task_split_and_difficulty() -> None:
    env = ToyEnv()
    assert env.reset(options={"split": "test"})[1]["task_id"] == "neg"
    assert env.reset(options={"difficulty": "hard"})[1]["task_id"] == "neg"
    assert env.reset(seed=3)[1] == env.reset(seed=3)[1]
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(options={"task": "add"})


def test_multi_turn_episode_truncates_at_the_turn_limit() -> None:
    env = ToyEnv(max_turns=2)

    def not_final(action: str) -> Outcome:
        return Outcome(0.0, feedback="try again", terminated=False)

    env._grade = not_final  # type: ignore[method-assign]
    env.reset()
    obs, _, terminated, truncated, info = env.step("x")
    assert (obs, terminated, truncated, info["turn"]) == ("try again", False, False, 1)
    _, _, terminated, truncated, info = env.step("x")
    assert (terminated, truncated, info["turn"]) == (False, True, 2)


def test_fork_and_restore_give_independent_episodes() -> None:
    env = ToyEnv(max_turns=3)
    env.reset(options={"task_id": "add"})
    snap = env.snapshot()
    clone = env.fork()
    env.step("def add(a, b):\n    return 0")
    assert env.episode is not None and env.episode.turn == 1
    assert clone.episode is not None and clone.episode.turn == 0
    assert clone.step(clone.gold_action())[1] == 1.0
    env.restore(snap)
    assert env.episode is not None and env.episode.turn == 0
    env.close()
    clone.close()


def test_env_pickles_without_its_sandbox() -> None:
    env = ToyEnv()
    env.reset(options={"task_id": "mul"})
    env.step(env.gold_action())
    copy = pickle.loads(pickle.dumps(env))
    copy.reset(options={"task_id": "add"})
    assert copy.step(copy.gold_action())[1] == 1.0
    env.close()
    copy.close()


def test_import_registers_every_env_id() -> None:
    import codegym
    from codegym.registration import ENVS

    assert codegym.__version__
    for entry in ENVS:
        assert entry.id in gym.registry
