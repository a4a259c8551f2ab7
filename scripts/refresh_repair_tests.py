"""Copy the source projects' test suites into the bundled repair tasks and re-derive their lists.

After the tests of ``assets/repos/<project>/tests`` change (e.g. stronger tests for
``codegym validate --mutants``), every task made from that project gets the new files as
its visible tests (``environment/tests``) and its hidden tests (``tests/files/tests``), and
its ``fail_to_pass`` / ``pass_to_pass`` lists are measured again, as ``synth-tasks``
measures them: every test must pass on the gold fix; those that fail on the buggy base are
fail-to-pass, the others pass-to-pass. The issue text and the bug are left as they were.

    .venv/bin/python scripts/refresh_repair_tests.py [--task ID ...]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from codegym.envs.agentic.repairtask import run_pytest

from codegym.sandbox import create

ROOT = Path(__file__).resolve().parents[1]
REPAIR, REPOS = ROOT / "assets" / "repair", ROOT / "assets" / "repos"


def outcomes(tree: Path, tests: list[str]) -> dict[str, bool]:
    """Test id -> passed, for one run of ``tests`` in a sandbox made from ``tree``."""
    with create(None, workdir_from=tree, timeout_s=120) as sb:
        run = run_pytest(sb, tests)
    if not run.valid and not run.outcomes:
        raise RuntimeError(f"{tree}: no results ({run.problem})")
    return {n: o == "passed" for n, o in run.outcomes.items()}


def refresh(task: Path) -> str:
    """Refresh one task dir; a one-line summary of what changed."""
    meta = tomllib.loads((task / "task.toml").read_text())
    project = REPOS / meta["synth"]["source_repo"]
    for dest in (task / "environment" / "tests", task / "tests" / "files" / "tests"):
        shutil.rmtree(dest)
        shutil.copytree(project / "tests", dest, ignore=shutil.ignore_patterns("__pycache__"))
    env = task / "environment"
    tests = sorted(p.relative_to(env).as_posix() for p in (env / "tests").glob("test_*.py"))
    with tempfile.TemporaryDirectory() as tmp:
        base, gold = Path(tmp) / "base", Path(tmp) / "gold"
        shutil.copytree(task / "environment", base)
        shutil.copytree(task / "environment", gold)
        subprocess.run(["git", "apply", str(task / "solution" / "fix.patch")], cwd=gold, check=True)
        on_base, on_gold = outcomes(base, tests), outcomes(gold, tests)
    failing = sorted(n for n, ok in on_gold.items() if not ok)
    if failing:
        raise RuntimeError(f"{task.name}: the gold fix fails {failing}")
    f2p = sorted(n for n in on_gold if not on_base.get(n, False))
    p2p = sorted(n for n in on_gold if on_base.get(n, False))
    if not f2p:
        raise RuntimeError(f"{task.name}: no test fails on the buggy base")
    text = (task / "task.toml").read_text()
    text = re.sub(r"(?m)^fail_to_pass = .*$", lambda _: f"fail_to_pass = {json.dumps(f2p)}", text)
    text = re.sub(r"(?m)^pass_to_pass = .*$", lambda _: f"pass_to_pass = {json.dumps(p2p)}", text)
    (task / "task.toml").write_text(text)
    return f"{task.name}: {len(f2p)} fail-to-pass (was {len(meta['fail_to_pass'])}), {len(p2p)} pass-to-pass"


def main(argv: list[str] | None = None) -> int:
    """Refresh every bundled repair task (or the named ones)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", action="append", help="task id (repeatable; default: all)")
    args = ap.parse_args(argv)
    for task in sorted(p for p in REPAIR.iterdir() if (p / "task.toml").is_file()):
        if not args.task or task.name in args.task:
            print(refresh(task), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
