"""TestGen-v0 on fail-to-pass tests that are new cases of an existing parametrized test.

SWE-bench's common shape: the test patch adds a case to a ``@pytest.mark.parametrize``
list whose other cases are pass-to-pass. The visible repository must keep those cases,
and the gold test patch must apply to it and earn full reward.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from codegym.envs.agentic import TestGenEnv
from codegym.envs.agentic.patches import file_diff
from codegym.envs.agentic.testsrc import filter_tests

BUGGY = (
    "def camel(s):\n    out = ''\n    for i, ch in enumerate(s):\n        if ch.isupper():\n"
    "            out += '_' + ch.lower()\n        else:\n            out += ch\n    return out\n"
)
FIXED = BUGGY.replace("if ch.isupper():", "if ch.isupper() and i > 0:").replace("out += ch\n", "out += ch.lower()\n")
OLD_TESTS = (
    "import pytest\nfrom kit.case import camel\n\n\n"
    "@pytest.mark.parametrize(\n    'text, want',\n    [\n"
    "        ('ab', 'ab'),\n        ('fooBar', 'foo_bar'),\n    ],\n)\n"
    "def test_camel(text, want):\n    assert camel(text) == want\n\n\n"
    "def test_other():\n    assert camel('x') == 'x'\n"
)
NEW_TESTS = OLD_TESTS.replace(
    "('fooBar', 'foo_bar'),\n", "('fooBar', 'foo_bar'),\n        ('HttpServer', 'http_server'),\n"
)
NEW_CASE = "tests/test_case.py::test_camel[HttpServer-http_server]"


def _git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t"}
    env |= {"GIT_COMMITTER_EMAIL": "t@x", "HOME": str(cwd), "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _instance(tmp_path: Path) -> Path:
    mirror = tmp_path / "mirrors" / "acme__kit"
    (mirror / "kit").mkdir(parents=True)
    (mirror / "tests").mkdir()
    (mirror / "kit" / "__init__.py").write_text("")
    (mirror / "kit" / "case.py").write_text(BUGGY)
    (mirror / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    (mirror / "tests" / "test_case.py").write_text(OLD_TESTS)
    _git(mirror, "init", "-q", "-b", "main")
    _git(mirror, "add", ".")
    _git(mirror, "commit", "-q", "-m", "base")
    instance = {
        "instance_id": "acme__kit-1",
        "repo": "acme/kit",
        "base_commit": _git(mirror, "rev-parse", "HEAD").strip(),
        "patch": file_diff("kit/case.py", BUGGY, FIXED),
        "test_patch": file_diff("tests/test_case.py", OLD_TESTS, NEW_TESTS),
        "problem_statement": "camel('HttpServer') gives '_http_server'",
        "FAIL_TO_PASS": json.dumps([NEW_CASE]),
        "PASS_TO_PASS": json.dumps(
            [
                "tests/test_case.py::test_camel[ab-ab]",
                "tests/test_case.py::test_camel[fooBar-foo_bar]",
                "tests/test_case.py::test_other",
            ]
        ),
        "version": "0.1",
    }
    (tmp_path / "swe.jsonl").write_text(json.dumps(instance) + "\n")
    return tmp_path / "swe.jsonl"


def test_gold_test_patch_adding_a_parametrized_case_earns_full_reward(tmp_path):
    env = TestGenEnv(tasks=_instance(tmp_path), repo_root=tmp_path / "mirrors", sandbox="local")
    env.reset(seed=0)
    visible = env.sandbox.read_file("tests/test_case.py").decode()
    _, gold, _, _, info = env.step(env.gold_action())
    env.reset(seed=0)
    _, trivial, _, _, trivial_info = env.step("```python\ndef test_nothing():\n    assert True\n```")
    env.close()
    assert visible == OLD_TESTS  # the pass-to-pass cases stay; the base has no new case to hide
    assert gold == 1.0, info["feedback"]
    assert NEW_CASE in info["verdict"]["tests"] and "always_pass_tests" not in info["audit"]["flags"]
    assert trivial == 0.0 and "always_pass_tests" in trivial_info["audit"]["flags"]


CASES_SOURCE = """import pytest


@pytest.mark.parametrize("a, b", [(1, 2), ("x y", None), (1.5, True), ("caf\\u00e9", b"z"), ([1], {"k": 2})])
def test_values(a, b):
    assert a != b


@pytest.mark.parametrize("t", [(1, 2), (3, 4)])
def test_tuple_is_one_value(t):
    assert len(t) == 2


@pytest.mark.parametrize("v", [pytest.param(1, id="one"), 2, 2, 7, 7])
def test_ids_and_duplicates(v):
    assert v


class TestKlass:
    @pytest.mark.parametrize("n", ("a", "b"))
    def test_method(self, n):
        assert n
"""


def _collect(folder: Path) -> list[str]:
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "test_cases.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return [line for line in res.stdout.splitlines() if "::" in line]


def test_dropping_cases_removes_exactly_their_pytest_ids(tmp_path):
    (tmp_path / "test_cases.py").write_text(CASES_SOURCE)
    ids = _collect(tmp_path)
    assert len(ids) == 14, ids
    # One case of each function, including escaped text, a tuple value and an explicit id.
    gone = [ids[1], ids[3], ids[6], ids[7], ids[13]]
    (tmp_path / "test_cases.py").write_text(filter_tests(CASES_SOURCE, "test_cases.py", gone, keep=False))
    after = _collect(tmp_path)
    # Ids made of argname + index shift when an earlier case goes (pytest's rule): a4-b4 -> a3-b3.
    assert len(after) == len(ids) - len(gone) and not set(gone) & set(after)
    assert set(ids) - set(gone) - {"test_cases.py::test_values[a4-b4]"} <= set(after), after
    every_case = [i for i in ids if "test_tuple_is_one_value" in i]
    dropped = filter_tests(CASES_SOURCE, "test_cases.py", every_case, keep=False)
    assert "def test_tuple_is_one_value" not in dropped and "def test_values" in dropped


def test_a_case_whose_id_cannot_be_read_from_the_text_drops_the_whole_function():
    source = "import pytest\n\n\n@pytest.mark.parametrize('v', [make(1), make(2)])\ndef test_v(v):\n    assert v\n"
    # argname + index is the only id pytest can give case 0 that is not in the text: drop just it.
    assert "[make(2)]" in filter_tests(source, "t.py", ["t.py::test_v[v0]"], keep=False)
    # Another id may be a value's __name__: the case cannot be found, so nothing of it may show.
    assert "def test_v" not in filter_tests(source, "t.py", ["t.py::test_v[hidden]"], keep=False)
