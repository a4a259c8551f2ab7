"""``tasks=`` tells outside formats apart by their fields and loads them unchanged.

One row per format, shaped as its dataset ships it (the field names of HumanEval.jsonl.gz,
google-research/mbpp, deepmind/code_contests, livecodebench/code_generation_lite,
codeparrot/apps, princeton-nlp/SWE-bench, SWE-bench/SWE-smith, R2E-Gym/R2E-Gym-Lite), and
one folder per task layout (Harbor, Terminal-Bench 1).
"""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from pathlib import Path

import pytest
from codegym.envs.codegen import CodeGenEnv

from codegym.core.formats import detect, detect_folder
from codegym.errors import TaskFormatError

HUMANEVAL = {
    "task_id": "HumanEval/900",
    "prompt": 'def double(x: int) -> int:\n    """Twice x.\n    >>> double(2)\n    4\n    """\n',
    "entry_point": "double",
    "canonical_solution": "    def twice(v):\n        return v * 2\n\n    return twice(x)\n",
    "test": "\n\nMETADATA = {}\n\n\ndef check(candidate):\n"
    "    assert candidate(2) == 4\n    assert candidate(-1) == -2\n",
}
MBPP = {
    "task_id": 901,
    "text": "Write a function to add two numbers.",
    "code": "def add_nums(a, b):\r\n  return a + b",
    "test_list": ["assert add_nums(1, 2) == 3", "assert add_nums(0, 0) == 0", "assert add_nums(-1, 1) == 0"],
    "test_setup_code": "",
    "challenge_test_list": [],
}
MBPP_SANITIZED = {
    "source_file": "Benchmark Questions Verification V2.ipynb",
    "task_id": 902,
    "prompt": "Write a function to find the maximum of a list.",
    "code": "import math\ndef max_of(xs):\n    return max(xs)",
    "test_imports": ["import math"],
    "test_list": ["assert max_of([1, 5, 2]) == 5", "assert math.isclose(max_of([0.5]), 0.5)"],
}
CODECONTESTS = {
    "name": "903_A. Double it",
    "description": "Given n, print 2n.",
    "public_tests": {"input": ["1\n"], "output": ["2\n"]},
    "private_tests": {"input": ["5\n"], "output": ["10\n"]},
    "generated_tests": {"input": ["0\n"], "output": ["0\n"]},
    "source": 2,
    "difficulty": 7,
    "solutions": {"language": [2, 3], "solution": ["int main(){}", "print(2 * int(input()))"]},
    "incorrect_solutions": {"language": [3], "solution": ["print(int(input()))"]},
    "cf_contest_id": 903,
    "cf_index": "A",
    "cf_points": 500.0,
    "cf_rating": 800,
    "cf_tags": ["math"],
    "is_description_translated": False,
    "untranslated_description": "",
    "time_limit": {"seconds": 1, "nanos": 0},
    "memory_limit_bytes": 256000000,
    "input_file": "",
    "output_file": "",
}


