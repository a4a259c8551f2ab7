"""Split cadquery code into executable steps (one per operation) and audit it statically.

Done on the host, so the spans that token rewards land on never come from the sandbox.
Every top-level statement is a step; a statement whose value is a method chain
(``cq.Workplane().box(...).faces(">Z").hole(3)``) becomes one step per call in the chain,
evaluated into a temporary in the same order Python would, so the semantics do not change.
Each step carries the line it starts on; the worker compiles it there, so tracebacks show
the user's line numbers. (The steps used to be padded with that many blank lines: an
action of many short lines then cost memory quadratic in its length.) Splitting costs time
and memory linear in the code's length.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

TMP = "_cg_chain"

#: Modules that CAD code has no business importing, and the audit flag each raises.
SUSPECT_MODULES = {
    "os": "filesystem_or_process",
    "subprocess": "process_spawn",
    "socket": "network",
    "ctypes": "native_code",
    "shutil": "filesystem_or_process",
    "sys": "interpreter_access",
    "importlib": "interpreter_access",
    "multiprocessing": "process_spawn",
    "signal": "signal",
    "pty": "process_spawn",
    "resource": "interpreter_access",
    "urllib": "network",
    "http": "network",
    "requests": "network",
    "pathlib": "filesystem_or_process",
    "builtins": "interpreter_access",
    "gc": "interpreter_access",
    "inspect": "interpreter_access",
}
SUSPECT_CALLS = {
    "open": "file_access",
    "exec": "dynamic_code",
    "eval": "dynamic_code",
    "compile": "dynamic_code",
    "__import__": "interpreter_access",
    "system": "process_spawn",
    "popen": "process_spawn",
}


@dataclass(frozen=True)
class Step:
    """One executable step.

    Attributes:
        code: Python source to ``exec``; its first line is line ``line`` of the code.
        snap: variable whose geometry is scored after the step (None: no score).
        start: character offset of the step's span in the code.
        end: end offset (exclusive).
        line: 1-based line of the code where ``code`` starts (the worker compiles it there).
    """

    code: str
    snap: str | None
    start: int
    end: int
    line: int = 1


def split_steps(code: str) -> list[Step]:
    """The steps of ``code``; raises SyntaxError as ``compile`` would."""
    tree = ast.parse(code)
    lines = code.splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))

    chars: dict[int, list[int]] = {}  # line -> character index of each UTF-8 byte (non-ASCII lines)

    def offset(lineno: int, col: int) -> int:
        # ast columns count UTF-8 bytes; spans are in characters. A line's byte-to-character
        # map is built once: many statements on one long line stay linear.
        line = lines[lineno - 1] if lineno - 1 < len(lines) else ""
        if line.isascii():
            return starts[lineno - 1] + min(col, len(line))
        if lineno not in chars:
            chars[lineno] = [i for i, ch in enumerate(line) for _ in range(len(ch.encode("utf-8", "surrogatepass")))]
            chars[lineno].append(len(line))
        table = chars[lineno]
        return starts[lineno - 1] + table[min(col, len(table) - 1)]

    steps: list[Step] = []
    for stmt in tree.body:
        s0, s1 = offset(stmt.lineno, stmt.col_offset), offset(stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
        target = _single_target(stmt)
        value = getattr(stmt, "value", None)
        links = _chain(value) if target is not None and value is not None else []
        if len(links) < 2:
            steps.append(Step(code[s0:s1], _assigned(stmt), s0, s1, stmt.lineno))
            continue
        base = links[0]
        b0, b1 = offset(base.lineno, base.col_offset), offset(base.end_lineno or 0, base.end_col_offset or 0)
        steps.append(Step(f"{TMP} = ({code[b0:b1]})", TMP, b0, b1, base.lineno))
        prev_end, prev_line = b1, base.end_lineno or base.lineno
        for link in links[1:]:
            e = offset(link.end_lineno or 0, link.end_col_offset or 0)
            text = code[prev_end:e]
            # The span starts at the call's dot, not at the line break and indent before it.
            lead = len(text) - len(text.lstrip())
            steps.append(Step(f"{TMP} = ({TMP}{text})", TMP, prev_end + lead, e, prev_line))
            prev_end, prev_line = e, link.end_lineno or prev_line
        steps.append(Step(f"{target} = {TMP}\ndel {TMP}\n", None, s1, s1, stmt.end_lineno or stmt.lineno))
    return steps


def _single_target(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id
    return None


def _assigned(stmt: ast.stmt) -> str | None:
    """The last plain name a statement assigns (its geometry is scored), or None."""
    names = [n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
        return None
    return names[-1] if names else None


def _chain(node: ast.expr) -> list[ast.expr]:
    """``a.f(x).g(y)`` -> [a, a.f(x), a.f(x).g(y)]: the base then each call of the chain."""
    links: list[ast.expr] = []
    cur = node
    while isinstance(cur, ast.Call) and isinstance(cur.func, ast.Attribute):
        links.append(cur)
        cur = cur.func.value
    if not links:
        return []
    links.append(cur)
    return links[::-1]


def audit_code(code: str) -> list[str]:
    """Static audit flags of ``code`` (never raises; unparsable code has none)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    flags: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mods = [(node.module or "").split(".")[0]]
        else:
            mods = []
        flags.update(SUSPECT_MODULES[m] for m in mods if m in SUSPECT_MODULES)
        if isinstance(node, ast.Call):
            fn = node.func
            name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else None
            if name in SUSPECT_CALLS:
                flags.add(SUSPECT_CALLS[name])
        if isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr not in ("__init__", "__name__"):
            flags.add("interpreter_access")
    return sorted(flags)
