"""The action of ProgramEvolution-v0: the modular prefix the rewriter is conditioned on.

AGAR's reading: the search loop is governed by five choices made by hand in OpenEvolve's
``config.yaml`` (which parent, how hard to mutate, how to keep diversity, what to remember,
which part to rewrite). Here each is a module of the action, as a ``Dict`` of choices, or as
text naming the same modules, one per line, so that a language model can be the controller::

    parent: tournament
    mutation: operators strength=0.5
    diversity: island=2 migrate=yes novelty=0.3
    memory: top
    credit: 1

A text action may also carry a fenced ```python block: the controller then wrote the child
itself and the rewriter is not called (the gold action does this with the known-good program).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from codegym.core.extract import extract_code

PARENT = ("best", "tournament", "random", "island_best", "diverse")
MUTATION = ("constants", "operators", "reorder", "crossover", "rewrite")
MEMORY = ("none", "top", "recent", "failures")
#: ``credit`` 0 rewrites anywhere in the EVOLVE blocks; k >= 1 the k-th function (wrapping).
CREDIT_CHOICES = 8
MODULES = ("parent", "mutation", "diversity", "memory", "credit")

_LINE = re.compile(r"^[ \t]*(parent|mutation|diversity|memory|credit)[ \t]*:[ \t]*(.*?)[ \t]*$", re.M | re.I)


@dataclass(frozen=True)
class Prefix:
    """One prefix: every module's choice (the defaults are OpenEvolve's usual run).

    Attributes:
        parent: selection rule (one of :data:`PARENT`).
        mutation: edit kind (one of :data:`MUTATION`).
        strength: 0..1, how many edits and how far constants move.
        island: 0 = the parent's own island, k = island k-1.
        migrate: copy the island's best to the next island after insertion.
        novelty: 0..1, share of structural edits (operators, reorders) over constant tweaks.
        memory: which past attempts go into the prompt (one of :data:`MEMORY`).
        credit: which function of the EVOLVE blocks to rewrite (0: any).

    """

    parent: str = "tournament"
    mutation: str = "constants"
    strength: float = 0.3
    island: int = 0
    migrate: bool = False
    novelty: float = 0.2
    memory: str = "top"
    credit: int = 0

    def choices(self) -> dict[str, str]:
        """Each module's choice as one discrete label (what credit and bandits count)."""
        return {
            "parent": self.parent,
            "mutation": f"{self.mutation}/{'high' if self.strength >= 0.5 else 'low'}",
            "diversity": f"island{self.island}/{'migrate' if self.migrate else 'stay'}",
            "memory": self.memory,
            "credit": str(self.credit),
        }

    def to_text(self) -> str:
        """The text form (parsed back by :func:`parse_text`)."""
        return (
            f"parent: {self.parent}\nmutation: {self.mutation} strength={self.strength:.3g}\n"
            f"diversity: island={self.island} migrate={'yes' if self.migrate else 'no'} novelty={self.novelty:.3g}\n"
            f"memory: {self.memory}\ncredit: {self.credit}\n"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for the verdict)."""
        return asdict(self)


def action_space(num_islands: int) -> spaces.Dict:
    """The ``Dict`` action space: one entry per module."""
    unit = spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32)
    return spaces.Dict(
        {
            "parent": spaces.Discrete(len(PARENT)),
            "mutation": spaces.Dict({"kind": spaces.Discrete(len(MUTATION)), "strength": unit}),
            "diversity": spaces.Dict(
                {"island": spaces.Discrete(num_islands + 1), "migrate": spaces.Discrete(2), "novelty": unit}
            ),
            "memory": spaces.Discrete(len(MEMORY)),
            "credit": spaces.Discrete(CREDIT_CHOICES),
        }
    )


def from_dict(action: dict[str, Any], num_islands: int) -> Prefix:
    """A :class:`Prefix` from a ``Dict`` action; raises ValueError naming the bad entry."""
    space = action_space(num_islands)
    unknown = sorted(set(action) - set(MODULES))
    if unknown:
        raise ValueError(f"unknown modules {unknown}; the modules are {list(MODULES)}")
    default = Prefix()
    mutation = action.get("mutation", {})
    diversity = action.get("diversity", {})
    if not isinstance(mutation, dict) or not isinstance(diversity, dict):
        raise ValueError("mutation and diversity must be dicts ({'kind': 0, 'strength': [0.3]}, ...)")

    def pick(value: Any, sub: spaces.Space, name: str) -> Any:
        try:
            arr = np.asarray(value, dtype=sub.dtype)
        except (TypeError, ValueError):
            raise ValueError(f"{name}={value!r} is not a number") from None
        if isinstance(sub, spaces.Box):
            arr = arr.reshape(sub.shape) if arr.size == 1 else arr
            if not sub.contains(arr.astype(np.float32)):
                raise ValueError(f"{name}={value!r} must be in [0, 1]")
            return float(arr.reshape(-1)[0])
        if arr.ndim != 0 or not sub.contains(np.int64(arr)):
            raise ValueError(f"{name}={value!r} must be a whole number in [0, {sub.n - 1}]")
        return int(arr)

    s_mut, s_div = space["mutation"], space["diversity"]
    return Prefix(
        parent=PARENT[pick(action.get("parent", PARENT.index(default.parent)), space["parent"], "parent")],
        mutation=MUTATION[pick(mutation.get("kind", MUTATION.index(default.mutation)), s_mut["kind"], "mutation.kind")],
        strength=pick(mutation.get("strength", default.strength), s_mut["strength"], "mutation.strength"),
        island=pick(diversity.get("island", default.island), s_div["island"], "diversity.island"),
        migrate=bool(pick(diversity.get("migrate", int(default.migrate)), s_div["migrate"], "diversity.migrate")),
        novelty=pick(diversity.get("novelty", default.novelty), s_div["novelty"], "diversity.novelty"),
        memory=MEMORY[pick(action.get("memory", MEMORY.index(default.memory)), space["memory"], "memory")],
        credit=pick(action.get("credit", default.credit), space["credit"], "credit"),
    )


def to_dict_action(prefix: Prefix) -> dict[str, Any]:
    """The ``Dict`` action of ``prefix`` (the inverse of :func:`from_dict`)."""
    return {
        "parent": PARENT.index(prefix.parent),
        "mutation": {"kind": MUTATION.index(prefix.mutation), "strength": np.array([prefix.strength], np.float32)},
        "diversity": {
            "island": prefix.island,
            "migrate": int(prefix.migrate),
            "novelty": np.array([prefix.novelty], np.float32),
        },
        "memory": MEMORY.index(prefix.memory),
        "credit": prefix.credit,
    }


@dataclass(frozen=True)
class TextAction:
    """A parsed text action: the prefix, each module line's span, and a program if one was fenced."""

    prefix: Prefix
    spans: dict[str, tuple[int, int]]
    program: str | None


