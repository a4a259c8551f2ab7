"""Disguised copies of a repository: the same behaviour, other text, imported from bytecode only.

TestGen-v0 must judge tests by what the code does. A test that reads a module's source and
compares it with a guessed fix (or checks that its hash changed) tells the buggy and the
fixed repository apart without calling anything. So the grader runs the tests on disguised
copies: every Python file the fix or a mutant touches is

1. rewritten with a new text of the same meaning: an ``ast.unparse`` round trip (kept only
   when it parses back to the same tree), then comment lines of random words before random
   statements, drawn from a seed that is new for every grading (nothing to predict);
2. compiled to a sourceless ``.pyc`` next to it (``module.pyc``, which Python imports when
   ``module.py`` is absent), and the ``.py`` removed, so no source text is there to read.

A behavioural test gives the same verdict on the original and the disguised copy; a test
whose verdict changes between them is judged by text and is flagged.
"""

from __future__ import annotations

import ast
import io
import random
import re
import tokenize

from codegym.sandbox import Sandbox

#: Compiles the files named in argv to legacy ``.pyc`` files beside them and removes the
#: sources; a file that does not compile is left as it is (its own tests will show it).
COMPILE = """
import os, py_compile, sys
for path in sys.argv[1:]:
    try:
        py_compile.compile(path, cfile=path + "c", doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    except (py_compile.PyCompileError, OSError):
        continue
    os.remove(path)
"""

_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=]")
_WORDS = (
    "note check value order count index item entry step field total range limit state flag "
    "input output buffer cache result record offset marker token scope frame"
).split()


def disguise_source(text: str, seed: int) -> str:
    """``text`` with the same meaning and other wording: new layout and random comment lines."""
    rng = random.Random(seed)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text
    try:
        unparsed = ast.unparse(tree) + "\n"
        if ast.dump(ast.parse(unparsed)) == ast.dump(tree):
            text = unparsed
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass  # keep the original layout; the comments below still change the text
    return _add_comments(text, rng)


def _add_comments(text: str, rng: random.Random) -> str:
    """Comment lines before random statements (at least one), each with the statement's indent."""
    lines = text.splitlines(keepends=True)
    starts: dict[int, str] = {}  # 0-based line -> indentation of a statement starting there
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.stmt):
            line = lines[node.lineno - 1]
            indent = line[: len(line) - len(line.lstrip(" \t"))]
            if node.col_offset == len(indent.encode("utf-8")):  # not after a ';'
                starts[node.lineno - 1] = indent
    if not starts:
        return f"# {_phrase(rng)}\n{text}"
    chosen = {n for n in starts if rng.random() < 0.3} or {rng.choice(sorted(starts))}
    out = []
    for i, line in enumerate(lines):
        if i in chosen:
            out.append(f"{starts[i]}# {_phrase(rng)}\n")
            if rng.random() < 0.3:
                out.append("\n")
        out.append(line)
    return "".join(out)


def _phrase(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(2, 6))) + f" {rng.getrandbits(32):08x}"


def _decode(data: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def _utf8_coding(text: str) -> str:
    """``text`` declared UTF-8 where its first two lines declare another coding (PEP 263)."""
    lines = text.split("\n", 2)
    for i in range(min(2, len(lines))):
        if _CODING.match(lines[i]):
            lines[i] = "# coding: utf-8"
    return "\n".join(lines)


def disguise_repo(sb: Sandbox, paths: list[str], seed: int) -> list[str]:
    """Disguise ``paths`` (Python files, relative to the work dir) in ``sb``; returns those done.

    Files missing in this copy (added by a fix the copy lacks) are skipped. Every file gets
    its own text from ``seed``; the new text is written as UTF-8 (its coding line, a
    comment, is gone), then compiled to bytecode and the source removed.
    """
    done = []
    for i, path in enumerate(paths):
        try:
            text = _decode(sb.read_file(path))
        except Exception:  # noqa: BLE001 - not in this copy, or not text: leave it
            continue
        new = _utf8_coding(disguise_source(text, seed * 1_000_003 + i))
        sb.write_file(path, new.encode("utf-8"))
        done.append(path)
    if done:
        res = sb.run(["python", "-c", COMPILE, *done], timeout=120)
        if not res.ok:
            from codegym.errors import InfraError

            raise InfraError(f"could not compile the disguised repository: {(res.stderr or res.stdout)[-500:]}")
    return done
