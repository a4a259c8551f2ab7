"""ProgramEvolution-v0 (AGAR): program evolution as an MDP whose action is the modular prefix (issue 32).

This package only re-exports; registration lives in ``codegym.registration``. Modules:
``env`` (the env; its docstring states the reward), ``prefix`` (the action: Dict and text
forms), ``tasks`` (OpenEvolve task folders and this project's), ``evaluate`` (the child and
the judge in separate sandboxes), ``database`` (islands, MAP-Elites, archive), ``rewriter``
(prompt composition, the procedural AST rewriter, an OpenAI-compatible endpoint),
``estimators`` (credit, value, bandit, memory), ``ablation`` (one estimator off at a time),
``step_env`` (EvolveStep-v0, MetaEvolve: one improvement step of a trajectory).
"""

from .env import ProgramEvolutionEnv
from .step_env import EvolveStepEnv, export_trajectories

__all__ = ["EvolveStepEnv", "ProgramEvolutionEnv", "export_trajectories"]
