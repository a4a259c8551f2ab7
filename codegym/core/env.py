"""``CodeEnv``: the base class of every codegym family (docs/contract.md, Env contract).

A family subclasses it and writes three methods:

* ``_start(task) -> observation``: set up the episode for a task;
* ``_grade(action) -> Outcome``: run the attempt for real and say how it went;
* ``gold_action() -> str``: the action that earns full reward on the current task.

The base class does the rest the same way for every family: task choice from the seed and
``options``, turn counting and the termination/truncation rule, the shared ``info`` dict and
its validation, bad input that never raises out of ``step``, infrastructure failures kept
apart from the attempt's failures, forkable state, ``render``, pickling and ``close``.
"""

from __future__ import annotations

import copy
import logging
import re
import shutil
import time
import traceback
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium.error import ResetNeeded

from codegym.core.arguments import check_argument, check_arguments, sandbox_spec
from codegym.core.info import Outcome, make_info
from codegym.core.spaces import UnicodeText
from codegym.core.tasks import Convert, Formats, Task, TaskSet
from codegym.errors import InfraError, did_you_mean

log = logging.getLogger(__name__)

#: A UTF-16 surrogate code point: never a character of valid text (it cannot be encoded as UTF-8).
_SURROGATE = re.compile("[\ud800-\udfff]")

RESET_OPTIONS = ("task_id", "split", "difficulty")


@dataclass
class Episode:
    """The mutable state of one episode; snapshots deep-copy it.

    Attributes:
        task: the task being solved.
        turn: steps taken so far.
        done: the episode has ended (terminated or truncated).
        history: per-turn records a family keeps (actions, rewards, feedback).
        state: family-specific episode state (plain data only: it is deep-copied).
        start_error: why the machine could not set the episode up (a full disk), or None.

    """

    task: Task
    turn: int = 0
    done: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    last_observation: Any = None
    last_feedback: str = ""
    start_error: str | None = None


@dataclass(frozen=True)
class EnvSnapshot:
    """Opaque state returned by :meth:`CodeEnv.snapshot`."""

    episode: Episode | None
    rng_state: dict[str, Any] | None
    sandbox: Any = None


