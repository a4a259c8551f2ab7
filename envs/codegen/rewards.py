"""Reward modes of CodeGen-v0 (pure functions over a :class:`RunResult`).

``binary``:        ``1`` if every test passes, else ``0``.
``pass_rate``:     passed tests / tests.
``hierarchical``:  DHRCL's ladder (syntax -> execution -> pass rate -> structure)::

        1.0                                                     if every test passes
        W_SYNTAX * syntax + W_EXEC * execution
          + W_PASS * pass_rate + W_STRUCT * structure           otherwise (at most 0.9)

    with ``W_SYNTAX = 0.1, W_EXEC = 0.2, W_PASS = 0.5, W_STRUCT = 0.1``; ``syntax`` is 1 when
    the attempt parses / compiles, ``execution`` the share of tests that ran to the end
    (right or wrong answer, no error or timeout), ``structure`` the similarity of the
    attempt's AST node sequence to the gold's (``difflib`` ratio; token sequences for
    non-Python code) and counts only once the attempt parses.
"""

from __future__ import annotations

import ast
import difflib
import re

from .grading import RunResult

REWARD_MODES = ("binary", "pass_rate", "hierarchical")
W_SYNTAX, W_EXEC, W_PASS, W_STRUCT = 0.1, 0.2, 0.5, 0.1


def _shape(code: str, language: str) -> list[str]:
    if language == "python":
        try:
            return [type(n).__name__ for n in ast.walk(ast.parse(code))]
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return []
    return re.findall(r"[A-Za-z_]\w*|\d+|\S", code)


def structure_similarity(code: str, gold: str, language: str = "python") -> float:
    """Similarity in [0, 1] of two programs' syntax shapes (see module doc)."""
    a, b = _shape(code, language), _shape(gold, language)
    if not a or not b:
        return 0.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def components(result: RunResult, code: str, gold: str | None, language: str) -> dict[str, float]:
    """The named parts every reward mode is computed from."""
    structure = structure_similarity(code, gold, language) if (gold and result.syntax_ok) else 0.0
    return {
        "syntax": float(result.syntax_ok),
        "execution": result.executed_rate,
        "pass_rate": result.pass_rate,
        "structure": structure,
        "solved": float(bool(result.tests) and result.passed == len(result.tests)),
    }


def reward(mode: str, comp: dict[str, float]) -> float:
    """The reward of ``mode`` from :func:`components`."""
    if mode == "binary":
        return comp["solved"]
    if mode == "pass_rate":
        return comp["pass_rate"]
    if mode == "hierarchical":
        if comp["solved"]:
            return 1.0
        return (
            W_SYNTAX * comp["syntax"]
            + W_EXEC * comp["execution"]
            + W_PASS * comp["pass_rate"]
            + W_STRUCT * comp["structure"]
        )
    raise ValueError(f"reward_mode={mode!r} is unknown; use one of {list(REWARD_MODES)}")
