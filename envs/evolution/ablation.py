"""Controllers for ProgramEvolution-v0 and the ablation runner (one estimator off at a time).

Controllers: ``openevolve`` re-implements OpenEvolve's default constants as a prefix drawn
each step (exploration 0.2: a random parent of the island; exploitation 0.7: a tournament
among its programs; elite 0.1: the best; a rewrite of moderate strength; the top programs as
inspirations); ``bandit`` plays the env's :class:`~.estimators.BanditExplorer` suggestion
(UCB1 over each module's choices, learning within the run).

``python -m codegym.envs.evolution.ablation --tasks knapsack,tsp_heuristic --train-seeds 0,1 --seeds 100,101``
prints the mean best fitness (normalised: 0 = initial program, 1 = known-good program) of
each configuration: both controllers with every estimator, then the bandit controller with
each estimator switched off.
"""

from __future__ import annotations

import argparse
import copy
import json
from typing import Any

import numpy as np

from .env import ProgramEvolutionEnv
from .estimators import ESTIMATORS, BanditExplorer
from .prefix import Prefix, to_dict_action


def openevolve_prefix(rng: np.random.Generator) -> dict[str, Any]:
    """OpenEvolve's default search constants as one prefix (drawn with ``rng``)."""
    u = rng.random()
    parent = "random" if u < 0.2 else "tournament" if u < 0.9 else "best"
    return to_dict_action(Prefix(parent=parent, mutation="rewrite", strength=0.3, memory="top", novelty=0.2))


def run(
    task_id: str,
    seed: int,
    budget: int,
    controller: str,
    estimators: tuple[str, ...] = ESTIMATORS,
    bandit: BanditExplorer | None = None,
) -> float:
    """Normalised best fitness after ``budget`` evaluations of one run.

    ``bandit``: a bandit trained on other runs, carried into this one (it keeps learning).
    """
    env = ProgramEvolutionEnv(max_turns=budget, estimators=estimators)
    try:
        env.reset(seed=seed, options={"task_id": task_id})
        if bandit is not None and "bandit" in estimators:
            env.episode.state["estimators"]["bandit"] = bandit
        rng = np.random.default_rng(seed + 10_000)
        done = False
        while not done:
            action = env.suggest_action() if controller == "bandit" else openevolve_prefix(rng)
            _, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
        state = env.episode.state
        return (state["db"].best.fitness - state["initial"]) / state["gap"]
    finally:
        env.close()


def train_bandit(task_ids: list[str], seeds: list[int], budget: int) -> BanditExplorer:
    """A bandit trained over runs of ``task_ids`` x ``seeds`` (its counts carry from run to run)."""
    bandit = BanditExplorer()
    for t in task_ids:
        for s in seeds:
            run(t, s, budget, "bandit", bandit=bandit)
    return bandit


def ablate(
    task_ids: list[str], seeds: list[int], budget: int, bandit: BanditExplorer | None = None
) -> dict[str, float]:
    """Mean normalised best fitness of each configuration over tasks and seeds.

    ``bandit``: trained on other seeds (:func:`train_bandit`); each run starts from a copy.
    """
    configs: dict[str, tuple[str, tuple[str, ...]]] = {
        "openevolve": ("openevolve", ESTIMATORS),
        "bandit": ("bandit", ESTIMATORS),
    }
    for off in ESTIMATORS:
        configs[f"bandit-no-{off}"] = ("bandit", tuple(e for e in ESTIMATORS if e != off))
    out = {}
    for name, (controller, on) in configs.items():
        scores = [
            run(t, s, budget, controller, on, copy.deepcopy(bandit) if bandit is not None else None)
            for t in task_ids
            for s in seeds
        ]
        out[name] = float(np.mean(scores))
    return out


def main(argv: list[str] | None = None) -> None:
    """Command line: print the ablation table as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="function_minimization,circle_packing_26,symbolic_regression,golomb_ruler_8")
    parser.add_argument("--seeds", default="100,101,102,103,104")
    parser.add_argument("--train-seeds", default="0,1,2", help="seeds the bandit is trained on ('' for none)")
    parser.add_argument("--budget", type=int, default=20)
    args = parser.parse_args(argv)
    tasks = args.tasks.split(",")
    train = [int(s) for s in args.train_seeds.split(",") if s]
    bandit = train_bandit(tasks, train, args.budget) if train else None
    table = ablate(tasks, [int(s) for s in args.seeds.split(",")], args.budget, bandit)
    print(json.dumps(table, indent=1))


if __name__ == "__main__":
    main()