class CodeEnv(gym.Env[Any, str]):
    """Base class of codegym envs; see the module docstring for what a family writes.

    Args:
        tasks: a folder, a JSON/JSONL file or a list of task dicts replacing the bundled set.
        sandbox: where code runs: ``"local"``, ``"docker"``, or a dict of
            :func:`codegym.sandbox.create` arguments (``{"backend": "docker", "memory_mb": 512}``);
            None takes ``CODEGYM_SANDBOX``, else ``local``.
        render_mode: ``"ansi"`` (or ``"rgb_array"`` for image families).
        max_turns: attempts per episode; at the limit an unfinished episode is truncated.
        record_timing: add wall-clock figures to ``info["timing"]`` (off: ``info`` stays
            deterministic).
        split: default split that ``reset`` draws from (None: any).
        difficulty: default difficulty that ``reset`` draws from (None: any).

    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}
    #: Folder under ``codegym.assets`` holding the bundled tasks.
    bundled_tasks: ClassVar[str] = ""
    #: Reward of an attempt that did nothing right; bad input gets it too.
    floor_reward: ClassVar[float] = 0.0
    #: Reward of a perfect attempt; ``gold_action()`` earns it.
    full_reward: ClassVar[float] = 1.0
    #: Longest action accepted by the action space.
    max_action_length: ClassVar[int] = 100_000
    #: Outside formats this family converts on load (``formats.json`` name -> converter).
    task_formats: ClassVar[dict[str, Convert]] = {}

    def __new__(cls, *args: Any, **kwargs: Any) -> CodeEnv:
        """Check every constructor argument of the family before any ``__init__`` runs.

        The rules are in :mod:`codegym.core.arguments`: a wrong argument fails when the env
        is made, with a message naming it, its value and the fix.
        """
        check_arguments(cls, args, kwargs)
        return super().__new__(cls)

    def __init__(
        self,
        tasks: str | Path | list[dict[str, Any]] | None = None,
        sandbox: str | dict[str, Any] | None = None,
        render_mode: str | None = None,
        max_turns: int = 1,
        record_timing: bool = False,
        split: str | None = None,
        difficulty: str | None = None,
    ) -> None:
        for name, value in (("max_turns", max_turns), ("record_timing", record_timing)):
            check_argument(type(self).__name__, name, value, int if name == "max_turns" else bool)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r} is not supported by {type(self).__name__}; "
                f"use one of {self.metadata['render_modes']} or None."
                f"{did_you_mean(str(render_mode), self.metadata['render_modes'])}"
            )
        self.render_mode = render_mode
        self.max_turns = max_turns
        self.record_timing = record_timing
        self.default_split, self.default_difficulty = split, difficulty
        self.sandbox_spec = _sandbox_spec(sandbox)
        self.tasks = self.load_tasks(tasks)
        self._check_default_draw()
        self.action_space = UnicodeText(self.max_action_length)
        if not hasattr(self, "observation_space"):
            self.observation_space = UnicodeText(1_000_000)
        self.episode: Episode | None = None

    def _check_default_draw(self) -> None:
        """``split`` / ``difficulty`` name values some loaded task has (else reset would fail)."""
        chosen = {"split": self.default_split, "difficulty": self.default_difficulty}
        for name, value in chosen.items():
            if value is None:
                continue
            have = sorted({getattr(t, name) for t in self.tasks} - {None})
            if value not in have:
                raise ValueError(
                    f"{name}={value!r}: no task of {type(self).__name__}'s task set has this {name}; "
                    f"use one of {have} or None.{did_you_mean(str(value), have)}"
                )
        if None not in chosen.values() and not any(
            t.split == self.default_split and t.difficulty == self.default_difficulty for t in self.tasks
        ):
            raise ValueError(
                f"split={self.default_split!r} with difficulty={self.default_difficulty!r}: no task has both; "
                "drop one of them"
            )

    # ------------------------------------------------------------------ family hooks
    def parse_task(self, task: Task) -> Task:
        """Check and normalise one task's family-specific fields (raise TaskFormatError)."""
        return task

    def _start(self, task: Task) -> Any:
        """Set up the episode for ``task`` and return the first observation."""
        raise NotImplementedError

    def _grade(self, action: str) -> Outcome:
        """Run and grade one action of the current episode."""
        raise NotImplementedError

    def gold_action(self) -> str:
        """The action that earns full reward on the current task."""
        raise NotImplementedError

    def _next_observation(self, outcome: Outcome) -> Any:
        """Observation after a non-final step; by default the feedback text."""
        return outcome.feedback

    def _snapshot_resources(self) -> Any:
        """Snapshot of live resources (sandboxes); None when the family has none."""
        return None

    def _restore_resources(self, state: Any) -> None:
        """Bring back what :meth:`_snapshot_resources` returned."""

    def _fork_resources(self, clone: CodeEnv) -> None:
        """Give ``clone`` its own copies of live resources, in their current state."""

    def _close_resources(self) -> None:
        """Release live resources (sandboxes, browsers)."""

    # ------------------------------------------------------------------ gymnasium API
    def load_tasks(self, tasks: str | Path | list[dict[str, Any]] | None) -> TaskSet:
        """Load ``tasks``, or the bundled set when None."""
        if tasks is None:
            tasks = Path(str(resources.files("codegym.assets").joinpath(self.bundled_tasks)))
        return TaskSet.load(tasks, parse=self.parse_task, formats=self.formats())

    def formats(self) -> Formats:
        """The outside formats this env reads: those ``formats.json`` lists for its id."""
        from codegym.core.formats import formats
        from codegym.registration import ENVS

        name = type(self).__name__
        ids = [e.id for e in ENVS if e.entry_point.rpartition(":")[2] == name]
        accepted = tuple(f.name for f in formats() if set(f.envs) & set(ids)) or tuple(self.task_formats)
        return Formats(ids[0] if ids else name, accepted, dict(self.task_formats))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Start an episode. ``options`` may pick ``task_id``, ``split`` or ``difficulty``."""
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - set(RESET_OPTIONS) - set(self.extra_reset_options())
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; known: {list(RESET_OPTIONS)}")
        if "task_id" in options:
            task = self.tasks.get(options["task_id"])
        else:
            task = self.tasks.choose(
                self.np_random,
                options.get("split", self.default_split),
                options.get("difficulty", self.default_difficulty),
            )
        self.episode = Episode(task)
        self._reset_options = options
        info = {"task_id": task.id, "split": task.split, "difficulty": task.difficulty, "turn": 0}
        try:
            obs = self._start(task)
        except (InfraError, OSError) as exc:  # the machine's failure (a full disk), not the task's
            why = _short(exc)
            log.warning("%s could not start task %s: %s", type(self).__name__, task.id, why)
            self.episode.start_error = info["infra_error"] = f"the episode could not be set up: {why}"
            obs = blank(self.observation_space)
        self.episode.last_observation = _detached(obs)
        return obs, info

    def extra_reset_options(self) -> tuple[str, ...]:
        """Reset options a family accepts beyond ``task_id``, ``split``, ``difficulty``."""
        return ()

    def step(self, action: str) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Grade one action; see the family's docstring for the reward."""
        if self.episode is None or self.episode.done:
            raise ResetNeeded("call reset() before step(): the episode has not started or has ended")
        episode = self.episode
        episode.turn += 1
        started = time.perf_counter()
        if not isinstance(action, str):
            # graded as a reply without an answer: multi-turn, the episode goes on
            outcome = Outcome(
                self.floor_reward,
                feedback=f"the action must be a str (the text the model wrote), got {type(action).__name__}",
                verdict={"error": "action is not text"},
                terminated=self.max_turns == 1,
            )
            action = ""
        elif episode.start_error is not None:
            outcome = Outcome(self.floor_reward, infra_error=episode.start_error, terminated=True)
        else:
            refused = self._refuse(action)
            outcome = refused if refused is not None else self._safe_grade(action)
        terminated = bool(outcome.terminated)
        truncated = not terminated and episode.turn >= self.max_turns
        episode.done = terminated or truncated
        if outcome.observation is not None:
            obs = outcome.observation
        elif episode.done:
            obs = _detached(episode.last_observation)
        else:
            obs = self._next_observation(outcome)
        episode.last_observation, episode.last_feedback = _detached(obs), outcome.feedback
        episode.history.append({"turn": episode.turn, "reward": float(outcome.reward)})
        info = make_info(episode.task.id, outcome, len(action))
        info["turn"] = episode.turn
        if self.record_timing:
            info["timing"] = {"step_s": time.perf_counter() - started}
        return obs, float(outcome.reward), terminated, truncated, info

    def _refuse(self, action: str) -> Outcome | None:
        """The floor outcome of an action no family may grade, or None to grade it.

        Refused before any grading work (a wasted turn in a multi-turn episode, like a
        non-text action): an action longer than the action space allows, and text with lone
        surrogates (not Unicode scalar values: it cannot be encoded as UTF-8, so no file,
        program or renderer could take it). NUL characters are legal text: each family
        handles them as the attempt's failure (a compiler's or a shell's error).
        """
        if len(action) > self.max_action_length:
            feedback = f"the action is {len(action)} characters long; this env takes at most {self.max_action_length}"
            verdict = {"error": "action too long", "length": len(action), "max_length": self.max_action_length}
        else:
            bad = _SURROGATE.search(action)
            if bad is None:
                return None
            feedback = (
                f"the action holds a lone surrogate (U+{ord(bad.group()):04X} at character {bad.start()}): "
                "it is not valid Unicode text and cannot be encoded as UTF-8"
            )
            verdict = {"error": "action is not valid Unicode", "at": bad.start()}
        return Outcome(self.floor_reward, feedback=feedback, verdict=verdict, terminated=self.max_turns == 1)

    def _safe_grade(self, action: str) -> Outcome:
        try:
            return self._grade(action)
        except InfraError as exc:
            return Outcome(self.floor_reward, feedback="", infra_error=str(exc), terminated=True)
        except Exception as exc:  # noqa: BLE001 - a grader bug is not the attempt's failure
            log.exception("grader of %s crashed", type(self).__name__)
            detail = "".join(traceback.format_exception_only(exc)).strip()
            return Outcome(self.floor_reward, infra_error=f"grader crashed: {detail}", terminated=True)

    def render(self) -> Any:
        """``ansi``: the current observation and the last feedback as text."""
        if self.episode is None:
            return ""
        obs = self.episode.last_observation
        text = obs if isinstance(obs, str) else str(obs.get("text", "")) if isinstance(obs, dict) else ""
        return f"[{self.episode.task.id} turn {self.episode.turn}]\n{text}\n{self.episode.last_feedback}"

    def close(self) -> None:
        """Release sandboxes and other live resources; safe to call twice."""
        self._close_resources()
        super().close()

    # ------------------------------------------------------------------ forkable state
    def snapshot(self) -> EnvSnapshot:
        """Opaque state of the env now; cheap enough to take at every step."""
        rng = dict(self._np_random.bit_generator.state) if self._np_random is not None else None
        return EnvSnapshot(copy.deepcopy(self.episode), copy.deepcopy(rng), self._snapshot_resources())

    def restore(self, snap: EnvSnapshot) -> None:
        """Bring the env back to ``snap`` (taken from this env or one forked from it)."""
        self.episode = copy.deepcopy(snap.episode)
        if snap.rng_state is not None:
            self.np_random.bit_generator.state = copy.deepcopy(snap.rng_state)
        self._restore_resources(snap.sandbox)

    def fork(self) -> CodeEnv:
        """An independent env in the same state; stepping one leaves the other as it was."""
        clone = copy.copy(self)
        clone.episode = copy.deepcopy(self.episode)
        if self._np_random is not None:
            clone._np_random = copy.deepcopy(self._np_random)
        self._fork_resources(clone)
        return clone

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        # Live resources (mounted sandboxes, browser processes) cannot cross a pickle; a
        # family names them in _live_attributes and recreates them on the next reset.
        state = self.__dict__.copy()
        for name in self._live_attributes():
            state[name] = None
        return state

    def _live_attributes(self) -> tuple[str, ...]:
        return ()


