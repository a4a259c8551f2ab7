"""ProgramEvolution-v0: the prefix MDP, its tasks' oracles, hostile children, OpenEvolve folders."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from codegym.envs.evolution import ProgramEvolutionEnv
from codegym.envs.evolution.estimators import ESTIMATORS
from codegym.envs.evolution.prefix import Prefix, parse_text
from gymnasium.utils.env_checker import check_env

import codegym  # noqa: F401 - registers the ids

ALL = sorted(ProgramEvolutionEnv(max_turns=2).tasks.ids)
# The default run checks a seeded sample of the tasks; `-m slow` checks every one.
SAMPLE = random.Random(int(os.environ.get("CODEGYM_EVOLUTION_SEED", "0"))).sample(ALL, 3)


@pytest.fixture
def env():
    env = gym.make("ProgramEvolution-v0", max_turns=4)
    yield env
    env.close()


def _known_good_scores_its_score(task_id: str) -> None:
    env = ProgramEvolutionEnv(max_turns=2)
    try:
        seen = []
        for _ in range(3):
            obs, _ = env.reset(seed=0, options={"task_id": task_id})
            _, reward, terminated, _, info = env.step(env.gold_action())
            seen.append((float(obs["best_fitness"][0]), info["reward_components"]["child_fitness"], reward))
        initial, good, reward = seen[0]
        assert len(set(seen)) == 1, seen  # three runs agree
        known = env._judge.task.known_good_score
        assert good == pytest.approx(known, rel=1e-9), info["feedback"]
        assert initial < good and reward == pytest.approx(1.0) and terminated
    finally:
        env.close()


@pytest.mark.parametrize("task_id", SAMPLE)
def test_known_good_program_scores_its_score_and_the_initial_program_less(task_id: str) -> None:
    _known_good_scores_its_score(task_id)


@pytest.mark.slow
@pytest.mark.parametrize("task_id", ALL)
def test_every_task_known_good_scores_its_score(task_id: str) -> None:
    _known_good_scores_its_score(task_id)


def test_at_least_twelve_bundled_tasks() -> None:
    assert len(ALL) >= 12, ALL


def test_dict_and_text_actions_are_the_same_prefix_and_the_episode_truncates_at_the_budget(env) -> None:
    base = env.unwrapped
    obs, _ = env.reset(seed=1, options={"task_id": "sorting_network_8"})
    assert base.observation_space.contains(obs)
    text = Prefix(parent="best", mutation="reorder", strength=0.5).to_text()
    assert parse_text(text, base.num_islands).prefix == Prefix(parent="best", mutation="reorder", strength=0.5)
    _, _, _, _, info = env.step(text)
    assert {"improvement_parent", "improvement_best"} <= set(info["reward_components"])
    assert set(info["verdict"]["credit"]) == {"parent", "mutation", "diversity", "memory", "credit"}
    assert len(info["token_rewards"]) == 5  # one span per module line
    for _ in range(3):
        obs, _, terminated, truncated, info = env.step(base.action_space.sample())
    assert truncated and not terminated and obs["budget_left"][0] == 0
    assert obs["population"][0] == 5


def test_bad_actions_get_the_floor_with_a_message(env) -> None:
    env.reset(seed=0, options={"task_id": "golomb_ruler_8"})
    _, reward, _, _, info = env.step("parent: nearest")
    assert reward == 0.0 and "'nearest' is not one of" in info["feedback"]
    _, reward, _, _, info = env.step({"parent": 99})
    assert reward == 0.0 and "parent=99" in info["feedback"]


def test_check_env_passes() -> None:
    env = ProgramEvolutionEnv(max_turns=3)
    try:
        check_env(env)
    finally:
        env.close()


@pytest.mark.parametrize("switched_off", ESTIMATORS)
def test_every_estimator_can_be_switched_off_and_the_env_still_runs(switched_off: str) -> None:
    env = ProgramEvolutionEnv(max_turns=3, estimators=tuple(e for e in ESTIMATORS if e != switched_off))
    try:
        env.reset(seed=3, options={"task_id": "weighted_scheduling"})
        for _ in range(2):
            _, reward, _, _, info = env.step(env.suggest_action())
            assert 0.0 <= reward <= 1.0 and "infra_error" not in info
        assert switched_off not in info["verdict"]["estimators"]
    finally:
        env.close()


HOSTILE = {
    "endless_loop": ("while True:\n        pass", {"timeout"}),
    "memory_bomb": ("x = bytearray(8 * 2**30)\n    return x", {"memory_limit"}),
    "reads_evaluator": ("return open('evaluator.py').read()", {"reads_grader"}),
    "writes_score_file": (
        "open('outputs.json', 'w').write('[0, 1, 4, 9, 15, 22, 32, 34]')\n    return [0]",
        {"reads_grader"},
    ),
    "prints_forged_result": (
        "import sys\n    sys.stdout.write('\\x1e@codegym-result [0, 1, 4, 9, 15, 22, 32, 34]\\n')\n    return [0, 1]",
        {"forged_output"},
    ),
    "fakes_the_metrics_dict": ("return {'combined_score': 1.0}", {"forges_metrics"}),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_child_is_contained_and_flagged(name: str) -> None:
    body, flags = HOSTILE[name]
    env = ProgramEvolutionEnv(max_turns=2, sandbox={"backend": "local", "memory_mb": 256})
    try:
        env.reset(seed=0, options={"task_id": "golomb_ruler_8"})
        env._judge.task = env._judge.task.__class__(**{**env._judge.task.__dict__, "timeout_s": 3.0})
        program = (
            "# EVOLVE-BLOCK-START\ndef marks(n):\n    "
            + body
            + "\n# EVOLVE-BLOCK-END\n\n\ndef run():\n    return marks(8)\n"
        )
        _, reward, _, _, info = env.step(f"parent: best\n```python\n{program}```")
        assert flags <= set(info["audit"]["flags"]), info
        assert info["reward_components"]["child_fitness"] == 0.0 and reward == 0.0, info["feedback"]
        assert "infra_error" not in info
        _, reward, *_ = env.step(env.gold_action())  # the env is still usable
        assert reward == pytest.approx(1.0)
    finally:
        env.close()


OPENEVOLVE_PROGRAM = '''"""Function minimisation, in OpenEvolve's example layout."""
import numpy as np


