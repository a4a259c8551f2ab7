"""The bundled WebApp tasks, written by this project as parametric app families.

Each family is a function ``family(i) -> task dict`` over a handful of variants (ids, labels,
data and behaviour differ), each task with its request, rubric of flows, gold app and broken
apps. ``python -m codegym.envs.webapp.catalog`` writes ``assets/webapp/tasks.jsonl``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from . import forms, lists, react_apps, widgets


def build_tasks() -> list[dict[str, Any]]:
    """Every bundled task, in a stable order."""
    tasks: list[dict[str, Any]] = []
    for module in (lists, forms, widgets, react_apps):
        for family in module.FAMILIES:
            for i in range(family.variants):
                tasks.append(family(i))
    return tasks


def main(argv: list[str] | None = None) -> None:
    """Write the bundled task file (default: the repo's assets/webapp/tasks.jsonl)."""
    args = argv if argv is not None else sys.argv[1:]
    out = Path(args[0]) if args else Path(__file__).resolve().parents[3] / "assets" / "webapp" / "tasks.jsonl"
    tasks = build_tasks()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tasks), encoding="utf-8")
    print(f"wrote {len(tasks)} tasks to {out}")


if __name__ == "__main__":
    main()
