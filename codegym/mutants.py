"""``codegym validate --mutants``: are the hidden tests strong enough to tell a wrong gold?

Every mutant of a task's gold (the mutators of ``synth-tasks``: flipped comparisons and
operators, off-by-one and changed constants, swapped booleans, dropped statements, ...)
is graded as the env grades an attempt. A mutant that still earns full reward *survives*:
the hidden tests cannot tell it from the gold. Some mutants are *equivalent* (they behave
exactly as the gold on every input, e.g. ``x % 2 == 0`` versus ``x % 2 != 1`` on ints);
those are listed, with a one-line reason each, in ``assets/mutants/equivalent.toml`` and
not counted. A family fails the check when its surviving share is above ``threshold``.

What is mutated, per family (only Python golds: the mutators are libcst transformers):

* CodeGen-v0 / CodeOptimization-v0: the gold program (for CodeOptimization the expert
  reference); graded by the env's own sandboxed runner on the task's tests (and perf
  tests), a mutant survives when it passes them all.
* CodeRepair-v0: the functions the gold patch changes, in the fixed repository; graded by
  pytest in the env's sandbox on the hidden tests, a mutant survives when it resolves the
  task (every fail-to-pass and pass-to-pass test passes).
* TestGen-v0: the same wrong fixes, judged by the task's gold tests (its fail-to-pass
  tests) together with the visible tests, as TestGen grades an answer: a mutant of the fix
  that no test rejects survives (its tests could not tell that wrong fix from the gold).
* Terminal-v0: tasks whose gold (``solution/solve.sh``) writes a Python file through a
  here-document; the bundled tasks have shell golds only, so none is mutated.
"""

from __future__ import annotations

import ast
import hashlib
import random
import re
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
from rich.console import Console
from rich.markup import escape
from rich.table import Table

import codegym  # noqa: F401 - registers the ids
from codegym.core import CodeEnv, Task
from codegym.envs.agentic.mutators import MUTATORS, mutate, sites
from codegym.play import code_env

#: The families with hidden tests, in report order.
FAMILIES = ("CodeGen-v0", "CodeOptimization-v0", "CodeRepair-v0", "TestGen-v0", "Terminal-v0")
#: Surviving non-equivalent share above which a family fails (issue 28: at most 2%).
THRESHOLD = 0.02
#: The equivalent mutants, one table each with env, task, mutant, line and why.
EQUIVALENT_FILE = Path(__file__).resolve().parents[1] / "assets" / "mutants" / "equivalent.toml"
#: Seconds a mutant's pytest run may take (a mutant that loops is killed by this, as it
#: would be by the grader's own, longer limit).
REPAIR_TIMEOUT = 30.0
#: Seconds per test in the first pass over a CodeGen mutant; a test that times out is run
#: again with the task's own limit before the mutant counts as killed.
QUICK_TIMEOUT = 0.5


@dataclass(frozen=True)
class Mutant:
    """One mutant of one task's gold: ``name`` is ``mutator#site`` (sites counted per mutator)."""

    task: str
    name: str
    function: str
    line: str
    code: str = field(repr=False)
    path: str = ""  # the mutated file (repository tasks)


@dataclass
class FamilyReport:
    """What the check found for one env: counts, the survivors and stale equivalence entries."""

    env_id: str
    tasks: int = 0
    mutants: int = 0
    killed: int = 0
    equivalent: int = 0
    survivors: list[Mutant] = field(default_factory=list)
    note: str = ""

    @property
    def rate(self) -> float:
        """Surviving share of the non-equivalent mutants."""
        counted = self.mutants - self.equivalent
        return len(self.survivors) / counted if counted else 0.0


# ---------------------------------------------------------------------------- mutants
def mutants_of(
    source: str, task: str, functions: set[str] | None = None, path: str = "", module_level: bool = True
) -> Iterator[Mutant]:
    """Every mutant of ``source``, one per mutator site.

    ``functions``: only sites inside these top-level functions (or classes);
    ``module_level``: statements outside functions count too (stdin/stdout scripts).
    """
    lines = source.splitlines()
    for kind, count in sites(source, module_level).items():
        for site in range(count):
            done = mutate(source, kind, site, module_level)
            if done is None:
                continue
            code, hit = done
            if functions is not None and hit.function.split(".")[0] not in functions:
                continue
            changed = _changed_line(lines, code.splitlines(), hit.line)
            yield Mutant(task, f"{kind}#{site}", hit.function, changed, code, path)


def _changed_line(old: list[str], new: list[str], near: int) -> str:
    """The first mutated line, stripped (what the equivalence list quotes)."""
    for a, b in zip(old, new, strict=False):
        if a != b:
            return b.strip()
    return new[near - 1].strip() if 0 < near <= len(new) else ""


