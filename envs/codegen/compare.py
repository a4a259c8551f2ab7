"""How an attempt's output is compared with the expected one (pure functions).

Function-call tests (values):
    Values are compared in the JSON form the runner sends (``_runner.encode``): lists and
    tuples are both lists; dicts, sets and non-plain objects are tagged. Types are strict
    (``True`` is not ``1``, an object imitating an int through ``__eq__`` is not an int).
    Two numbers of which one is a float match when ``math.isclose(a, b, rel_tol=tol,
    abs_tol=tol)`` with ``tol = float_tol`` (default 1e-6); NaN matches NaN.

Stdin/stdout tests (text):
    Both texts are split into lines; trailing whitespace of every line and trailing blank
    lines are ignored (the usual judge rule, so ``print`` adding a final newline never
    matters); everything else must match exactly. When the task sets ``float_tol``, lines
    that differ are split into whitespace-separated tokens and numeric tokens match within
    that tolerance (``math.isclose`` as above).
"""

from __future__ import annotations

import math
from typing import Any

DEFAULT_FLOAT_TOL = 1e-6


def _num(x: Any) -> bool:
    return type(x) in (int, float)


def values_equal(got: Any, expected: Any, tol: float = DEFAULT_FLOAT_TOL) -> bool:
    """Whether a returned value (runner JSON form) equals the expected one; see module doc."""
    if _num(got) and _num(expected):
        if type(got) is int and type(expected) is int:
            return got == expected
        return math.isclose(float(got), float(expected), rel_tol=tol, abs_tol=tol)
    if type(got) is not type(expected):
        return False
    if isinstance(got, list):
        return len(got) == len(expected) and all(values_equal(a, b, tol) for a, b in zip(got, expected, strict=True))
    if isinstance(got, dict):
        if got.keys() != expected.keys():
            return False
        return all(values_equal(got[k], expected[k], tol) for k in got)
    return bool(got == expected)


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _tokens_equal(a: str, b: str, tol: float) -> bool:
    ta, tb = a.split(), b.split()
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb, strict=True):
        if x == y:
            continue
        try:
            if not math.isclose(float(x), float(y), rel_tol=tol, abs_tol=tol):
                return False
        except ValueError:
            return False
    return True


def outputs_equal(got: str, expected: str, float_tol: float | None = None) -> bool:
    """Whether a program's stdout matches the expected stdout; see module doc."""
    a, b = _lines(got), _lines(expected)
    if a == b:
        return True
    if float_tol is None or len(a) != len(b):
        return False
    return all(x == y or _tokens_equal(x, y, float_tol) for x, y in zip(a, b, strict=True))


def show(value: Any, limit: int = 200, text: bool = False) -> str:
    """A short text form of a value for feedback (``text``: a str is shown as is, e.g. stdout)."""
    text = value if (text and isinstance(value, str)) else repr(decode(value))
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def decode(value: Any) -> Any:
    """Turn the runner's JSON form back into Python values (for display only)."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if "__dict__" in value:
            return {k: decode(v) for k, v in value["__dict__"].items()}
        if "__set__" in value:
            return set(map(_hashable, decode(value["__set__"])))
        if "__float__" in value:
            return float(value["__float__"])
        if "__int__" in value:
            return int(value["__int__"])
        if "__dict_items__" in value:
            return {_hashable(decode(k)): decode(v) for k, v in value["__dict_items__"]}
        if "__repr__" in value:
            return _Repr(value["__repr__"])
    return value


def _hashable(v: Any) -> Any:
    return tuple(_hashable(x) for x in v) if isinstance(v, list) else v


class _Repr(str):
    def __repr__(self) -> str:
        return str(self)
