"""The return of a multi-turn episode and what "solved" means, per env family: the ONE place.

A multi-turn episode is a list of turns, each with the reward the env gave that step. What
those rewards mean differs by family, and summing them is only right for some:

* ``final``: every turn re-grades the WHOLE attempt as it now stands (CodeGen re-runs every
  hidden test on the new program, WebApp every rubric flow on the new app, ...). The step
  reward is the attempt's score so far, so the episode's score is the last turn's reward.
  Summing would pay "fail, then fix" (0.42 + 1.0) more than "solve at once" (1.0).
* ``sum``: turns earn separate rewards that add up to the episode's score (the agentic
  families: tool calls earn 0, or with ``step_rewards=True`` the change in score, and the
  graded submit earns the rest). The return is the discounted sum ``sum_t gamma^t r_t``.

Then, for both, ``turn_penalty`` per turn after the first makes solving earlier better::

    final:  G = r_T                        - turn_penalty * (T - 1)
    sum:    G = sum_{t=0}^{T-1} gamma^t r_t - turn_penalty * (T - 1)
    score   = r_T (final) or sum_t r_t (sum)        (undiscounted, no penalty)
    solved  = score >= solved_at

``solved_at`` is the family's full reward (``env.unwrapped.full_reward``, 1.0 for every
codegym family) unless the family ends episodes at a lower mark (ImageToSVG / ImageToTikZ
terminate at 0.99). In a recovery chain (``RecoveryWrapper``) each attempt is its own
sample with its own return; the chain is solved when an attempt is.

An env the table does not know may say ``episode_return = "final"`` or ``"sum"`` as an
attribute of its unwrapped env (and ``solved_reward``); otherwise the learner uses ``sum``
(Gymnasium's meaning of a return) and warns when episodes have more than one turn.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

KINDS = ("final", "sum")


@dataclass(frozen=True)
class ReturnRule:
    """How one family's step rewards make an episode's return.

    Attributes:
        kind: ``final`` (the last turn's reward is the score) or ``sum`` (rewards add up).
        solved_at: score at or above which an episode is solved; None: the env's full reward.
        why: what the family's step reward means (from its docstring).
        score_kind: how the family's score (and so "solved") is read, whatever return the
            config asks for; None: ``kind``.

    """

    kind: str
    solved_at: float | None = None
    why: str = ""
    score_kind: str | None = None


_RESCORED = "each turn re-grades the whole attempt, so a step reward is the score so far"
#: Keyed by the env id without its version (``CodeGen-v0`` -> ``CodeGen``).
FAMILY_RETURNS: dict[str, ReturnRule] = {
    "CodeGen": ReturnRule("final", None, _RESCORED + " (every hidden test on the new program)"),
    "CodeOptimization": ReturnRule("final", None, _RESCORED + " (tests and timing of the new program)"),
    "WebApp": ReturnRule("final", None, _RESCORED + " (every rubric flow on the new app)"),
    "ImageToSVG": ReturnRule("final", 0.99, _RESCORED + " (the new render); the env ends the episode at 0.99"),
    "ImageToTikZ": ReturnRule("final", 0.99, _RESCORED + " (the new render); the env ends the episode at 0.99"),
    "TextToCAD": ReturnRule(
        "final", None, "steps before the last earn 0 and the last earns the score of the last executed code"
    ),
    "CodeRepair": ReturnRule(
        "sum", None, "tool steps earn 0 (step_rewards: the change in score); the rewards add up to the final score"
    ),
    "TestGen": ReturnRule(
        "sum", None, "tool steps earn 0 (step_rewards: the change in score); the rewards add up to the final score"
    ),
    "Terminal": ReturnRule("sum", None, "commands earn 0 and the verifier's reward comes at the end"),
    "ProgramEvolution": ReturnRule(
        "sum", None, "each step earns its child's fitness gain; the best-gain parts add up to the search's gain"
    ),
    "EvolveStep": ReturnRule("final", None, "one step: the improved program's fitness gain"),
}


def family_of(env: Any) -> str:
    """The family name of ``env``: its registered id without ``-vN``, else its class name less ``Env``."""
    spec = getattr(env, "spec", None) or getattr(getattr(env, "unwrapped", env), "spec", None)
    if spec is not None and getattr(spec, "id", None):
        name = spec.id.split(":")[-1].split("/")[-1]
        return re.sub(r"-v\d+$", "", name)
    return re.sub(r"Env$", "", type(getattr(env, "unwrapped", env)).__name__)


def resolve_rule(env: Any, kind: str = "auto", solved_at: float | None = None, multi_turn: bool = True) -> ReturnRule:
    """The rule for ``env``: the table's, or the env's own declaration, with explicit overrides.

    Args:
        env: the env (wrappers allowed).
        kind: ``auto`` (the table / the env) or ``final`` / ``sum`` to override.
        solved_at: overrides the solved threshold when not None.
        multi_turn: episodes have more than one turn (or attempt); only then does an
            unknown env's guess deserve a warning.

    """
    base = getattr(env, "unwrapped", env)
    rule = FAMILY_RETURNS.get(family_of(env))
    if rule is None:
        declared = getattr(base, "episode_return", None)
        if declared in KINDS:
            rule = ReturnRule(declared, getattr(base, "solved_reward", None), f"{type(base).__name__}.episode_return")
        else:
            if multi_turn and kind == "auto":
                warnings.warn(
                    f"the learner does not know what {family_of(env)}'s step rewards mean; it sums them "
                    "(Gymnasium's return). If each turn re-grades the whole attempt, set "
                    "episode_return=final (or give the env an episode_return attribute)",
                    stacklevel=2,
                )
            rule = ReturnRule("sum", None, "unknown env: Gymnasium's sum of rewards")
    score_kind = rule.kind
    if kind != "auto":
        if kind not in KINDS:
            raise ValueError(f"episode_return must be one of ['auto', 'final', 'sum'], got {kind!r}")
        if rule.why.startswith("unknown env"):  # nothing better to read the score by
            score_kind = kind
        rule = ReturnRule(kind, rule.solved_at, f"episode_return={kind} (config)")
    threshold = solved_at if solved_at is not None else rule.solved_at
    if threshold is None:
        threshold = float(getattr(base, "full_reward", 1.0))
    return ReturnRule(rule.kind, float(threshold), rule.why, score_kind)


def episode_return(
    rewards: Sequence[float],
    kind: str,
    discount: float = 1.0,
    turn_penalty: float = 0.0,
    score_kind: str | None = None,
) -> tuple[float, float]:
    """``(return G, score)`` of one episode (or one attempt) from its turns' rewards.

    See the module docstring for the formulas; the score is read by ``score_kind`` (the
    family's own kind; None: ``kind``), so a config that asks for another return does not
    change what "solved" means. An episode with no turn returns ``(0.0, 0.0)``.
    """
    for name, value in (("kind", kind), ("score_kind", score_kind or kind)):
        if value not in KINDS:
            raise ValueError(f"{name} must be one of {list(KINDS)}, got {value!r}")
    if not rewards:
        return 0.0, 0.0
    rewards = [float(r) for r in rewards]
    penalty = turn_penalty * (len(rewards) - 1)
    if kind == "final":
        g = rewards[-1]
    else:
        g = sum(discount**t * r for t, r in enumerate(rewards))
    score = rewards[-1] if (score_kind or kind) == "final" else sum(rewards)
    return g - penalty, score


def is_solved(score: float, solved_at: float) -> bool:
    """Whether a score reaches the solved mark (a float-rounding hair below still counts)."""
    return score >= solved_at - 1e-9
