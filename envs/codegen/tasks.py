r"""The CodeGen task format and its check (``CodeGenEnv.parse_task``).

A task is a dict (one JSONL line)::

    {
      "id": "fn-easy-001", "difficulty": "easy", "split": "train",
      "kind": "function" | "stdio",
      "language": "python" | "cpp" | "rust" | "javascript",   # stdio may be any; function: python
      "prompt": "what the model reads (signature, docstring, examples, answer format)",
      "entry_point": "f",                       # function kind
      "tests": [{"args": [1, 2], "expected": 3}, ...]         # function kind, or
               [{"input": "1 2\\n", "output": "3\\n"}, ...],   # stdio kind
      "test_code": "def check(candidate): ...", # optional, HumanEval style (replaces tests)
      "prelude": "from typing import List ...",  # optional, function kind: run before the attempt
      "gold": "reference solution in the task's language",
      "wrong": "a plausible wrong solution (optional)",
      "float_tol": 1e-6,                       # optional, see compare.py
      "timeout": 4.0                           # optional, seconds per test
    }

Function-call ``expected`` values are in the runner's JSON form (``_runner.encode``):
plain JSON for numbers, strings, bools, None and lists (tuples become lists).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from codegym.core import Task
from codegym.errors import TaskFormatError

from .grading import LANGUAGES

KINDS = ("function", "stdio")


def parse_codegen_task(task: Task) -> Task:
    """Check one CodeGen task's fields and fill defaults; raise TaskFormatError naming the field."""
    data: dict[str, Any] = dict(task.data)
    kind = data.setdefault("kind", "function")
    if kind not in KINDS:
        raise TaskFormatError(task.source, "kind", f"expected one of {list(KINDS)}, got {kind!r} in task {task.id!r}")
    lang = data.setdefault("language", "python")
    if lang not in LANGUAGES:
        raise TaskFormatError(
            task.source, "language", f"expected one of {list(LANGUAGES)}, got {lang!r} in task {task.id!r}"
        )
    if kind == "function" and lang != "python":
        raise TaskFormatError(
            task.source, "language", f"function-call tasks are Python only; task {task.id!r} says {lang!r}"
        )
    task.require("prompt", str)
    if data.get("test_code"):
        if not isinstance(data["test_code"], str) or "def check" not in data["test_code"]:
            raise TaskFormatError(task.source, "test_code", f"must define check(candidate) in task {task.id!r}")
        task.require("entry_point", str)
        data["tests"] = [{}]
    else:
        tests = task.require("tests", list)
        if not tests:
            raise TaskFormatError(task.source, "tests", f"empty in task {task.id!r}; give at least one test")
        need = ("args", "expected") if kind == "function" else ("input", "output")
        for i, t in enumerate(tests):
            if not isinstance(t, dict) or any(k not in t for k in need):
                raise TaskFormatError(
                    task.source, f"tests[{i}]", f"expected keys {list(need)} in task {task.id!r}, got {t!r:.80}"
                )
        if kind == "function":
            task.require("entry_point", str)
    if "prelude" in data and (not isinstance(data["prelude"], str) or kind != "function"):
        raise TaskFormatError(task.source, "prelude", f"a str, for function-call tasks only, in task {task.id!r}")
    if "gold" in data and not isinstance(data["gold"], str):
        raise TaskFormatError(task.source, "gold", f"expected str in task {task.id!r}")
    return replace(task, data=data)
