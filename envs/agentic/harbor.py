"""Harbor and Terminal-Bench task folders, read as their own harnesses read them.

**Harbor** (Terminal-Bench 2)::

    task.toml          [metadata] difficulty, category; [agent] timeout_sec;
                       [verifier] timeout_sec, env; [solution] env;
                       [environment] docker_image, build_timeout_sec, memory_mb / memory,
                       storage_mb / storage, cpus
    instruction.md     what the agent reads
    environment/       the build context, with its Dockerfile
    tests/test.sh      the verifier: copied to /tests after the episode, run as
                       ``bash /tests/test.sh``; it writes /logs/verifier/reward.txt (one number)
                       or /logs/verifier/reward.json ({"name": number, ...})
    solution/solve.sh  the gold (the whole folder is uploaded to /solution)

**Terminal-Bench 1** (the older layout): ``task.yaml`` (``instruction``, ``difficulty``,
``max_agent_timeout_sec``, ``max_test_timeout_sec``), ``Dockerfile`` at the top (the folder
is the build context), ``run-tests.sh`` and ``tests/`` (both copied to /tests and run as
``bash /tests/run-tests.sh`` with ``TEST_DIR=/tests``) and ``solution.sh``. As its harness
does, the run's pytest short summary (``-rA``) is parsed and the task is solved when at
least one test ran and every test passed (``PASSED``, ``SKIPPED`` and ``XFAIL`` count).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from codegym.core import Task
from codegym.core.tasks import task_from_dict
from codegym.errors import TaskFormatError

#: Harbor's defaults (``harbor.models.task.config``).
VERIFIER_TIMEOUT_S = 600.0
BUILD_TIMEOUT_S = 600.0
MEMORY_MB = 2048
STORAGE_MB = 10240
#: Terminal-Bench 1's defaults (``terminal_bench.handlers.trial_handler.Task``).
TB1_AGENT_TIMEOUT_S = 360.0
TB1_TEST_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Layout:
    """Where a task folder keeps each part, and the settings its harness reads."""

    kind: str  # "harbor" or "terminal-bench"
    root: Path
    dockerfile: Path | None
    context: Path
    docker_image: str | None
    tests: Path
    test_script: str  # name inside /tests
    extra_test_files: tuple[Path, ...]  # copied next to tests/ (Terminal-Bench's run-tests.sh)
    solution: Path  # the folder uploaded to /solution
    solve_script: str  # its name inside /solution
    agent_timeout_s: float | None
    verifier_timeout_s: float
    build_timeout_s: float
    memory_mb: int | None
    storage_mb: int | None
    verifier_env: dict[str, str] = field(default_factory=dict)
    solution_env: dict[str, str] = field(default_factory=dict)


def layout(task: Task) -> Layout:
    """The task's :class:`Layout`; TaskFormatError naming the missing part."""
    root = task.path
    if root is None:
        raise TaskFormatError(task.source, "path", "terminal tasks are Harbor or Terminal-Bench task folders")
    if (root / "task.yaml").is_file() and not (root / "task.toml").is_file():
        return _tb1_layout(task, root)
    env_cfg = _table(task, "environment")
    dockerfile = root / "environment" / "Dockerfile"
    image = env_cfg.get("docker_image")
    if not dockerfile.is_file() and not image:
        raise TaskFormatError(
            str(root), "environment/Dockerfile", "missing (or give [environment].docker_image in task.toml)"
        )
    tests = root / "tests"
    if not (tests / "test.sh").is_file():
        raise TaskFormatError(str(root), "tests/test.sh", "missing; the verifier writes /logs/verifier/reward.txt")
    if not (root / "solution" / "solve.sh").is_file():
        raise TaskFormatError(str(root), "solution/solve.sh", "missing; every task ships its gold solution")
    agent_timeout = _table(task, "agent").get("timeout_sec")
    return Layout(
        kind="harbor",
        root=root,
        dockerfile=dockerfile if dockerfile.is_file() else None,
        context=root / "environment",
        docker_image=str(image) if image else None,
        tests=tests,
        test_script="test.sh",
        extra_test_files=(),
        solution=root / "solution",
        solve_script="solve.sh",
        agent_timeout_s=_seconds(task, "agent.timeout_sec", agent_timeout) if agent_timeout is not None else None,
        verifier_timeout_s=_seconds(
            task, "verifier.timeout_sec", _table(task, "verifier").get("timeout_sec", VERIFIER_TIMEOUT_S)
        ),
        build_timeout_s=_seconds(
            task, "environment.build_timeout_sec", env_cfg.get("build_timeout_sec", BUILD_TIMEOUT_S)
        ),
        memory_mb=_size_mb(task, env_cfg, "memory"),
        storage_mb=_size_mb(task, env_cfg, "storage"),
        verifier_env=_strings(task, "verifier.env", _table(task, "verifier").get("env", {})),
        solution_env=_strings(task, "solution.env", _table(task, "solution").get("env", {})),
    )


