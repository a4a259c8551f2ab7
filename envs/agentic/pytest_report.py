"""Structured pytest results: a plugin writes per-test outcomes to a file only the grader names.

Graders never read what the code under test prints (it can print ``PASSED``). A tiny
plugin, written into the grading sandbox under a random folder at grading time, records
each test's outcome by node id and pytest's exit status to a JSON file whose path is
random too; the grader reads that file and cross-checks it with the process exit code
(SWE-bench's ``harness/grading.py`` reads structured logs the same way).

The code under test runs in the same process as pytest, so it can patch pytest itself.
:class:`Sentinels` catches that by behaviour: tests planted in every graded run, under
names drawn for that run, that must fail and must pass, and must all be reported.
"""

from __future__ import annotations

import json
import posixpath
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

PLUGIN = """
import json, os
_RESULTS = {}
_MESSAGES = {}
_COLLECT = {}
_EXITS = {}
_PATH = os.environ.pop("CODEGYM_REPORT_PATH")


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        _RESULTS.setdefault(item.nodeid, "collected")


def pytest_collectreport(report):
    if report.failed or report.skipped:
        _COLLECT[report.nodeid] = "error" if report.failed else "skipped"


def pytest_exception_interact(node, call, report):
    if getattr(report, "when", None) == "collect" and isinstance(call.excinfo.value, SystemExit):
        _EXITS[node.nodeid] = repr(call.excinfo.value.code)


def pytest_runtest_logreport(report):
    node = report.nodeid
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.passed:
            if _RESULTS.get(node) in (None, "collected"):
                _RESULTS[node] = "xpassed" if xfail else "passed"
        else:
            _RESULTS[node] = "failed" if report.failed else ("xfailed" if xfail else "skipped")
    elif not report.passed:
        _RESULTS[node] = "error" if report.failed else ("xfailed" if xfail else "skipped")
    if report.failed and node not in _MESSAGES:
        lines = [l for l in str(report.longreprtext).splitlines() if l.startswith("E ")]
        _MESSAGES[node] = "\\n".join(lines[:4])[:400]


def pytest_sessionfinish(session, exitstatus):
    with open(_PATH, "w") as f:
        data = {"tests": _RESULTS, "messages": _MESSAGES, "collect": _COLLECT, "exits": _EXITS}
        json.dump({**data, "exitstatus": int(exitstatus)}, f)
"""


@dataclass
class PytestRun:
    """Where one graded pytest run writes: a random plugin module and report path."""

    folder: str = field(default_factory=lambda: f".codegym/g{secrets.token_hex(8)}")
    module: str = field(default_factory=lambda: f"cg{secrets.token_hex(6)}")

    @property
    def report(self) -> str:
        """Report file, relative to the work dir."""
        return f"{self.folder}/r{self.module}.json"

    def files(self) -> dict[str, str]:
        """Files to write into the sandbox before the run."""
        return {f"{self.folder}/{self.module}.py": PLUGIN}

    def command(self, targets: list[str], collect_only: bool = False, extra: str = "") -> str:
        """The shell command running pytest with the plugin on ``targets``."""
        quoted = " ".join(_sh_quote(t) for t in targets)
        flag = " --collect-only" if collect_only else ""
        return (
            f"CODEGYM_REPORT_PATH=/sandbox/{self.report} "
            f"PYTHONPATH=/sandbox/{self.folder}${{PYTHONPATH:+:$PYTHONPATH}} "
            f"python -m pytest -p {self.module} -p no:cacheprovider -rA -q -o addopts='' {extra}{flag} {quoted}"
        )


