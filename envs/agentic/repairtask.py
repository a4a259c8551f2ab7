"""Repository-repair tasks: the two task formats, the hidden tests and the test run.

Two formats load into one :class:`RepairSpec`:

* a task directory (Harbor style): ``instruction.md``, ``task.toml`` with
  ``fail_to_pass`` / ``pass_to_pass`` (or SWE-bench's upper-case names), ``environment/``
  (the buggy repository), hidden ``tests/files/`` (the grader's copies of the test files,
  copied over the work dir at grading time), optional ``tests/mutants/*.patch`` (plausible
  wrong fixes, relative to the fixed repository, for TestGen) and ``solution/fix.patch``;
* a SWE-bench instance (``instance_id, repo, base_commit, patch, test_patch,
  problem_statement, FAIL_TO_PASS, PASS_TO_PASS``; the lists may be JSON strings), with the
  repository read from a local mirror: ``repo_root/<owner>__<name>``,
  ``repo_root/<owner>/<name>``, ``repo_root/<name>`` or the task's ``repo_path``.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym.core import Task
from codegym.errors import TaskFormatError
from codegym.sandbox import Sandbox

from .patches import apply_patch, parse_diff
from .pytest_report import PytestRun, Sentinels, TestResults, parse_report
from .repo import STATE_DIR, prepare_from_folder, prepare_from_mirror
from .taskenv import InstallSpec, TaskEnv, ensure_env

#: Seconds a graded pytest run may take.
TEST_TIMEOUT = 60.0


@dataclass
class RepairSpec:
    """A repair task in one shape, whatever file it came from."""

    kind: str
    statement: str
    f2p: list[str]
    p2p: list[str]
    gold_patch: str
    hidden_dir: Path | None = None
    test_patch: str = ""
    mutants: list[str] = field(default_factory=list)

    @property
    def protected(self) -> tuple[str, ...]:
        """Test files the grader owns: an attempt's edits to them are reverted."""
        if self.hidden_dir is not None:
            return tuple(sorted(str(p.relative_to(self.hidden_dir)) for p in self.hidden_dir.rglob("*") if p.is_file()))
        return tuple(sorted(f.path for f in parse_diff(self.test_patch)))

    @property
    def targets(self) -> list[str]:
        """Test files to run: every file that holds a fail-to-pass or pass-to-pass test."""
        return sorted({node.split("::")[0] for node in self.f2p + self.p2p})


def _id_list(task: Task, *names: str) -> list[str]:
    for name in names:
        if name in task.data:
            value = task.data[name]
            if isinstance(value, str):  # SWE-bench ships these lists as JSON strings
                try:
                    value = json.loads(value)
                except json.JSONDecodeError as exc:
                    raise TaskFormatError(task.source, name, f"not a JSON list: {exc}") from exc
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise TaskFormatError(task.source, name, f"expected a list of test ids, got {value!r:.80}")
            return list(value)
    raise TaskFormatError(task.source, names[0], f"missing in task {task.id!r}; list the tests by pytest node id")


def spec_of(task: Task) -> RepairSpec:
    """Read a repair task of either format; raises TaskFormatError naming the field."""
    f2p = _id_list(task, "fail_to_pass", "FAIL_TO_PASS")
    p2p = _id_list(task, "pass_to_pass", "PASS_TO_PASS")
    if not f2p:
        raise TaskFormatError(task.source, "fail_to_pass", "is empty; a repair task needs at least one failing test")
    if task.path is not None and (task.path / "environment").is_dir():
        fix = task.path / "solution" / "fix.patch"
        hidden = task.path / "tests" / "files"
        if not fix.is_file():
            raise TaskFormatError(str(task.path), "solution/fix.patch", "missing; every task ships its gold fix")
        if not hidden.is_dir():
            raise TaskFormatError(str(task.path), "tests/files", "missing; put the hidden test files there")
        mutants = sorted((task.path / "tests" / "mutants").glob("*.patch"))
        return RepairSpec(
            "dir",
            str(task.get("instruction", "")),
            f2p,
            p2p,
            fix.read_text(),
            hidden_dir=hidden,
            mutants=[m.read_text() for m in mutants],
        )
    for name in ("repo", "base_commit", "patch", "test_patch", "problem_statement"):
        task.require(name, str)
    return RepairSpec(
        "swebench",
        task["problem_statement"],
        f2p,
        p2p,
        task["patch"],
        test_patch=task["test_patch"],
        mutants=list(task.get("mutants", [])),
    )


