"""DHRCL-style reward curriculum: syntax -> execution -> pass rate + structure.

The wrapper shapes the reward an agent sees by stage, from the components a CodeGen-like
env reports in ``info["reward_components"]`` (``syntax``, ``execution``, ``pass_rate``,
``structure``):

=====  ===============  ===============================================
stage  name             reward seen by the agent
=====  ===============  ===============================================
0      ``syntax``       ``syntax``
1      ``execution``    ``0.3 * syntax + 0.7 * execution``
2      ``pass``         ``0.8 * pass_rate + 0.2 * structure`` (1 when solved)
=====  ===============  ===============================================

Stage changes follow the *trend* of a validation metric, not fixed thresholds on its
level: over the last ``window`` values of the metric, fit a least-squares line and compute
the t-statistic of its slope, ``t = slope / stderr(slope)``. While the metric still
improves significantly (``t > t_plateau``) the stage holds; once it has plateaued
(``t <= t_plateau``, at least ``min_episodes`` in the stage) the curriculum moves on. The
validation metric is what :meth:`CurriculumWrapper.report_validation` received (held-out
evaluations, preferred), else the current stage's own reward over training episodes.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

import gymnasium as gym

STAGES = ("syntax", "execution", "pass")


def stage_reward(stage: int, comp: dict[str, float]) -> float:
    """The shaped reward of ``stage`` from a step's reward components (see module doc)."""
    syntax, execution = comp.get("syntax", 0.0), comp.get("execution", 0.0)
    if stage == 0:
        return syntax
    if stage == 1:
        return 0.3 * syntax + 0.7 * execution
    if comp.get("solved", 0.0) >= 1.0:
        return 1.0
    return 0.8 * comp.get("pass_rate", 0.0) + 0.2 * comp.get("structure", 0.0)


def slope_t_statistic(values: list[float]) -> float:
    """t-statistic of the least-squares slope of ``values`` against their index.

    ``+inf`` for a perfectly rising line, ``-inf`` falling, 0 for a flat one or fewer than
    three values.
    """
    n = len(values)
    if n < 3:
        return 0.0
    xm, ym = (n - 1) / 2, sum(values) / n
    sxx = sum((i - xm) ** 2 for i in range(n))
    slope = sum((i - xm) * (v - ym) for i, v in enumerate(values)) / sxx
    resid = sum((v - (ym + slope * (i - xm))) ** 2 for i, v in enumerate(values))
    if resid <= 1e-18:
        return 0.0 if abs(slope) < 1e-12 else math.copysign(math.inf, slope)
    stderr = math.sqrt(resid / (n - 2) / sxx)
    return slope / stderr


class CurriculumWrapper(gym.Wrapper):
    """Shape the reward by DHRCL stage; advance when the validation trend plateaus.

    Args:
        env: a codegym env whose ``info["reward_components"]`` holds syntax / execution /
            pass_rate / structure (CodeGen-v0 does).
        window: how many recent metric values the trend is fitted on (>= 3).
        t_plateau: the slope t-statistic at or below which the metric counts as plateaued.
        min_episodes: fewest metric values in a stage before it may end.
        start_stage: index of the first stage.

    """

    def __init__(
        self, env: gym.Env, window: int = 20, t_plateau: float = 1.0, min_episodes: int = 20, start_stage: int = 0
    ) -> None:
        if window < 3:
            raise ValueError(f"window must be >= 3 to fit a trend, got {window}")
        if not 0 <= start_stage < len(STAGES):
            raise ValueError(f"start_stage must be in [0, {len(STAGES) - 1}], got {start_stage}")
        super().__init__(env)
        self.window, self.t_plateau, self.min_episodes = window, t_plateau, max(min_episodes, window)
        self.stage = start_stage
        self._train: deque[float] = deque(maxlen=window)
        self._valid: deque[float] = deque(maxlen=window)
        self._in_stage = 0
        self.history: list[dict[str, Any]] = []

    @property
    def stage_name(self) -> str:
        """Name of the current stage."""
        return STAGES[self.stage]

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the env; the reward is the stage's shaped reward (the env's stays in info)."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        comp = info.get("reward_components", {})
        shaped = stage_reward(self.stage, comp)
        info = dict(info)
        info["curriculum"] = {"stage": self.stage_name, "index": self.stage, "env_reward": float(reward)}
        if terminated or truncated:
            self._train.append(shaped)
            self._in_stage += 1
            self._maybe_advance()
        return obs, shaped, terminated, truncated, info

    def report_validation(self, value: float) -> None:
        """Feed one held-out evaluation of the current stage's metric (drives the trend)."""
        self._valid.append(float(value))
        self._in_stage += 1
        self._maybe_advance()

    def trend(self) -> float:
        """Slope t-statistic of the metric that drives the curriculum now."""
        values = self._valid if self._valid else self._train
        return slope_t_statistic(list(values))

    def _maybe_advance(self) -> None:
        values = self._valid if self._valid else self._train
        if self.stage >= len(STAGES) - 1 or self._in_stage < self.min_episodes or len(values) < self.window:
            return
        t = slope_t_statistic(list(values))
        if t <= self.t_plateau:
            self.history.append(
                {"from": self.stage_name, "after": self._in_stage, "t": t, "mean": sum(values) / len(values)}
            )
            self.stage += 1
            self._in_stage = 0
            self._train.clear()
            self._valid.clear()
