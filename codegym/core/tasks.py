"""Task sets: load a folder of task directories, a JSONL index, or a list of dicts.

The format is detected from what is given (docs/contract.md, Tasks):

* a list of dicts: one task each;
* a ``.jsonl`` file (or ``.jsonl.gz``): one task per line; a ``.json`` file: a list of tasks;
* a folder whose sub-folders hold ``task.toml`` or ``task.json`` (Harbor / Terminal-Bench
  style: ``instruction.md`` is read into ``instruction``, ``path`` points at the folder);
* a folder of ``.json`` / ``.jsonl`` files (each loaded as above).

Every task needs an id (``id``, ``task_id`` or SWE-bench's ``instance_id``); ``split``
defaults to ``"train"``; ``difficulty`` is optional. A family passes ``parse`` to check its
own fields; a malformed task raises :class:`~codegym.errors.TaskFormatError` naming the
file and the field.

Outside formats are told apart by their fields (:mod:`codegym.core.formats`): a row of a
format the env converts (HumanEval for CodeGen) is converted as it is read; a row the env
cannot read gets an error naming the format it is, or the formats it could be and the
fields it misses.
"""

from __future__ import annotations

import gzip
import json
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from codegym.core.formats import detect, detect_folder, explain
from codegym.errors import TaskFormatError, UnknownTaskError

ID_KEYS = ("id", "task_id", "instance_id")


@dataclass(frozen=True)
class Task:
    """One task.

    Attributes:
        id: unique id within its set.
        data: every field of the task as loaded (family-specific).
        split: ``train``, ``test``, ... (from the task; default ``train``).
        difficulty: ``easy`` / ``medium`` / ``hard`` or None.
        path: the task's folder for directory tasks, else None.
        source: where it was loaded from, for error messages.

    """

    id: str
    data: dict[str, Any] = field(hash=False, compare=False)
    split: str = "train"
    difficulty: str | None = None
    path: Path | None = None
    source: str = "<memory>"

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        """Like ``dict.get`` over the task's fields."""
        return self.data.get(key, default)

    def require(self, key: str, kind: type | tuple[type, ...] = object) -> Any:
        """The field ``key``; raise TaskFormatError if missing or not of ``kind``."""
        if key not in self.data:
            raise TaskFormatError(self.source, key, f"missing in task {self.id!r}")
        value = self.data[key]
        if not isinstance(value, kind):
            names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            raise TaskFormatError(self.source, key, f"expected {names}, got {type(value).__name__} in task {self.id!r}")
        return value


Parse = Callable[[Task], Task]
Convert = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


@dataclass(frozen=True)
class Formats:
    """The outside formats one env reads.

    Attributes:
        env: the env's id (or class name), for messages.
        accepted: names of the formats it reads (``formats.json``), converted or as they are.
        convert: format name -> function turning rows of it into the env's task dicts.

    """

    env: str
    accepted: tuple[str, ...] = ()
    convert: Mapping[str, Convert] = field(default_factory=dict)


