"""Every exception codegym raises on purpose, in one place (as ``gymnasium.error``).

Messages say what was expected, what came in, and how to fix it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class CodegymError(Exception):
    """Base class of every codegym error."""


class TaskFormatError(CodegymError, ValueError):
    """A task file is malformed: the message names the file, the field and the fix."""

    def __init__(self, source: str, field: str, problem: str) -> None:
        self.source, self.field, self.problem = source, field, problem
        super().__init__(f"{source}: field {field!r}: {problem}")


class ArgumentError(CodegymError, ValueError, TypeError):
    """An env was made with a wrong argument: the message names it, its value and the fix.

    Both a ValueError and a TypeError, so ``except`` clauses written for either (a value out
    of range, a value of the wrong type) catch it.
    """


class UnknownTaskError(CodegymError, KeyError):
    """A task id that is not in the task set."""

    def __init__(self, task_id: str, known: Iterable[str]) -> None:
        self.task_id = task_id
        super().__init__(f"no task {task_id!r} in this task set.{did_you_mean(task_id, known)}")

    def __str__(self) -> str:  # KeyError would quote the whole message again
        return str(self.args[0])


class SandboxError(CodegymError):
    """The sandbox was asked for something it cannot do (bad path, closed sandbox)."""


class SandboxSetupError(SandboxError):
    """A sandbox backend cannot start on this machine; the message says how to fix it."""


class InfraError(CodegymError):
    """Infrastructure broke (sandbox, engine, browser, renderer) through no fault of the attempt.

    Envs report it in ``info["infra_error"]`` instead of scoring the attempt, and learners
    drop such samples (docs/contract.md, Env contract).
    """


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """Return ' Did you mean X?' for the closest known name, or ''."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""