def _tb1_layout(task: Task, root: Path) -> Layout:
    for needed in ("Dockerfile", "run-tests.sh", "solution.sh"):
        if not (root / needed).is_file():
            hint = " (solution.yaml is not supported)" if needed == "solution.sh" else ""
            raise TaskFormatError(str(root), needed, f"missing in this Terminal-Bench task folder{hint}")
    return Layout(
        kind="terminal-bench",
        root=root,
        dockerfile=root / "Dockerfile",
        context=root,
        docker_image=None,
        tests=root / "tests",
        test_script="run-tests.sh",
        extra_test_files=(root / "run-tests.sh",),
        solution=root,
        solve_script="solution.sh",
        agent_timeout_s=_seconds(task, "max_agent_timeout_sec", task.get("max_agent_timeout_sec", TB1_AGENT_TIMEOUT_S)),
        verifier_timeout_s=_seconds(task, "max_test_timeout_sec", task.get("max_test_timeout_sec", TB1_TEST_TIMEOUT_S)),
        build_timeout_s=BUILD_TIMEOUT_S,
        memory_mb=None,
        storage_mb=None,
    )


def normalise(task: Task) -> Task:
    """The task with Harbor's ``[metadata] difficulty`` lifted to ``Task.difficulty``, layout checked."""
    layout(task)
    meta = _table(task, "metadata")
    difficulty = task.difficulty or meta.get("difficulty")
    if difficulty is not None and not isinstance(difficulty, str):
        raise TaskFormatError(task.source, "metadata.difficulty", f"expected a string, got {difficulty!r}")
    if not str(task.get("instruction", "")).strip():
        raise TaskFormatError(str(task.path), "instruction", "missing or empty (instruction.md or task.yaml)")
    return Task(task.id, task.data, task.split, difficulty, task.path, task.source)


