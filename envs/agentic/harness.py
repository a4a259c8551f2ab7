"""The three harnesses every agentic env offers (the same task under each; name in ``info``).

* ``patch``: one turn; the action is a unified diff, applied like SWE-bench
  (``git apply``, then ``--3way``, then ``patch --fuzz``), then graded.
* ``bash``: one shell command per step in a persistent session (:mod:`.shell`); a step
  whose command is ``submit`` (alone, or as the last line) ends the attempt and grades it.
* ``editor``: JSON tool calls as SWE-agent / R2E-Gym: ``view``, ``create``,
  ``str_replace``, ``insert``, ``undo_edit``, ``bash``, ``submit``; one call or a list.

Parsing is pure; :func:`run_tool` executes one parsed call on a sandbox and returns the text
the agent reads (capped, saying when it was cut).
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field
from typing import Any

from codegym.core import extract_code
from codegym.errors import SandboxError
from codegym.sandbox import WORKDIR, Sandbox

from .shell import cap_output, format_result, run_shell

HARNESSES = ("patch", "bash", "editor")
EDITOR_TOOLS = ("view", "create", "str_replace", "insert", "undo_edit", "bash", "submit")
#: Undo history kept per file (older versions are dropped).
UNDO_DEPTH = 5

EDITOR_HELP = """Act with JSON tool calls (one object, or a list run in order), for example:
{"tool": "view", "path": "pkg/module.py", "view_range": [1, 40]}
{"tool": "create", "path": "notes.txt", "file_text": "..."}
{"tool": "str_replace", "path": "pkg/module.py", "old_str": "exact old text", "new_str": "new text"}
{"tool": "insert", "path": "pkg/module.py", "insert_line": 12, "new_str": "text inserted after line 12"}
{"tool": "undo_edit", "path": "pkg/module.py"}
{"tool": "bash", "command": "python -m pytest -q"}
{"tool": "submit"}"""

BASH_HELP = """Act with one shell command per turn (in a ```bash block or as plain text). The session
persists between turns: cd, exported and plain variables and functions carry over;
background processes do not. Send `submit` when you are done."""

PATCH_HELP = """Answer with a unified diff (in a ```diff block) against the repository root, as `git diff`
prints it; it is applied with git apply (then 3-way, then patch --fuzz)."""


@dataclass
class Call:
    """One parsed tool call."""

    tool: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class Parsed:
    """An action, parsed: the calls to run, or why none could be read."""

    calls: list[Call]
    error: str = ""


def parse_bash(action: str) -> Parsed:
    """One command (fenced or raw); ``submit`` alone or as the last line submits."""
    code = extract_code(action, "bash")
    if code is None:
        return Parsed([], "no command found: send one shell command, or `submit`")
    lines = code.code.rstrip().split("\n")
    submit = lines[-1].strip() == "submit"
    command = "\n".join(lines[:-1] if submit else lines).strip()
    calls = [Call("bash", {"command": command})] if command else []
    if submit:
        calls.append(Call("submit"))
    return Parsed(calls)


def parse_editor(action: str) -> Parsed:
    """A JSON tool call or a list of them (fenced or raw; OpenAI ``name``/``arguments`` too)."""
    code = extract_code(action, "json")
    if code is None:
        return Parsed([], 'no tool call found: send a JSON object such as {"tool": "submit"}')
    try:
        data = json.loads(code.code)
    except json.JSONDecodeError as exc:
        return Parsed(
            [],
            f"the tool call is not valid JSON ({exc.msg} at line {exc.lineno}); "
            'expected e.g. {"tool": "view", "path": "."}',
        )
    items = data if isinstance(data, list) else [data]
    calls = []
    for item in items:
        if not isinstance(item, dict):
            return Parsed([], f"each tool call must be a JSON object, got {type(item).__name__}")
        args = dict(item)
        inner = args.pop("arguments", None) or args.pop("args", None) or args.pop("input", None)
        if isinstance(inner, str):
            try:
                inner = json.loads(inner)
            except json.JSONDecodeError:
                return Parsed([], "the tool call's arguments are not valid JSON")
        if isinstance(inner, dict):
            args.update(inner)
        tool = args.pop("tool", None) or args.pop("name", None)
        if tool in (None, "str_replace_editor"):  # SWE-agent's {"command": "view", ...} form
            tool = args.pop("command", None)
        if tool not in EDITOR_TOOLS:
            return Parsed([], f"unknown tool {tool!r}; expected one of {list(EDITOR_TOOLS)}")
        calls.append(Call(str(tool), args))
    return Parsed(calls)


def work_path(path: Any, aliases: tuple[str, ...] = ()) -> str:
    """A path the agent gave, relative to the work dir (absolute ones must be under it or an alias of it)."""
    if not isinstance(path, str) or not path:
        raise ValueError("the tool call needs a 'path' (a string)")
    full = posixpath.normpath(path if path.startswith("/") else posixpath.join(WORKDIR, path))
    if any(full == a or full.startswith(a + "/") for a in aliases):  # /app/x is /sandbox/app/x (Terminal)
        full = WORKDIR + full
    if full != WORKDIR and not full.startswith(WORKDIR + "/"):
        raise ValueError(f"path {path!r} is outside the repository {WORKDIR}")
    return posixpath.relpath(full, WORKDIR)


def run_tool(sb: Sandbox, call: Call, state: dict[str, Any], timeout: float, limit: int) -> str:
    """Run one non-submit call; the text the agent reads. ``state`` keeps the undo history."""
    args = call.args
    try:
        if call.tool == "bash":
            command = args.get("command")
            if not isinstance(command, str) or not command.strip():
                return "the bash tool needs a non-empty 'command'"
            state.setdefault("commands", []).append(command)
            return format_result(run_shell(sb, command, timeout), limit)
        path = work_path(args.get("path"), getattr(sb, "aliases", ()))
        state.setdefault("commands", []).append(f"{call.tool} /sandbox/{path}")
        if call.tool == "view":
            return _view(sb, path, args.get("view_range"), timeout, limit)
        if call.tool == "create":
            text = args.get("file_text")
            if not isinstance(text, str):
                return "create needs 'file_text' (a string)"
            _remember(sb, path, state)
            sb.write_file(path, text)
            return f"created /sandbox/{path} ({len(text)} characters)"
        if call.tool == "str_replace":
            old, new = args.get("old_str"), args.get("new_str", "")
            if not isinstance(old, str) or not old or not isinstance(new, str):
                return "str_replace needs 'old_str' (non-empty) and 'new_str' (strings)"
            text = _read(sb, path)
            count = text.count(old)
            if count != 1:
                return (
                    f"no change: old_str occurs {count} times in /sandbox/{path}; "
                    "it must occur exactly once (add surrounding lines)"
                )
            _remember(sb, path, state)
            sb.write_file(path, text.replace(old, new))
            return f"edited /sandbox/{path}:\n" + _snippet(text.replace(old, new), new)
        if call.tool == "insert":
            new, line = args.get("new_str"), args.get("insert_line")
            if not isinstance(new, str) or not isinstance(line, int):
                return "insert needs 'insert_line' (an int) and 'new_str' (a string)"
            lines = _read(sb, path).split("\n")
            if not 0 <= line <= len(lines):
                return f"insert_line must be within 0..{len(lines)}, got {line}"
            _remember(sb, path, state)
            lines[line:line] = new.split("\n")
            sb.write_file(path, "\n".join(lines))
            return f"inserted {len(new.splitlines()) or 1} line(s) after line {line} of /sandbox/{path}"
        if call.tool == "undo_edit":
            history = state.setdefault("undo", {}).get(path) or []
            if not history:
                return f"no edit of /sandbox/{path} to undo"
            previous = history.pop()
            if previous is None:
                sb.run(["rm", "-f", f"{WORKDIR}/{path}"], timeout=timeout)
                return f"undid the creation of /sandbox/{path}"
            sb.write_file(path, previous)
            return f"restored /sandbox/{path} to its previous version"
    except (ValueError, SandboxError) as exc:
        return f"error: {exc}"
    return f"unknown tool {call.tool!r}"


def _read(sb: Sandbox, path: str) -> str:
    return sb.read_file(path).decode("utf-8", errors="replace")


def _remember(sb: Sandbox, path: str, state: dict[str, Any]) -> None:
    try:
        previous: str | None = _read(sb, path)
    except SandboxError:
        previous = None
    history = state.setdefault("undo", {}).setdefault(path, [])
    history.append(previous)
    del history[:-UNDO_DEPTH]


def _snippet(text: str, new: str) -> str:
    lines = text.split("\n")
    at = text[: text.find(new)].count("\n") if new and new in text else 0
    lo, hi = max(0, at - 3), min(len(lines), at + new.count("\n") + 4)
    return "\n".join(f"{i + 1:6}\t{lines[i]}" for i in range(lo, hi))


def _view(sb: Sandbox, path: str, view_range: Any, timeout: float, limit: int) -> str:
    res = sb.run(["test", "-d", f"{WORKDIR}/{path}"], timeout=timeout)
    if res.exit_code == 0:
        listing = sb.run(f"find {WORKDIR}/{path} -maxdepth 2 -not -path '*/.*' | sort", timeout=timeout)
        return cap_output(listing.stdout, limit)
    lines = _read(sb, path).split("\n")
    lo, hi = 1, len(lines)
    if isinstance(view_range, list) and len(view_range) == 2 and all(isinstance(v, int) for v in view_range):
        lo, hi = max(1, view_range[0]), (len(lines) if view_range[1] == -1 else min(len(lines), view_range[1]))
    body = "\n".join(f"{i:6}\t{lines[i - 1]}" for i in range(lo, hi + 1))
    return cap_output(body, limit)
