"""``codegym validate --tasks`` / ``codegym play --tasks``: a user checks their own tasks first.

Gold and no-op on every task of a user's file, in any format ``tasks=`` reads, on every env
that loads it (or the one named), before any training on it.
"""

from __future__ import annotations

import json

import pytest
from test_formats import HUMANEVAL
from test_testgen_params import _instance

from codegym import cli

BROKEN = dict(HUMANEVAL, task_id="HumanEval/901", canonical_solution="    return x * 3\n")


def test_validate_finds_the_env_of_a_raw_humaneval_file_and_names_the_task_whose_gold_fails(tmp_path, capsys):
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(HUMANEVAL) + "\n" + json.dumps(BROKEN) + "\n")
    assert cli.main(["validate", "--tasks", str(path), "--runs", "1"]) == 1
    out = capsys.readouterr().out
    assert "CodeGen-v0" in out and "CodeRepair-v0" not in out  # only the env that loads it
    assert "FAIL CodeGen-v0/HumanEval/901: gold rewards [0.0]" in out and "HumanEval/900:" not in out
    assert "1 failures" in out


def test_validate_of_a_file_no_env_loads_says_why_each_refused(tmp_path, capsys):
    path = tmp_path / "odd.jsonl"
    path.write_text(json.dumps({"task_id": "x/1", "prompt": "def f():\n", "entry_point": "f"}) + "\n")
    assert cli.main(["validate", "--tasks", str(path)]) == 1
    out = capsys.readouterr().out
    assert "no env loads these tasks" in out and "it could be HumanEval (missing test)" in out


def test_play_runs_an_episode_on_a_users_task(tmp_path, capsys):
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(HUMANEVAL) + "\n")
    assert cli.main(["play", "CodeGen-v0", "--tasks", str(path), "--task-id", "HumanEval/900"]) == 0
    assert "reward 1.000" in capsys.readouterr().out


@pytest.mark.parametrize("env_id", ["CodeRepair-v0", "TestGen-v0"])
def test_validate_checks_swebench_instances_against_local_mirrors(tmp_path, capsys, env_id):
    path = _instance(tmp_path)
    args = ["validate", "--tasks", str(path), "--repo-root", str(tmp_path / "mirrors"), "--env", env_id]
    assert cli.main([*args, "--runs", "1"]) == 0
    out = capsys.readouterr().out
    assert "1/1" in out and "0 failures" in out
