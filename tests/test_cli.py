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
