"""ProgramEvolution-v0: an AlphaEvolve-style search loop as an MDP whose action is the prefix (AGAR).

Description:
    The env keeps an OpenEvolve program database (islands, MAP-Elites grids, an archive) for
    one task folder. Each step the controller chooses the *modular prefix* the rewriter is
    conditioned on (parent selection, mutation kind and strength, diversity, memory, credit
    target); the env composes the rewriter's prompt from it, calls the rewriter, evaluates
    the child in the sandbox with the task's evaluator and inserts it into the database.
    The rewriter is not trained: the controller is what learns.

Action:
    A ``Dict`` of module choices (:func:`.prefix.action_space`), or text naming the same
    modules one per line (``parent: tournament`` ...; see :mod:`.prefix`). A text action may
    carry a fenced ```python block: the child is then that program and no rewriter is called.

Observation:
    ``Dict``: ``population``, ``best_fitness``, ``mean_fitness``, ``islands`` (per island:
    size, best, mean fitness), ``diversity`` (share of occupied MAP-Elites cells),
    ``history`` (the last ``history`` steps: valid, parent rule, mutation, strength, island,
    memory, credit, parent fitness, child fitness), ``budget_left`` and ``best_program``.

Reward:
    With ``gap = known_good_score - initial_fitness`` (else ``max(|initial|, 1)``),
    ``improvement_parent = (child - parent) / gap`` and ``improvement_best = (child - best
    before) / gap``, both in ``reward_components``:
    ``reward = 0.5 * clip(improvement_parent, 0, 1) + 0.5 * clip(improvement_best, 0, 1)``.
    AGAR's zero-discount reading: each step is judged by its own immediate gain (gamma = 0),
    and the best-improvement parts of an episode add up (telescope) to the normalised gain
    of the best program. ``info["verdict"]["credit"]`` attributes the gain to modules
    (:class:`.estimators.ModuleCredit`); for a text action each module's line carries its
    credit as a token span. A text action that names no module and holds no program earns 0.

Starting state:
    The task's initial program, evaluated, on every island.

Episode end:
    Termination: the best program reaches the task's known-good score. Truncation: the
    evaluation budget (``max_turns`` steps) is spent.

Arguments:
    tasks, sandbox, render_mode, record_timing, split, difficulty: as every codegym env.
    max_turns: the evaluation budget of an episode. num_islands: OpenEvolve's ``database.num_islands``.
    rewriter: ``"procedural"``, ``"openai:URL"`` (an OpenAI-compatible chat endpoint) or
        ``"hf:PATH"`` (a local Hugging Face causal LM, loaded at the first step).
    estimators: which of ``credit``, ``value``, ``bandit``, ``memory`` run (any subset).
    history: rows of the history observation.

Version history:
    v0: initial version (issue 32).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from codegym.core.env import CodeEnv
from codegym.core.info import Outcome
from codegym.core.spaces import UnicodeText
from codegym.core.tasks import Task, TaskSet

from . import estimators as est
from .database import Database, Program
from .evaluate import Judge
from .prefix import CREDIT_CHOICES, MEMORY, MUTATION, PARENT, Prefix, TextAction, action_space, from_dict, parse_text
from .rewriter import HFRewriter, OpenAIRewriter, ProceduralRewriter, compose, functions
from .tasks import EvolutionTask, load, read_folders

#: Flags of a child that went for the grader or the machine rather than the task.
HOSTILE = {"timeout", "memory_limit", "reads_grader", "forged_output", "forges_metrics"}
BIG = 1e30


class ProgramEvolutionEnv(CodeEnv):
    """See the module docstring."""

    bundled_tasks = "evolution"
    max_action_length = 200_000

    def __init__(
        self,
        tasks: str | Path | list[dict[str, Any]] | None = None,
        sandbox: str | dict[str, Any] | None = None,
        render_mode: str | None = None,
        max_turns: int = 30,
        num_islands: int = 5,
        rewriter: str = "procedural",
        estimators: tuple[str, ...] = est.ESTIMATORS,
        history: int = 8,
        record_timing: bool = False,
        split: str | None = None,
        difficulty: str | None = None,
    ) -> None:
        for name, value in (("num_islands", num_islands), ("history", history)):
            if value < 1:
                raise ValueError(f"ProgramEvolutionEnv: {name} must be >= 1, got {value}")
        if rewriter != "procedural" and not rewriter.startswith(("openai:", "hf:")):
            raise ValueError(
                f"rewriter={rewriter!r}: use 'procedural', 'openai:http://host:port/v1' or 'hf:/path/to/model'"
            )
        if rewriter.startswith("hf:") and not Path(rewriter[3:]).is_dir():
            raise ValueError(f"rewriter={rewriter!r}: {rewriter[3:]!r} is not a folder holding a Hugging Face model")
        est.make(tuple(estimators))  # unknown names fail now, not at reset
        self.num_islands, self.history_rows = num_islands, history
        self.rewriter_name, self.estimator_names = rewriter, tuple(estimators)
        self.observation_space = spaces.Dict(
            {
                "population": spaces.Box(0, 10**9, (1,), np.int64),
                "best_fitness": spaces.Box(-BIG, BIG, (1,), np.float64),
                "mean_fitness": spaces.Box(-BIG, BIG, (1,), np.float64),
                "islands": spaces.Box(-BIG, BIG, (num_islands, 3), np.float64),
                "diversity": spaces.Box(0.0, 1.0, (1,), np.float64),
                "history": spaces.Box(-BIG, BIG, (history, 9), np.float64),
                "budget_left": spaces.Box(0, 10**9, (1,), np.int64),
                "best_program": UnicodeText(1_000_000),
            }
        )
        super().__init__(tasks, sandbox, render_mode, max_turns, record_timing, split, difficulty)
        self.action_space = action_space(num_islands)
        self._judge: Judge | None = None
        self._hf: HFRewriter | None = None
        self._pending: Prefix | str | None = None

    # ------------------------------------------------------------------ tasks
    def load_tasks(self, tasks: str | Path | list[dict[str, Any]] | None) -> TaskSet:
        """Task folders (OpenEvolve's layout) or task dicts naming one by ``path``."""
        if tasks is None:
            tasks = Path(str(resources.files("codegym.assets").joinpath(self.bundled_tasks)))
        if isinstance(tasks, (str, Path)) and Path(tasks).is_dir():
            tasks = read_folders(Path(tasks))
        return TaskSet.load(tasks, parse=self.parse_task)

    def parse_task(self, task: Task) -> Task:
        """Check that the task's folder loads (markers, evaluator)."""
        load(task)
        return task

    # ------------------------------------------------------------------ episode
    def _start(self, task: Task) -> dict[str, Any]:
        spec = load(task)
        if self._judge is None or self._judge.task.folder != spec.folder:
            self._close_resources()
            self._judge = Judge(spec, self.sandbox_spec)
        first = self._judge.evaluate(spec.initial)
        db = Database(num_islands=self.num_islands, base_length=max(1, len(spec.initial)))
        db.add(Program(0, spec.initial, first.fitness, 0, None, 0, first.ok))
        for island in range(1, self.num_islands):
            db.islands[island].append(0)
        good = spec.known_good_score
        gap = good - first.fitness if good is not None and good > first.fitness else max(abs(first.fitness), 1.0)
        assert self.episode is not None
        self.episode.state.update(
            db=db,
            gap=float(gap),
            initial=first.fitness,
            island=0,
            rows=[],
            estimators=est.make(self.estimator_names),
        )
        return self._observe()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Take a ``Dict`` action or its text form (see the module docstring)."""
        if isinstance(action, Mapping):
            try:
                self._pending = from_dict(dict(action), self.num_islands)
            except ValueError as exc:
                self._pending = str(exc)
            try:
                obs, reward, terminated, truncated, info = super().step("")
            finally:
                self._pending = None
            info["token_rewards"] = []
            return obs, reward, terminated, truncated, info
        return super().step(action)

    def _grade(self, action: str) -> Outcome:
        episode = self.episode
        assert episode is not None
        state = episode.state
        try:
            if isinstance(self._pending, str):
                raise ValueError(self._pending)
            parsed = (
                TextAction(self._pending, {}, None)
                if self._pending is not None
                else parse_text(action, self.num_islands)
            )
        except ValueError as exc:
            return Outcome(
                self.floor_reward,
                feedback=f"the action was not a prefix: {exc}",
                verdict={"error": "bad action"},
                terminated=False,
                observation=self._observe(),
            )
        prefix, db, rng = parsed.prefix, state["db"], self.np_random
        island = prefix.island - 1 if prefix.island else state["island"]
        state["island"] = (state["island"] + 1) % self.num_islands  # OpenEvolve visits islands in turn
        parent = db.select(prefix.parent, island, rng)
        inspirations = db.inspirations(prefix.memory, parent.id)
        names = functions(parent.code)
        focus = names[(prefix.credit - 1) % len(names)] if prefix.credit and names else "any function"
        spec: EvolutionTask = self._judge.task  # type: ignore[union-attr]
        prompt = compose(spec.description, parent, prefix, inspirations, focus)
        estimators = state["estimators"]
        if parsed.program is not None:
            child, source = parsed.program, "action"
        elif self.rewriter_name == "procedural":
            child, source = self._procedural(parent, prefix, inspirations, estimators, rng), "procedural"
        elif self.rewriter_name.startswith("hf:"):
            if self._hf is None:
                self._hf = HFRewriter(self.rewriter_name.partition(":")[2])
            child, source = self._hf.complete(prompt, parent, int(rng.integers(2**31))), "hf"
        else:
            child, source = OpenAIRewriter(self.rewriter_name.partition(":")[2]).complete(prompt, parent), "endpoint"
        result = self._judge.evaluate(child)  # type: ignore[union-attr]
        best_before = db.best.fitness
        program = Program(len(db.programs), child, result.fitness, island, parent.id, episode.turn, result.ok)
        program.modules = prefix.choices()
        db.add(program)
        migrated = db.migrate(island) if prefix.migrate else None
        gap = state["gap"]
        d_parent = (result.fitness - parent.fitness) / gap
        d_best = (result.fitness - best_before) / gap
        reward = 0.5 * float(np.clip(d_parent, 0, 1)) + 0.5 * float(np.clip(d_best, 0, 1))
        record = {
            "choices": prefix.choices(),
            "prefix": prefix,
            "delta_parent": d_parent,
            "delta_best": d_best,
            "child_hash": _hash(child),
            "child_fitness": result.fitness,
            "state": {"budget_left": self.max_turns - episode.turn},
        }
        credit = estimators["credit"].credit(record["choices"], d_parent) if "credit" in estimators else {}
        value = estimators["value"].value(record["state"]) if "value" in estimators else None
        for e in estimators.values():
            e.update(record)
        state["rows"].append(_row(prefix, parent.fitness, result.fitness))
        good = spec.known_good_score
        solved = good is not None and db.best.fitness >= good - 1e-9 * max(1.0, abs(good))
        hostile = sorted(HOSTILE & set(result.flags))
        spans = [(a, b, est.finite(credit.get(m, 0.0))) for m, (a, b) in parsed.spans.items() if b > a]
        feedback = (
            f"child {program.id} from parent {parent.id} ({prefix.parent}, {prefix.mutation}): "
            f"fitness {result.fitness:.6g} (parent {parent.fitness:.6g}, best before {best_before:.6g})\n"
            + result.feedback
        )
        return Outcome(
            reward,
            components={"improvement_parent": d_parent, "improvement_best": d_best, "child_fitness": result.fitness},
            feedback=feedback.strip(),
            token_rewards=spans,
            verdict={
                "prefix": prefix.to_dict(),
                "child_source": source,
                "parent": parent.id,
                "child": program.id,
                "island": island,
                "migrated": migrated,
                "fitness": result.fitness,
                "metrics": result.metrics,
                "stages": result.stages,
                "flags": result.flags,
                "credit": {m: est.finite(v) for m, v in credit.items()},
                "value": value,
                "prompt_sections": {k: list(v) for k, v in prompt.sections.items()},
                "database": db.summary(),
                "estimators": {n: e.report() for n, e in estimators.items()},
            },
            audit_flags=hostile,
            audit_reward=0.0 if hostile else None,
            terminated=solved,
            observation=self._observe(),
        )

    def _procedural(self, parent: Program, prefix: Prefix, inspirations: list[Program], estimators, rng) -> str:
        rewriter = ProceduralRewriter()
        child = rewriter.rewrite(parent, prefix, inspirations, rng)
        memory = estimators.get("memory")
        for _ in range(3):  # experience memory: a child tried before is redrawn, a little bolder
            if memory is None or not memory.tried(_hash(child)):
                break
            bolder = Prefix(**{**prefix.to_dict(), "strength": min(1.0, prefix.strength + 0.3)})
            child = rewriter.rewrite(parent, bolder, inspirations, rng)
        return child

    def _observe(self) -> dict[str, Any]:
        assert self.episode is not None
        state = self.episode.state
        db: Database = state["db"]
        fits = np.array([p.fitness for p in db.programs.values()], dtype=np.float64)
        islands = np.zeros((self.num_islands, 3))
        for i, ids in enumerate(db.islands):
            f = np.array([db.programs[j].fitness for j in ids]) if ids else np.zeros(1)
            islands[i] = (len(ids), f.max(), f.mean())
        rows = np.zeros((self.history_rows, 9))
        recent = state["rows"][-self.history_rows :]
        if recent:
            rows[: len(recent)] = recent
        clip = lambda a: np.clip(np.nan_to_num(np.asarray(a, np.float64)), -BIG, BIG)  # noqa: E731
        return {
            "population": np.array([len(db.programs)], np.int64),
            "best_fitness": clip([db.best.fitness]),
            "mean_fitness": clip([fits.mean()]),
            "islands": clip(islands),
            "diversity": np.array([db.diversity()], np.float64),
            "history": clip(rows),
            "budget_left": np.array([max(0, self.max_turns - self.episode.turn)], np.int64),
            "best_program": db.best.code[:1_000_000],
        }

    # ------------------------------------------------------------------ oracle and helpers
    def gold_action(self) -> str:
        """The default prefix with the task's known-good program as the child."""
        spec = self._judge.task if self._judge is not None else None
        if spec is None or spec.reference is None:
            raise ValueError("this task has no reference_program.py, so no gold action; give one to check the grader")
        return f"{Prefix().to_text()}```python\n{spec.reference}```\n"

    def suggest_action(self) -> dict[str, Any]:
        """The bandit estimator's next prefix as a ``Dict`` action (OpenEvolve's defaults without it)."""
        from .prefix import to_dict_action

        assert self.episode is not None
        bandit = self.episode.state["estimators"].get("bandit")
        return to_dict_action(bandit.suggest(self.np_random) if bandit is not None else Prefix())

    def render(self) -> str:
        """The database's figures and the last feedback as text."""
        if self.episode is None:
            return ""
        db = self.episode.state.get("db")
        head = f"[{self.episode.task.id} step {self.episode.turn}/{self.max_turns}]"
        if db is None:
            return head
        return f"{head} population {len(db.programs)}, best {db.best.fitness:.6g}\n{self.episode.last_feedback}"

    def _fork_resources(self, clone: CodeEnv) -> None:
        clone._judge = None  # type: ignore[attr-defined]
        if self._judge is not None and self.episode is not None:
            clone._judge = Judge(self._judge.task, self.sandbox_spec)  # type: ignore[attr-defined]

    def _close_resources(self) -> None:
        if getattr(self, "_judge", None) is not None:
            self._judge.close()  # type: ignore[union-attr]
            self._judge = None

    def _live_attributes(self) -> tuple[str, ...]:
        return ("_judge", "_hf")


def _hash(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


def _row(prefix: Prefix, parent_fitness: float, child_fitness: float) -> list[float]:
    return [
        1.0,
        PARENT.index(prefix.parent),
        MUTATION.index(prefix.mutation),
        prefix.strength,
        prefix.island,
        MEMORY.index(prefix.memory),
        prefix.credit / max(1, CREDIT_CHOICES - 1),
        parent_fitness,
        child_fitness,
    ]
