"""Host side of grading: send one attempt and its tests to the runner, compare the results.

One attempt = one sandboxed run of ``_runner.py`` (see its docstring for the trust layout).
The host keeps the expected outputs of bundled tasks and compares them itself
(:mod:`codegym.envs.codegen.compare`), so nothing the attempt does inside the sandbox can
turn a wrong answer into a pass.

The report comes back on the runner's stdout framed by a fresh nonce, which the runner has
read out of its stdin (with the rest of its input) before any attempt code runs. The host
accepts exactly one frame: two mean the nonce leaked, and any other text on that stdout
means someone else wrote into the harness's pipe (the attempt, through ``/proc/<pid>/fd/1``
of one of the runner's ancestors); both are flagged ``forged_results``.
"""

from __future__ import annotations

import ast
import json
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym.errors import InfraError
from codegym.sandbox import Sandbox

from .compare import DEFAULT_FLOAT_TOL, outputs_equal, values_equal

RUNNER_PATH = ".cg_runner.py"
RUNNER_SOURCE = (Path(__file__).parent / "_runner.py").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Language:
    """How a stdin/stdout program of one language is built and run in the sandbox."""

    name: str
    file: str
    build: tuple[str, ...] = ()
    run: tuple[str, ...] = ()
    error_line: str = ""  # regex whose group 1 is the line of a compile error


LANGUAGES: dict[str, Language] = {
    "python": Language("python", "solution.py"),
    "cpp": Language(
        "cpp",
        "solution.cpp",
        ("g++", "-O2", "-std=c++17", "-o", "sol", "solution.cpp"),
        ("./sol",),
        r"solution\.cpp:(\d+):\d+: (?:fatal )?error",
    ),
    "rust": Language(
        "rust", "solution.rs", ("rustc", "-O", "-o", "sol", "solution.rs"), ("./sol",), r"--> solution\.rs:(\d+)"
    ),
    "javascript": Language(
        "javascript", "solution.js", ("node", "--check", "solution.js"), ("node", "solution.js"), r"solution\.js:(\d+)"
    ),
}


@dataclass
class TestResult:
    """The result of one test.

    Attributes:
        status: ``pass``, ``fail`` (ran, wrong answer), ``error`` (raised / crashed /
            did not build) or ``timeout``.
        expected: the expected value or stdout (None for assert-style tests).
        got: what the attempt returned or printed.
        trace: the error's traceback or compiler message, cut short.
        lines: lines of the attempt this test executed (Python, when traced).

    """

    status: str
    expected: Any = None
    got: Any = None
    trace: str = ""
    lines: list[int] = field(default_factory=list)


@dataclass
class RunResult:
    """Everything one graded run of an attempt produced."""

    tests: list[TestResult]
    syntax_ok: bool = True
    loaded: bool = True
    error_line: int = 0
    load_error: str = ""
    load_trace: str = ""
    load_lines: list[int] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)

    @property
    def passed(self) -> int:
        """Number of tests passed."""
        return sum(t.status == "pass" for t in self.tests)

    @property
    def pass_rate(self) -> float:
        """Share of tests passed (0 when there are none)."""
        return self.passed / len(self.tests) if self.tests else 0.0

    @property
    def executed_rate(self) -> float:
        """Share of tests that ran to the end (pass or wrong answer, no error/timeout)."""
        return sum(t.status in ("pass", "fail") for t in self.tests) / len(self.tests) if self.tests else 0.0


def python_syntax_error(code: str) -> tuple[int, str] | None:
    """``(line, message)`` of a Python syntax error in ``code``, or None when it parses."""
    try:
        ast.parse(code)
    except SyntaxError as exc:
        return (exc.lineno or 1), f"{type(exc).__name__}: {exc.msg} (line {exc.lineno})"
    except (ValueError, MemoryError, RecursionError) as exc:  # null bytes, absurd nesting
        return 1, f"{type(exc).__name__}: {exc}"
    return None


