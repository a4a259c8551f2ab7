"""AGAR's estimators, each a small class with one interface, each switchable off.

Every estimator sees each transition through ``update(record)`` and says what it knows
through ``report()`` (plain data, put in ``info["verdict"]["estimators"]``); some answer one
more question: :class:`ModuleCredit` which module earned the step, :class:`ValueEstimate`
what a database state is worth, :class:`BanditExplorer` which prefix to try next,
:class:`ExperienceMemory` whether a child was tried before. The env is made with
``estimators=("credit", "value", "bandit", "memory")`` or any subset; one left out is not
consulted at all, and the env still runs (the ablation runner switches one off at a time).

A record is a dict: ``choices`` (module -> choice label), ``delta_parent`` and
``delta_best`` (normalised fitness gains), ``state`` (observation numbers), ``child_hash``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np

from .prefix import CREDIT_CHOICES, MEMORY, MUTATION, PARENT, Prefix

ESTIMATORS = ("credit", "value", "bandit", "memory")


class Estimator:
    """One interface: learn from each transition, report what was learnt."""

    name = ""

    def update(self, record: dict[str, Any]) -> None:
        """Learn from one transition."""

    def report(self) -> dict[str, Any]:
        """What it knows, as plain data."""
        return {}


class ModuleCredit(Estimator):
    """Credit of each module: the step's gain over the running mean gain of that module's choice.

    A module whose choice usually does worse than this step did gets positive credit (the
    step is attributed to the choices that were better than their own baseline).
    """

    name = "credit"

    def __init__(self) -> None:
        self.mean: dict[str, float] = defaultdict(float)
        self.count: dict[str, int] = defaultdict(int)

    def credit(self, choices: dict[str, str], gain: float) -> dict[str, float]:
        """Per-module credit of a gain made with ``choices`` (before learning from it)."""
        return {m: gain - self.mean[f"{m}={c}"] for m, c in choices.items()}

    def update(self, record: dict[str, Any]) -> None:
        """Fold the step's gain into each chosen module's running mean."""
        for m, c in record["choices"].items():
            key = f"{m}={c}"
            self.count[key] += 1
            self.mean[key] += (record["delta_parent"] - self.mean[key]) / self.count[key]

    def report(self) -> dict[str, Any]:
        """Mean gain per module choice."""
        return {k: round(v, 6) for k, v in sorted(self.mean.items())}


class ValueEstimate(Estimator):
    """Value of a database state: expected remaining best-gain, linear in the budget left (TD(0))."""

    name = "value"

    def __init__(self, lr: float = 0.2) -> None:
        self.rate = 0.0  # expected best-gain per remaining evaluation
        self.lr = lr

    def value(self, state: dict[str, Any]) -> float:
        """V(s) = rate * budget left."""
        return self.rate * float(state["budget_left"])

    def update(self, record: dict[str, Any]) -> None:
        """Move the per-evaluation rate towards the observed best-gain."""
        self.rate += self.lr * (max(0.0, record["delta_best"]) - self.rate)

    def report(self) -> dict[str, Any]:
        """The learnt rate."""
        return {"rate": round(self.rate, 6)}


class BanditExplorer(Estimator):
    """UCB1 over each module's choices, rewarded by the step's gain over its parent."""

    name = "bandit"
    ARMS = {
        "parent": PARENT,
        "mutation": MUTATION,
        "memory": MEMORY,
        "strength": ("0.1", "0.5", "0.9"),
        "credit": tuple(str(i) for i in range(min(CREDIT_CHOICES, 4))),
    }

    def __init__(self, c: float = 0.5) -> None:
        self.c = c
        self.n: dict[str, np.ndarray] = {m: np.zeros(len(a)) for m, a in self.ARMS.items()}
        self.q: dict[str, np.ndarray] = {m: np.zeros(len(a)) for m, a in self.ARMS.items()}
        self.last: dict[str, int] = {}

    def suggest(self, rng: np.random.Generator) -> Prefix:
        """The next prefix: each module's arm with the highest upper confidence bound."""
        pick = {}
        for m, arms in self.ARMS.items():
            total = self.n[m].sum() + 1
            ucb = self.q[m] + self.c * np.sqrt(np.log(total) / np.maximum(self.n[m], 1e-9))
            ucb = np.where(self.n[m] == 0, np.inf, ucb) + rng.random(len(arms)) * 1e-6
            pick[m] = int(np.argmax(ucb))
        self.last = pick
        return Prefix(
            parent=PARENT[pick["parent"]],
            mutation=MUTATION[pick["mutation"]],
            strength=float(self.ARMS["strength"][pick["strength"]]),
            memory=MEMORY[pick["memory"]],
            credit=pick["credit"],
        )

    def update(self, record: dict[str, Any]) -> None:
        """Credit each arm of the prefix that was played with the step's gain."""
        prefix: Prefix = record["prefix"]
        played = {
            "parent": PARENT.index(prefix.parent),
            "mutation": MUTATION.index(prefix.mutation),
            "memory": MEMORY.index(prefix.memory),
            "strength": int(np.argmin([abs(float(s) - prefix.strength) for s in self.ARMS["strength"]])),
            "credit": min(prefix.credit, len(self.ARMS["credit"]) - 1),
        }
        gain = max(0.0, record["delta_parent"]) + max(0.0, record["delta_best"])
        for m, arm in played.items():
            self.n[m][arm] += 1
            self.q[m][arm] += (gain - self.q[m][arm]) / self.n[m][arm]

    def report(self) -> dict[str, Any]:
        """Plays and mean gains per arm."""
        return {
            m: {a: [int(self.n[m][i]), round(float(self.q[m][i]), 6)] for i, a in enumerate(arms)}
            for m, arms in self.ARMS.items()
        }


class ExperienceMemory(Estimator):
    """Children tried before (by text hash) and what they scored: the rewriter retries a repeat."""

    name = "memory"

    def __init__(self) -> None:
        self.seen: dict[str, float] = {}

    def tried(self, child_hash: str) -> bool:
        """This child was evaluated before."""
        return child_hash in self.seen

    def update(self, record: dict[str, Any]) -> None:
        """Remember the child's score."""
        self.seen[record["child_hash"]] = record["child_fitness"]

    def report(self) -> dict[str, Any]:
        """How many distinct children were tried."""
        return {"distinct_children": len(self.seen)}


def make(names: tuple[str, ...]) -> dict[str, Estimator]:
    """The estimators named, by name (unknown names raise ValueError listing the known)."""
    classes = {"credit": ModuleCredit, "value": ValueEstimate, "bandit": BanditExplorer, "memory": ExperienceMemory}
    unknown = [n for n in names if n not in classes]
    if unknown:
        raise ValueError(f"estimators={names!r}: unknown {unknown}; known: {list(ESTIMATORS)}")
    return {n: classes[n]() for n in names}


def finite(x: float) -> float:
    """``x`` when finite, else 0 (so that no estimate breaks the info contract)."""
    return x if math.isfinite(x) else 0.0