def load_equivalent(path: Path = EQUIVALENT_FILE) -> dict[tuple[str, str, str], dict[str, str]]:
    """The equivalence list: (env id, task id, mutant name) -> its entry (``line``, ``why``)."""
    if not path.is_file():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = {}
    for entry in data.get("equivalent", []):
        missing = [k for k in ("env", "task", "mutant", "line", "why") if not entry.get(k)]
        if missing:
            raise ValueError(f"{path}: an [[equivalent]] entry lacks {missing}: {entry}")
        out[(entry["env"], entry["task"], entry["mutant"])] = entry
    return out


# ---------------------------------------------------------------------------- graders
# Each family gives (mutants of a task, a function telling whether a mutant survives).
Survives = Callable[[Mutant], bool]


def _codegen(base: CodeEnv, task: Task) -> tuple[list[Mutant], Survives | None]:
    if task["language"] != "python" or not task.get("gold"):
        return [], None
    from codegym.envs.codegen.grading import run_attempt

    optimization = "perf_tests" in task.data
    tests = list(task["tests"]) + list(task.get("perf_tests", []))
    env: Any = base
    limit = float(env.perf_timeout if optimization else task.get("timeout") or env.timeout)

    def run(code: str, chosen: list[dict[str, Any]], timeout: float) -> Any:
        # The env's own sandboxed runner and comparison, as CodeGenEnv.run_code calls it.
        return run_attempt(
            env._ensure_sandbox(),
            code,
            kind=task["kind"],
            language="python",
            tests=chosen,
            entry_point=task.get("entry_point"),
            test_code=task.get("test_code"),
            timeout=timeout,
            float_tol=task.get("float_tol"),
            trace=False,
        )

    def survives(m: Mutant) -> bool:
        # A quick pass first: mutants that loop forever would cost the full limit per test.
        quick = run(m.code, tests, QUICK_TIMEOUT)
        if quick.flags or any(t.status not in ("pass", "timeout") for t in quick.tests):
            return False
        slow = [tests[i] for i, t in enumerate(quick.tests) if t.status == "timeout"]
        if slow and run(m.code, slow[:1], limit).passed < 1:
            return False  # too slow for the env's own limit, too
        result = run(m.code, tests, limit) if slow else quick
        return result.passed == len(tests) and not result.flags

    return list(mutants_of(task["gold"], task.id)), survives