def runner_stdin(spec: dict[str, Any], secret: bytes = b"") -> tuple[bytes, str]:
    """The runner's stdin for ``spec`` (see ``_runner.read_input``) and the report's nonce.

    ``secret`` (after the nonce) is what no process of the attempt may read: the runner
    keeps it in one buffer that every forked child zeroes before it loads any code.
    """
    nonce = secrets.token_hex(16)
    body = json.dumps(spec).encode()
    full = nonce.encode() + secret
    return str(len(body)).encode() + b" " + str(len(full)).encode() + b"\n" + body + full, nonce


def read_report(stdout: str, nonce: str) -> tuple[dict[str, Any] | None, bool]:
    """The runner's report in ``stdout`` and whether the stdout was tampered with.

    The runner writes one frame and nothing else. Two or more frames (the nonce leaked) give
    no report; any other text beside the one frame was written into the harness's stdout
    by someone else. Either way the second value is True.
    """
    frames = list(re.finditer(re.escape(nonce) + r" (.*) " + re.escape(nonce), stdout))
    if len(frames) != 1:
        return None, bool(frames) or bool(stdout.strip())
    m = frames[0]
    try:
        payload = json.loads(m.group(1))
    except ValueError:
        return None, True
    return payload, bool((stdout[: m.start()] + stdout[m.end() :]).strip())


def prepare(sandbox: Sandbox) -> Any:
    """Write the runner into a fresh sandbox and return the clean snapshot to restore."""
    sandbox.write_file(RUNNER_PATH, RUNNER_SOURCE)
    return sandbox.snapshot()


def run_attempt(
    sandbox: Sandbox,
    code: str,
    *,
    kind: str,
    language: str,
    tests: list[dict[str, Any]],
    entry_point: str | None = None,
    test_code: str | None = None,
    prelude: str | None = None,
    timeout: float = 4.0,
    float_tol: float | None = None,
    trace: bool = True,
) -> RunResult:
    """Run every test of one attempt in one sandboxed run and compare the results.

    Args:
        sandbox: a sandbox prepared by :func:`prepare` (restored to clean by the caller).
        code: the attempt's source.
        kind: ``function`` (call ``entry_point`` with each test's ``args``) or ``stdio``
            (feed each test's ``input``, read stdout).
        language: ``python``, ``cpp``, ``rust`` or ``javascript`` (non-Python: stdio only).
        tests: ``{"args": [...], "expected": ...}`` or ``{"input": str, "output": str}``;
            with ``test_code`` (HumanEval ``check(candidate)``) one empty dict.
        entry_point: the function to call (function kind).
        test_code: HumanEval/MBPP-style assert code defining ``check`` (judged in the sandbox).
        prelude: Python run before the attempt in its namespace (function kind): HumanEval's
            prompt, whose imports and helpers its harness puts before every completion.
        timeout: seconds per test, on the runner's clock.
        float_tol: tolerance of numeric comparison (None: exact for stdio, 1e-6 for values).
        trace: record executed lines per test (Python) for fault localisation.

    Raises:
        InfraError: the sandbox failed in a way the attempt cannot have caused.

    """
    lang = LANGUAGES[language]
    if language == "python":
        bad = python_syntax_error(code)
        if bad is not None:  # no sandbox run needed to know every test fails
            return RunResult(
                [TestResult("error", _expected(t), None, bad[1]) for t in tests],
                syntax_ok=False,
                loaded=False,
                error_line=bad[0],
                load_error="SyntaxError",
                load_trace=bad[1],
            )
    sandbox.write_file(lang.file, code)
    spec: dict[str, Any] = {
        "kind": kind,
        "timeout": timeout,
        "tests": [{"args": t["args"]} if "args" in t else {"input": t.get("input", "")} for t in tests],
        "trace": trace and language == "python",
    }
    if language == "python":
        spec.update(code=code, entry_point=entry_point, test_code=test_code, prelude=prelude)
    else:
        spec.update(build=list(lang.build), run=list(lang.run))
    budget = len(tests) * (timeout + 0.5) + (60 if lang.build else 5) + 10
    for retry in (True, False):
        stdin, nonce = runner_stdin(spec)
        res = sandbox.run(["python3", "-I", RUNNER_PATH], timeout=budget, stdin=stdin)
        payload, tampered = read_report(res.stdout, nonce)
        # A runner that died without a word may have been killed by the attempt (same uid)
        # or from outside (the machine, an operator): once more. Dying twice is the attempt's.
        if payload is not None or tampered or res.timed_out or res.oom_killed or not retry:
            break
    if payload is None:
        if not tampered and ("bwrap:" in res.stderr[:200] or "OCI runtime" in res.stderr):
            raise InfraError(f"sandbox could not start the runner: {res.stderr[:300]}")
        # The attempt can kill its parent (same uid); that is its failure, flagged.
        why = "the grading harness was stopped before it reported (killed or exited early)"
        flags = [] if res.timed_out else ["harness_exit"]
        if res.timed_out:
            why = "the attempt ran past the time limit of the whole run"
        if tampered:
            why = "the grading report was forged or garbled (text written into the harness's stdout)"
            flags = ["forged_results"]
        return RunResult(
            [TestResult("timeout" if res.timed_out else "error", _expected(t), None, why) for t in tests],
            loaded=False,
            load_error="HarnessExit",
            load_trace=why,
            flags=flags,
        )
    result = _compare(payload, tests, kind, float_tol, lang, bool(test_code))
    if tampered and "forged_results" not in result.flags:
        result.flags.append("forged_results")
    return result


