"""A sampler that keeps training at the learnability frontier (DAPO/SWE-smith style curricula).

Tasks the current policy always solves or never solves give GRPO-family learners no signal
(every sample of a group gets the same reward). The sampler keeps a Beta posterior of each
task's pass rate and draws among tasks whose estimate lies inside a band, exploring tasks
with too few trials first.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


class FrontierSampler:
    """Draw task ids whose estimated pass rate lies in ``band``.

    Args:
        task_ids: the tasks to draw from.
        band: ``(low, high)`` pass rates that count as learnable, inclusive.
        min_trials: tasks tried fewer times are drawn first (their rate is unknown).
        prior: Beta prior ``(successes, failures)`` of the pass-rate estimate.

    """

    def __init__(
        self,
        task_ids: Iterable[str],
        band: tuple[float, float] = (0.2, 0.8),
        min_trials: int = 2,
        prior: tuple[float, float] = (1.0, 1.0),
    ) -> None:
        low, high = band
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError(f"band must satisfy 0 <= low <= high <= 1, got {band}")
        self.band, self.min_trials, self.prior = (low, high), min_trials, prior
        self.stats: dict[str, list[float]] = {t: [0.0, 0.0] for t in task_ids}
        if not self.stats:
            raise ValueError("FrontierSampler needs at least one task id")

    def update(self, task_id: str, reward: float) -> None:
        """Record one attempt; ``reward`` in [0, 1] counts as that share of a success."""
        s = self.stats.setdefault(task_id, [0.0, 0.0])
        s[0] += float(reward)
        s[1] += 1.0

    def pass_rate(self, task_id: str) -> float:
        """Posterior mean pass rate of a task."""
        wins, trials = self.stats[task_id]
        a, b = self.prior
        return (wins + a) / (trials + a + b)

    def frontier(self) -> list[str]:
        """Tasks whose estimated pass rate is inside the band (tried at least ``min_trials``)."""
        low, high = self.band
        return [t for t, (_, n) in self.stats.items() if n >= self.min_trials and low <= self.pass_rate(t) <= high]

    def sample(self, rng: np.random.Generator) -> str:
        """One task id: an under-tried task if any, else one in the band, else the nearest."""
        fresh = [t for t, (_, n) in self.stats.items() if n < self.min_trials]
        pool = fresh or self.frontier()
        if not pool:
            centre = sum(self.band) / 2
            best = min(abs(self.pass_rate(t) - centre) for t in self.stats)
            pool = [t for t in self.stats if abs(self.pass_rate(t) - centre) == best]
        return pool[int(rng.integers(len(pool)))]
