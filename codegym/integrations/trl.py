"""Any codegym env (any Gymnasium text env) as a TRL reward function.

TRL's ``GRPOTrainer`` calls ``reward_func(prompts=..., completions=..., **columns)`` with the
dataset's other columns as lists; :class:`EnvReward` reads the ``task_id`` column, resets the
env onto that task, steps it with the completion and returns the env's reward. An attempt the
env could not grade (``info["infra_error"]``) gets ``None``, which TRL skips instead of
counting as a zero. TRL itself is not imported here (it is an optional ``bench`` extra).

Example::

    from trl import GRPOConfig, GRPOTrainer
    from codegym.integrations.trl import EnvReward, prompt_dataset

    env = gym.make("CodeGen-v0")
    trainer = GRPOTrainer(model=..., reward_funcs=EnvReward(env), train_dataset=prompt_dataset(env, "train"),
                          args=GRPOConfig(...))
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym


def _text(obs: Any) -> str:
    return str(obs.get("text", "")) if isinstance(obs, dict) else str(obs)


def _completion_text(completion: Any) -> str:
    # Conversational datasets give a list of messages; the last assistant message is the action.
    if isinstance(completion, list):
        return str(completion[-1]["content"]) if completion else ""
    return str(completion)


class EnvReward:
    """A TRL reward function backed by a Gymnasium env.

    Args:
        env: the env, or an env id for ``gym.make``.
        env_kwargs: keyword arguments of ``gym.make`` when ``env`` is an id.
        task_key: dataset column naming the task (passed to ``reset(options={"task_id": ...})``).
        template: how an observation was turned into the prompt (to strip nothing; kept for
            symmetry with :func:`prompt_dataset`).

    Attributes:
        last_infos: the ``info`` dicts of the last call (for token rewards, audits, feedback).

    """

    def __init__(self, env: gym.Env | str, env_kwargs: dict[str, Any] | None = None, task_key: str = "task_id") -> None:
        self.env = gym.make(env, **(env_kwargs or {})) if isinstance(env, str) else env
        self.task_key = task_key
        self.last_infos: list[dict[str, Any]] = []
        self.__name__ = f"codegym_{getattr(self.env.spec, 'id', None) or type(self.env.unwrapped).__name__}"

    def __call__(
        self, prompts: list[Any] | None = None, completions: list[Any] | None = None, **columns: Any
    ) -> list[float | None]:
        """Rewards of ``completions``; ``columns[task_key]`` names each one's task."""
        if completions is None:
            raise ValueError("EnvReward needs completions=[...] (TRL passes them as a keyword)")
        task_ids = columns.get(self.task_key)
        if task_ids is None or len(task_ids) != len(completions):
            raise ValueError(
                f"EnvReward needs a {self.task_key!r} dataset column with one task id per completion, got "
                f"{None if task_ids is None else len(task_ids)} for {len(completions)} completions; "
                "build the dataset with codegym.integrations.trl.prompt_dataset(env)"
            )
        rewards: list[float | None] = []
        self.last_infos = []
        for task_id, completion in zip(task_ids, completions, strict=True):
            self.env.reset(options={"task_id": task_id})
            _obs, reward, _term, _trunc, info = self.env.step(_completion_text(completion))
            self.last_infos.append(info)
            rewards.append(None if info.get("infra_error") else float(reward))
        return rewards

    def close(self) -> None:
        """Close the env."""
        self.env.close()


def prompt_dataset(
    env: gym.Env, split: str | None = "train", template: str = "{observation}\n", as_hf: bool = True
) -> Any:
    """Rows ``{"prompt": text, "task_id": id}``, one per task of ``split`` (``env.unwrapped.tasks``).

    Returns a ``datasets.Dataset`` when ``as_hf`` and the ``datasets`` package is installed,
    else a list of dicts.
    """
    tasks = getattr(env.unwrapped, "tasks", None)
    if tasks is None:
        raise ValueError("prompt_dataset needs env.unwrapped.tasks (a codegym CodeEnv); build rows yourself otherwise")
    rows = []
    for task in tasks:
        if split is not None and task.split != split:
            continue
        obs, _ = env.reset(options={"task_id": task.id})
        rows.append({"prompt": template.format(observation=_text(obs)), "task_id": task.id})
    if as_hf:
        try:
            from datasets import Dataset
        except ImportError:
            return rows
        return Dataset.from_list(rows)
    return rows