# EVOLVE-BLOCK-START
def search_algorithm(iterations=200, bounds=(-5, 5)):
    rng = np.random.default_rng(0)
    best_x, best_y = 0.0, 0.0
    best = evaluate_function(best_x, best_y)
    for _ in range(iterations):
        x, y = rng.uniform(bounds[0], bounds[1], size=2)
        v = evaluate_function(x, y)
        if v < best:
            best_x, best_y, best = x, y, v
    return best_x, best_y, best
# EVOLVE-BLOCK-END


def evaluate_function(x, y):
    return np.sin(x) * np.cos(y) + np.sin(x * y) + (x**2 + y**2) / 20


def run_search():
    return search_algorithm()
'''

OPENEVOLVE_EVALUATOR = """import importlib.util


def _load(path):
    spec = importlib.util.spec_from_file_location("program", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def evaluate_stage1(program_path):
    x, y, v = _load(program_path).run_search()
    return {"runs_successfully": 1.0, "combined_score": 1.0 / (1.0 + abs(v + 1.519))}


def evaluate_stage2(program_path):
    x, y, v = _load(program_path).run_search()
    distance = float(((x + 1.704) ** 2 + (y - 0.678) ** 2) ** 0.5)
    return {"combined_score": 1.0 / (1.0 + abs(v + 1.519)), "distance": distance}


def evaluate(program_path):
    return evaluate_stage2(program_path)
"""


def test_an_openevolve_folder_loads_unchanged_and_runs_its_cascade(tmp_path: Path) -> None:
    folder = tmp_path / "function_minimization"
    folder.mkdir()
    (folder / "initial_program.py").write_text(OPENEVOLVE_PROGRAM)
    (folder / "evaluator.py").write_text(OPENEVOLVE_EVALUATOR)
    (folder / "config.yaml").write_text("max_iterations: 10\nevaluator:\n  timeout: 30\n  cascade_thresholds: [0.5]\n")
    env = ProgramEvolutionEnv(tasks=str(tmp_path), max_turns=3)
    try:
        obs, info = env.reset(seed=0)
        assert info["task_id"] == "function_minimization" and env._judge.task.mode == "evaluate"
        assert 0.5 < obs["best_fitness"][0] <= 1.0
        _, _, _, _, info = env.step("mutation: constants strength=0.9\nmemory: none")
        assert "infra_error" not in info and info["verdict"]["stages"] in (1, 2)
        assert "distance" in info["verdict"]["metrics"] or info["verdict"]["stages"] == 1
        with pytest.raises(ValueError, match="no reference_program.py"):
            env.gold_action()
    finally:
        env.close()


def test_procedural_rewriter_edits_only_the_evolve_block() -> None:
    env = ProgramEvolutionEnv(max_turns=6)
    try:
        env.reset(seed=2, options={"task_id": "weighted_scheduling"})
        outside = env._judge.task.initial.split("# EVOLVE-BLOCK-END")[1]
        for kind in ("constants", "operators", "reorder", "rewrite"):
            env.step(f"mutation: {kind} strength=1\nparent: random")
        children = [p.code for p in env.episode.state["db"].programs.values()]
        assert all(c.split("# EVOLVE-BLOCK-END")[1] == outside for c in children)
        assert len(set(children)) > 1
    finally:
        env.close()


def test_snapshot_and_fork_keep_the_database() -> None:
    env = ProgramEvolutionEnv(max_turns=4)
    try:
        env.reset(seed=0, options={"task_id": "cap_set_4"})
        env.step("mutation: operators")
        snap = env.snapshot()
        clone = env.fork()
        env.step("mutation: reorder")
        assert len(clone.episode.state["db"].programs) == 2
        env.restore(snap)
        assert len(env.episode.state["db"].programs) == 2
        obs, *_ = clone.step("mutation: reorder")
        assert obs["population"][0] == 3
        clone.close()
    finally:
        env.close()


def test_same_seed_same_children() -> None:
    runs = []
    for _ in range(2):
        env = ProgramEvolutionEnv(max_turns=4)
        env.reset(seed=7, options={"task_id": "sorting_network_8"})
        out = [env.step(env.suggest_action())[4]["reward_components"]["child_fitness"] for _ in range(3)]
        runs.append((out, env.episode.state["db"].best.code))
        env.close()
    assert runs[0] == runs[1]
    assert np.isfinite(runs[0][0]).all()


def test_ablation_runner_switches_each_estimator_off_and_reports_every_configuration() -> None:
    from codegym.envs.evolution.ablation import ablate, train_bandit

    bandit = train_bandit(["function_minimization"], [0], budget=2)
    assert int(sum(n.sum() for n in bandit.n.values())) == 2 * len(bandit.ARMS)
    table = ablate(["function_minimization"], [100], budget=2, bandit=bandit)
    assert set(table) == {"openevolve", "bandit", *(f"bandit-no-{e}" for e in ESTIMATORS)}
    assert all(np.isfinite(v) and v >= 0.0 for v in table.values())


def test_evolve_step_reads_a_trajectory_and_rewards_the_gain(tmp_path: Path) -> None:
    from codegym.envs.evolution import EvolveStepEnv, export_trajectories

    env = gym.make("EvolveStep-v0", history_steps=2)
    try:
        obs, _ = env.reset(seed=4, options={"task_id": "knapsack"})
        assert "# Prior attempts" in obs and "# Current program" in obs
        current = env.unwrapped.episode.state["current"]
        _, reward, terminated, _, info = env.step(env.unwrapped.gold_action())
        assert reward == pytest.approx(1.0) and terminated and info["reward_components"]["child_fitness"] == 1.0
        env.reset(seed=4, options={"task_id": "knapsack"})
        program = obs.rsplit("```python\n", 1)[1].split("```")[0]
        _, reward, *_, info = env.step(f"```python\n{program}```")
        assert reward == 0.0 and info["reward_components"]["child_fitness"] == pytest.approx(current)
        check_env(EvolveStepEnv(history_steps=1))
    finally:
        env.close()
    assert export_trajectories(tmp_path / "t.jsonl", ["golomb_ruler_8"], [0, 1], history_steps=1) == 2
    rows = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert {r["seed"] for r in rows} == {0, 1} and all("# Current program" in r["prompt"] for r in rows)


def test_a_folder_of_openevolve_tasks_given_to_another_env_names_the_env_that_reads_it(tmp_path: Path) -> None:
    from codegym.envs.codegen import CodeGenEnv

    from codegym.errors import TaskFormatError

    folder = tmp_path / "fm"
    folder.mkdir()
    (folder / "initial_program.py").write_text(OPENEVOLVE_PROGRAM)
    (folder / "evaluator.py").write_text(OPENEVOLVE_EVALUATOR)
    with pytest.raises(TaskFormatError, match="OpenEvolve task folders, which ProgramEvolution-v0 and EvolveStep-v0"):
        CodeGenEnv(tasks=str(tmp_path))


@pytest.mark.slow  # about 20 s: torch and transformers load, 512 tokens sampled on the CPU
def test_a_local_hugging_face_model_can_be_the_rewriter(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from codegym.learner.models import build_tiny_model, build_tokenizer

    tokenizer = build_tokenizer(["def marks(n):\n    return [0, 1, 4]\n", "```python\n```"], vocab_size=300)
    model = build_tiny_model(tokenizer, layers=1, hidden=32, heads=2, max_positions=1024)
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    env = ProgramEvolutionEnv(max_turns=2, rewriter=f"hf:{tmp_path}")
    try:
        env.reset(seed=0, options={"task_id": "golomb_ruler_8"})
        _, reward, _, _, info = env.step("parent: best\nmutation: rewrite")
        assert "infra_error" not in info and info["verdict"]["child_source"] == "hf"
        assert 0.0 <= reward <= 1.0
    finally:
        env.close()
    with pytest.raises(ValueError, match="not a folder holding a Hugging Face model"):
        ProgramEvolutionEnv(rewriter=f"hf:{tmp_path / 'missing'}")