def _expected(test: dict[str, Any]) -> Any:
    return test.get("expected", test.get("output"))


_TRUSTED_STATUS = {False: ("ran", "error", "timeout"), True: ("pass", "fail", "error", "timeout")}


def _compare(
    payload: dict[str, Any],
    tests: list[dict[str, Any]],
    kind: str,
    float_tol: float | None,
    lang: Language,
    test_code: bool = False,
) -> RunResult:
    meta = payload.get("meta", {})
    out: list[TestResult] = []
    forged = False
    for test, raw in zip(tests, payload["results"], strict=True):
        raw = raw or {"status": "error", "trace": "no result"}
        expected = _expected(test)
        status, got = raw.get("status", "error"), raw.get("got")
        if status not in _TRUSTED_STATUS[bool(test_code)]:
            # Only assert-style tests are judged inside; any other "pass" was written by the
            # attempt itself into the result pipe (the forged-message exploit).
            status, raw = "error", {**raw, "trace": f"result message with status {status!r} not from the harness"}
            forged = True
        if status == "ran":
            if kind == "function":
                ok = values_equal(got, expected, DEFAULT_FLOAT_TOL if float_tol is None else float_tol)
            else:
                ok = outputs_equal(got or "", expected or "", float_tol)
            status = "pass" if ok else "fail"
        trace = raw.get("trace", "")
        if raw.get("error") and raw.get("error") not in trace:
            trace = f"{raw['error']}: {trace}"
        out.append(TestResult(status, expected, got, trace, raw.get("lines", [])))
    result = RunResult(out, load_lines=meta.get("load_lines", []))
    flags = []
    if meta.get("harness_exit"):
        flags.append("harness_exit")
    if meta.get("out_of_order") or meta.get("garbled") or forged:
        flags.append("forged_results")
    if any(raw and raw.get("not_plain") for raw in payload["results"]):
        flags.append("not_plain_return")
    result.flags = flags
    if "load_error" in meta:
        err = meta["load_error"]
        result.loaded = False
        result.load_error, result.load_trace = err.get("load_error", ""), err.get("trace", "")
        result.error_line = int(err.get("line") or 0)
        if err.get("load_error") in ("SyntaxError", "CompileError"):
            result.syntax_ok = False
            if not result.error_line and lang.error_line:
                m = re.search(lang.error_line, result.load_trace)
                result.error_line = int(m.group(1)) if m else 0
    return result