class TaskSet(Sequence[Task]):
    """An ordered, immutable collection of tasks with lookup by id and seeded choice."""

    def __init__(self, tasks: Iterable[Task]) -> None:
        self._tasks = list(tasks)
        self._by_id: dict[str, Task] = {}
        for task in self._tasks:
            if task.id in self._by_id:
                raise TaskFormatError(task.source, "id", f"duplicate task id {task.id!r}")
            self._by_id[task.id] = task

    @classmethod
    def load(
        cls,
        source: str | Path | Sequence[dict[str, Any]],
        parse: Parse | None = None,
        formats: Formats | None = None,
    ) -> TaskSet:
        """Load tasks from a folder, a JSON/JSONL file or a list of dicts (format detected).

        Args:
            source: what to load.
            parse: the family's check/normalisation of each task; raises TaskFormatError.
            formats: the outside formats the env reads (rows of those it converts are
                converted; errors name the format a row is or could be).

        """
        tasks = list(_read(source, formats))
        if parse is not None:
            parsed = []
            for task in tasks:
                try:
                    parsed.append(parse(task))
                except TaskFormatError as exc:
                    hint = _hint(task, formats)
                    if not hint:
                        raise
                    raise TaskFormatError(exc.source, exc.field, f"{exc.problem}; {hint}") from exc
            tasks = parsed
        if not tasks:
            raise TaskFormatError(
                str(source), "tasks", "no tasks found; expected task folders, .json or .jsonl" + _folder_hint(source)
            )
        return cls(tasks)

    def __len__(self) -> int:
        return len(self._tasks)

    def __getitem__(self, index: int) -> Task:  # type: ignore[override]
        return self._tasks[index]

    def __iter__(self) -> Iterator[Task]:
        return iter(self._tasks)

    def __contains__(self, item: object) -> bool:
        return item in self._by_id or item in self._tasks

    @property
    def ids(self) -> list[str]:
        """Task ids in order."""
        return [t.id for t in self._tasks]

    def get(self, task_id: str) -> Task:
        """The task with this id; UnknownTaskError (with a suggestion) otherwise."""
        try:
            return self._by_id[task_id]
        except KeyError:
            raise UnknownTaskError(task_id, self._by_id) from None

    def filter(self, split: str | None = None, difficulty: str | None = None) -> TaskSet:
        """The tasks of one split and/or difficulty (None: any)."""
        kept = [
            t
            for t in self._tasks
            if (split is None or t.split == split) and (difficulty is None or t.difficulty == difficulty)
        ]
        if not kept:
            raise UnknownTaskError(
                f"<split={split!r}, difficulty={difficulty!r}>",
                [f"<split={t.split!r}, difficulty={t.difficulty!r}>" for t in self._tasks],
            )
        return TaskSet(kept)

    def choose(self, rng: np.random.Generator, split: str | None = None, difficulty: str | None = None) -> Task:
        """A task drawn with ``rng`` among those matching ``split`` and ``difficulty``."""
        pool = self.filter(split, difficulty) if (split or difficulty) else self
        return pool[int(rng.integers(len(pool)))]


def task_from_dict(data: dict[str, Any], source: str, path: Path | None = None) -> Task:
    """Make a Task from a loaded dict, checking the shared fields."""
    if not isinstance(data, dict):
        raise TaskFormatError(source, "<task>", f"expected a JSON object, got {type(data).__name__}")
    task_id = next((data[k] for k in ID_KEYS if k in data), None)
    if task_id is None and path is not None:
        task_id = path.name
    if not isinstance(task_id, str) or not task_id:
        raise TaskFormatError(source, "id", f"missing or not a string; give one of {list(ID_KEYS)}")
    split = data.get("split", "train")
    difficulty = data.get("difficulty")
    if not isinstance(split, str):
        raise TaskFormatError(source, "split", f"expected a string, got {split!r}")
    if difficulty is not None and not isinstance(difficulty, str):
        raise TaskFormatError(source, "difficulty", f"expected a string, got {difficulty!r}")
    return Task(task_id, dict(data), split, difficulty, path, source)


def _hint(task: Task, formats: Formats | None) -> str:
    """What an unreadable task looks like (see :func:`codegym.core.formats.explain`), or ''."""
    if formats is None:
        return ""
    if task.path is not None:
        fmt = detect_folder(task.path)
        if fmt is None or fmt.name in formats.accepted:
            return ""
        return f"this is a {fmt.name} task folder; {formats.env} does not read it: load it with " + " or ".join(
            fmt.envs
        )
    return explain(task.data, formats.env, formats.accepted)


def _folder_hint(source: Any) -> str:
    """For a folder with no tasks in it: the layouts its sub-folders have, if any."""
    if not isinstance(source, (str, Path)) or not Path(source).is_dir():
        return ""
    seen = {}
    for child in sorted(Path(source).iterdir())[:200]:
        fmt = detect_folder(child) if child.is_dir() else None
        if fmt is not None:
            seen.setdefault(fmt.name, fmt)
    return "".join(f"; it holds {f.name} task folders, which {' and '.join(f.envs)} read" for f in seen.values())