@dataclass
class TestResults:
    """Per-test outcomes of one run, judged with the exit code.

    Attributes:
        outcomes: node id -> ``passed`` / ``failed`` / ``error`` / ``skipped`` / ``xfailed`` /
            ``xpassed`` (a non-strict xfail that passed) / ``collected``.
        messages: node id -> the ``E`` lines of its failure.
        exit_code: the process exit status.
        valid: the report existed, parsed and agreed with the exit code.
        problem: why the run is not valid, when it is not.
        reported: pytest finished its session and wrote the report (False: no report, or
            the run timed out).
        collect: collector node id (a file, a folder) -> ``error`` / ``skipped``, for the
            collectors that gave no tests.
        exits: collector node id -> the code of a ``SystemExit`` raised while collecting it.
        log: what pytest printed (``-rA`` summary included): never graded, kept so that the
            official harness's log parsers can be run on the same run (parity tests).

    """

    outcomes: dict[str, str]
    messages: dict[str, str]
    exit_code: int
    valid: bool
    problem: str = ""
    reported: bool = True
    collect: dict[str, str] = field(default_factory=dict)
    exits: dict[str, str] = field(default_factory=dict)
    log: str = ""

    def passed(self, node: str) -> bool:
        """A test passes only when the valid report says so; missing evidence is failure."""
        return self.valid and self.outcomes.get(node) == "passed"


