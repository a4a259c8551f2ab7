"""CodeRepair-v0: SWE-bench style repository repair with hidden fail-to-pass / pass-to-pass tests."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Any

from codegym.core import Outcome, Task
from codegym.core.extract import Extracted
from codegym.sandbox import Sandbox

from .audit import TAMPERED_RUNNER, audit_patch
from .base import AgenticEnv
from .patches import FileDiff, apply_patch, is_state_path, is_test_path, join, parse_diff
from .repairtask import (
    RepairSpec,
    apply_with_tests,
    install_hidden_tests,
    prepare,
    run_pytest,
    run_pytest_guarded,
    spec_of,
    summarize,
    task_env,
)
from .repo import EXCLUDES

#: Most hunks scored by leave-one-out (each costs one test run).
MAX_CREDIT_HUNKS = 8


class CodeRepairEnv(AgenticEnv):
    """Repair a repository so that its hidden tests pass (SWE-bench, SWE-Gym, R2E-Gym).

    ## Description
    The agent gets an issue and a repository (at ``/sandbox``, a git repo whose only commit
    is the base: no future history). Bundled: repair tasks synthesised by bug injection
    from three small Python projects in ``assets/repos`` (see ``codegym synth-tasks``);
    SWE-bench instance JSONL loads unchanged with ``repo_root=`` pointing at local mirrors.

    ## Action
    Under ``harness="patch"`` (default): a unified diff. ``"bash"``: one shell command per
    step, ``submit`` to finish. ``"editor"``: JSON tool calls (view / create / str_replace /
    insert / undo_edit / bash / submit).

    ## Observation
    The issue text and the harness instructions; then each tool call's (capped) output.

    ## Reward
    Graded by SWE-bench's rules on a fresh sandbox at the base commit: the attempt's diff
    minus every edit to test files (and conftest / runner files), then the hidden tests,
    then pytest with a report plugin (structured results, cross-checked with the exit code).
    The run also holds tests planted for it alone (random names, in a random new file in a
    test folder, some that must fail, some that must pass): if one is reported wrongly or
    vanishes, a graded test vanishes without a collection error, the test files change
    during the run, or pytest exits 0 without finishing, the code under test tampered with
    the runner and the attempt is flagged ``tampered_runner`` (``verdict["tampered"]`` says
    how), whatever its code looks like::

        reward = f2p_passed / len(FAIL_TO_PASS)   if every PASS_TO_PASS test passes, else 0
        reward = 0                                if info["audit"]["flags"] is not empty

    A test passes as in SWE-bench's ``harness/grading.py``: an xfail counts as a pass, and a
    skipped pass-to-pass test is no regression (a skipped fail-to-pass test is a failure).
    ``verdict["statuses"]`` gives each graded test's outcome.

    Components: ``f2p`` (fraction), ``p2p`` (1 if all pass), ``resolved``. Under ``patch``
    ``token_rewards`` gives each hunk of the diff its leave-one-out credit: the F2P fraction
    with the whole patch minus the fraction without that hunk. With ``step_rewards=True``
    multi-turn steps are rewarded by the change in score.

    ## Starting state
    The task's base repository, from a cached copy-on-write layer (no copy per reset). A
    SWE-bench-format instance (or a task folder naming an install spec) runs every command
    and every test with its repository's own venv (``envs/agentic/taskenv.py``: built once
    per repository, version and install spec, cached; ``python`` and ``pytest`` on ``PATH``
    are its own), never codegym's; ``verdict["environment"]`` holds its build log and time,
    and a build that fails is ``info["infra_error"]`` naming the step.

    ## Episode end
    Termination: the patch is graded (``patch``), or ``submit``. Truncation: ``max_turns``
    reached; the work is then submitted as it is and graded.

    ## Arguments
    ``tasks``, ``sandbox``, ``harness``, ``max_turns``, ``command_timeout``,
    ``output_limit``, ``step_rewards`` (see :class:`AgenticEnv`); ``repo_root``: folder of
    local git mirrors for SWE-bench instances; ``hunk_credit``: compute leave-one-hunk-out
    token rewards under ``patch`` (default True).

    ## Version history
    * v0: initial version. Since 2026-12: SWE-bench instances run in their own environment,
      and xfail / skipped tests are graded by SWE-bench's rules.
    """

    bundled_tasks = "repair"

    def __init__(
        self, *args: Any, repo_root: str | Path | None = None, hunk_credit: bool = True, **kwargs: Any
    ) -> None:
        self.repo_root = repo_root
        self.hunk_credit = hunk_credit
        self._specs: dict[str, RepairSpec] = {}
        self._env_record: dict[str, Any] | None = None
        super().__init__(*args, **kwargs)

    def parse_task(self, task: Task) -> Task:
        """Check that the task reads as a repair task (either format)."""
        self._specs[task.id] = spec_of(task)
        return task

    def repair_spec(self, task: Task | None = None) -> RepairSpec:
        """The repair spec of ``task`` (default: the current one)."""
        task = task or self._current_task()
        if task.id not in self._specs:
            self._specs[task.id] = spec_of(task)
        return self._specs[task.id]

    def _current_task(self) -> Task:
        if self.episode is None:
            raise RuntimeError("call reset() first")
        return self.episode.task

    def _prepare(self, task: Task) -> Path:
        tree = prepare(task, self.repo_root)
        self._attach_env(task, tree)
        return tree

    def _attach_env(self, task: Task, tree: Path) -> None:
        """Build (or find cached) the task's own environment; its sandboxes run with it.

        Raises EnvBuildError, so that reset's ``infra_error`` names the failing step.
        """
        backend = self.sandbox_spec.get("backend") or os.environ.get("CODEGYM_SANDBOX") or "local"
        built = task_env(task, tree, backend)
        self._runtime = None if built is None else built.runtime
        self._env_record = None if built is None else built.record

    def _prompt(self, task: Task) -> str:
        return f"Resolve this issue in the repository.\n\n{self.repair_spec(task).statement.strip()}"

    # ------------------------------------------------------------------ grading
    def collect_patch(self, sb: Sandbox) -> tuple[str | None, str]:
        """The attempt's changes as a diff against the base commit, or (None, why not).

        The grader's own copy of ``.git`` replaces the work dir's first, so an attempt that
        rewrote history, the index or the refs changes nothing about what is compared.
        """
        assert self._tree is not None
        sb.copy_in(str(self._tree / ".git"), ".git")
        excludes = " ".join(f"':(exclude,glob)**/{p}'" for p in EXCLUDES)
        res = sb.run(f"git add -A -- . {excludes} >/dev/null && git diff --cached --binary HEAD", timeout=120)
        if not res.ok:
            return None, f"could not read the changes of the work dir: {(res.stderr or res.stdout).strip()[-500:]}"
        return res.stdout, ""

    def _evaluate(self, action: str, code: Extracted | None) -> Outcome:
        spec = self.repair_spec()
        assert self.episode is not None
        if code is not None and self.episode.state.get("apply_method") == "git" and _plain(code.code):
            # The patch harness applied exactly this diff (git apply, no fuzz) and ran nothing
            # else: reading it back from the work dir would give the same diff, one command later.
            patch: str | None = code.code if code.code.endswith("\n") else code.code + "\n"
        else:
            patch, problem = self.collect_patch(self.sandbox)
        if patch is None:
            return Outcome(
                0.0, {"f2p": 0.0, "p2p": 0.0, "resolved": 0.0}, feedback=problem, verdict={"error": "unreadable"}
            )
        assert self.episode is not None
        self.episode.state["last_patch"] = patch  # RecoveryWrapper shows it to the next attempt
        files = parse_diff(patch)
        protected = spec.protected
        flags = audit_patch(files, protected)
        kept = [f for f in files if not is_test_path(f.path, protected) and not is_state_path(f.path)]
        dropped = sorted(f.path for f in files if f not in kept)
        grader = self.new_sandbox(self._tree)
        credit_envs: list[tuple[Any, ...]] = []
        try:
            together = not self._wants_credit(code, protected) and apply_with_tests(grader, spec, join(kept))
            problem = "" if together else install_hidden_tests(grader, spec)
            if problem:
                return Outcome(0.0, infra_error=problem)
            credit_envs = self._credit_forks(grader, code, protected)
            if kept and not together:
                applied, _, message = apply_patch(grader, join(kept))
                if not applied:
                    return Outcome(
                        0.0,
                        {"f2p": 0.0, "p2p": 0.0, "resolved": 0.0},
                        feedback=f"the changes could not be replayed on the base commit: {message}",
                        verdict={"error": "replay_failed"},
                        audit_flags=flags,
                    )
            results, tampered = run_pytest_guarded(grader, spec.targets, [*spec.f2p, *spec.p2p])
            summary = summarize(spec, results)
            if tampered:  # nothing to credit: the forks are closed below, unrun
                flags = sorted({*flags, TAMPERED_RUNNER})
                spans = []
            else:
                spans = self._hunk_credit(spec, credit_envs, summary["f2p_frac"])
        finally:
            for *_, variant in credit_envs:
                if variant is not None:
                    variant[0].close()  # idempotent: _hunk_credit closes the ones it ran
            self._discard(grader)  # closed in the background; close() of the env waits for it
        components = {
            "f2p": summary["f2p_frac"],
            "p2p": 0.0 if summary["p2p_failed"] else 1.0,
            "resolved": 1.0 if summary["resolved"] else 0.0,
        }
        verdict = {
            "resolved": summary["resolved"],
            "f2p": summary["f2p"],
            "p2p_total": summary["p2p_total"],
            "p2p_failed": summary["p2p_failed"],
            "changed_files": sorted(f.path for f in kept),
            "reverted_test_files": dropped,
            "tests_valid": summary["tests_valid"],
        }
        verdict["statuses"] = {n: results.outcomes.get(n, "missing") for n in (*spec.f2p, *spec.p2p)}
        if self._env_record is not None:
            verdict["environment"] = self._env_record
        # pytest's own output and exit status: never graded, kept for parity checks with
        # the official harness's log parsers (tests/test_swebench_real.py).
        self.episode.state["test_log"] = (results.log, results.exit_code)
        feedback = self._feedback(spec, summary, dropped)
        if tampered:
            verdict["tampered"] = tampered
            feedback += f"\nthe test run was tampered with: {tampered}; this attempt earns nothing"
        return Outcome(
            summary["reward"],
            components,
            feedback=feedback,
            token_rewards=spans,
            verdict=verdict,
            audit_flags=flags,
        )

    def _wants_credit(self, code: Extracted | None, protected: tuple[str, ...]) -> bool:
        """True when :meth:`_credit_forks` will fork the grader (several hunks to score)."""
        if code is None or not self.hunk_credit:
            return False
        files = [f for f in parse_diff(code.code) if not is_test_path(f.path, protected)]
        return 1 < sum(len(f.hunks) for f in files) <= MAX_CREDIT_HUNKS

    def _credit_forks(
        self, grader: Sandbox, code: Extracted | None, protected: tuple[str, ...]
    ) -> list[tuple[Any, ...]]:
        """Leave-one-hunk-out variants of the action's diff, each on a fork of the grader."""
        if code is None or not self.hunk_credit:
            return []
        files = parse_diff(code.code)
        hunks = [
            (fi, hi) for fi, f in enumerate(files) if not is_test_path(f.path, protected) for hi in range(len(f.hunks))
        ]
        if len(hunks) == 1:
            fi, hi = hunks[0]
            return [(code.start + files[fi].hunks[hi].start, code.start + files[fi].hunks[hi].end, None)]
        if not 1 < len(hunks) <= MAX_CREDIT_HUNKS:
            return []
        variants = []
        for fi, hi in hunks:
            rest = [
                self._without(f, hi if i == fi else None)
                for i, f in enumerate(files)
                if not is_test_path(f.path, protected)
            ]
            h = files[fi].hunks[hi]
            variants.append((code.start + h.start, code.start + h.end, (grader.fork(), "".join(rest))))
        return variants

    @staticmethod
    def _without(f: FileDiff, skip: int | None) -> str:
        return f.text(skip) if any(i != skip for i in range(len(f.hunks))) or f.binary else ""

    def _hunk_credit(
        self, spec: RepairSpec, variants: list[tuple[Any, ...]], full: float
    ) -> list[tuple[int, int, float]]:
        spans = []
        for start, end, variant in variants:
            if variant is None:  # one hunk: leaving it out is the base, where F2P fails by definition
                spans.append((start, end, full))
                continue
            fork, diff = variant
            try:
                frac = 0.0
                if diff.strip() and apply_patch(fork, diff)[0]:
                    frac = summarize(spec, run_pytest(fork, spec.targets))["f2p_frac"]
            finally:
                fork.close()
            if full - frac:
                spans.append((start, end, full - frac))
        return spans

    @staticmethod
    def _feedback(spec: RepairSpec, summary: dict[str, Any], dropped: list[str]) -> str:
        lines = [
            f"fail-to-pass: {summary['f2p_passed']}/{len(spec.f2p)} pass; "
            f"pass-to-pass: {summary['p2p_total'] - len(summary['p2p_failed'])}/{summary['p2p_total']} pass"
        ]
        failing = [n for n, ok in summary["f2p"].items() if not ok]
        if failing:
            lines.append("still failing: " + ", ".join(failing[:10]))
        if summary["p2p_failed"]:
            lines.append("broken by the change: " + ", ".join(summary["p2p_failed"][:10]))
        if dropped:
            lines.append("edits to test files were reverted before grading: " + ", ".join(dropped[:10]))
        if not summary["tests_valid"]:
            lines.append(f"the test run gave no valid results: {summary['problem']}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ gold
    def gold_action(self) -> str:
        """The gold fix under the current harness (a diff; or applied and submitted)."""
        return gold_for_harness(self.harness, self.repair_spec().gold_patch)


def _plain(diff: str) -> bool:
    """True when no file of ``diff`` is one that collect_patch leaves out (caches, metadata)."""
    return not any(
        fnmatch.fnmatch(part, pattern) for f in parse_diff(diff) for part in f.path.split("/") for pattern in EXCLUDES
    )


def gold_for_harness(harness: str, patch: str) -> str:
    """An action that applies ``patch`` and submits, under ``harness``."""
    import json

    if harness == "patch":
        return f"```diff\n{patch}```\n"
    script = f"cd /sandbox && git apply <<'CODEGYM_PATCH_EOF'\n{patch}CODEGYM_PATCH_EOF"
    if harness == "bash":
        return f"````bash\n{script}\nsubmit\n````\n"
    return json.dumps([{"tool": "bash", "command": script}, {"tool": "submit"}])
