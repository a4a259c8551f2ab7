"""Token-level reward from execution: Ochiai spectrum-based fault localisation.

For each line ``l`` of a Python attempt, from the per-test line traces of the runner:

* ``ef(l)``: failing tests (fail / error / timeout) that executed ``l``;
* ``ep(l)``: passing tests that executed ``l``; ``F``, ``P``: failing / passing tests.

Ochiai suspiciousness ``s(l) = ef / sqrt(F * (ef + ep))`` (0 when a factor is 0). The span
over line ``l`` of the action gets::

    value(l) = -s(l)                     if ef(l) > 0   (suspicious: in [-1, 0))
             = +POSITIVE * ep(l) / P     if ef(l) == 0 and ep(l) > 0   (only passing tests ran it)
             (no span)                   if no test ran it

with ``POSITIVE = 0.2``. Lines run at import (``def`` lines, module code) count as run by
every test. A line that only failing tests reach gets ``-1``, the most negative value.

Syntax and compile errors (any language) give one span of ``-1`` over the offending line.
"""

from __future__ import annotations

import math

from .grading import RunResult

POSITIVE = 0.2


def line_spans(code: str, offset: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each line of ``code`` (1-based list index = line - 1), shifted by ``offset``."""
    spans, pos = [], 0
    for line in code.split("\n"):
        spans.append((offset + pos, offset + pos + len(line)))
        pos += len(line) + 1
    return spans


def error_span(code: str, offset: int, line: int) -> list[tuple[int, int, float]]:
    """A ``-1`` span over the offending line (the first non-empty line when unknown)."""
    spans = line_spans(code, offset)
    if not 1 <= line <= len(spans) or spans[line - 1][0] == spans[line - 1][1]:
        line = next((i + 1 for i, (s, e) in enumerate(spans) if e > s), 0)
    if not line:
        return []
    s, e = spans[line - 1]
    return [(s, e, -1.0)]


def ochiai(result: RunResult) -> dict[int, float]:
    """Line -> suspiciousness in [0, 1] from the per-test traces (see module doc)."""
    failing = [t for t in result.tests if t.status != "pass"]
    passing = [t for t in result.tests if t.status == "pass"]
    base = set(result.load_lines)
    ef: dict[int, int] = {}
    ep: dict[int, int] = {}
    for t in failing:
        for line in base | set(t.lines):
            ef[line] = ef.get(line, 0) + 1
    for t in passing:
        for line in base | set(t.lines):
            ep[line] = ep.get(line, 0) + 1
    f_total = len(failing)
    scores = {}
    for line in set(ef) | set(ep):
        e_f, e_p = ef.get(line, 0), ep.get(line, 0)
        denom = math.sqrt(f_total * (e_f + e_p))
        scores[line] = e_f / denom if denom else 0.0
    return scores


def token_rewards(code: str, offset: int, result: RunResult) -> list[tuple[int, int, float]]:
    """Spans over the action for one graded Python attempt (see module doc)."""
    if not result.syntax_ok:
        return error_span(code, offset, result.error_line)
    if not any(t.lines for t in result.tests) and not result.load_lines:
        return []
    passing = [t for t in result.tests if t.status == "pass"]
    scores = ochiai(result)
    spans = line_spans(code, offset)
    base = set(result.load_lines)
    out = []
    for line, s in sorted(scores.items()):
        if not 1 <= line <= len(spans):
            continue
        start, end = spans[line - 1]
        if end <= start:
            continue
        if s > 0:
            out.append((start, end, -s))
        else:
            ep = sum(1 for t in passing if line in base or line in t.lines)
            if ep:
                out.append((start, end, POSITIVE * ep / len(passing)))
    return out
