"""Every bundled agentic task on both backends: gold earns full reward, a no-op earns 0 (slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codegym.envs.agentic import CodeRepairEnv, TerminalEnv, TestGenEnv
from conftest import BACKENDS

ASSETS = Path(__file__).resolve().parents[1] / "assets"
REPAIR = sorted(p.name for p in (ASSETS / "repair").iterdir() if (p / "task.toml").is_file())
TERMINAL = sorted(p.name for p in (ASSETS / "terminal").iterdir() if (p / "task.toml").is_file())

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=BACKENDS)
def envs(request):
    made = {
        "repair": CodeRepairEnv(sandbox=request.param, hunk_credit=False),
        "noop": CodeRepairEnv(sandbox=request.param, harness="bash"),
        "terminal": TerminalEnv(sandbox=request.param),
    }
    yield made
    for env in made.values():
        env.close()


def _run(env, task_id: str, action: str | None = None) -> tuple[float, dict]:
    env.reset(options={"task_id": task_id})
    _, reward, terminated, truncated, info = env.step(env.gold_action() if action is None else action)
    assert terminated or truncated
    return reward, info


@pytest.mark.parametrize("task_id", REPAIR)
def test_every_repair_task_gold_full_noop_zero(envs, task_id):
    gold, info = _run(envs["repair"], task_id)
    assert gold == 1.0, info["feedback"]
    noop, info = _run(envs["noop"], task_id, "submit")
    assert noop == 0.0, info["feedback"]


@pytest.mark.parametrize("task_id", TERMINAL)
def test_every_terminal_task_gold_full_noop_zero(envs, task_id):
    gold, info = _run(envs["terminal"], task_id)
    assert gold == 1.0, info["feedback"]
    noop, info = _run(envs["terminal"], task_id, "submit")
    assert noop == 0.0, info["feedback"]


@pytest.mark.parametrize("task_id", [REPAIR[0], REPAIR[-1]])
def test_three_repair_runs_in_a_row_agree(envs, task_id):
    runs = {json.dumps(_run(envs["repair"], task_id), sort_keys=True) for _ in range(3)}
    assert len(runs) == 1


@pytest.mark.parametrize("task_id", [TERMINAL[0], TERMINAL[-1]])
def test_three_terminal_runs_in_a_row_agree(envs, task_id):
    runs = {json.dumps(_run(envs["terminal"], task_id), sort_keys=True) for _ in range(3)}
    assert len(runs) == 1


@pytest.mark.parametrize("task_id", REPAIR)
def test_every_testgen_task_gold_full_noop_zero(task_id):
    env = TestGenEnv(sandbox="local")
    gold, info = _run(env, task_id)
    assert gold == 1.0, info["feedback"]
    noop, _ = _run(env, task_id, "```python\n```")
    env.close()
    assert noop == 0.0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("task_id", [REPAIR[0], REPAIR[len(REPAIR) // 2]])
def test_testgen_on_both_backends_gold_full_noop_zero(backend, task_id):
    env = TestGenEnv(sandbox=backend)
    gold, info = _run(env, task_id)
    assert gold == 1.0, info["feedback"]
    noop, _ = _run(env, task_id, "```python\n```")
    env.close()
    assert noop == 0.0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("harness", ["bash", "editor"])
def test_multi_turn_harnesses_reach_gold_on_both_backends(backend, harness):
    env = CodeRepairEnv(sandbox=backend, harness=harness)
    gold, info = _run(env, REPAIR[1])
    env.close()
    term = TerminalEnv(sandbox=backend, harness=harness)
    tgold, tinfo = _run(term, TERMINAL[1])
    term.close()
    assert (gold, tgold) == (1.0, 1.0), (info["feedback"], tinfo["feedback"])