def _changed_functions(source: str, new_lines: set[int]) -> set[str]:
    """Names of the outermost functions (methods too; classes are looked through) holding ``new_lines``.

    The names are as the mutators give them (:class:`~codegym.envs.agentic.mutators.Mutation`
    names functions only, not their classes).
    """
    names: set[str] = set()

    def walk(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                walk(node.body)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(node.lineno <= n <= (node.end_lineno or node.lineno) for n in new_lines):
                    names.add(node.name)

    walk(ast.parse(source).body)
    return names


def _new_lines(hunks: str) -> set[int]:
    """Post-image line numbers a unified diff of one file adds or changes."""
    out, line = set(), 0
    for row in hunks.splitlines():
        head = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@", row)
        if head:
            line = int(head.group(1))
            continue
        if row.startswith("+") and not row.startswith("+++"):
            out.add(line)
            line += 1
        elif row.startswith(" "):
            line += 1
    return out


class _RepairGrader:
    """Fixed repositories in sandboxes, one per task; pytest results cached by content.

    Tasks made from one project share their fixed code and hidden tests, so a mutant's run
    is looked up by (hidden tests, mutated file, targets) before it is run again.
    """

    def __init__(self, base: CodeEnv) -> None:
        self.base = base
        self.cache: dict[str, Any] = {}

    def prepare(self, task: Task) -> tuple[list[Mutant], Survives | None]:
        from codegym.envs.agentic.patches import apply_patch, is_test_path, parse_diff
        from codegym.envs.agentic.repairtask import install_hidden_tests, prepare, spec_of

        spec = spec_of(task)
        if spec.hidden_dir is None:
            return [], None
        tree = prepare(task, getattr(self.base, "repo_root", None))
        grader = self.base.new_sandbox(tree)  # type: ignore[attr-defined]
        problem = install_hidden_tests(grader, spec)
        applied = apply_patch(grader, spec.gold_patch)[0] if not problem else False
        if not applied:
            grader.close()
            raise RuntimeError(f"{task.id}: the gold fix did not apply ({problem or 'git apply failed'})")
        out: list[Mutant] = []
        for f in parse_diff(spec.gold_patch):
            if not f.path.endswith(".py") or is_test_path(f.path, spec.protected) or f.status == "deleted":
                continue
            source = grader.read_file(f.path).decode("utf-8")
            hunks = spec.gold_patch[f.start : f.end]
            functions = _changed_functions(source, _new_lines(hunks))
            out += mutants_of(source, task.id, functions, f.path, module_level=False)
        targets, must_pass = spec.targets, [*spec.f2p, *spec.p2p]
        tests_key = hashlib.sha256(
            "".join(sorted(p.read_text() for p in spec.hidden_dir.rglob("*.py"))).encode()
        ).hexdigest()

        def survives(m: Mutant) -> bool:
            from codegym.envs.agentic.repairtask import run_pytest

            key = hashlib.sha256(f"{tests_key}\0{m.path}\0{m.code}\0{targets}".encode()).hexdigest()
            if key not in self.cache:
                fork = grader.fork()
                try:
                    fork.write_file(m.path, m.code)
                    self.cache[key] = run_pytest(fork, targets, timeout=REPAIR_TIMEOUT)
                finally:
                    fork.close()
            results = self.cache[key]
            return bool(results.valid) and all(results.passed(n) for n in must_pass)

        self.close = grader.close  # type: ignore[method-assign]
        return out, survives

    def close(self) -> None:
        """Close the current task's sandbox (replaced per task by :meth:`prepare`)."""


class _TestGenGrader:
    """Mutants of TestGen's gold answer (the task's fail-to-pass tests as new test files).

    A mutated test file earns full reward when it still passes on the gold fix, fails on the
    buggy base and rejects every wrong fix the task ships. Those are checked first for all
    of a task's mutants at once (each mutant its own test file, one pytest run per variant);
    a mutant that passes them is confirmed by grading it as an answer with the env itself
    (disguised copies and all).
    """

    def __init__(self, env: gym.Env) -> None:
        self.env = env
        self.base = code_env(env)
        self.forks: list[Any] = []

    def prepare(self, task: Task) -> tuple[list[Mutant], Survives | None]:
        from codegym.envs.agentic.patches import apply_patch, file_diff
        from codegym.envs.agentic.repair import gold_for_harness

        base: Any = self.base
        self.env.reset(options={"task_id": task.id})
        spec, gold = base.repair_spec(), base.gold_tests()
        if not gold:
            return [], None
        grader = base.new_sandbox(base._tree)
        self.forks = [grader]
        variants = {"gold": [spec.gold_patch], "base": []} | {
            f"wrong{i}": [spec.gold_patch, m] for i, m in enumerate(spec.mutants)
        }
        ready = {}
        for name, patches in variants.items():
            fork = grader.fork()
            self.forks.append(fork)
            if not all(apply_patch(fork, p)[0] for p in patches):
                raise RuntimeError(f"{task.id}: variant {name} did not apply")
            ready[name] = fork
        out = [m for path, text in gold.items() for m in mutants_of(text, task.id, path=path)]
        pending = list(out)  # left: mutants passing on gold, failing on the base and every wrong fix
        for name, fork in ready.items():
            passing = _all_pass(fork, pending)
            pending = [m for m in pending if passing[m.name + m.path] == (name == "gold")]
        screened = {m.name + m.path for m in pending}

        def survives(m: Mutant) -> bool:
            if m.name + m.path not in screened:
                return False
            answer = "".join(file_diff(p, None, m.code if p == m.path else t) for p, t in gold.items())
            self.env.reset(options={"task_id": task.id})
            _, reward, _, _, info = self.env.step(gold_for_harness(base.harness, answer))
            return "infra_error" not in info and float(reward) >= base.full_reward - 0.01

        return out, survives

    def close(self) -> None:
        """Close the sandboxes of the current task."""
        for fork in self.forks:
            fork.close()
        self.forks = []


def _all_pass(sb: Any, mutants: list[Mutant]) -> dict[str, bool]:
    """Whether each mutated test file passes entirely in ``sb``: one pytest run, each file apart.

    A run that gives no report (a mutant that loops, a crash) is done again one file at a time.
    """
    from codegym.envs.agentic.pytest_report import PytestRun, parse_report

    if not mutants:
        return {}
    run = sb.fork()
    try:
        files = {}
        for i, m in enumerate(mutants):
            path = f"tests/test_codegym_mutant{i}.py"
            files[path] = m
            run.write_file(path, m.code)
        plugin = PytestRun()
        for path, text in plugin.files().items():
            run.write_file(path, text)
        cmd = plugin.command(sorted(files), extra="--continue-on-collection-errors ")
        res = run.run(cmd, timeout=REPAIR_TIMEOUT * (1 + len(files) // 20))
        try:
            raw: bytes | None = run.read_file(plugin.report)
        except Exception:  # noqa: BLE001 - no report: run the files apart below
            raw = None
        results = parse_report(raw, res.exit_code, res.timed_out)
    finally:
        run.close()
    if not results.reported:
        if len(mutants) == 1:
            return {mutants[0].name + mutants[0].path: False}
        return {k: v for m in mutants for k, v in _all_pass(sb, [m]).items()}
    out = {}
    for path, m in files.items():
        mine = [o for n, o in results.outcomes.items() if n.split("::")[0] == path]
        out[m.name + m.path] = bool(mine) and all(o == "passed" for o in mine) and path not in results.collect
    return out


# ---------------------------------------------------------------------------- the check
def check_env(
    env: gym.Env,
    env_id: str,
    *,
    equivalent: dict[tuple[str, str, str], dict[str, str]] | None = None,
    task_ids: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> FamilyReport:
    """Grade every mutant of every task of ``env`` (or of ``task_ids``); see module doc."""
    equivalent = load_equivalent() if equivalent is None else equivalent
    base = code_env(env)
    family = env_id.split("-")[0]
    report = FamilyReport(env_id)
    if family == "Terminal":
        report.note = "no task's gold writes Python code (shell golds are not mutated)"
        return report
    repair: _RepairGrader | _TestGenGrader | None = None
    if family == "CodeRepair":
        repair = _RepairGrader(base)
    elif family == "TestGen":
        repair = _TestGenGrader(env)
    for task_id in task_ids or list(base.tasks.ids):
        task = base.tasks.get(task_id)
        if repair is not None:
            mutants, survives = repair.prepare(task)
        else:
            mutants, survives = _codegen(base, task)
        try:
            if survives is None:
                continue
            report.tasks += 1
            for m in mutants:
                report.mutants += 1
                entry = equivalent.get((env_id, m.task, m.name))
                if entry is not None and entry["line"].strip() == m.line:
                    report.equivalent += 1
                elif survives(m):
                    report.survivors.append(m)
                else:
                    report.killed += 1
        finally:
            if repair is not None:
                repair.close()
        if progress:
            progress(f"{env_id} {task_id}: {report.mutants} mutants, {len(report.survivors)} survive")
    return report


def check_mutants(
    env_ids: Sequence[str] | None,
    *,
    sample: int | None = None,
    seed: int = 0,
    sandbox: str | None = None,
    threshold: float = THRESHOLD,
    console: Console | None = None,
    tasks: str | Path | None = None,
    repo_root: str | Path | None = None,
) -> list[str]:
    """Run the check over the families (default: all with hidden tests); return the failures.

    ``tasks`` / ``repo_root``: a user's own task set in place of the bundled one (as
    ``codegym validate --tasks``); then ``env_ids`` must name the env that reads it.
    """
    if tasks is not None and not env_ids:
        raise SystemExit("--mutants with --tasks needs --env: the env whose tasks these are (e.g. --env CodeGen-v0)")
    console = console or Console()
    equivalent = load_equivalent()
    reports = []
    options: dict[str, Any] = {"sandbox": sandbox} if sandbox else {}
    if tasks is not None:
        options["tasks"] = str(tasks)
    if repo_root is not None:
        options["repo_root"] = str(repo_root)
    for env_id in env_ids or FAMILIES:
        env = gym.make(env_id, **options)
        try:
            ids = list(code_env(env).tasks.ids)
            if sample is not None and sample < len(ids):
                ids = sorted(random.Random(seed).sample(ids, sample))
            reports.append(check_env(env, env_id, equivalent=equivalent, task_ids=ids))
        finally:
            env.close()
    return print_reports(reports, threshold, console)


def print_reports(reports: list[FamilyReport], threshold: float, console: Console) -> list[str]:
    """The per-family table and every survivor; the families above ``threshold``."""
    table = Table("env", "tasks", "mutants", "killed", "equivalent", "survived", "rate")
    failures = []
    for r in reports:
        table.add_row(
            r.env_id,
            str(r.tasks),
            str(r.mutants),
            str(r.killed),
            str(r.equivalent),
            str(len(r.survivors)),
            f"{100 * r.rate:.1f}%" + (f" ({r.note})" if r.note else ""),
        )
        if r.rate > threshold:
            failures.append(f"{r.env_id}: {100 * r.rate:.1f}% of non-equivalent mutants survive (> {100 * threshold}%)")
    console.print(table)
    for r in reports:
        for m in r.survivors:
            where = f"{m.path}:" if m.path else ""
            text = f"{r.env_id} {m.task} {m.name} in {where}{m.function}: {m.line}"
            console.print(f"[yellow]survives[/yellow] {escape(text)}", soft_wrap=True)
    for line in failures:
        console.print(f"[red]FAIL[/red] {line}")
    return failures


__all__ = ["FAMILIES", "MUTATORS", "THRESHOLD", "FamilyReport", "Mutant", "check_env", "check_mutants", "mutants_of"]
