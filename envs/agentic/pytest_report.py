"""Structured pytest results: a plugin writes per-test outcomes to a file only the grader names.

Graders never read what the code under test prints (it can print ``PASSED``). A tiny
plugin, written into the grading sandbox under a random folder at grading time, records
each test's outcome by node id and pytest's exit status to a JSON file whose path is
random too; the grader reads that file and cross-checks it with the process exit code
(SWE-bench's ``harness/grading.py`` reads structured logs the same way).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any

PLUGIN = """
import json, os
_RESULTS = {}
_MESSAGES = {}
_PATH = os.environ.pop("CODEGYM_REPORT_PATH")


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        _RESULTS.setdefault(item.nodeid, "collected")


def pytest_runtest_logreport(report):
    node = report.nodeid
    if report.when == "call":
        if report.passed:
            if _RESULTS.get(node) in (None, "collected"):
                _RESULTS[node] = "passed"
        else:
            _RESULTS[node] = "failed" if report.failed else "skipped"
    elif not report.passed:
        _RESULTS[node] = "error" if report.failed else "skipped"
    if report.failed and node not in _MESSAGES:
        lines = [l for l in str(report.longreprtext).splitlines() if l.startswith("E ")]
        _MESSAGES[node] = "\\n".join(lines[:4])[:400]


def pytest_sessionfinish(session, exitstatus):
    with open(_PATH, "w") as f:
        json.dump({"tests": _RESULTS, "messages": _MESSAGES, "exitstatus": int(exitstatus)}, f)
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
            f"python -m pytest -p {self.module} -p no:cacheprovider -q -o addopts='' {extra}{flag} {quoted}"
        )


@dataclass
class TestResults:
    """Per-test outcomes of one run, judged with the exit code.

    Attributes:
        outcomes: node id -> ``passed`` / ``failed`` / ``error`` / ``skipped`` / ``collected``.
        messages: node id -> the ``E`` lines of its failure.
        exit_code: the process exit status.
        valid: the report existed, parsed and agreed with the exit code.
        problem: why the run is not valid, when it is not.

    """

    outcomes: dict[str, str]
    messages: dict[str, str]
    exit_code: int
    valid: bool
    problem: str = ""

    def passed(self, node: str) -> bool:
        """A test passes only when the valid report says so; missing evidence is failure."""
        return self.valid and self.outcomes.get(node) == "passed"


def parse_report(raw: bytes | None, exit_code: int, timed_out: bool = False) -> TestResults:
    """Judge a run from its report file bytes (None: no file) and exit code. Pure."""
    if timed_out:
        return TestResults({}, {}, exit_code, False, "the test run timed out")
    if raw is None:
        return TestResults({}, {}, exit_code, False, "pytest wrote no report (crashed or was killed)")
    try:
        data: Any = json.loads(raw)
        outcomes = {str(k): str(v) for k, v in data["tests"].items()}
        messages = {str(k): str(v) for k, v in data.get("messages", {}).items()}
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
        )
    return TestResults(outcomes, messages, exit_code, True)


def _sh_quote(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"
