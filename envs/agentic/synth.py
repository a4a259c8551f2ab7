"""``codegym synth-tasks``: turn a git repository with a pytest suite into repair tasks.

SWE-smith's recipe with procedural bugs: run the suite once on the clean repository, then
for each candidate mutation (:mod:`.mutators`, shuffled by seed) write the broken module
into a sandbox and run the suite again. A candidate becomes a task only when at least one
test that passed now fails (fail-to-pass) and at least one still passes (pass-to-pass).
The issue text is written from the failing behaviour (test names and assertion messages)
and never mentions the change. Each task dir holds the buggy repository, the hidden test
files, the gold ``fix.patch`` and up to ``--mutants`` other broken variants that the
task's fail-to-pass tests reject (for TestGen-v0's mutant score).

With ``--pass-rates FILE --band LOW HIGH`` only tasks whose recorded pass rate (a JSON map
``task_id -> rate`` from evaluating the current policy) is inside the band are written,
so a curriculum stays at the learnability frontier (see :mod:`.sampler` for online use).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from codegym.sandbox import create

from .mutators import MUTATORS, Mutation, mutate, sites
from .patches import file_diff, is_test_path
from .repairtask import run_pytest

IGNORE = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache", "*.pyc", "*.egg-info", ".codegym")


@dataclass
class Bug:
    """One kept candidate."""

    path: str
    source: str
    mutation: Mutation
    f2p: list[str]
    p2p: list[str]
    messages: dict[str, str] = field(default_factory=dict)


def _files(root: Path) -> tuple[list[str], list[str]]:
    tests, sources = [], []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        if any(part.startswith(".") for part in p.relative_to(root).parts):
            continue
        if is_test_path(rel):
            if p.name.startswith("test_") or p.name.endswith("_test.py"):
                tests.append(rel)
        elif p.name not in ("setup.py", "conftest.py", "__main__.py"):
            sources.append(rel)
    return tests, sources


def find_bugs(
    repo: Path,
    *,
    backend: str | None = None,
    max_bugs: int = 20,
    seed: int = 0,
    max_candidates: int = 400,
    per_function: int = 2,
    candidate_timeout: float = 20.0,
    log=print,
) -> tuple[list[Bug], list[Bug], list[str]]:
    """Evaluate candidate mutations of ``repo``; (kept bugs, every bug with F2P, test files)."""
    tests, sources = _files(repo)
    if not tests:
        raise ValueError(f"{repo} has no test files (test_*.py or *_test.py); synthesis needs a pytest suite")
    rng = np.random.default_rng(seed)
    originals = {rel: (repo / rel).read_text(encoding="utf-8") for rel in sources}
    candidates = [(rel, kind, i) for rel in sources for kind, n in sites(originals[rel]).items() for i in range(n)]
    order = rng.permutation(len(candidates))
    kept: list[Bug] = []
    every: list[Bug] = []
    per_fn: dict[str, int] = {}
    with create(backend, workdir_from=repo, timeout_s=120) as sb:
        base = run_pytest(sb, tests)
        passing = sorted(n for n, o in base.outcomes.items() if o == "passed")
        if not base.valid or not passing:
            raise ValueError(
                f"the test suite of {repo} does not pass on the clean repository: {base.problem or 'no passing tests'}"
            )
        log(f"baseline: {len(passing)} passing tests in {len(tests)} files; {len(candidates)} candidate mutations")
        for tried, index in enumerate(order[:max_candidates]):
            # Keep evaluating past max_bugs a while: the extra bugs become TestGen mutants.
            if len(kept) >= max_bugs and len(every) >= 3 * max_bugs:
                break
            rel, kind, site = candidates[int(index)]
            result = mutate(originals[rel], kind, site)
            if result is None:
                continue
            code, mutation = result
            key = f"{rel}:{mutation.function}"
            sb.write_file(rel, code)
            run = run_pytest(sb, tests, timeout=candidate_timeout)
            sb.write_file(rel, originals[rel])
            now = {n for n in passing if run.passed(n)}
            f2p = [n for n in passing if n not in now]
            p2p = [n for n in passing if n in now]
            if not f2p or not p2p:
                continue
            bug = Bug(rel, code, mutation, f2p, p2p, {n: run.messages.get(n, "") for n in f2p})
            every.append(bug)
            if per_fn.get(key, 0) < per_function and len(kept) < max_bugs:
                per_fn[key] = per_fn.get(key, 0) + 1
                kept.append(bug)
                log(f"[{tried + 1}] kept {rel}:{mutation.line} {kind} in {mutation.function}: {len(f2p)} fail-to-pass")
    return kept, every, tests


def issue_text(bug: Bug, module: str) -> str:
    """The issue: what fails and how, from the tests; never where or what the change is."""
    func = bug.mutation.function
    lines = [
        f"# `{func}` in `{module}` misbehaves",
        "",
        f"Some calls of `{module}.{func}` (or code that relies on it) no longer behave as documented.",
        "These checks of the test suite fail:",
        "",
    ]
    for node in bug.f2p[:5]:
        name = node.split("::")[-1]
        lines.append(f"- `{name}` ({node.split('::')[0]})")
        message = [m[1:].strip() for m in bug.messages.get(node, "").splitlines() if m[1:].strip()]
        if message:
            lines.append(f"      {message[0][:200]}")
    if len(bug.f2p) > 5:
        lines.append(f"- and {len(bug.f2p) - 5} more")
    lines += [
        "",
        "Make these behave as the documentation and the tests describe, without changing any other behaviour.",
    ]
    return "\n".join(lines) + "\n"


def task_id(prefix: str, bug: Bug) -> str:
    """A stable id: project, module, function, mutator and site."""
    stem = Path(bug.path).with_suffix("").as_posix().replace("/", ".")
    stem = stem if stem.split(".")[0] == prefix else f"{prefix}.{stem}"
    raw = f"{stem}.{bug.mutation.function}.{bug.mutation.mutator}.{bug.mutation.site}"
    return re.sub(r"[^A-Za-z0-9_.-]", "_", raw)


def write_task(out: Path, repo: Path, prefix: str, bug: Bug, tests: list[str], mutants: list[Bug]) -> Path:
    """Write one task directory (see :mod:`.repairtask` for the layout)."""
    tid = task_id(prefix, bug)
    dest = out / tid
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(repo, dest / "environment", ignore=IGNORE)
    clean = (repo / bug.path).read_text(encoding="utf-8")
    (dest / "environment" / bug.path).write_text(bug.source, encoding="utf-8")
    for rel in tests:
        target = dest / "tests" / "files" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / rel, target)
    for i, m in enumerate(mutants):
        (dest / "tests" / "mutants").mkdir(parents=True, exist_ok=True)
        (dest / "tests" / "mutants" / f"m{i}.patch").write_text(
            file_diff(m.path, (repo / m.path).read_text(), m.source)
        )
    (dest / "solution").mkdir()
    (dest / "solution" / "fix.patch").write_text(file_diff(bug.path, bug.source, clean))
    module = Path(bug.path).with_suffix("").as_posix().replace("/", ".")
    (dest / "instruction.md").write_text(issue_text(bug, module))
    n = len(bug.f2p)
    digest = int(hashlib.sha256(tid.encode()).hexdigest(), 16)
    meta = {
        "id": tid,
        "split": "test" if digest % 5 == 0 else "train",
        "difficulty": "easy" if n >= 3 else "medium" if n == 2 else "hard",
        "family": "repair",
        "fail_to_pass": bug.f2p,
        "pass_to_pass": bug.p2p,
    }
    synth = {
        "source_repo": prefix,
        "file": bug.path,
        "function": bug.mutation.function,
        "mutator": bug.mutation.mutator,
        "site": bug.mutation.site,
        "line": bug.mutation.line,
    }
    (dest / "task.toml").write_text(_toml(meta) + "\n[synth]\n" + _toml(synth))
    return dest


def _toml(data: dict) -> str:
    return "".join(f"{k} = {json.dumps(v)}\n" for k, v in data.items())


def synthesize(
    repo: Path,
    out: Path,
    *,
    prefix: str | None = None,
    backend: str | None = None,
    max_tasks: int = 20,
    seed: int = 0,
    mutants: int = 3,
    max_candidates: int = 400,
    pass_rates: dict[str, float] | None = None,
    band: tuple[float, float] = (0.0, 1.0),
    log=print,
) -> list[Path]:
    """Synthesize up to ``max_tasks`` repair tasks from ``repo`` into ``out``; their folders."""
    repo = Path(repo).resolve()
    prefix = prefix or repo.name
    with tempfile.TemporaryDirectory(prefix="codegym-synth-") as tmp:
        clean = Path(tmp) / "repo"
        shutil.copytree(repo, clean, ignore=IGNORE)
        kept, every, tests = find_bugs(
            clean, backend=backend, max_bugs=max_tasks, seed=seed, max_candidates=max_candidates, log=log
        )
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for bug in kept:
            tid = task_id(prefix, bug)
            if pass_rates is not None and not band[0] <= pass_rates.get(tid, 0.5) <= band[1]:
                continue
            rejecting = [
                m
                for m in every
                if m is not bug and m.source != bug.source and m.path == bug.path and set(m.f2p) & set(bug.f2p)
            ][:mutants]
            written.append(write_task(out, clean, prefix, bug, tests, rejecting))
    log(f"wrote {len(written)} tasks to {out}")
    return written


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``codegym synth-tasks``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="codegym synth-tasks",
        description="Turn a git repository with a pytest suite into repair tasks (procedural bug injection).",
    )
    parser.add_argument("--repo", required=True, type=Path, help="repository with a pytest suite")
    parser.add_argument("--out", type=Path, default=Path("synth-tasks"), help="folder for the task dirs")
    parser.add_argument("--prefix", help="task id prefix (default: the repository folder name)")
    parser.add_argument("--max-tasks", type=int, default=20)
    parser.add_argument("--max-candidates", type=int, default=400, help="mutations to try at most")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mutants", type=int, default=3, help="wrong fixes kept per task for TestGen")
    parser.add_argument("--sandbox", choices=("local", "docker"), default=None)
    parser.add_argument("--pass-rates", type=Path, help="JSON map task id -> pass rate of the current policy")
    parser.add_argument(
        "--band",
        type=float,
        nargs=2,
        default=(0.0, 1.0),
        metavar=("LOW", "HIGH"),
        help="with --pass-rates: keep tasks whose rate is inside [LOW, HIGH] (tasks without a rate count as 0.5)",
    )
    parser.add_argument("--list-mutators", action="store_true", help=f"print the mutators ({', '.join(MUTATORS)})")
    args = parser.parse_args(argv)
    if args.list_mutators:
        print("\n".join(MUTATORS))
        return 0
    if not args.repo.is_dir():
        print(f"error: --repo {args.repo} is not a folder; pass a repository with a pytest suite", file=sys.stderr)
        return 2
    rates = json.loads(args.pass_rates.read_text()) if args.pass_rates else None
    try:
        written = synthesize(
            args.repo,
            args.out,
            prefix=args.prefix,
            backend=args.sandbox,
            max_tasks=args.max_tasks,
            seed=args.seed,
            mutants=args.mutants,
            max_candidates=args.max_candidates,
            pass_rates=rates,
            band=tuple(args.band),
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0 if written else 1
