"""Helpers shared by the app families."""

from __future__ import annotations

from collections.abc import Callable
from string import Template
from typing import Any


def family(variants: int) -> Callable[[Callable[[int], dict[str, Any]]], Any]:
    """Mark a function ``f(i) -> task`` as a family with ``variants`` tasks."""

    def wrap(fn: Callable[[int], dict[str, Any]]) -> Any:
        fn.variants = variants  # type: ignore[attr-defined]
        return fn

    return wrap


def fill(template: str, **values: Any) -> str:
    """``$name`` substitution (JS and CSS braces need no escaping)."""
    return Template(template).substitute(**values)


def breaking(gold: str, name: str, breaks: list[str], *edits: tuple[str, str]) -> dict[str, Any]:
    """A broken app: ``gold`` with each ``(old, new)`` edit applied (each must apply once)."""
    code = gold
    for old, new in edits:
        if code.count(old) != 1:
            raise ValueError(f"broken app {name!r}: edit target {old!r} occurs {code.count(old)} times")
        code = code.replace(old, new)
    return {"name": name, "breaks": breaks, "code": code}


def item(id_: str, text: str, *flow: dict[str, Any]) -> dict[str, Any]:
    """One rubric item."""
    return {"id": id_, "text": text, "flow": list(flow)}


def task(
    id_: str,
    family_name: str,
    request: str,
    rubric: list[dict[str, Any]],
    gold: str,
    broken: list[dict[str, Any]],
    difficulty: str = "easy",
    kind: str = "html",
    split: str = "train",
) -> dict[str, Any]:
    """One task dict in the bundled format."""
    return {
        "id": id_,
        "family": family_name,
        "kind": kind,
        "difficulty": difficulty,
        "split": split,
        "request": request,
        "rubric": rubric,
        "gold": gold,
        "broken": broken,
    }
