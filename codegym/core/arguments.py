"""Constructor arguments of every env, checked when the env is made rather than at its first step.

:meth:`CodeEnv.__new__` calls :func:`check_arguments` before any ``__init__`` of the family
runs, so one set of rules covers every family, including the arguments a family adds
(``perf_timeout``, ``render_timeout_s``, ``harness``...):

* an argument no ``__init__`` of the class accepts: TypeError, with "Did you mean";
* a value that does not fit the annotation of the class that declares the argument
  (``max_turns: int`` refuses ``"3"`` and ``True``: bools are not numbers here);
* a number outside its range: timeouts (any name with ``timeout``) finite and > 0, counts
  (``max_turns``, ``repeats``, ``memory_mb``, ``output_limit``, ...) >= 1, no NaN or infinity;
* ``tasks``: None, a path or a list of task dicts; ``sandbox``: a backend name or a dict of
  a backend and :class:`codegym.sandbox.Limits` fields, each checked
  (:func:`codegym.sandbox.check_spec`).

Choices (``reward_mode``, ``harness``, ``detail``...) are the family's own checks, and
``split`` / ``difficulty`` are checked against the loaded tasks in ``CodeEnv.__init__``.
Each raises :class:`codegym.errors.ArgumentError` (a ValueError and a TypeError) whose
message names the argument, the value and the fix, as gymnasium's do.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import os
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from codegym.errors import ArgumentError, did_you_mean

#: Arguments that count things: whole numbers >= 1.
COUNTS = frozenset({"max_turns", "repeats", "memory_mb", "output_limit", "n_points", "view_size"})


def is_timeout(name: str) -> bool:
    """Arguments named like a timeout (``timeout``, ``timeout_s``, ``perf_timeout``, ``item_timeout_s``)."""
    return "timeout" in name.split("_")


@functools.cache
def _signature(cls: type) -> tuple[tuple[str, ...], dict[str, tuple[inspect.Parameter, Any]], bool]:
    """(positional names, name -> (parameter, type hint) of the class declaring it, open to more names)."""
    from codegym.core.env import CodeEnv

    positional: list[str] = []
    params: dict[str, tuple[inspect.Parameter, Any]] = {}
    more_positional = True
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            hints = typing.get_type_hints(init)
        except Exception:  # noqa: BLE001 - an annotation that does not evaluate: no type check
            hints = {}
        own = list(inspect.signature(init).parameters.values())[1:]
        for p in own:
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in params:
                params[p.name] = (p, hints.get(p.name, Any))
        if more_positional:
            positional += [p.name for p in own if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            more_positional = any(p.kind == p.VAR_POSITIONAL for p in own)
        if not any(p.kind == p.VAR_KEYWORD for p in own):
            return tuple(positional), params, False
        if klass is CodeEnv:
            break
    return tuple(positional), params, True


def check_arguments(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Raise TypeError / ValueError for the first constructor argument of ``cls`` that is wrong."""
    positional, params, open_ended = _signature(cls)
    given = dict(zip(positional, args, strict=False)) | kwargs
    for name, value in given.items():
        if name not in params:
            if open_ended:
                continue
            raise ArgumentError(
                f"{cls.__name__} got an unknown argument {name}={value!r}.{did_you_mean(name, params)} "
                f"Its arguments are {sorted(params)}."
            )
        param, hint = params[name]
        check_argument(cls.__name__, name, value, hint, param.default)


def check_argument(owner: str, name: str, value: Any, hint: Any = Any, default: Any = None) -> None:
    """Check one argument ``name=value`` of ``owner`` against its type ``hint`` and the rules above.

    ``default`` (the parameter's) is the example the message gives for a number out of range.
    """
    if name == "sandbox":
        sandbox_spec(value)
        return
    if name == "tasks":
        _check_tasks(owner, value)
        return
    wanted = "a positive number of seconds" if is_timeout(name) else _describe(hint)
    if not _fits(value, hint):
        got = f"{value!r} ({type(value).__name__})"
        raise ArgumentError(f"{owner}: {name} must be {wanted}, got {got}{_fix(name, value, hint)}.")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return
    example = f"; e.g. {name}={default!r}" if isinstance(default, numbers.Real) and default > 0 else ""
    if is_timeout(name) and not (math.isfinite(value) and value > 0):
        raise ArgumentError(f"{owner}: {name} must be {wanted}, got {value!r}{example}.")
    if not math.isfinite(value):
        raise ArgumentError(f"{owner}: {name} must be a finite number, got {value!r}{example}.")
    if name in COUNTS and value < 1:
        raise ArgumentError(f"{owner}: {name} must be >= 1, got {value!r}{example}.")


