"""Every env id codegym registers, with one line saying what it is (``codegym list``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym


@dataclass(frozen=True)
class EnvEntry:
    """One registered env: its id, entry point, default kwargs and a one-line summary."""

    id: str
    entry_point: str
    summary: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    nondeterministic: bool = False


ENVS: list[EnvEntry] = [
    EnvEntry(
        "CodeGen-v0",
        "codegym.envs.codegen:CodeGenEnv",
        "function-level code generation graded by hidden unit tests (multi-turn repair optional)",
    ),
    EnvEntry(
        "CodeOptimization-v0",
        "codegym.envs.codegen:CodeOptimizationEnv",
        "make a slow but correct program faster; reward from calibrated cost",
        nondeterministic=True,
    ),
    EnvEntry(
        "CodeRepair-v0",
        "codegym.envs.agentic:CodeRepairEnv",
        "SWE-bench style repository repair with hidden fail-to-pass / pass-to-pass tests",
    ),
    EnvEntry(
        "TestGen-v0",
        "codegym.envs.agentic:TestGenEnv",
        "write tests that fail on the buggy repository and pass on the fix",
    ),
    EnvEntry(
        "Terminal-v0",
        "codegym.envs.agentic:TerminalEnv",
        "Terminal-Bench style shell tasks checked by a hidden verifier",
    ),
    EnvEntry(
        "ImageToSVG-v0",
        "codegym.envs.image2code:ImageToSVGEnv",
        "draw a target image as SVG; dense reward from the progress of intermediate renders",
    ),
    EnvEntry(
        "ImageToTikZ-v0",
        "codegym.envs.image2code:ImageToTikZEnv",
        "draw a target image as TikZ; dense reward from the progress of intermediate renders",
    ),
    EnvEntry(
        "TextToCAD-v0",
        "codegym.envs.cad:TextToCADEnv",
        "write cadquery code for a described part; graded by Chamfer distance and F1",
    ),
    EnvEntry(
        "WebApp-v0",
        "codegym.envs.webapp:WebAppEnv",
        "build a web app from a request; graded by executable flows in headless Chromium",
    ),
    EnvEntry(
        "ProgramEvolution-v0",
        "codegym.envs.evolution:ProgramEvolutionEnv",
        "AlphaEvolve-style program search as an MDP whose action is the rewriter's modular prefix (AGAR)",
    ),
    EnvEntry(
        "EvolveStep-v0",
        "codegym.envs.evolution:EvolveStepEnv",
        "one improvement step of an evolution trajectory: read prior attempts, write a better program (MetaEvolve)",
    ),
]


def register_envs() -> None:
    """Register every entry with Gymnasium (idempotent)."""
    for entry in ENVS:
        if entry.id not in gym.registry:
            gym.register(
                id=entry.id,
                entry_point=entry.entry_point,
                kwargs=dict(entry.kwargs),
                nondeterministic=entry.nondeterministic,
                disable_env_checker=True,  # the registry-wide test runs check_env itself
            )
