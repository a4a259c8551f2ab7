"""EvolveStep-v0 (MetaEvolve): one improvement step of an evolution trajectory per episode.

Description:
    The model reads an evolution trajectory (the current program, its fitness and metrics,
    and the prior attempts with their scores) and writes an improved program. It trains a
    model's self-improvement skill on the same tasks and judge as ProgramEvolution-v0.

Action:
    Text: the improved program, in a fenced ```python block or raw.

Observation:
    Text: the task's description, the prior attempts (a short ProgramEvolution-v0 run with
    the procedural rewriter, drawn from the reset seed) with their fitness, and the current
    program (the trajectory's best) with its fitness and metrics.

Reward:
    ``gain = (fitness(action) - fitness(current)) / (known_good_score - fitness(current))``
    (denominator 1 when the current program is already at the known-good score);
    ``reward = clip(gain, 0, 1)``; components ``gain`` and ``child_fitness``. The known-good
    program earns 1.

Starting state:
    The trajectory built at reset from the seed (``history_steps`` procedural children).

Episode end:
    Termination after the step (``max_turns=1``, MetaEvolve's setting); with ``max_turns=K``
    the model may try again from the same current program: termination when an attempt
    reaches the known-good score, truncation after K attempts.

Arguments:
    tasks, sandbox, render_mode, record_timing, split, difficulty: as every codegym env.
    max_turns: attempts per episode. history_steps: prior attempts in the trajectory.

Version history:
    v0: initial version (issue 32).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from codegym.core.env import CodeEnv
from codegym.core.extract import extract_code
from codegym.core.info import Outcome
from codegym.core.tasks import Task, TaskSet

from .env import HOSTILE, ProgramEvolutionEnv
from .evaluate import Judge
from .prefix import MUTATION, Prefix
from .tasks import load


class EvolveStepEnv(CodeEnv):
    """See the module docstring."""

    bundled_tasks = "evolution"

    def __init__(
        self,
        tasks: str | Path | list[dict[str, Any]] | None = None,
        sandbox: str | dict[str, Any] | None = None,
        render_mode: str | None = None,
        max_turns: int = 1,
        history_steps: int = 3,
        record_timing: bool = False,
        split: str | None = None,
        difficulty: str | None = None,
    ) -> None:
        if history_steps < 0:
            raise ValueError(f"EvolveStepEnv: history_steps must be >= 0, got {history_steps}")
        self.history_steps = history_steps
        super().__init__(tasks, sandbox, render_mode, max_turns, record_timing, split, difficulty)
        self._evolver: ProgramEvolutionEnv | None = None

    def load_tasks(self, tasks: str | Path | list[dict[str, Any]] | None) -> TaskSet:
        """The same task folders as ProgramEvolution-v0."""
        return ProgramEvolutionEnv.load_tasks(self, tasks)  # type: ignore[arg-type]

    def parse_task(self, task: Task) -> Task:
        """Check that the task's folder loads."""
        load(task)
        return task

    def _evolve(self) -> ProgramEvolutionEnv:
        if self._evolver is None:
            self._evolver = ProgramEvolutionEnv(
                tasks=[dict(t.data) for t in self.tasks],
                sandbox=self.sandbox_spec or None,
                max_turns=max(1, self.history_steps),
                estimators=("memory",),
            )
        return self._evolver

    def _start(self, task: Task) -> str:
        evolver = self._evolve()
        seed = int(self.np_random.integers(2**31))
        evolver.reset(seed=seed, options={"task_id": task.id})
        rng = np.random.default_rng(seed)
        for _ in range(self.history_steps):
            if evolver.episode.done:  # type: ignore[union-attr]
                break
            kind = MUTATION[int(rng.integers(len(MUTATION)))]
            evolver.step(Prefix(parent="best", mutation=kind, strength=float(rng.random())).to_text())
        db = evolver.episode.state["db"]  # type: ignore[union-attr]
        judge: Judge = evolver._judge  # type: ignore[assignment]
        current = db.best
        good = judge.task.known_good_score
        gap = good - current.fitness if good is not None and good > current.fitness else 1.0
        self.episode.state.update(current=current.fitness, gap=gap)  # type: ignore[union-attr]
        attempts = "".join(
            f"## Attempt {p.id} (from {p.parent}): fitness {p.fitness:.6g}\n```python\n{p.code}```\n"
            for p in sorted(db.programs.values(), key=lambda p: p.id)
            if p.id != current.id
        )
        return (
            f"# Task\n{judge.task.description}\n\n# Prior attempts\n{attempts or '(none)'}\n"
            f"# Current program: fitness {current.fitness:.6g}\n```python\n{current.code}```\n"
            "Write an improved program (the whole file) in a ```python block.\n"
        )

    def _grade(self, action: str) -> Outcome:
        found = extract_code(action, language="python")
        if found is None:
            return Outcome(
                self.floor_reward,
                feedback="no program found in the action",
                verdict={"error": "no code"},
                terminated=self.max_turns == 1,
            )
        judge = self._evolve()._judge
        assert judge is not None
        result = judge.evaluate(found.code)
        state = self.episode.state  # type: ignore[union-attr]
        gain = (result.fitness - state["current"]) / state["gap"]
        hostile = sorted(HOSTILE & set(result.flags))
        return Outcome(
            float(np.clip(gain, 0.0, 1.0)),
            components={"gain": gain, "child_fitness": result.fitness},
            feedback=f"fitness {result.fitness:.6g} (current {state['current']:.6g})\n{result.feedback}".strip(),
            verdict={"fitness": result.fitness, "metrics": result.metrics, "flags": result.flags},
            audit_flags=hostile,
            audit_reward=0.0 if hostile else None,
            terminated=gain >= 1.0 or self.max_turns == 1,
        )

    def gold_action(self) -> str:
        """The known-good program."""
        judge = self._evolve()._judge
        if judge is None or judge.task.reference is None:
            raise ValueError("this task has no reference_program.py, so no gold action")
        return f"```python\n{judge.task.reference}```\n"

    def _fork_resources(self, clone: CodeEnv) -> None:
        clone._evolver = self._evolver.fork() if self._evolver is not None else None  # type: ignore[attr-defined]

    def _close_resources(self) -> None:
        if getattr(self, "_evolver", None) is not None:
            self._evolver.close()  # type: ignore[union-attr]
            self._evolver = None

    def _live_attributes(self) -> tuple[str, ...]:
        return ("_evolver",)


def export_trajectories(path: str | Path, task_ids: list[str], seeds: list[int], history_steps: int = 3) -> int:
    """Write one JSONL row per (task, seed): the EvolveStep-v0 prompt and its current fitness; the row count."""
    env = EvolveStepEnv(history_steps=history_steps)
    rows = 0
    try:
        with open(path, "w", encoding="utf-8") as out:
            for task_id in task_ids:
                for seed in seeds:
                    obs, _ = env.reset(seed=seed, options={"task_id": task_id})
                    row = {"task_id": task_id, "seed": seed, "prompt": obs, "fitness": env.episode.state["current"]}
                    out.write(json.dumps(row) + "\n")
                    rows += 1
    finally:
        env.close()
    return rows
