"""Loaders of HumanEval/MBPP, CodeContests/LiveCodeBench and APPS rows (fixtures written here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codegym.envs.codegen import CodeGenEnv
from codegym.envs.codegen.loaders import load_apps, load_codecontests, load_humaneval

HUMANEVAL = [
    {
        "task_id": "HumanEval/demo0",
        "prompt": 'def add_one(xs: list) -> list:\n    """Add one to every element."""\n',
        "canonical_solution": "    return [x + 1 for x in xs]\n",
        "test": "def check(candidate):\n    assert candidate([1, 2]) == [2, 3]\n    assert candidate([]) == []\n",
        "entry_point": "add_one",
    }
]
MBPP = [
    {
        "task_id": 11,
        "text": "Write a function to find the maximum of two numbers.",
        "code": "def max_two(a, b):\n    return a if a > b else b",
        "test_list": ["assert max_two(1, 2) == 2", "assert max_two(5, -1) == 5", "assert max_two(3, 3) == 3"],
    }
]
CODECONTESTS = [
    {
        "name": "demo_double",
        "description": "Read n and print 2n.",
        "public_tests": {"input": [], "output": [], "inputs": ["1\n"], "outputs": ["2\n"]},
        "private_tests": {"inputs": ["5\n", "0\n"], "outputs": ["10\n", "0\n"]},
        "solutions": {"language": [3, 2], "solution": ["print(2 * int(input()))", "int main(){}"]},
        "difficulty": 1,
    }
]
LIVECODEBENCH = [
    {
        "question_id": "lcb_demo",
        "question_content": "Print the sum of the numbers on the line.",
        "public_test_cases": json.dumps([{"input": "1 2 3\n", "output": "6\n", "testtype": "stdin"}]),
        "private_test_cases": json.dumps([{"input": "5\n", "output": "5\n", "testtype": "stdin"}]),
        "gold": "print(sum(map(int, input().split())))",
    }
]
APPS = [
    {
        "problem_id": 7,
        "question": "Print the input reversed.",
        "difficulty": "introductory",
        "input_output": json.dumps({"inputs": ["abc\n", "x\n"], "outputs": ["cba\n", "x\n"]}),
        "solutions": json.dumps(["print(input()[::-1])"]),
    },
    {
        "problem_id": 8,
        "question": "Return the square of n.",
        "difficulty": "interview",
        "input_output": json.dumps({"fn_name": "square", "inputs": [[2], [3]], "outputs": [[4], [9]]}),
        "solutions": json.dumps(["def square(n):\n    return n * n"]),
    },
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def gold_and_wrong(tasks: list[dict], wrong: str) -> list[tuple[float, float]]:
    env = CodeGenEnv(tasks=tasks)
    try:
        out = []
        for t in tasks:
            env.reset(options={"task_id": t["id"]})
            gold = env.step(env.gold_action())[1]
            env.reset(options={"task_id": t["id"]})
            bad = env.step(f"```python\n{wrong}\n```")[1]
            out.append((gold, bad))
        return out
    finally:
        env.close()


def test_humaneval_and_mbpp_files_load_and_their_gold_passes_check(tmp_path: Path) -> None:
    tasks = load_humaneval(write_jsonl(tmp_path / "he.jsonl", HUMANEVAL)) + load_humaneval(MBPP)
    assert [t["id"] for t in tasks] == ["HumanEval/demo0", "11"]
    assert tasks[0]["entry_point"] == "add_one" and "def check" in tasks[1]["test_code"]
    assert gold_and_wrong(tasks, "def add_one(xs):\n    return xs\ndef max_two(a, b):\n    return a") == [
        (1.0, 0.0),
        (1.0, 0.0),
    ]


def test_codecontests_and_livecodebench_rows_become_stdio_tasks(tmp_path: Path) -> None:
    tasks = load_codecontests(write_jsonl(tmp_path / "cc.jsonl", CODECONTESTS)) + load_codecontests(LIVECODEBENCH)
    assert [len(t["tests"]) for t in tasks] == [3, 2]
    assert tasks[0]["gold"] == "print(2 * int(input()))"
    assert gold_and_wrong(tasks, "print(0)") == [(1.0, pytest.approx(1 / 3)), (1.0, 0.0)]


def test_apps_rows_load_as_stdio_and_function_tasks(tmp_path: Path) -> None:
    path = tmp_path / "apps.json"
    path.write_text(json.dumps(APPS), encoding="utf-8")
    tasks = load_apps(path)
    assert [t["kind"] for t in tasks] == ["stdio", "function"]
    assert [t["difficulty"] for t in tasks] == ["easy", "medium"]
    assert gold_and_wrong(tasks, "print(input())\ndef square(n):\n    return n") == [(1.0, 0.5), (1.0, 0.0)]


def test_a_datasets_object_loads_like_a_list_of_rows() -> None:
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_list(HUMANEVAL)
    assert load_humaneval(ds) == load_humaneval(HUMANEVAL)


def test_loaders_round_trip_through_a_jsonl_task_file(tmp_path: Path) -> None:
    tasks = load_humaneval(HUMANEVAL) + load_codecontests(CODECONTESTS) + load_apps(APPS)
    path = write_jsonl(tmp_path / "all.jsonl", tasks)
    env = CodeGenEnv(tasks=str(path))
    try:
        assert [t.id for t in env.tasks] == [t["id"] for t in tasks]
        assert [t.data["tests"] for t in env.tasks][1:] == [t["tests"] for t in tasks[1:]]
    finally:
        env.close()


def test_a_row_without_tests_raises_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no inputs/outputs found"):
        load_codecontests([{"name": "x", "description": "nothing"}])