def sandbox_spec(sandbox: Any) -> dict[str, Any]:
    """The :func:`codegym.sandbox.create` arguments of ``sandbox=``, checked (the message names it)."""
    from codegym.sandbox import check_spec

    if sandbox is None:
        spec: dict[str, Any] = {}
    elif isinstance(sandbox, str):
        spec = {"backend": sandbox}
    elif isinstance(sandbox, Mapping):
        spec = dict(sandbox)
        bad = sorted((k for k in spec if not isinstance(k, str)), key=repr)
        if bad:
            raise ArgumentError(f"sandbox={sandbox!r}: keys must be names (str), got {bad[0]!r}")
    else:
        raise ArgumentError(
            f"sandbox must be a backend name ('local', 'docker'), a dict of a backend and limits "
            f"({{'backend': 'docker', 'memory_mb': 512}}) or None, got {sandbox!r} ({type(sandbox).__name__})."
        )
    try:
        check_spec(spec)
    except (TypeError, ValueError) as exc:
        raise ArgumentError(f"sandbox={sandbox!r}: {exc}") from None
    return spec


def _check_tasks(owner: str, tasks: Any) -> None:
    if tasks is None or isinstance(tasks, (str, os.PathLike)):
        return
    if isinstance(tasks, (list, tuple)):
        bad = next((i for i, t in enumerate(tasks) if not isinstance(t, Mapping)), None)
        if bad is None:
            return
        item = tasks[bad]
        raise ArgumentError(f"{owner}: tasks[{bad}] must be a task dict, got {item!r} ({type(item).__name__}).")
    raise ArgumentError(
        f"{owner}: tasks must be a folder or a .json/.jsonl file (str or Path), a list of task dicts, "
        f"or None for the bundled tasks; got {tasks!r} ({type(tasks).__name__})."
    )


def _fits(value: Any, hint: Any) -> bool:
    """``value`` is of type ``hint`` (the forms env signatures use; anything else passes)."""
    if hint is Any or hint is object:
        return True
    if hint is None or hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return any(_fits(value, h) for h in typing.get_args(hint))
    if origin is tuple:
        items = typing.get_args(hint)
        if not isinstance(value, (tuple, list)):
            return False
        if not items or items[-1] is Ellipsis:
            return all(_fits(v, items[0]) for v in value) if items else True
        return len(value) == len(items) and all(_fits(v, h) for v, h in zip(value, items, strict=True))
    if origin is list:
        return isinstance(value, (list, tuple))
    if origin is not None:
        return isinstance(value, origin) if isinstance(origin, type) else True
    if hint is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False  # True is not 1 here
    if hint is int:
        return isinstance(value, numbers.Integral)
    if hint is float:
        return isinstance(value, numbers.Real)
    if hint is Path:
        return isinstance(value, os.PathLike)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def _describe(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        parts = [_describe(h) for h in typing.get_args(hint)]
        return ", ".join(parts[:-1]) + " or " + parts[-1]
    if origin is tuple:
        return f"a tuple of {len(typing.get_args(hint))}"
    names = {bool: "True or False", int: "a whole number", float: "a number", str: "a str", Path: "a path"}
    if hint is None or hint is type(None):
        return "None"
    if hint in names:
        return names[hint]
    name = getattr(origin or hint, "__name__", str(hint))
    return f"a {name}"


def _fix(name: str, value: Any, hint: Any) -> str:
    """'; pass name=3' when the value is a number in quotes, or a bool where a number goes."""
    if isinstance(value, str):
        for kind in (int, float):
            if _fits(kind(1), hint):
                try:
                    return f"; pass {name}={kind(value.strip())!r} (a number, not a str)"
                except ValueError:
                    continue
        if _fits(True, hint) and value.strip().lower() in ("true", "false", "yes", "no", "0", "1"):
            return f"; pass {name}=True or {name}=False (a bool, not a str)"
    if isinstance(value, bool) and _fits(1, hint):
        return f"; a bool is not a number here: pass {name}=1 (or the number you mean)"
    return ""