def parse_report(raw: bytes | None, exit_code: int, timed_out: bool = False) -> TestResults:
    """Judge a run from its report file bytes (None: no file) and exit code. Pure."""
    if timed_out:
        return TestResults({}, {}, exit_code, False, "the test run timed out", reported=False)
    if raw is None:
        return TestResults({}, {}, exit_code, False, "pytest wrote no report (crashed or was killed)", reported=False)
    try:
        data: Any = json.loads(raw)
        outcomes = {str(k): str(v) for k, v in data["tests"].items()}
        messages = {str(k): str(v) for k, v in data.get("messages", {}).items()}
        collect = {str(k): str(v) for k, v in data.get("collect", {}).items()}
        exits = {str(k): str(v) for k, v in data.get("exits", {}).items()}
        status = int(data["exitstatus"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return TestResults({}, {}, exit_code, False, "the test report is malformed")
    # The report and the process must agree: code that rewrites the report to "all passed"
    # still leaves pytest's real exit status behind (SWE-bench's spoofed-output lesson).
    any_bad = any(v in ("failed", "error") for v in outcomes.values())
    if status != exit_code or (exit_code == 0 and any_bad) or (exit_code == 1 and not any_bad):
        return TestResults(
            outcomes,
            messages,
            exit_code,
            False,
            f"the test report (status {status}) disagrees with the exit code {exit_code}",
            collect=collect,
            exits=exits,
        )
    return TestResults(outcomes, messages, exit_code, True, collect=collect, exits=exits)


#: Words for planted test names when the graded tests give too few of their own.
_WORDS = ("value", "parse", "empty", "order", "keeps", "round", "trip", "edge", "case", "split", "join", "limit")


@dataclass
class Sentinels:
    """Tests the grader plants in one graded run, to see that pytest still reports honestly.

    Two files, one run before the graded tests and one after, each in the folder of a graded
    test file (so the same conftest files apply to them), each holding tests that must fail
    and tests that must pass; every name is drawn for this run alone and is written nowhere
    before the run starts. Code that makes pytest report passes it did not see (a patched
    ``TestReport``, a plugin, a runner of its own) turns the must-fail tests into passes;
    code that drops tests or ends the run early makes them vanish. :meth:`check` says so.

    Attributes:
        files: path -> source of each planted file, in run order (head, tail).
        must_fail / must_pass: node ids of the planted tests.

    """

    files: dict[str, str]
    must_fail: list[str]
    must_pass: list[str]

    @classmethod
    def plant(cls, targets: Sequence[str], known: Sequence[str] = (), per_file: int = 2) -> Sentinels:
        """Draw the planted tests of one run beside ``targets`` (names from ``known``'s words)."""
        rng = secrets.SystemRandom()
        words = sorted(
            {w for node in known for w in re.split(r"[^a-z0-9]+", node.split("::")[-1].lower()) if w.isalpha()}
            - {"test", "tests"}
        )
        if len(words) < 6:
            words = sorted(set(words) | set(_WORDS))
        folders = sorted({posixpath.dirname(t) for t in targets}) or [""]
        files: dict[str, str] = {}
        must_fail: list[str] = []
        must_pass: list[str] = []
        used: set[str] = set()
        for _ in range(2):
            stem = "_".join(rng.sample(words, 2))
            path = posixpath.join(rng.choice(folders), f"test_{stem}_{secrets.token_hex(3)}.py")
            verdicts = [True] * per_file + [False] * per_file
            rng.shuffle(verdicts)
            body = []
            for passes in verdicts:
                name = "test_" + "_".join(rng.sample(words, 3))
                while name in used:
                    name += f"_{rng.choice(words)}"
                used.add(name)
                body.append(f"def {name}():\n    {_assertion(rng, words, passes)}\n")
                (must_pass if passes else must_fail).append(f"{path}::{name}")
            files[path] = "\n\n".join(body)
        return cls(files, must_fail, must_pass)

    def arrange(self, targets: Sequence[str]) -> list[str]:
        """The run's arguments: the head file, the graded targets, the tail file."""
        head, tail = list(self.files)
        return [head, *targets, tail]

    def ids(self) -> set[str]:
        """Node ids of every planted test."""
        return {*self.must_fail, *self.must_pass}

    def check(self, results: TestResults, known: Sequence[str]) -> str:
        """Why the run cannot be trusted ('' when it can), from the planted tests and ``known`` ids.

        Honest failures are never reasons: a time-out, a crash, a collection error or a
        broken fixture leave the planted tests failed, errored or never run, not passed.
        """
        if not results.reported:
            if results.exit_code == 0 and "timed out" not in results.problem:
                return "pytest exited with status 0 without finishing its session (the process was ended early)"
            return ""
        outcomes = results.outcomes
        quits = [node for node, code in results.exits.items() if code in ("0", "None")]
        if quits:
            return f"the code exited with status 0 while pytest imported {quits[0] or 'the tests'}"
        forged = [n for n in self.must_fail if outcomes.get(n) == "passed"]
        if forged:
            return f"{len(forged)} planted test(s) that must fail were reported passed"
        # A planted test has no marks: skipped or xfail means something marked it (an xfail
        # counts as a pass under SWE-bench's rules, so marking tests xfail would "resolve").
        skipped = [n for n in sorted(self.ids()) if outcomes.get(n) in ("skipped", "xfailed", "xpassed")]
        if skipped:
            return f"{len(skipped)} planted test(s) were reported skipped or xfail"
        missing = [n for n in sorted(self.ids()) if n not in outcomes]
        if missing:
            return f"{len(missing)} planted test(s) vanished from the run"
        ran = any(v == "passed" for n, v in outcomes.items() if n not in self.ids())
        if ran and any(outcomes.get(n) == "collected" for n in self.ids()):
            return "tests passed while planted tests of the same run never ran"
        gone = [n for n in known if n not in outcomes and not _collect_problem(n, results.collect)]
        if gone:
            return f"{len(gone)} graded test(s) vanished from the collection without an error (e.g. {gone[0]})"
        return ""

    def strip(self, results: TestResults) -> TestResults:
        """``results`` without the planted tests."""
        ids = self.ids()
        return replace(
            results,
            outcomes={k: v for k, v in results.outcomes.items() if k not in ids},
            messages={k: v for k, v in results.messages.items() if k not in ids},
        )


def _assertion(rng: secrets.SystemRandom, words: list[str], passes: bool) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        n = rng.randrange(2, 10_000)
        return f"assert {n} == {n if passes else n + rng.randrange(1, 500)}"
    if kind == 1:
        a, b = rng.sample(words, 2)
        return f"assert {a!r} == {(a if passes else b)!r}"
    items = rng.sample(words, rng.randrange(1, 4))
    return f"assert len({items!r}) == {len(items) if passes else len(items) + rng.randrange(1, 5)}"


def _collect_problem(node: str, collect: dict[str, str]) -> bool:
    """True when a collector above ``node`` failed or was skipped (its tests honestly absent)."""
    return any(c == "" or node == c or node.startswith((c + "::", c + "/")) for c in collect)


def _sh_quote(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"
