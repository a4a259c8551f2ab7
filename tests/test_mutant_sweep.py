"""The full mutant check of ``codegym validate --mutants``, one family per test (slow: minutes each).

Every mutant of every bundled gold is graded as the env grades an attempt; at most 2% of
the non-equivalent ones may earn full reward (issue 28, item 8). The equivalent ones are
listed with their reasons in ``assets/mutants/equivalent.toml``.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import codegym  # noqa: F401 - registers the ids
from codegym.mutants import FAMILIES, THRESHOLD, check_env

pytestmark = pytest.mark.slow


# TestGen's survivors are mutated gold tests that still pass on the fix and reject every
# wrong fix: most are other valid tests, not yet sorted into equivalent or not (see the
# closing note of issue 28, item 8).
PARAMS = [
    pytest.param(e, marks=pytest.mark.xfail(reason="TestGen survivors not yet classified", strict=False))
    if e == "TestGen-v0"
    else e
    for e in FAMILIES
]


@pytest.mark.parametrize("env_id", PARAMS)
def test_hidden_tests_tell_the_mutants_of_every_gold(env_id: str):
    env = gym.make(env_id, sandbox="local")
    try:
        report = check_env(env, env_id)
    finally:
        env.close()
    survivors = [f"{m.task} {m.name} {m.path}:{m.function}: {m.line}" for m in report.survivors]
    assert report.rate <= THRESHOLD, f"{100 * report.rate:.1f}% survive:\n" + "\n".join(survivors)
    if env_id != "Terminal-v0":
        assert report.tasks > 0 and report.killed > 0
