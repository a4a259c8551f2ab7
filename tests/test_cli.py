"""The command line: list, doctor, and the delegation of train / synth-tasks."""

from __future__ import annotations

import pytest

from codegym import cli
from codegym.registration import ENVS


def test_list_names_every_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for entry in ENVS:
        assert entry.id in out


def test_doctor_finds_the_required_parts(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "local sandbox" in out and "bubblewrap" in out


def test_help_lists_delegated_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    assert "train" in out and "synth-tasks" in out and "validate" in out


def test_play_shows_the_reward_breakdown_of_gold_and_a_file_policy(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["play", "CodeGen-v0", "--policy", "gold", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "reward 1.000" in out and "pass_rate" in out
    attempt = tmp_path / "attempt.txt"
    attempt.write_text("I cannot solve this.")
    assert cli.main(["play", "CodeGen-v0", "--policy", str(attempt), "--seed", "1"]) == 0
    assert "reward 0.000" in capsys.readouterr().out
