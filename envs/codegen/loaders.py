"""Loaders for the code-generation formats users already have, into CodeGen task dicts.

* HumanEval / MBPP JSONL: ``task_id``, ``prompt``, ``test`` (defines ``check(candidate)``),
  ``entry_point``, optional ``canonical_solution`` (HumanEval: the body after the prompt).
  MBPP's original layout (``text``, ``code``, ``test_list``) is accepted too.
* CodeContests / LiveCodeBench style: a statement (``description`` / ``question_content`` /
  ``prompt``) with tests as ``{"inputs": [...], "outputs": [...]}`` (CodeContests keeps them
  under ``public_tests`` / ``private_tests`` / ``generated_tests``; LiveCodeBench as a list of
  ``{"input", "output"}`` in ``public_test_cases`` / ``private_test_cases``, maybe a JSON string).
* APPS: ``problem_id``, ``question``, ``input_output`` (JSON string with ``inputs``,
  ``outputs``, optional ``fn_name``), ``solutions`` (JSON string list), ``difficulty``.

Each loader takes a path to a JSONL/JSON file, a list of dicts, or a Hugging Face
``datasets.Dataset`` (anything iterable over dict rows), and returns task dicts that load
with ``gym.make("CodeGen-v0", tasks=...)``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from codegym.errors import TaskFormatError

from . import tasks as _fmt  # noqa: F401 - the format these loaders produce

ANSWER = "Reply with the complete {what} in a ```python code block."
Source = str | Path | Iterable[dict[str, Any]]


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


def load_humaneval(source: Source, split: str = "test") -> list[dict[str, Any]]:
    """HumanEval / MBPP JSONL rows -> CodeGen tasks judged by their ``check(candidate)``."""
    out = []
    for i, row in enumerate(_rows(source)):
        if "test_list" in row and "test" not in row:  # MBPP original layout
            code = row.get("code", "")
            entry = code.split("def ", 1)[1].split("(", 1)[0].strip() if "def " in code else ""
            body = "\n".join("    " + t.replace(f"{entry}(", "candidate(") for t in row["test_list"])
            test = f"{row.get('test_setup_code', '')}\ndef check(candidate):\n{body}\n"
            prompt = f"{row['text']}\nYour function must be named {entry} and pass:\n" + "\n".join(row["test_list"][:1])
            gold = code
        else:
            entry, test, prompt = row["entry_point"], row["test"], row["prompt"]
            sol = row.get("canonical_solution") or ""
            gold = (prompt + sol) if sol and not sol.lstrip().startswith(("def ", "import ", "from ")) else sol
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
        if gold:
            task["gold"] = gold
        out.append(task)
    return out


def _io_pairs(value: Any) -> list[tuple[str, str]]:
    value = _maybe_json(value)
    if not value:
        return []
    if isinstance(value, dict):
        return [(str(a), str(b)) for a, b in zip(value.get("inputs", []), value.get("outputs", []), strict=False)]
    return [(str(t["input"]), str(t["output"])) for t in value]


def load_codecontests(source: Source, split: str = "test", language: str = "python") -> list[dict[str, Any]]:
    """CodeContests / LiveCodeBench rows -> stdin/stdout CodeGen tasks."""
    out = []
    for i, row in enumerate(_rows(source)):
        pairs: list[tuple[str, str]] = []
        for key in (
            "public_tests",
            "private_tests",
            "generated_tests",
            "public_test_cases",
            "private_test_cases",
            "tests",
        ):
            pairs += _io_pairs(row.get(key))
        if "inputs" in row:
            pairs += _io_pairs({"inputs": row["inputs"], "outputs": row["outputs"]})
        if not pairs:
            raise TaskFormatError(
                f"<row {i}>", "tests", "no inputs/outputs found (public_tests, private_tests, inputs/outputs, ...)"
            )
        statement = row.get("description") or row.get("question_content") or row.get("prompt") or ""
        task_id = str(row.get("name") or row.get("question_id") or row.get("id") or f"contest/{i}")
        task = {
            "id": task_id,
            "split": split,
            "difficulty": str(row.get("difficulty") or "medium"),
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
        io = _maybe_json(row.get("input_output") or "{}") or {}
        inputs, outputs = io.get("inputs", []), io.get("outputs", [])
        task_id = f"apps/{row.get('problem_id', i)}"
        base = {
            "id": task_id,
            "split": split,
            "difficulty": {"introductory": "easy", "interview": "medium", "competition": "hard"}.get(
                row.get("difficulty"), "medium"
            ),
        }
        gold = _first_solution(row.get("solutions"), "python")
        if io.get("fn_name"):
            tests = [
                {
                    "args": a if isinstance(a, list) else [a],
                    "expected": o[0] if isinstance(o, list) and len(o) == 1 else o,
                }
                for a, o in zip(inputs, outputs, strict=False)
            ]
            task = {
                **base,
                "kind": "function",
                "language": "python",
                "entry_point": io["fn_name"],
                "tests": tests,
                "prompt": f"{row['question'].strip()}\n\nWrite a Python function named {io['fn_name']}. "
                + ANSWER.format(what="function"),
            }
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
