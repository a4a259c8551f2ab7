"""Evolution task folders: OpenEvolve's layout, read unchanged, and this project's own.

An OpenEvolve folder holds ``initial_program.*`` (code between ``EVOLVE-BLOCK-START`` and
``EVOLVE-BLOCK-END`` comments is what evolves), ``evaluator.py`` with
``evaluate(program_path) -> dict`` (``combined_score`` and other metrics; optional cascade
``evaluate_stage1/2/3``) and optionally ``config.yaml`` (``evaluator.timeout``,
``evaluator.cascade_thresholds``, ``database.num_islands``...). Such a folder is judged in
``evaluate`` mode: the evaluator runs the program in the judge's sandbox, as OpenEvolve does.

This project's folders add ``task.json`` (``id``, ``entry``, ``known_good_score``,
``per_input``, ``description``, ``difficulty``), ``reference_program.py`` (the known-good
program) and optionally ``inputs.json`` (public inputs the entry is called with), and
their evaluator also defines ``score(outputs, inputs) -> dict``: they are judged in
``score`` mode, where the child runs alone and only the data it returned reaches the
evaluator (so the child cannot forge its metrics). Their ``evaluate`` still works under
OpenEvolve itself.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from codegym.core.tasks import Task
from codegym.errors import TaskFormatError

START, END = "EVOLVE-BLOCK-START", "EVOLVE-BLOCK-END"


@dataclass(frozen=True)
class EvolutionTask:
    """What the env needs of one folder.

    Attributes:
        folder: the task folder.
        mode: ``score`` (child's data to ``evaluator.score``) or ``evaluate`` (OpenEvolve).
        entry: the program's function the child harness calls (``score`` mode).
        per_input: call ``entry`` once per input, keeping results that came before a timeout.
        timeout_s: the folder's evaluation timeout.
        thresholds: OpenEvolve's ``cascade_thresholds``.
        initial: the initial program's text.
        reference: the known-good program's text, or None.
        known_good_score: its fitness, or None.
        description: what the program should do (goes into the rewriter's prompt).

    """

    folder: Path
    mode: str
    entry: str
    per_input: bool
    timeout_s: float
    thresholds: tuple[float, ...]
    initial: str
    reference: str | None
    known_good_score: float | None
    description: str


def is_folder(path: Path) -> bool:
    """A folder holding an evolution task (an initial program and an evaluator)."""
    return path.is_dir() and (path / "evaluator.py").is_file() and any(path.glob("initial_program.*"))


def read_folders(root: Path) -> list[dict[str, Any]]:
    """Task dicts of ``root`` (itself a task folder, or a folder of them)."""
    folders = [root] if is_folder(root) else [p for p in sorted(root.iterdir()) if is_folder(p)]
    if not folders:
        raise TaskFormatError(str(root), "<folder>", "holds no initial_program.* with evaluator.py (OpenEvolve layout)")
    out = []
    for folder in folders:
        meta: dict[str, Any] = {}
        if (folder / "task.json").is_file():
            meta = json.loads((folder / "task.json").read_text(encoding="utf-8"))
        meta.setdefault("id", folder.name)
        meta["path"] = str(folder)
        out.append(meta)
    return out


def load(task: Task) -> EvolutionTask:
    """The :class:`EvolutionTask` of a loaded task (its ``path`` names the folder)."""
    path = task.get("path")
    if not isinstance(path, str) or not is_folder(Path(path)):
        raise TaskFormatError(task.source, "path", "must name a folder with initial_program.* and evaluator.py")
    folder = Path(path)
    initial_file = sorted(folder.glob("initial_program.*"))[0]
    initial = initial_file.read_text(encoding="utf-8")
    if START not in initial or END not in initial:
        raise TaskFormatError(str(initial_file), START, f"no {START} / {END} markers: nothing would evolve")
    config: dict[str, Any] = {}
    if (folder / "config.yaml").is_file():
        config = yaml.safe_load((folder / "config.yaml").read_text(encoding="utf-8")) or {}
    evaluator_cfg = config.get("evaluator") or {}
    evaluator_src = (folder / "evaluator.py").read_text(encoding="utf-8")
    defines = {n.name for n in ast.parse(evaluator_src).body if isinstance(n, ast.FunctionDef)}
    if "evaluate" not in defines and "score" not in defines:
        raise TaskFormatError(str(folder / "evaluator.py"), "evaluate", "defines neither evaluate() nor score()")
    reference_file = folder / "reference_program.py"
    prompt = (config.get("prompt") or {}).get("system_message", "")
    return EvolutionTask(
        folder=folder,
        mode="score" if "score" in defines and "entry" in task.data else "evaluate",
        entry=str(task.get("entry", "run")),
        per_input=bool(task.get("per_input", False)),
        timeout_s=float(task.get("timeout", evaluator_cfg.get("timeout", 30))),
        thresholds=tuple(float(t) for t in evaluator_cfg.get("cascade_thresholds", ()) or ()),
        initial=initial,
        reference=reference_file.read_text(encoding="utf-8") if reference_file.is_file() else None,
        known_good_score=task.get("known_good_score"),
        description=str(task.get("description", prompt)),
    )


def blocks(code: str) -> list[tuple[int, int]]:
    """``(first, last)`` line indexes (exclusive of the markers) of each EVOLVE block of ``code``."""
    lines = code.splitlines()
    out, start = [], None
    for i, line in enumerate(lines):
        if START in line and start is None:
            start = i + 1
        elif END in line and start is not None:
            out.append((start, i))
            start = None
    return out