def mirror_path(task: Task, repo_root: str | Path | None) -> Path:
    """Where the local mirror of a SWE-bench task's repository is."""
    if task.get("repo_path"):
        return Path(task["repo_path"])
    repo = str(task["repo"])
    if repo_root is None:
        if Path(repo).is_dir():
            return Path(repo)
        raise TaskFormatError(
            task.source,
            "repo",
            f"{repo!r} needs a local mirror: pass repo_root= a folder holding "
            f"{repo.replace('/', '__')} (or give the task a repo_path)",
        )
    root = Path(repo_root)
    owner, _, name = repo.partition("/")
    for candidate in (root / repo.replace("/", "__"), root / owner / name, root / (name or owner)):
        if candidate.is_dir():
            return candidate
    raise TaskFormatError(
        task.source, "repo", f"no mirror of {repo!r} under {root}; expected {root / repo.replace('/', '__')}"
    )


def prepare(task: Task, repo_root: str | Path | None) -> Path:
    """The task's cached starting repository (base commit only)."""
    if task.path is not None and (task.path / "environment").is_dir():
        return prepare_from_folder(task.path / "environment", f"repair-{task.id}")
    return prepare_from_mirror(mirror_path(task, repo_root), str(task["base_commit"]), f"swe-{task.id}")


#: Task fields that ask for a per-task environment (SWE-bench's spec keys and their containers).
ENV_FIELDS = ("install", "pre_install", "pip_packages", "packages", "python", "specs", "install_config")


def task_env(task: Task, tree: Path, backend: str) -> TaskEnv | None:
    """The per-task environment of ``task`` (see :mod:`.taskenv`), or None for codegym's own tasks.

    Every SWE-bench-format instance gets one (its repository, never codegym's venv); a task
    folder gets one when it names an install spec. Raises EnvBuildError naming the step.
    """
    if spec_of(task).kind != "swebench" and not any(k in task.data for k in ENV_FIELDS):
        return None
    data = dict(task.data)
    data.setdefault("repo", task.id)
    return ensure_env(InstallSpec.of(data), tree, backend)


def install_hidden_tests(sb: Sandbox, spec: RepairSpec) -> str:
    """Bring the grader's test files in (copy, or apply ``test_patch``); '' or the problem."""
    if spec.hidden_dir is not None:
        # One copy and one command, not one round trip per file (docker exec is the cost).
        scratch = f"{STATE_DIR}/h{secrets.token_hex(6)}"
        sb.copy_in(str(spec.hidden_dir), scratch)
        res = sb.run(f"cp -rf {scratch}/. . && rm -rf {scratch}", timeout=60)
        return "" if res.ok else f"the hidden tests could not be copied in: {res.stderr.strip()[-300:]}"
    applied, _, message = apply_patch(sb, spec.test_patch)
    return "" if applied else f"the hidden test patch did not apply: {message}"


def apply_with_tests(sb: Sandbox, spec: RepairSpec, patch: str) -> bool:
    """Apply ``test_patch`` and ``patch`` in one ``git apply`` (atomic: all or nothing); applied?

    One command instead of two in the grader (a docker exec costs ~50 ms); when it fails,
    nothing changed and the caller applies them one by one, for the precise message.
    """
    if spec.hidden_dir is not None or not spec.test_patch.strip() or not patch.strip():
        return False
    path = f"{STATE_DIR}/together{secrets.token_hex(4)}.patch"
    sb.write_file(path, spec.test_patch.rstrip("\n") + "\n" + patch.rstrip("\n") + "\n")
    res = sb.run(f"git apply --whitespace=nowarn {path}; rc=$?; rm -f {path}; exit $rc", timeout=60)
    return res.ok


