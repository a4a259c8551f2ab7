"""``RecoveryWrapper`` (FC-SWE): failed submits chain into fresh attempts that see what went wrong.

After an attempt ends without solving the task, the wrapped env's repository is restored
to the task's original state and the next attempt starts; its first observation holds the
failed attempt's patch and the verifier's feedback. Attempts chain up to ``max_attempts``.
Each step's reward is that attempt's own reward (trajectory-local: a later success does not
flow back into earlier attempts), and ``info`` carries the ids that group a chain:

* ``info["recovery"]["chain_id"]``: the same for every attempt of one reset;
* ``info["recovery"]["attempt"]``: 1-based attempt number; ``attempt_id``: ``chain_id/aN``;
* ``info["recovery"]["attempt_ids"]``: the ids of the chain's attempts so far;
* ``info["recovery"]["attempt_reward"]``: the attempt's reward when it ended, else None;
* ``info["recovery"]["restarted"]``: a new attempt starts with the returned observation.

The wrapped env must offer ``restart_attempt(preface) -> observation`` on its unwrapped env
(codegym's agentic envs do). The episode terminates when an attempt solves the task, when
the last attempt ends, or on an infrastructure error (never retried as the agent's fault).

The wrapper is forkable (:meth:`RecoveryWrapper.fork`), so a learner can grade chains in
parallel on forks; a fork's chain ids carry a tag of their own (``task#f1.3``), so chains of
different forks never share an id. ``codegym.learner`` trains on each attempt as a sample of
its own, grouped with the attempts of the same task at the same attempt index (FC-SWE's
active set: attempts after a success do not exist, so that chain leaves the set).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

#: Characters of the failed patch shown to the next attempt.
PATCH_PREVIEW = 4000


class RecoveryWrapper(gym.Wrapper):
    """Chain failed attempts into new ones that see the failed patch and the feedback.

    Args:
        env: an env whose unwrapped env has ``restart_attempt(preface)``.
        max_attempts: attempts per episode (>= 1).
        solved_reward: an attempt with at least this reward counts as solved.

    """

    def __init__(self, env: gym.Env, max_attempts: int = 3, solved_reward: float = 1.0) -> None:
        super().__init__(env)
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {max_attempts}")
        if not hasattr(env.unwrapped, "restart_attempt"):
            raise TypeError(
                f"RecoveryWrapper needs an env with restart_attempt(preface); {type(env.unwrapped).__name__} has none"
            )
        self.max_attempts, self.solved_reward = max_attempts, solved_reward
        self._chains = 0
        self._tag = ""  # forks: "f1.", "f1.f2.", ... so chain ids stay unique across forks
        self._forks = 0
        self._chain_id = ""
        self._attempt = 0
        self._ids: list[str] = []

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Start a chain: the first attempt of a new episode."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._chains += 1
        self._chain_id = f"{info.get('task_id', 'task')}#{self._tag}{self._chains}"
        self._attempt = 1
        self._ids = [f"{self._chain_id}/a1"]
        info["recovery"] = self._info(None, False)
        return obs, info

    def fork(self) -> RecoveryWrapper:
        """An independent copy in the same state (the inner env forked), for parallel grading."""
        self._forks += 1
        clone = RecoveryWrapper(_fork_inner(self.env), self.max_attempts, self.solved_reward)
        clone._tag = f"{self._tag}f{self._forks}."
        clone._chains, clone._chain_id, clone._attempt = self._chains, self._chain_id, self._attempt
        clone._ids = list(self._ids)
        return clone

    def _info(self, attempt_reward: float | None, restarted: bool) -> dict[str, Any]:
        return {
            "chain_id": self._chain_id,
            "attempt": self._attempt,
            "attempt_id": self._ids[-1],
            "attempt_ids": list(self._ids),
            "attempt_reward": attempt_reward,
            "restarted": restarted,
        }

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the current attempt; on a failed end, restart the task with feedback."""
        obs, raw_reward, terminated, truncated, info = self.env.step(action)
        reward = float(raw_reward)
        if not (terminated or truncated):
            info["recovery"] = self._info(None, False)
            return obs, reward, terminated, truncated, info
        solved = reward >= self.solved_reward
        if solved or self._attempt >= self.max_attempts or info.get("infra_error"):
            info["recovery"] = self._info(float(reward), False)
            return obs, reward, terminated, truncated, info
        info["recovery"] = self._info(float(reward), True)
        preface = self._preface(info)
        self._attempt += 1
        self._ids.append(f"{self._chain_id}/a{self._attempt}")
        obs = self.env.unwrapped.restart_attempt(preface)  # type: ignore[attr-defined]
        info["recovery"]["next_attempt_id"] = self._ids[-1]
        return obs, reward, False, False, info

    def _preface(self, info: dict[str, Any]) -> str:
        episode = getattr(self.env.unwrapped, "episode", None)
        patch = str(episode.state.get("last_patch", "")) if episode is not None else ""
        if len(patch) > PATCH_PREVIEW:
            patch = (
                patch[:PATCH_PREVIEW]
                + f"\n[... {len(patch) - PATCH_PREVIEW} more characters of the patch not shown ...]\n"
            )
        parts = [
            f"Attempt {self._attempt} of {self.max_attempts} failed. "
            "The repository has been restored to its original state."
        ]
        if patch.strip():
            parts.append(f"The failed attempt's patch:\n```diff\n{patch.rstrip()}\n```")
        parts.append(f"The verifier said:\n{info.get('feedback', '').strip() or '(no feedback)'}")
        return "\n\n".join(parts) + "\n\n---\n\n"


def _fork_inner(env: gym.Env) -> gym.Env:
    """A fork of ``env``: its own ``fork()``, or the unwrapped env's under bookkeeping wrappers."""
    if callable(getattr(type(env), "fork", None)):
        return env.fork()
    inner = env
    while isinstance(inner, gym.Wrapper):
        if type(inner).__name__ not in ("OrderEnforcing", "PassiveEnvChecker", "TimeLimit"):
            raise TypeError(f"cannot fork {type(inner).__name__}: it changes what step returns and has no fork()")
        inner = inner.env
    return inner.fork()  # type: ignore[attr-defined]
