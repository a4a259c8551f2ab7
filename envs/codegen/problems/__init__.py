"""The bundled CodeGen problems, written compactly and exported to ``assets/codegen/``.

Each batch module lists problems as :class:`Fn` (function-call) or :class:`Io`
(stdin/stdout) records: the statement, the gold solution(s), hand-written edge cases and a
seeded generator of further inputs. :func:`build` runs the Python gold on the host (our own
code) to compute every expected output, so the hidden tests always agree with the gold;
``python -m codegym.envs.codegen.problems.build`` rewrites the JSONL files.
"""

from __future__ import annotations

import contextlib
import io
import random
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._runner import encode

N_TESTS = 12  # hidden tests per problem: the edge cases first, then generated ones
ANSWER_FORMAT = "Reply with the complete {what} in a ```{lang} code block."
LANG_NAMES = {"python": "Python 3", "cpp": "C++17 (g++)", "javascript": "JavaScript (Node.js)", "rust": "Rust (rustc)"}


@dataclass
class Fn:
    """A function-call problem (HumanEval style).

    Attributes:
        id: short name; the task id is ``fn-<id>``.
        difficulty: easy / medium / hard.
        signature: the ``def`` line with type hints.
        doc: what the function must do (becomes the docstring).
        gold: a correct implementation.
        gen: ``rng -> args`` for one generated test.
        edge: hand-written argument lists (edge cases).
        wrong: a plausible wrong implementation (first 30 problems).
        float_tol: numeric tolerance, when the result is a float.

    """

    id: str
    difficulty: str
    signature: str
    doc: str
    gold: str
    gen: Callable[[random.Random], list[Any]]
    edge: list[list[Any]] = field(default_factory=list)
    wrong: str | None = None
    float_tol: float | None = None


@dataclass
class Io:
    """A stdin/stdout problem (CodeContests style), one task per language with a gold.

    Attributes:
        id: short name; task ids are ``io-<id>-<language>``.
        difficulty: easy / medium / hard.
        statement: the problem, with input and output format.
        golds: language -> correct program (``python`` required: it computes the outputs).
        gen: ``rng -> input text`` for one generated test.
        edge: hand-written inputs.
        wrong: language -> a plausible wrong program.

    """

    id: str
    difficulty: str
    statement: str
    golds: dict[str, str]
    gen: Callable[[random.Random], str]
    edge: list[str] = field(default_factory=list)
    wrong: dict[str, str] = field(default_factory=dict)
    float_tol: float | None = None


def d(text: str) -> str:
    """Dedent a code block written inline."""
    return textwrap.dedent(text).strip("\n") + "\n"


def ints(r: random.Random, lo_n: int, hi_n: int, lo: int, hi: int) -> list[int]:
    """A random list of ints of length in [lo_n, hi_n] with values in [lo, hi]."""
    return [r.randint(lo, hi) for _ in range(r.randint(lo_n, hi_n))]


def word(r: random.Random, lo: int = 0, hi: int = 10, alphabet: str = "abcdefghij") -> str:
    """A random string."""
    return "".join(r.choice(alphabet) for _ in range(r.randint(lo, hi)))


def _entry(signature: str) -> str:
    return signature.split("def ", 1)[1].split("(", 1)[0].strip()


def fn_task(p: Fn, index: int) -> dict[str, Any]:
    """The task dict of a function-call problem, tests computed from its gold."""
    entry = _entry(p.signature)
    ns: dict[str, Any] = {}
    exec(p.gold, ns)  # our gold, on the host, to compute the expected values
    rng = random.Random(f"fn-{p.id}")
    arg_lists, seen = [], set()
    for args in p.edge:
        arg_lists.append(args)
        seen.add(repr(args))
    tries = 0
    while len(arg_lists) < N_TESTS and tries < 1000:
        tries += 1
        args = p.gen(rng)
        if repr(args) not in seen or tries > 500:
            seen.add(repr(args))
            arg_lists.append(args)
    import copy

    tests = [{"args": a, "expected": encode(ns[entry](*copy.deepcopy(a)))} for a in arg_lists]
    ex = tests[min(len(p.edge), len(tests) - 1)]
    call = f"{entry}({', '.join(repr(a) for a in ex['args'])})"
    doc = textwrap.indent(textwrap.fill(p.doc, 84), "    ")
    prompt = (
        f'Complete this Python function.\n\n```python\n{p.signature}\n    """\n{doc}\n\n'
        f'    >>> {call}\n    {ex["expected"]!r}\n    """\n```\n\n'
        + ANSWER_FORMAT.format(what="function", lang="python")
    )
    task = {
        "id": f"fn-{p.id}",
        "difficulty": p.difficulty,
        "split": "test" if index % 5 == 4 else "train",
        "kind": "function",
        "language": "python",
        "prompt": prompt,
        "entry_point": entry,
        "tests": tests,
        "gold": p.gold,
    }
    if p.wrong:
        task["wrong"] = p.wrong
    if p.float_tol is not None:
        task["float_tol"] = p.float_tol
    return task


def run_python_io(code: str, text: str) -> str:
    """Stdout of ``code`` (our gold) run on ``text`` as stdin, in this process."""
    out = io.StringIO()
    old_in = __import__("sys").stdin
    try:
        __import__("sys").stdin = io.StringIO(text)
        with contextlib.redirect_stdout(out):
            exec(code, {"__name__": "__main__"})
    finally:
        __import__("sys").stdin = old_in
    return out.getvalue()


def io_tasks(p: Io, index: int) -> list[dict[str, Any]]:
    """One task dict per language with a gold; outputs computed from the Python gold."""
    rng = random.Random(f"io-{p.id}")
    inputs = list(p.edge)
    seen = set(inputs)
    tries = 0
    while len(inputs) < N_TESTS and tries < 1000:
        tries += 1
        text = p.gen(rng)
        if text not in seen or tries > 500:
            seen.add(text)
            inputs.append(text)
    tests = [{"input": t, "output": run_python_io(p.golds["python"], t)} for t in inputs]
    out = []
    for lang, gold in p.golds.items():
        prompt = (
            f"{p.statement.strip()}\n\nExample input:\n```\n{tests[0]['input']}```\nExample output:\n```\n"
            f"{tests[0]['output']}```\n\nWrite the program in {LANG_NAMES[lang]}: read standard input, "
            f"write standard output. " + ANSWER_FORMAT.format(what="program", lang=lang)
        )
        task = {
            "id": f"io-{p.id}-{lang}",
            "difficulty": p.difficulty,
            "split": "test" if index % 5 == 4 else "train",
            "kind": "stdio",
            "language": lang,
            "prompt": prompt,
            "tests": tests,
            "gold": gold,
            "timeout": 6.0,
        }
        if lang in p.wrong:
            task["wrong"] = p.wrong[lang]
        if p.float_tol is not None:
            task["float_tol"] = p.float_tol
        out.append(task)
    return out
