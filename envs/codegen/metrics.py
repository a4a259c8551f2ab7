"""Pass@k metrics: the unbiased estimator, and Pass@1 / Pass@K of multi-turn repair (TaPR)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import comb
from typing import Any


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` samples of which ``c`` passed (Chen et al. 2021).

    ``pass@k = 1 - C(n - c, k) / C(n, k)``.

    Raises:
        ValueError: when ``k > n`` or ``c`` is outside ``[0, n]``.

    """
    if not 0 <= c <= n:
        raise ValueError(f"c must be in [0, n={n}], got {c}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be in [1, n={n}], got {k}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def repair_pass_rates(episodes: Iterable[Sequence[dict[str, Any]]]) -> dict[str, float]:
    """Pass@1 (first attempt) and Pass@K (solved by the last turn) of multi-turn episodes.

    Args:
        episodes: for each episode, the ``info`` dicts of its steps in order (what
            ``env.step`` returned); a turn counts as solved when
            ``info["reward_components"]["solved"] == 1``.

    Returns:
        ``{"pass@1": ..., "pass@K": ..., "episodes": n, "mean_turns": ...}``.

    """
    eps = [list(e) for e in episodes]
    if not eps:
        return {"pass@1": 0.0, "pass@K": 0.0, "episodes": 0, "mean_turns": 0.0}

    def solved(info: dict[str, Any]) -> bool:
        return info.get("reward_components", {}).get("solved", 0.0) >= 1.0

    first = sum(bool(e) and solved(e[0]) for e in eps)
    any_turn = sum(any(solved(i) for i in e) for e in eps)
    return {
        "pass@1": first / len(eps),
        "pass@K": any_turn / len(eps),
        "episodes": len(eps),
        "mean_turns": sum(len(e) for e in eps) / len(eps),
    }
