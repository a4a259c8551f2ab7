"""Which outside task format a row or a folder is, told from its fields (docs/contract.md, Tasks).

The formats and their fields are data, in ``formats.json`` beside this file. A row is the
first format (most specific first) whose fields it all has; a folder, the first layout
whose files it holds. An env reads the formats that name its id: those it converts
(``CodeEnv.task_formats``, e.g. CodeGen's HumanEval loader) and those it reads as they are
(SWE-bench rows for CodeRepair). For anything else :func:`explain` says what the row looks
like: the format it is and the env that loads it, or the formats it comes closest to and
the fields each one misses.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Format:
    """One outside task format.

    Attributes:
        name: what users call it (``HumanEval``, ``SWE-bench``, ...).
        fields: fields every row has (rows only).
        one_of: groups of fields of which a row has at least one each.
        files: files and folders (``name/``) a task folder holds (folders only).
        envs: ids of the envs that load it.
        id_fields: fields whose values, joined by ``@``, name a row that has no id field.
        source: where the format comes from.

    """

    name: str
    fields: tuple[str, ...] = ()
    one_of: tuple[tuple[str, ...], ...] = ()
    files: tuple[str, ...] = ()
    envs: tuple[str, ...] = ()
    source: str = ""
    id_fields: tuple[str, ...] = ()

    def missing(self, row: Mapping[str, Any]) -> list[str]:
        """Fields this format needs that ``row`` lacks (a group reads ``a|b``)."""
        out = [f for f in self.fields if f not in row]
        out += ["|".join(group) for group in self.one_of if not any(f in row for f in group)]
        return out

    def missing_files(self, folder: Path) -> list[str]:
        """Files of this layout that ``folder`` lacks."""
        return [f for f in self.files if not (folder / f.rstrip("/")).exists()]


@cache
def formats() -> tuple[Format, ...]:
    """Every known format, most specific first (from ``formats.json``)."""
    data = json.loads((Path(__file__).with_name("formats.json")).read_text(encoding="utf-8"))
    return tuple(
        Format(
            name=f["name"],
            fields=tuple(f.get("fields", ())),
            one_of=tuple(tuple(g) for g in f.get("one_of", ())),
            files=tuple(f.get("files", ())),
            envs=tuple(f.get("envs", ())),
            source=f.get("source", ""),
            id_fields=tuple(f.get("id_fields", ())),
        )
        for f in data["formats"]
    )


def detect(row: Mapping[str, Any]) -> Format | None:
    """The format of one row, or None when no format has all its fields."""
    for fmt in formats():
        if fmt.fields and not fmt.missing(row):
            return fmt
    return None


def detect_folder(folder: Path) -> Format | None:
    """The layout of one task folder, or None."""
    for fmt in formats():
        if fmt.files and not fmt.missing_files(folder):
            return fmt
    return None


def explain(row: Mapping[str, Any], env_name: str, accepted: tuple[str, ...]) -> str:
    """Why ``row`` is not a task ``env_name`` reads, and what it could be (for an error message)."""
    fmt = detect(row)
    if fmt is not None and fmt.name not in accepted:
        where = " or ".join(fmt.envs) or "no env"
        return f"this is a {fmt.name} row ({fmt.source}); {env_name} does not read it: load it with {where}"
    scored = []
    for f in formats():
        if not f.fields or (accepted and f.name not in accepted):
            continue
        have = sum(k in row for k in f.fields) + sum(any(k in row for k in g) for g in f.one_of)
        if have:
            scored.append((-have, len(scored), f))
    if not scored:
        names = ", ".join(accepted) or "none"
        return f"no known format has fields like {sorted(row)[:8]}; {env_name} reads: {names}"
    close = [f"{f.name} (missing {', '.join(f.missing(row))})" for _, _, f in sorted(scored)[:3]]
    return "it could be " + "; or ".join(close)
