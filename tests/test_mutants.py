"""``codegym validate --mutants``: a mutant of the gold that the hidden tests cannot tell is caught.

The slow sweep (every bundled task of every family, at most 2% surviving) is
``tests/test_mutant_sweep.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from codegym.envs.codegen import CodeGenEnv
from rich.console import Console

from codegym.cli import main
from codegym.mutants import EQUIVALENT_FILE, check_env, load_equivalent, mutants_of, print_reports

GOLD = "def at_least(x, lo):\n    if x >= lo:\n        return True\n    return False\n"


def _task(cases: list[tuple[int, int]]) -> dict:
    return {
        "id": "at-least",
        "kind": "function",
        "language": "python",
        "entry_point": "at_least",
        "prompt": "Write `def at_least(x, lo) -> bool`: whether x >= lo.",
        "tests": [{"args": [x, lo], "expected": x >= lo} for x, lo in cases],
        "gold": GOLD,
    }


WEAK = _task([(5, 1), (0, 3), (9, -2)])  # no test where x == lo
STRONG = _task([(5, 1), (0, 3), (9, -2), (3, 3), (-1, -1)])


def _report(task: dict, equivalent: dict | None = None):
    env = CodeGenEnv(tasks=[task], sandbox="local")
    try:
        return check_env(env, "CodeGen-v0", equivalent=equivalent or {})
    finally:
        env.close()


def test_a_weak_test_set_lets_the_flipped_boundary_survive_and_fails_the_check():
    report = _report(WEAK)
    assert [m.line for m in report.survivors] == ["if x > lo:"]
    assert report.survivors[0].name == "flip_comparison#0"
    assert report.mutants >= 2 and report.rate > 0.02
    failures = print_reports([report], 0.02, Console(file=open("/dev/null", "w")))  # noqa: SIM115
    assert failures == [f"CodeGen-v0: {100 * report.rate:.1f}% of non-equivalent mutants survive (> 2.0%)"]


def test_the_boundary_case_kills_every_mutant_and_passes_the_check():
    report = _report(STRONG)
    assert report.survivors == []
    assert report.killed == report.mutants >= 2
    assert print_reports([report], 0.02, Console(file=open("/dev/null", "w"))) == []  # noqa: SIM115


def test_a_listed_equivalent_mutant_is_not_counted_but_only_while_its_line_matches():
    listed = {("CodeGen-v0", "at-least", "flip_comparison#0"): {"line": "if x > lo:", "why": "test"}}
    report = _report(WEAK, listed)
    assert report.survivors == [] and report.equivalent == 1
    stale = {("CodeGen-v0", "at-least", "flip_comparison#0"): {"line": "if x >= lo + 1:", "why": "test"}}
    assert len(_report(WEAK, stale).survivors) == 1


def test_mutants_are_restricted_to_the_named_functions():
    source = GOLD + "\ndef other(a):\n    return a + 1\n"
    assert {m.function for m in mutants_of(source, "t")} == {"at_least", "other"}
    assert {m.function for m in mutants_of(source, "t", {"other"})} == {"other"}


def test_every_bundled_equivalence_entry_names_a_real_mutant_with_its_reason():
    entries = load_equivalent()
    assert entries, f"{EQUIVALENT_FILE} lists no equivalent mutant"
    for (env_id, task, name), entry in entries.items():
        assert env_id in ("CodeGen-v0", "CodeOptimization-v0", "CodeRepair-v0", "TestGen-v0"), env_id
        kind, _, site = name.partition("#")
        assert site.isdigit() and len(entry["why"]) > 15, (task, name)


def test_validate_mutants_is_a_cli_option(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    out = capsys.readouterr().out
    assert "--mutants" in out and "--threshold" in out


def test_the_equivalence_file_is_bundled_data():
    assert EQUIVALENT_FILE.is_file() and EQUIVALENT_FILE.suffix == ".toml"
    assert Path(EQUIVALENT_FILE).parent.name == "mutants"
