"""Probe consensus reward (ERPO's PCR) for problems without tests.

For a group of candidate programs answering the same problem:

1. build ``n_probes`` probe inputs from the problem's input spec (seeded);
2. run every candidate on every probe (one sandboxed runner call per candidate);
3. for each probe, the *behavioural majority* is the most common output among the
   candidates that produced one; candidate ``i`` agrees on probe ``p`` when its output equals
   that majority (errors and timeouts never agree);
4. ``reward_i = (probes where i agrees) / n_probes``.

Input spec (``args`` for function problems, ``lines`` for stdin/stdout problems), a list
of type names: ``int`` (-20..20), ``nat`` (0..20), ``float``, ``bool``, ``str`` (letters,
length 0..8), ``list[int]``, ``list[str]``; in ``lines``, ``len`` prints the length of the
list on the next line, and list types print space-separated. Example::

    ProbeConsensus({"args": ["list[int]", "int"]}, entry_point="f")(completions)
    ProbeConsensus({"lines": ["len", "list[int]"]}, kind="stdio")(completions)

The object is a group reward function: ``reward_fn(completions) -> list[float]``, with the
``completions`` keyword and ``**kwargs`` accepted so TRL-style trainers can call it.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from codegym.core import extract_code
from codegym.sandbox import Sandbox, create

from .compare import _lines
from .grading import prepare, run_attempt


def _value(r: random.Random, kind: str) -> Any:
    if kind == "int":
        return r.randint(-20, 20)
    if kind == "nat":
        return r.randint(0, 20)
    if kind == "float":
        return round(r.uniform(-10, 10), 3)
    if kind == "bool":
        return r.random() < 0.5
    if kind == "str":
        return "".join(r.choice("abcxyz") for _ in range(r.randint(0, 8)))
    if kind == "list[int]":
        return [r.randint(-20, 20) for _ in range(r.randint(0, 8))]
    if kind == "list[str]":
        return [_value(r, "str") for _ in range(r.randint(0, 5))]
    raise ValueError(
        f"unknown probe type {kind!r}; use int, nat, float, bool, str, list[int], list[str] (or len in lines)"
    )


def probe_inputs(spec: dict[str, Any], n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` test dicts (``{"args": [...]}`` or ``{"input": str}``) drawn from ``spec``."""
    r = random.Random(seed)
    out = []
    for _ in range(n):
        if "args" in spec:
            out.append({"args": [_value(r, k) for k in spec["args"]]})
            continue
        lines, pending = [], None
        kinds = list(spec["lines"])
        values = [None if k == "len" else _value(r, k) for k in kinds]
        for k, v, nxt in zip(kinds, values, values[1:] + [None], strict=True):
            if k == "len":
                pending = len(nxt) if isinstance(nxt, list) else 0
                lines.append(str(pending))
            elif isinstance(v, list):
                lines.append(" ".join(map(str, v)))
            else:
                lines.append(str(v))
        out.append({"input": "\n".join(lines) + "\n"})
    return out


class ProbeConsensus:
    """Group reward by agreement with the behavioural majority on probe inputs (see module doc).

    Args:
        spec: the input spec (``{"args": [...]}`` or ``{"lines": [...]}``).
        kind: ``function`` or ``stdio``.
        entry_point: the function to call (function kind).
        language: the candidates' language.
        n_probes: number of probe inputs.
        seed: seed of the probes.
        sandbox: backend name or dict for :func:`codegym.sandbox.create`.
        timeout: seconds per probe.

    """

    def __init__(
        self,
        spec: dict[str, Any],
        kind: str = "function",
        entry_point: str | None = None,
        language: str = "python",
        n_probes: int = 16,
        seed: int = 0,
        sandbox: str | dict[str, Any] | None = None,
        timeout: float = 2.0,
    ) -> None:
        if kind == "function" and not entry_point:
            raise ValueError("kind='function' needs entry_point= (the function each candidate defines)")
        self.kind, self.entry_point, self.language, self.timeout = kind, entry_point, language, timeout
        self.probes = probe_inputs(spec, n_probes, seed)
        self._spec = {"backend": sandbox} if isinstance(sandbox, str) else dict(sandbox or {})

    def outputs(self, completions: list[str]) -> list[list[str | None]]:
        """Per candidate, per probe: its output as canonical JSON text, or None (error/timeout)."""
        sb: Sandbox = create(**self._spec)
        try:
            clean = prepare(sb)
            out = []
            for text in completions:
                found = extract_code(text, self.language)
                if found is None:
                    out.append([None] * len(self.probes))
                    continue
                sb.restore(clean)
                tests = [{**p, "expected": None, "output": ""} for p in self.probes]
                res = run_attempt(
                    sb,
                    found.code,
                    kind=self.kind,
                    language=self.language,
                    tests=tests,
                    entry_point=self.entry_point,
                    timeout=self.timeout,
                    trace=False,
                )
                out.append([self._key(t.got) if t.status in ("pass", "fail") else None for t in res.tests])
            return out
        finally:
            sb.close()

    def _key(self, got: Any) -> str:
        # stdout is compared under the judge's whitespace rule (compare.py), values exactly
        return "\n".join(_lines(got or "")) if self.kind == "stdio" else json.dumps(got, sort_keys=True)

    def __call__(self, completions: list[str] | None = None, **kwargs: Any) -> list[float]:
        """Rewards in [0, 1], one per completion of the group."""
        if completions is None:
            completions = kwargs.get("completion") or []
        completions = [c if isinstance(c, str) else str(c[-1]["content"]) for c in completions]
        outs = self.outputs(completions)
        agree = [0] * len(completions)
        for p in range(len(self.probes)):
            votes = Counter(o[p] for o in outs if o[p] is not None)
            if not votes:
                continue
            majority, _ = votes.most_common(1)[0]
            for i, o in enumerate(outs):
                agree[i] += o[p] == majority
        return [a / len(self.probes) for a in agree]