def _read(source: str | Path | Sequence[dict[str, Any]], formats: Formats | None = None) -> Iterator[Task]:
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.exists():
            raise TaskFormatError(
                str(path), "<path>", "does not exist; pass a folder, a .json/.jsonl file or a list of dicts"
            )
        if path.is_dir():
            yield from _read_dir(path, formats)
        else:
            yield from _read_file(path, formats)
        return
    yield from _from_rows(((item, f"<tasks[{i}]>") for i, item in enumerate(source)), formats)


def _from_rows(rows: Iterable[tuple[Any, str]], formats: Formats | None) -> Iterator[Task]:
    """Tasks from loaded rows; a row of a format the env converts is converted first."""
    for data, source in rows:
        fmt = detect(data) if isinstance(data, dict) else None
        if fmt is not None and fmt.id_fields and not any(k in data for k in ID_KEYS):
            data = {**data, "id": "@".join(str(data[k]) for k in fmt.id_fields)}  # R2E-Gym rows have no id
        if fmt is None or formats is None or fmt.name not in formats.accepted or fmt.name not in formats.convert:
            try:
                yield task_from_dict(data, source)
            except TaskFormatError as exc:
                hint = explain(data, formats.env, formats.accepted) if formats and isinstance(data, dict) else ""
                if not hint:
                    raise
                raise TaskFormatError(exc.source, exc.field, f"{exc.problem}; {hint}") from exc
            continue
        try:
            converted = formats.convert[fmt.name]([data])  # type: ignore[union-attr]
        except TaskFormatError as exc:
            raise TaskFormatError(source, exc.field, f"{exc.problem} (a {fmt.name} row)") from exc
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise TaskFormatError(source, "<row>", f"not a valid {fmt.name} row: {type(exc).__name__}: {exc}") from exc
        for item in converted:
            yield task_from_dict(item, source)


def _is_task_file(path: Path) -> bool:
    return path.name.endswith((".json", ".jsonl", ".jsonl.gz"))


def _read_file(path: Path, formats: Formats | None = None) -> Iterator[Task]:
    if path.name.endswith((".jsonl", ".jsonl.gz")):
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        lines = enumerate(raw.decode("utf-8").splitlines(), 1)
        rows = ((_json(line, f"{path}:{n}"), f"{path}:{n}") for n, line in lines if line.strip())
        yield from _from_rows(rows, formats)
    elif path.suffix == ".json":
        data = _json(path.read_text(encoding="utf-8"), str(path))
        items = data if isinstance(data, list) else [data]
        sources = (f"{path}[{i}]" if isinstance(data, list) else str(path) for i in range(len(items)))
        yield from _from_rows(zip(items, sources, strict=True), formats)
    else:
        raise TaskFormatError(str(path), "<path>", "unknown task file type; expected .json, .jsonl or .jsonl.gz")


def _read_dir(path: Path, formats: Formats | None = None) -> Iterator[Task]:
    if (path / "task.toml").exists() or (path / "task.json").exists():
        yield _read_task_dir(path)
        return
    for child in sorted(path.iterdir()):
        if child.name.startswith((".", "_")):
            continue
        if child.is_dir() and ((child / "task.toml").exists() or (child / "task.json").exists()):
            yield _read_task_dir(child)
        elif child.is_file() and _is_task_file(child):
            yield from _read_file(child, formats)


def _read_task_dir(path: Path) -> Task:
    if (path / "task.toml").exists():
        meta_file = path / "task.toml"
        try:
            data = tomllib.loads(meta_file.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise TaskFormatError(str(meta_file), "<toml>", f"not valid TOML: {exc}") from exc
    else:
        meta_file = path / "task.json"
        data = _json(meta_file.read_text(encoding="utf-8"), str(meta_file))
    if (path / "instruction.md").exists():
        data.setdefault("instruction", (path / "instruction.md").read_text(encoding="utf-8"))
    return task_from_dict(data, str(meta_file), path)


def _json(text: str, source: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TaskFormatError(source, "<json>", f"not valid JSON: {exc}") from exc
