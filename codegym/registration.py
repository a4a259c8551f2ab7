"""Every env id codegym registers, with one line saying what it is (``codegym list``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym


@dataclass(frozen=True)
class EnvEntry:
    """One registered env: its id, entry point, default kwargs and a one-line summary."""

    id: str
    entry_point: str
    summary: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    nondeterministic: bool = False


ENVS: list[EnvEntry] = [
]


def register_envs() -> None:
    """Register every entry with Gymnasium (idempotent)."""
    for entry in ENVS:
        if entry.id not in gym.registry:
            gym.register(
                id=entry.id,
                entry_point=entry.entry_point,
                kwargs=dict(entry.kwargs),
                nondeterministic=entry.nondeterministic,
                disable_env_checker=True,  # the registry-wide test runs check_env itself
            )
