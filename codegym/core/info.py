"""The grading outcome of one step and the ``info`` dict built from it (docs/contract.md, info keys).

Families return an :class:`Outcome`; :class:`~codegym.core.env.CodeEnv` turns it into the
``info`` dict every codegym env shares and checks its shape, so a family cannot ship an
``info`` that a learner would misread.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

INFO_KEYS = ("task_id", "reward_components", "token_rewards", "feedback", "audit", "verdict")

Span = tuple[int, int, float]


@dataclass
class Outcome:
    """What a family's grader says about one action.

    Attributes:
        reward: the step's reward (formula in the env's docstring).
        components: the named parts the reward is made of.
        feedback: what a model would read to fix its attempt.
        token_rewards: ``(start, end, value)`` half-open character spans over the action.
        verdict: structured, JSON-serialisable grading result.
        audit_flags: names of reward-hacking signs found in the attempt.
        audit_reward: the reward under the independent check; None means equal to ``reward``.
        terminated: the attempt is final (solved, submitted, single-turn graded).
        observation: the next observation; None lets the env build it (multi-turn: feedback).
        infra_error: what broke, when infrastructure and not the attempt failed.

    """

    reward: float
    components: dict[str, float] = field(default_factory=dict)
    feedback: str = ""
    token_rewards: list[Span] = field(default_factory=list)
    verdict: dict[str, Any] = field(default_factory=dict)
    audit_flags: list[str] = field(default_factory=list)
    audit_reward: float | None = None
    terminated: bool = True
    observation: Any = None
    infra_error: str | None = None


def make_info(task_id: str, outcome: Outcome, action_length: int) -> dict[str, Any]:
    """Build and validate the shared ``info`` dict of one step.

    Raises:
        ValueError: when the outcome breaks the contract (non-finite numbers, spans outside
            the action, a verdict that is not JSON-serialisable).

    """
    spans = [[int(s), int(e), float(v)] for s, e, v in outcome.token_rewards]
    info: dict[str, Any] = {
        "task_id": task_id,
        "reward_components": {str(k): float(v) for k, v in outcome.components.items()},
        "token_rewards": spans,
        "feedback": outcome.feedback,
        "audit": {
            "flags": sorted(set(outcome.audit_flags)),
            "audit_reward": float(outcome.reward if outcome.audit_reward is None else outcome.audit_reward),
        },
        "verdict": outcome.verdict,
    }
    if outcome.infra_error:
        info["infra_error"] = outcome.infra_error
    validate_info(info, action_length)
    return info


def validate_info(info: dict[str, Any], action_length: int) -> None:
    """Raise ``ValueError`` naming the key when ``info`` breaks docs/contract.md's contract."""
    missing = [k for k in INFO_KEYS if k not in info]
    if missing:
        raise ValueError(f"info lacks {missing}; every codegym env returns {list(INFO_KEYS)}")
    for name, value in info["reward_components"].items():
        if not math.isfinite(value):
            raise ValueError(f"info['reward_components'][{name!r}] is {value}; must be finite")
    for span in info["token_rewards"]:
        start, end, value = span
        if not (0 <= start < end <= action_length) or not math.isfinite(value):
            raise ValueError(
                f"info['token_rewards'] span {span} is not a finite half-open span inside "
                f"the action of {action_length} characters"
            )
    if not isinstance(info["feedback"], str):
        raise ValueError(f"info['feedback'] must be str, got {type(info['feedback']).__name__}")
    try:
        json.dumps(info["verdict"])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"info['verdict'] must be JSON-serialisable: {exc}") from exc