def read_tb1_folder(path: Path) -> Task:
    """A Terminal-Bench 1 task folder (``task.yaml``) as a Task (its id is the folder's name)."""
    meta = path / "task.yaml"
    try:
        data = yaml.safe_load(meta.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise TaskFormatError(str(meta), "<yaml>", f"not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise TaskFormatError(str(meta), "<yaml>", "expected a mapping of fields")
    data = {k: v for k, v in data.items() if k not in ("id", "task_id")}
    return task_from_dict({"id": path.name, **data}, str(meta), path)


def tb1_folders(source: Path) -> list[Path]:
    """``source`` itself, or its sub-folders, that hold a ``task.yaml`` and no ``task.toml``."""

    def is_tb1(p: Path) -> bool:
        return (p / "task.yaml").is_file() and not (p / "task.toml").is_file()

    if is_tb1(source):
        return [source]
    return sorted(p for p in source.iterdir() if p.is_dir() and not p.name.startswith((".", "_")) and is_tb1(p))


# ---------------------------------------------------------------------------- rewards
def read_reward(reward_json: bytes | None, reward_txt: bytes | None) -> tuple[float, dict[str, float]]:
    """The scalar reward and the metrics from what the verifier wrote, as Harbor reads them.

    ``reward.json`` wins when present: a JSON object of numbers (others are ignored). Its
    scalar is the ``reward`` key; without one, ``reward.txt`` when that holds a number (as
    Harbor falls back), else the mean of the numbers. ``reward.txt`` alone: one number.
    Raises ValueError when neither holds a usable number.
    """
    metrics: dict[str, float] = {}
    if reward_json is not None:
        try:
            parsed = json.loads(reward_json.decode("utf-8", errors="replace") or "null")
        except json.JSONDecodeError as exc:
            raise ValueError(f"reward.json is not valid JSON: {exc}") from None
        if not isinstance(parsed, dict):
            raise ValueError("reward.json must be a JSON object of numbers")
        metrics = {
            str(k): float(v) for k, v in parsed.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
        }
        if "reward" in metrics:
            return _finite(metrics["reward"], "reward.json"), metrics
        if reward_txt is not None and reward_txt.strip():
            return _txt(reward_txt), metrics
        if not metrics:
            raise ValueError("reward.json holds no numbers")
        return _finite(sum(metrics.values()) / len(metrics), "reward.json"), metrics
    if reward_txt is None:
        raise ValueError("the verifier wrote neither /logs/verifier/reward.txt nor /logs/verifier/reward.json")
    value = _txt(reward_txt)
    return value, {"reward": value}


def _txt(raw: bytes) -> float:
    text = raw.decode("utf-8", errors="replace").strip()
    if not text:
        raise ValueError("reward.txt is empty")
    try:
        return _finite(float(text), "reward.txt")
    except ValueError:
        raise ValueError(f"reward.txt does not hold a number: {text[:80]!r}") from None


def _finite(value: float, where: str) -> float:
    if not math.isfinite(value):
        raise ValueError(f"{where} holds {value}, not a finite number")
    return value


_SUMMARY = re.compile(r"=+\s*short test summary info\s*=+")
_STATUSES = {"PASSED": True, "SKIPPED": True, "XFAIL": True, "FAILED": False, "XPASS": False, "ERROR": False}


def parse_pytest_summary(output: str) -> dict[str, bool] | None:
    """Terminal-Bench 1's pytest parser: test -> passed, from the short summary; None without one."""
    found = _SUMMARY.search(output)
    if found is None:
        return None
    results: dict[str, bool] = {}
    for line in output[found.end() :].splitlines():
        line = line.strip()
        if line.startswith("FAILED") and " - " in line:
            line = " - ".join(line.split(" - ")[:-1])
        parts = line.split(maxsplit=1)
        if len(parts) == 2 and parts[0].strip(":") in _STATUSES:
            results[parts[1].strip().split("::", 1)[-1]] = _STATUSES[parts[0].strip(":")]
    return results


# ---------------------------------------------------------------------------- network
_FETCH = re.compile(
    r"(?<![\w-])(curl|wget|uvx|pip3?\s+install|uv\s+(pip|tool)\s+install|apt(-get)?\s+(update|install))(?![\w-])"
)
_OFFLINE = re.compile(
    r"Could not resolve host|Temporary failure in name resolution|Network is unreachable|Name or service not known"
    r"|Failed to establish a new connection|No matching distribution found|uvx?: command not found"
    r"|curl: command not found|wget: command not found"
)


def fetches(scripts: list[Path]) -> bool:
    """Whether the task's own verifier scripts download tools (``curl ... | sh``, ``uvx``, ``pip install``)."""
    return any(_FETCH.search(p.read_text(encoding="utf-8", errors="replace")) for p in scripts if p.is_file())


def offline_failure(output: str) -> str | None:
    """The line of ``output`` that shows a download failing for want of a network, or None."""
    found = _OFFLINE.search(output)
    if found is None:
        return None
    start = output.rfind("\n", 0, found.start()) + 1
    end = output.find("\n", found.end())
    return output[start : end if end >= 0 else len(output)].strip()[:200]


# ---------------------------------------------------------------------------- fields
def _table(task: Task, name: str) -> dict[str, Any]:
    value = task.get(name, {})
    if not isinstance(value, dict):
        raise TaskFormatError(task.source, name, f"expected a [{name}] table, got {value!r}")
    return value


def _seconds(task: Task, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise TaskFormatError(task.source, name, f"expected seconds > 0, got {value!r}")
    return float(value)


def _size_mb(task: Task, cfg: dict[str, Any], name: str) -> int | None:
    if f"{name}_mb" in cfg:
        value = cfg[f"{name}_mb"]
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise TaskFormatError(task.source, f"environment.{name}_mb", f"expected MiB > 0, got {value!r}")
        return value
    if name in cfg:  # Harbor's deprecated spelling: "2G", "512M"
        match = re.fullmatch(r"\s*([\d.]+)\s*([GMK])\s*", str(cfg[name]).upper())
        if not match:
            raise TaskFormatError(task.source, f"environment.{name}", f"expected a size like '2G', got {cfg[name]!r}")
        scale = {"G": 1024, "M": 1, "K": 1 / 1024}[match.group(2)]
        return max(1, int(float(match.group(1)) * scale))
    return None


def _strings(task: Task, name: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, (str, int, float)) for v in value.values()):
        raise TaskFormatError(task.source, name, f"expected a table of strings, got {value!r}")
    return {str(k): str(v) for k, v in value.items()}