def _detached(obs: Any) -> Any:
    """A copy of an observation: users keep and may modify what an env returns (check_env)."""
    return obs if isinstance(obs, str) else copy.deepcopy(obs)


def _sandbox_spec(sandbox: str | dict[str, Any] | None) -> dict[str, Any]:
    """The checked :func:`codegym.sandbox.create` arguments of ``sandbox=`` (see ``arguments.py``)."""
    return sandbox_spec(sandbox)


def _short(exc: BaseException) -> str:
    """One line for ``exc``: a copy's first failure (shutil.Error lists every file's)."""
    errors = exc.args[0] if isinstance(exc, shutil.Error) and exc.args else None
    if isinstance(errors, list) and errors and isinstance(errors[0], tuple):
        more = f" (and {len(errors) - 1} more files)" if len(errors) > 1 else ""
        return f"{errors[0][-1]}{more}"[:500]
    return str(exc)[:500]


def blank(space: gym.Space) -> Any:
    """The emptiest element of ``space``: the observation of an episode that could not start."""
    if isinstance(space, gym.spaces.Text):
        return " " * space.min_length
    if isinstance(space, gym.spaces.Box):
        return np.clip(np.zeros(space.shape), space.low, space.high).astype(space.dtype)
    if isinstance(space, gym.spaces.Discrete):
        return space.start
    if isinstance(space, gym.spaces.Dict):
        return {key: blank(sub) for key, sub in space.spaces.items()}
    if isinstance(space, gym.spaces.Tuple):
        return tuple(blank(sub) for sub in space.spaces)
    return space.sample()