def parse_text(text: str, num_islands: int) -> TextAction:
    """Parse a text action; raises ValueError with what was expected (the env turns it into feedback)."""
    fields: dict[str, Any] = {}
    spans: dict[str, tuple[int, int]] = {}
    for m in _LINE.finditer(text):
        module, value = m.group(1).lower(), m.group(2)
        if module in spans:
            raise ValueError(f"module {module!r} is named twice; name each module once")
        spans[module] = (m.start(), m.end())
        words = value.split()
        head = words[0].lower() if words and "=" not in words[0] else ""
        opts = dict(w.split("=", 1) for w in words if "=" in w)
        _fill(module, head, {k.lower(): v for k, v in opts.items()}, fields, num_islands)
    program = None
    if "```" in text:
        found = extract_code(text, language="python")
        program = found.code if found is not None and found.fenced else None
    if not spans and program is None:
        raise ValueError(
            "no module named: write lines such as 'parent: tournament', 'mutation: operators strength=0.5', "
            "'diversity: island=1 migrate=no novelty=0.2', 'memory: top', 'credit: 0' "
            "(or a ```python block holding the child program)"
        )
    return TextAction(Prefix(**fields), spans, program)


def _fill(module: str, head: str, opts: dict[str, str], out: dict[str, Any], num_islands: int) -> None:
    def number(key: str, value: str, lo: float, hi: float, kind: type = float) -> Any:
        try:
            x = kind(value)
        except ValueError:
            raise ValueError(f"{module}: {key}={value!r} is not a number") from None
        if not lo <= x <= hi:
            raise ValueError(f"{module}: {key}={value!r} must be in [{lo}, {hi}]")
        return x

    def choice(value: str, options: tuple[str, ...]) -> str:
        if value not in options:
            raise ValueError(f"{module}: {value!r} is not one of {list(options)}")
        return value

    if module == "parent":
        out["parent"] = choice(head, PARENT)
    elif module == "mutation":
        if head:
            out["mutation"] = choice(head, MUTATION)
        if "strength" in opts:
            out["strength"] = number("strength", opts["strength"], 0.0, 1.0)
    elif module == "diversity":
        if "island" in opts:
            out["island"] = number("island", opts["island"], 0, num_islands, int)
        if "migrate" in opts:
            flag = opts["migrate"].lower()
            if flag not in ("yes", "no", "true", "false", "1", "0"):
                raise ValueError(f"diversity: migrate={opts['migrate']!r} must be yes or no")
            out["migrate"] = flag in ("yes", "true", "1")
        if "novelty" in opts:
            out["novelty"] = number("novelty", opts["novelty"], 0.0, 1.0)
    elif module == "memory":
        out["memory"] = choice(head, MEMORY)
    elif module == "credit":
        out["credit"] = number("credit", head or opts.get("function", "0"), 0, CREDIT_CHOICES - 1, int)
