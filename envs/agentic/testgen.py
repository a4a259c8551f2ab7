"""TestGen-v0 (ExecCritic): write tests that fail on the buggy repository and pass on the fix."""

from __future__ import annotations

import ast
import secrets
import shutil
from pathlib import Path
from typing import Any

from codegym.core import Outcome, Task
from codegym.core.extract import Extracted, extract_code
from codegym.sandbox import Sandbox

from .audit import CONFTEST, NETWORK
from .disguise import disguise_repo
from .patches import apply_patch, file_diff, is_runner_path, is_test_path, parse_diff
from .repair import CodeRepairEnv
from .repairtask import TestResults, prepare, run_pytest
from .repo import cached_tree, init_base_commit, tree_key
from .testsrc import filter_tests

GENERATED = "tests/test_codegym_generated.py"
NETWORK_MODULES = ("socket", "urllib", "requests", "http", "httpx", "aiohttp", "ftplib", "smtplib", "ssl", "asyncio")


class TestGenEnv(CodeRepairEnv):
    """Write tests for an issue: they must fail on the buggy code and pass on the gold fix.

    ## Description
    The tasks of CodeRepair-v0 turned around (ExecCritic, SWT-bench): the agent sees the
    issue and the buggy repository, with the tests that reproduce the bug removed from the
    visible test files, and writes tests. A fail-closed harness qualifies them (every file
    parses, imports no network module, and at least one test is collected), freezes them,
    and runs them on the buggy base, on the gold fix and on each mutant (a plausible wrong
    fix: the gold fix plus another injected bug that the task's hidden tests reject).
    Tests are judged by the behaviour of the code, not its text: every one of those copies
    is disguised before the tests run (``disguise.py``: each Python file a fix or mutant
    touches gets a new text of the same meaning, drawn anew for every grading, and is
    imported from bytecode only, with no source to read).

    ## Action
    ``harness="patch"`` (default): a Python test file (```python block; saved as
    ``tests/test_codegym_generated.py``) or a unified diff adding test files. ``"bash"`` /
    ``"editor"``: write test files in the repository, then ``submit``.

    ## Observation
    The issue, the harness help; then tool output.

    ## Reward
    ::

        qualified   = every test file parses, no network imports, >= 1 test collected
        fails_base  = some test fails on the buggy base
        passes_gold = every test passes on the gold fix
        kill_rate   = share of mutants on which some test fails
        reward = 0                                     if not (qualified and passes_gold) or text_dependent
        reward = (fails_base + kill_rate) / 2          if the task has mutants
        reward = fails_base                            otherwise

    Components: ``qualified``, ``fails_base``, ``passes_gold``, ``kill_rate``. Tests that
    pass everywhere (``always_pass_tests``, when no test discriminates) or fail on the gold
    fix (``always_fail_tests``) are flagged in ``info["audit"]``, with per-test lists in
    ``verdict``; so are tests whose verdict on the base or the gold fix changes between the
    copy as it is and its disguise (``text_dependent_tests``: they read the source's text or
    hash); flagged attempts earn 0.

    ## Starting state
    The task's base repository with the fail-to-pass tests removed from the test files.

    ## Episode end
    Termination: the tests are graded (``patch``) or ``submit``. Truncation: ``max_turns``.

    ## Arguments
    As :class:`CodeRepairEnv`.

    ## Version history
    * v0: initial version.
    """

    __test__ = False  # pytest: this "Test..." class is an env, not a test case

    def _prepare(self, task: Task) -> Path:
        base = prepare(task, self.repo_root)
        self._attach_env(task, base)  # a repository's tests run with its own venv, as in CodeRepair
        spec = self.repair_spec(task)

        def build(tree: Path) -> None:
            shutil.copytree(base, tree, dirs_exist_ok=True, symlinks=True, ignore=shutil.ignore_patterns(".git"))
            for path in sorted({n.split("::")[0] for n in spec.f2p}):
                target = tree / path
                if target.is_file():
                    target.write_text(filter_tests(target.read_text(), path, spec.f2p, keep=False))
            init_base_commit(tree)

        return cached_tree(f"testgen-{task.id}-{tree_key(task.id, base)}", build)

    def _prompt(self, task: Task) -> str:
        return (
            "Write pytest tests that reproduce the issue below: they must fail on the current code and pass once "
            "the bug is fixed. Do not fix the bug. Tests may not use the network.\n\n"
            f"{self.repair_spec(task).statement.strip()}"
        )

    def _first_observation(self, task: Task, preface: str = "") -> str:
        obs = super()._first_observation(task, preface)
        if self.harness == "patch":
            obs += f"You may also answer with a Python test file in a ```python block; it is saved as {GENERATED}.\n"
        return obs

    def _grade_harness(self, action: str) -> Outcome:
        if self.harness != "patch":
            return super()._grade_harness(action)
        code = extract_code(action, "python")
        if code is None:
            return self._floor("no tests found: answer with a Python test file or a diff adding test files", "no_tests")
        if code.language == "diff" or code.code.lstrip().startswith(("diff --git", "--- ")):
            applied, _, message = apply_patch(self.sandbox, code.code)
            if not applied:
                return self._floor(f"the patch did not apply: {message}", "patch_failed")
        else:
            self.sandbox.write_file(GENERATED, code.code)
        return self._submit(action, None)

    # ------------------------------------------------------------------ grading
    def _evaluate(self, action: str, code: Extracted | None) -> Outcome:
        spec = self.repair_spec()
        sb = self.sandbox
        patch, problem = self.collect_patch(sb)
        if patch is None:
            return self._zero(problem, {"error": "unreadable"})
        flags = []
        frozen: dict[str, str] = {}
        for f in parse_diff(patch):
            if is_runner_path(f.path):
                flags.append(CONFTEST)
            elif is_test_path(f.path) and f.path.endswith(".py") and f.status != "deleted":
                frozen[f.path] = sb.read_file(f.path).decode("utf-8", errors="replace")
        if not frozen:
            return self._zero("no test files were written (tests/test_*.py)", {"qualified": False}, flags)
        problems = _qualify(frozen)
        if any(p.startswith("network") for p in problems):
            flags.append(NETWORK)
        if problems:
            return self._zero(
                "the tests do not qualify: " + "; ".join(problems), {"qualified": False, "problems": problems}, flags
            )
        runs = self._run_variants(spec, frozen)
        return self._score(spec, runs, sorted(frozen), flags)

    def _run_variants(self, spec: Any, frozen: dict[str, str]) -> dict[str, TestResults]:
        """Frozen tests on the base, the gold fix and each mutant (forks of one grader).

        Every copy is disguised (``disguise.py``: same behaviour, new text drawn for this
        grading, bytecode only) before the tests run; the base and the gold fix also run as
        they are (``base@original``, ``gold@original``), to see which tests read text.
        """
        grader = self.new_sandbox(self._tree)
        forks: list[Sandbox] = []
        seed = secrets.randbits(32)
        sources = _patched_sources([spec.gold_patch, *spec.mutants], spec.protected)
        try:
            for path, text in frozen.items():
                grader.write_file(path, text)
            variants = {"gold": [spec.gold_patch]} | {
                f"mutant{i}": [spec.gold_patch, m] for i, m in enumerate(spec.mutants)
            }
            runs: dict[str, TestResults] = {}
            for name, patches in [*variants.items(), ("base", [])]:
                fork = grader.fork()
                forks.append(fork)
                if not all(apply_patch(fork, p)[0] for p in patches):
                    runs[name] = TestResults({}, {}, -1, False, f"{name} did not apply")
                    continue
                if name in ("base", "gold"):
                    original = fork.fork()
                    forks.append(original)
                    runs[f"{name}@original"] = run_pytest(original, sorted(frozen))
                disguise_repo(fork, sources, seed + len(runs))
                runs[name] = run_pytest(fork, sorted(frozen))
            return runs
        finally:
            for fork in forks:
                fork.close()
            grader.close()

    def _score(self, spec: Any, runs: dict[str, TestResults], files: list[str], flags: list[str]) -> Outcome:
        gold = runs["gold"]
        tests = sorted(n for n in gold.outcomes)
        mutants = sorted(k for k in runs if k.startswith("mutant"))
        # A test judged by behaviour gives one verdict on a copy and on its disguise.
        text_dependent = [
            n
            for n in tests
            if any(
                f"{k}@original" in runs and runs[k].passed(n) != runs[f"{k}@original"].passed(n)
                for k in ("base", "gold")
            )
        ]
        qualified = bool(tests) and gold.problem == ""
        if not tests:
            return self._zero("no tests were collected from " + ", ".join(files), {"qualified": False}, flags)
        passes_gold = gold.valid and all(gold.passed(n) for n in tests)
        fails_base = any(not runs["base"].passed(n) for n in tests)
        killed = [m for m in mutants if any(not runs[m].passed(n) for n in tests)]
        kill_rate = len(killed) / len(mutants) if mutants else 0.0
        always_fail = [n for n in tests if not gold.passed(n)]
        always_pass = [n for n in tests if all(runs[k].passed(n) for k in ("base", "gold", *mutants))]
        if always_fail:
            flags.append("always_fail_tests")
        if tests and len(always_pass) == len(tests):
            flags.append("always_pass_tests")
        if text_dependent:
            flags.append("text_dependent_tests")
        if not (qualified and passes_gold) or text_dependent:
            reward = 0.0
        else:
            reward = (float(fails_base) + kill_rate) / 2 if mutants else float(fails_base)
        components = {
            "qualified": float(qualified),
            "fails_base": float(fails_base),
            "passes_gold": float(passes_gold),
            "kill_rate": kill_rate,
        }
        verdict = {
            "qualified": qualified,
            "tests": tests,
            "fails_base": fails_base,
            "passes_gold": passes_gold,
            "mutants_killed": killed,
            "mutants": len(mutants),
            "always_pass": always_pass,
            "always_fail": always_fail,
            "text_dependent": text_dependent,
            "files": files,
        }
        lines = [
            f"{len(tests)} tests collected; fail on the buggy code: {'yes' if fails_base else 'no'}; "
            f"pass on the fix: {'yes' if passes_gold else 'no'}; wrong fixes rejected: {len(killed)}/{len(mutants)}"
        ]
        if always_fail:
            lines.append("these fail even on the fixed code: " + ", ".join(always_fail[:10]))
        if always_pass:
            lines.append("these pass everywhere (they test nothing about the issue): " + ", ".join(always_pass[:10]))
        if text_dependent:
            lines.append(
                "these judge the source text, not its behaviour (their verdict changed on a copy with the same "
                "behaviour and other text): " + ", ".join(text_dependent[:10])
            )
        return Outcome(reward, components, feedback="\n".join(lines), verdict=verdict, audit_flags=flags)

    def _zero(self, feedback: str, verdict: dict[str, Any], flags: list[str] | None = None) -> Outcome:
        components = {"qualified": 0.0, "fails_base": 0.0, "passes_gold": 0.0, "kill_rate": 0.0}
        return Outcome(0.0, components, feedback=feedback, verdict=verdict, audit_flags=list(flags or []))

    # ------------------------------------------------------------------ gold
    def gold_tests(self) -> dict[str, str]:
        """The task's fail-to-pass tests as new test files (path -> text): the gold answer."""
        spec = self.repair_spec()
        out = {}
        if spec.hidden_dir is None:
            return {}
        for path in sorted({n.split("::")[0] for n in spec.f2p}):
            source = (spec.hidden_dir / path).read_text()
            name = f"tests/test_codegym_gold_{Path(path).stem.removeprefix('test_')}.py"
            out[name] = filter_tests(source, path, spec.f2p, keep=True)
        return out

    def gold_action(self) -> str:
        """Adds the task's own fail-to-pass tests (SWE-bench instances: ``test_patch``)."""
        spec = self.repair_spec()
        patch = (
            spec.test_patch
            if spec.hidden_dir is None
            else "".join(file_diff(path, None, text) for path, text in self.gold_tests().items())
        )
        from .repair import gold_for_harness

        return gold_for_harness(self.harness, patch)


def _patched_sources(patches: list[str], protected: tuple[str, ...]) -> list[str]:
    """The Python source files (not tests) that any of ``patches`` touches: the only text that differs."""
    paths = {f.path for p in patches for f in parse_diff(p) if f.status != "deleted"}
    return sorted(p for p in paths if p.endswith(".py") and not is_test_path(p, protected) and not is_runner_path(p))


def _qualify(frozen: dict[str, str]) -> list[str]:
    """Why the frozen test files do not qualify (fail-closed); empty when they do."""
    problems = []
    for path, text in frozen.items():
        try:
            tree = ast.parse(text)
        except SyntaxError as exc:
            problems.append(f"{path} does not parse: {exc.msg} (line {exc.lineno})")
            continue
        except (ValueError, RecursionError, MemoryError) as exc:  # a NUL byte, absurd nesting
            problems.append(f"{path} does not parse: {type(exc).__name__}: {exc}")
            continue
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            bad = [n for n in names if n.split(".")[0] in NETWORK_MODULES]
            if bad:
                problems.append(f"network: {path} imports {bad[0]}")
    return problems