def run_pytest(
    sb: Sandbox, targets: list[str], timeout: float = TEST_TIMEOUT, collect_only: bool = False
) -> TestResults:
    """Run pytest on ``targets`` with the report plugin and judge the run (see pytest_report)."""
    run = PytestRun()
    for path, text in run.files().items():
        sb.write_file(path, text)
    res = sb.run(run.command(targets, collect_only=collect_only), timeout=timeout)
    try:
        raw: bytes | None = sb.read_file(run.report)
    except Exception:  # noqa: BLE001 - no report: missing evidence, judged as failure below
        raw = None
    results = parse_report(raw, res.exit_code, res.timed_out)
    results.log = res.stdout
    return results


def run_pytest_guarded(
    sb: Sandbox, targets: list[str], known: list[str], timeout: float = TEST_TIMEOUT
) -> tuple[TestResults, str]:
    """:func:`run_pytest` with planted tests and a check of the test files; (results, tampering).

    Plants :class:`~.pytest_report.Sentinels` beside ``targets`` (drawn now, for this run
    only), runs them with the targets, checks that every planted test was reported as it
    must be, that every id in ``known`` was collected (or its file failed to collect), and
    that the run left the test files as they were. Returns the results without the planted
    tests, and '' or why the run was tampered with (TestGen and CodeRepair share this).
    """
    sentinels = Sentinels.plant(targets, known)
    for path, text in sentinels.files.items():
        sb.write_file(path, text)
    watched = [*targets, *sentinels.files]
    before = _digests(sb, watched)
    results = run_pytest(sb, sentinels.arrange(targets), timeout)
    problem = sentinels.check(results, known)
    if not problem and results.reported:
        after = _digests(sb, watched)
        changed = [p for p in watched if before.get(p) != after.get(p)]
        if changed:
            problem = f"the run changed or deleted test files: {', '.join(changed[:5])}"
    remove = getattr(sb, "remove", None)
    if remove is not None:  # on the host: no command run (a docker exec costs ~50 ms)
        for path in sentinels.files:
            try:
                remove(path)
            except Exception:  # noqa: BLE001 - the run deleted it (reported above)
                pass
    else:
        sb.run("rm -f -- " + " ".join(shlex.quote(p) for p in sentinels.files), timeout=timeout)
    return sentinels.strip(results), problem


def _digests(sb: Sandbox, paths: list[str]) -> dict[str, str]:
    """sha256 of each file of ``paths`` that exists in the work dir, read from the host side."""
    digests = {}
    for path in paths:
        try:
            digests[path] = hashlib.sha256(sb.read_file(path)).hexdigest()
        except Exception:  # noqa: BLE001 - absent, a folder, or not readable: no digest
            continue
    return digests


#: Outcomes that count as a pass, by SWE-bench's rules (``harness/grading.py``): an xfail
#: passes; a skipped fail-to-pass test does not, a skipped pass-to-pass test is no regression.
F2P_PASS = ("passed", "xfailed")
P2P_KEPT = ("passed", "xfailed", "skipped")


def summarize(spec: RepairSpec, results: TestResults) -> dict[str, Any]:
    """F2P/P2P results of one run by SWE-bench's rules: counts, failures and the score (pure)."""
    outcomes = results.outcomes if results.valid else {}  # an invalid run is no evidence
    f2p = {node: outcomes.get(node) in F2P_PASS for node in spec.f2p}
    p2p_failed = [node for node in spec.p2p if outcomes.get(node) not in P2P_KEPT]
    f2p_frac = sum(f2p.values()) / len(f2p)
    return {
        "f2p": f2p,
        "f2p_passed": sum(f2p.values()),
        "f2p_frac": f2p_frac,
        "p2p_total": len(spec.p2p),
        "p2p_failed": p2p_failed,
        "resolved": all(f2p.values()) and not p2p_failed,
        "reward": 0.0 if p2p_failed else f2p_frac,
        "tests_valid": results.valid,
        "problem": results.problem,
    }
