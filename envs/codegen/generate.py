"""Procedural CodeGen tasks from a seed and a difficulty (as reasoning-gym does).

``generate_tasks(n, seed, difficulty, split)`` returns task dicts in the CodeGen format
(``tasks.py``) that load with ``gym.make("CodeGen-v0", tasks=generate_tasks(...))``.

* ``easy``: one-line Python functions (``return x + 3``, ``return s[::-1]``, ...); the prompt
  states exactly what to compute and the signature; gold completions are under 60
  characters of code, so a ~5M-parameter model trained from scratch on a CPU learns them.
* ``medium``: two operations composed (``return (x + 3) * 2``, ``[v * 3 for v in xs]``).
* ``hard``: short loops / conditionals (count of elements above ``c``, clamp, ...).

Held-out generalisation: the constants of ``split="train"`` and ``split="test"`` come from
disjoint sets (test constants are those ``c`` with ``c % 5 == 3``), and each seed draws its
own templates and constants, so test tasks are new combinations of seen skills.
Every task has a gold solution and 8 tests computed by running the gold on the host.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable
from typing import Any

from ._runner import encode

# (template id, signature args, description with {c}, body with {c}, argument sampler kind)
EASY: list[tuple[str, str, str, str, str]] = [
    ("add", "x: int", "returns x + {c}", "return x + {c}", "int"),
    ("sub", "x: int", "returns x - {c}", "return x - {c}", "int"),
    ("mul", "x: int", "returns x * {c}", "return x * {c}", "int"),
    ("mod", "x: int", "returns x % {c}", "return x % {c}", "int"),
    ("floordiv", "x: int", "returns x // {c}", "return x // {c}", "int"),
    ("rsub", "x: int", "returns {c} - x", "return {c} - x", "int"),
    ("square_add", "x: int", "returns x * x + {c}", "return x * x + {c}", "int"),
    ("max_c", "x: int", "returns max(x, {c})", "return max(x, {c})", "int"),
    ("min_c", "x: int", "returns min(x, {c})", "return min(x, {c})", "int"),
    ("reverse", "s: str", "returns s reversed", "return s[::-1]", "str"),
    ("repeat", "s: str", "returns s repeated {c} times", "return s * {c}", "str"),
    ("prefix", "s: str", "returns the first {c} characters of s", "return s[:{c}]", "str"),
    ("upper", "s: str", "returns s in upper case", "return s.upper()", "str"),
    ("len_add", "s: str", "returns len(s) + {c}", "return len(s) + {c}", "str"),
    ("sum_add", "xs: list", "returns sum(xs) + {c}", "return sum(xs) + {c}", "list"),
    ("count_c", "xs: list", "returns how many times {c} occurs in xs", "return xs.count({c})", "list"),
    ("last", "xs: list", "returns the last element of xs", "return xs[-1]", "list"),
]
MEDIUM: list[tuple[str, str, str, str, str]] = [
    ("add_mul", "x: int", "returns (x + {c}) * {d}", "return (x + {c}) * {d}", "int"),
    ("mul_sub", "x: int", "returns x * {c} - {d}", "return x * {c} - {d}", "int"),
    (
        "map_mul",
        "xs: list",
        "returns a list with every element of xs multiplied by {c}",
        "return [v * {c} for v in xs]",
        "list",
    ),
    (
        "map_add",
        "xs: list",
        "returns a list with {c} added to every element of xs",
        "return [v + {c} for v in xs]",
        "list",
    ),
    (
        "filter_gt",
        "xs: list",
        "returns the elements of xs greater than {c}, in order",
        "return [v for v in xs if v > {c}]",
        "list",
    ),
    (
        "sum_sq",
        "xs: list",
        "returns the sum of the squares of xs plus {c}",
        "return sum(v * v for v in xs) + {c}",
        "list",
    ),
    ("rev_upper", "s: str", "returns s reversed and in upper case", "return s[::-1].upper()", "str"),
    (
        "suffix_rep",
        "s: str",
        "returns the last {c} characters of s, repeated {d} times",
        "return s[-{c}:] * {d}",
        "str",
    ),
]
HARD: list[tuple[str, str, str, str, str]] = [
    (
        "count_gt",
        "xs: list",
        "returns how many elements of xs are greater than {c}",
        "return sum(1 for v in xs if v > {c})",
        "list",
    ),
    ("clamp", "x: int", "returns x clamped to the range [{c}, {c} + {d}]", "return max({c}, min(x, {c} + {d}))", "int"),
    ("sign_c", "x: int", "returns 1 if x > {c}, -1 if x < {c}, else 0", "return (x > {c}) - (x < {c})", "int"),
    ("every_kth", "xs: list", "returns every {c}-th element of xs starting from the first", "return xs[::{c}]", "list"),
    (
        "vowels",
        "s: str",
        "returns the number of vowels (aeiou) in s plus {c}",
        "return sum(ch in 'aeiou' for ch in s) + {c}",
        "str",
    ),
]
LEVELS = {"easy": EASY, "medium": MEDIUM, "hard": HARD}
N_TESTS = 8


def _constants(rng: random.Random, split: str) -> Callable[[int, int], int]:
    held_out = split == "test"

    def pick(lo: int, hi: int) -> int:
        pool = [c for c in range(lo, hi + 1) if (c % 5 == 3) == held_out]
        return rng.choice(pool)

    return pick


def _args(rng: random.Random, kind: str) -> list[Any]:
    if kind == "int":
        return [rng.randint(-50, 50)]
    if kind == "str":
        return ["".join(rng.choice("abcdeiouxyz") for _ in range(rng.randint(1, 8)))]
    return [[rng.randint(-9, 9) for _ in range(rng.randint(1, 7))]]


def generate_tasks(n: int, seed: int, difficulty: str = "easy", split: str = "train") -> list[dict[str, Any]]:
    """``n`` CodeGen tasks drawn from ``seed`` (see module doc).

    Args:
        n: number of tasks.
        seed: the same seed (with the same difficulty and split) gives the same tasks.
        difficulty: ``easy``, ``medium`` or ``hard``.
        split: ``train`` or ``test`` (``test`` uses held-out constants); any other name
            draws like ``train`` under its own ids.

    Returns:
        Task dicts with ``id``, ``prompt``, ``entry_point``, ``tests`` (8), ``gold``.

    """
    if difficulty not in LEVELS:
        raise ValueError(f"difficulty={difficulty!r} is unknown; use one of {list(LEVELS)}")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    rng = random.Random(zlib.crc32(f"{seed}/{difficulty}/{split}".encode()))
    pick = _constants(rng, split)
    templates = LEVELS[difficulty]
    tasks = []
    for i in range(n):
        tid, sig, desc, body, argkind = rng.choice(templates)
        c = pick(2, 4) if tid in ("every_kth", "prefix", "suffix_rep", "repeat") else pick(1, 19)
        d = pick(2, 9)
        if tid in ("mod", "floordiv") and c == 1:
            c = 7 if split != "test" else 8
        desc_s, body_s = desc.format(c=c, d=d), body.format(c=c, d=d)
        gold = f"def f({sig.split(':')[0]}):\n    {body_s}\n"
        ns: dict[str, Any] = {}
        exec(gold, ns)  # our own template code, run on the host to compute expected values
        tests = []
        seen = set()
        while len(tests) < N_TESTS:
            args = _args(rng, argkind)
            if argkind == "list" and tid == "last" and not args[0]:
                continue
            key = repr(args)
            if key in seen and len(seen) < 50:
                continue
            seen.add(key)
            tests.append({"args": args, "expected": encode(ns["f"](*args))})
        prompt = f"Write a Python function `def f({sig}):` that {desc_s}.\n"
        tasks.append(
            {
                "id": f"gen-{split}-{difficulty}-{seed}-{i}",
                "split": split,
                "difficulty": difficulty,
                "kind": "function",
                "language": "python",
                "prompt": prompt,
                "entry_point": "f",
                "tests": tests,
                "gold": gold,
                "template": tid,
                "constants": [v for k, v in (("c", c), ("d", d)) if "{" + k + "}" in body],
            }
        )
    return tasks