def _lcb_pack(cases: list[dict]) -> str:
    """LiveCodeBench's packing of private tests: base64(zlib(pickle(json text)))."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases)))).decode()


LCB_STDIN = {
    "question_title": "Sum line",
    "question_content": "Print the sum of the numbers on the line.",
    "platform": "atcoder",
    "question_id": "abc904_a",
    "contest_id": "abc904",
    "contest_date": "2024-01-01T00:00:00",
    "starter_code": "",
    "difficulty": "easy",
    "public_test_cases": json.dumps([{"input": "1 2 3\n", "output": "6\n", "testtype": "stdin"}]),
    "private_test_cases": _lcb_pack([{"input": "5\n", "output": "5\n", "testtype": "stdin"}]),
    "metadata": "{}",
}
LCB_FUNCTIONAL = {
    "question_title": "Max pair sum",
    "question_content": "Return the largest sum of two elements of nums.",
    "platform": "leetcode",
    "question_id": "3905",
    "contest_id": "weekly-contest-905",
    "contest_date": "2024-01-01T00:00:00",
    "starter_code": "class Solution:\n    def maxPair(self, nums: List[int]) -> int:\n        ",
    "difficulty": "medium",
    "public_test_cases": json.dumps([{"input": "[1, 5, 3]", "output": "8", "testtype": "functional"}]),
    "private_test_cases": _lcb_pack([{"input": "[2, 2]", "output": "4", "testtype": "functional"}]),
    "metadata": json.dumps({"func_name": "maxPair"}),
}
APPS = {
    "problem_id": 906,
    "question": "Given a list, return its length.",
    "solutions": json.dumps(["class Solution:\n    def size(self, xs):\n        return len(xs)\n"]),
    "input_output": json.dumps({"fn_name": "size", "inputs": [[[1, 2]], [[]]], "outputs": [[2], [0]]}),
    "difficulty": "interview",
    "url": "https://leetcode.com/problems/size/",
    "starter_code": "class Solution:\n    def size(self, xs: List[int]) -> int:\n        ",
}
SWEBENCH = {
    "repo": "acme/kit",
    "instance_id": "acme__kit-907",
    "base_commit": "0" * 40,
    "patch": "diff --git a/kit.py b/kit.py\n",
    "test_patch": "diff --git a/test_kit.py b/test_kit.py\n",
    "problem_statement": "kit breaks",
    "hints_text": "",
    "created_at": "2024-01-01T00:00:00Z",
    "version": "1.0",
    "FAIL_TO_PASS": '["test_kit.py::test_new"]',
    "PASS_TO_PASS": "[]",
    "environment_setup_commit": "0" * 40,
}
SWESMITH = {
    "instance_id": "acme__kit.abcd1234.func_pm_op_flip__x1",
    "repo": "swesmith/acme__kit.abcd1234",
    "patch": "diff --git a/kit.py b/kit.py\n",
    "FAIL_TO_PASS": ["test_kit.py::test_a"],
    "PASS_TO_PASS": ["test_kit.py::test_b"],
    "created_at": "2025-01-01T00:00:00",
    "image_name": "jyangballin/swesmith.x86_64.acme_1776_kit.abcd1234",
    "base_commit": "1" * 40,
    "problem_statement": "kit flips",
}
R2EGYM = {
    "repo_name": "kit",
    "docker_image": "namanjain12/kit_final:abc",
    "commit_hash": "2" * 40,
    "parsed_commit_content": "{}",
    "execution_result_content": "{}",
    "modified_files": ["kit.py"],
    "modified_entity_summaries": [],
    "relevant_files": [],
    "num_non_test_files": 1,
    "num_non_test_func_methods": 1,
    "num_non_test_lines": 3,
    "prompt": "fix kit",
    "problem_statement": "kit breaks",
    "expected_output_json": '{"test_a": "PASSED"}',
}
ROWS = {
    "HumanEval": HUMANEVAL,
    "MBPP": MBPP,
    "MBPP sanitized": MBPP_SANITIZED,
    "CodeContests": CODECONTESTS,
    "LiveCodeBench": LCB_STDIN,
    "LiveCodeBench functional": LCB_FUNCTIONAL,
    "APPS": APPS,
    "SWE-bench": SWEBENCH,
    "SWE-smith": SWESMITH,
    "R2E-Gym": R2EGYM,
}


@pytest.mark.parametrize("label", ROWS)
def test_each_format_is_told_by_its_fields(label):
    assert detect(ROWS[label]).name == label.split(" ")[0]


#: (row, a right answer, a wrong answer); gold comes from the row itself where it has one.
CODEGEN = {
    "HumanEval": (HUMANEVAL, None, "def double(x):\n    return x"),
    "MBPP": (MBPP, None, "def add_nums(a, b):\n    return a"),
    "MBPP sanitized": (MBPP_SANITIZED, None, "def max_of(xs):\n    return min(xs)"),
    "CodeContests": (CODECONTESTS, None, "print(int(input()))"),
    "LiveCodeBench": (LCB_STDIN, "print(sum(map(int, input().split())))", "print(0)"),
    "LiveCodeBench functional": (
        LCB_FUNCTIONAL,
        "class Solution:\n    def maxPair(self, nums: List[int]) -> int:\n        return sum(sorted(nums)[-2:])",
        "class Solution:\n    def maxPair(self, nums):\n        return max(nums)",
    ),
    "APPS": (APPS, None, "class Solution:\n    def size(self, xs):\n        return 0"),
}


def test_codegen_formats_load_unchanged_from_one_jsonl_file_and_grade(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row, _, _ in CODEGEN.values()))
    env = CodeGenEnv(tasks=str(path), sandbox="local")
    try:
        scores = {}
        for label, task in zip(CODEGEN, env.tasks, strict=True):
            _, right, wrong = CODEGEN[label]
            env.reset(options={"task_id": task.id})
            gold = env.step(env.gold_action() if right is None else f"```python\n{right}\n```")[1]
            env.reset(options={"task_id": task.id})
            scores[label] = (gold, env.step(f"```python\n{wrong}\n```")[1])
    finally:
        env.close()
    assert {k: (g, w < 1.0) for k, (g, w) in scores.items()} == {k: (1.0, True) for k in CODEGEN}, scores


@pytest.mark.parametrize("label", ["SWE-bench", "SWE-smith", "R2E-Gym"])
def test_a_repository_row_given_to_codegen_names_its_format_and_the_env_that_reads_it(label):
    with pytest.raises(
        TaskFormatError,
        match=rf"; this is a {label} row .*CodeGen-v0 does not read it: "
        "load it with CodeRepair-v0 or TestGen-v0$",
    ):
        CodeGenEnv(tasks=[ROWS[label]])


def test_an_unrecognised_row_names_the_formats_it_could_be_and_their_missing_fields():
    row = {"task_id": "x/1", "prompt": "def f():\n", "entry_point": "f"}
    with pytest.raises(TaskFormatError) as err:
        CodeGenEnv(tasks=[row])
    assert str(err.value) == (
        "<tasks[0]>: field 'tests': missing in task 'x/1'; it could be HumanEval (missing test); "
        "or MBPP (missing code, test_list); or codegym CodeGen (missing tests|test_code)"
    )


def test_a_packed_private_test_field_that_holds_objects_is_refused_not_unpickled():
    class Boom:
        def __reduce__(self):
            return (print, ("unpickled!",))

    bad = dict(LCB_STDIN, private_test_cases=base64.b64encode(zlib.compress(pickle.dumps(Boom()))).decode())
    with pytest.raises(TaskFormatError, match="refusing builtins.print: only plain data"):
        CodeGenEnv(tasks=[bad])


def _write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


HARBOR = {
    "task.toml": 'version = "1.0"\n[metadata]\ndifficulty = "easy"\n[verifier]\ntimeout_sec = 60.0\n',
    "instruction.md": "Create /app/hello.txt containing hello.\n",
    "environment/Dockerfile": "FROM ubuntu:24.04\nWORKDIR /app\n",
    "tests/test.sh": "#!/bin/bash\ngrep -q hello /app/hello.txt && echo 1 > /logs/verifier/reward.txt\n",
    "solution/solve.sh": "#!/bin/bash\necho hello > /app/hello.txt\n",
}
TERMINAL_BENCH = {
    "task.yaml": "instruction: Create hello.txt\ndifficulty: easy\nmax_agent_timeout_sec: 180\n",
    "Dockerfile": "FROM ubuntu:24.04\nWORKDIR /app\n",
    "run-tests.sh": "#!/bin/bash\npytest $TEST_DIR/test_outputs.py -rA\n",
    "tests/test_outputs.py": "def test_hello():\n    assert open('/app/hello.txt').read().strip() == 'hello'\n",
    "solution.sh": "#!/bin/bash\necho hello > hello.txt\n",
}


def test_task_folders_are_told_by_their_layout(tmp_path):
    harbor = _write(tmp_path / "harbor" / "hello", HARBOR)
    tb1 = _write(tmp_path / "tb1" / "hello", TERMINAL_BENCH)
    assert (detect_folder(harbor).name, detect_folder(tb1).name) == ("Harbor", "Terminal-Bench")
    with pytest.raises(
        TaskFormatError, match=r"this is a Harbor task folder; CodeGen-v0 does not read it: .*Terminal-v0"
    ):
        CodeGenEnv(tasks=str(tmp_path / "harbor"))
    with pytest.raises(TaskFormatError, match="it holds Terminal-Bench task folders, which Terminal-v0 read"):
        CodeGenEnv(tasks=str(tmp_path / "tb1"))
