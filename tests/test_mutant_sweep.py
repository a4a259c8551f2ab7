"""The mutant check of ``codegym validate --mutants`` on a seeded sample of tasks per family.

Every mutant of each sampled gold is graded as the env grades an attempt; at most 2% of
the non-equivalent ones may earn full reward (issue 28, item 8). The equivalent ones are
listed with their reasons in ``assets/mutants/equivalent.toml``. The whole set (about 12
minutes for CodeGen alone here) is ``codegym validate --mutants`` or ``CODEGYM_FULL_SWEEP=1``.
TestGen is left to those two: its survivors are not yet classified (issue 28, item 8), and
its sample took 8 minutes to tell nothing.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
from sweeps import FULL, sample

import codegym  # noqa: F401 - registers the ids
from codegym.mutants import FAMILIES, THRESHOLD, check_env
from codegym.play import code_env

pytestmark = pytest.mark.slow


# TestGen's survivors are mutated gold tests that still pass on the fix and reject every
# wrong fix: most are other valid tests, not yet sorted into equivalent or not (see the
# closing note of issue 28, item 8).
PARAMS = [e for e in FAMILIES if e != "TestGen-v0"]
if FULL:
    PARAMS.append(pytest.param("TestGen-v0", marks=pytest.mark.xfail(reason="survivors not yet classified")))


@pytest.mark.parametrize("env_id", PARAMS)
def test_hidden_tests_tell_the_mutants_of_every_gold(env_id: str):
    env = gym.make(env_id, sandbox="local")
    try:
        ids = sample(code_env(env).tasks.ids, 6)
        report = check_env(env, env_id, task_ids=ids)
    finally:
        env.close()
    survivors = [f"{m.task} {m.name} {m.path}:{m.function}: {m.line}" for m in report.survivors]
    assert report.rate <= THRESHOLD, f"{100 * report.rate:.1f}% survive:\n" + "\n".join(survivors)
    if env_id != "Terminal-v0":
        assert report.tasks > 0 and report.killed > 0
