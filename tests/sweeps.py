"""How much of a full set the slow suites check: a seeded sample, or all with CODEGYM_FULL_SWEEP=1.

CI runs the slow suites on two cores inside its time limit and pytest's 600 s per test, so
the heaviest sweeps check a seeded sample there. ``CODEGYM_FULL_SWEEP=1`` (with
``--timeout 0``) makes every one of them check its whole set; ``codegym validate`` does the
full repeated check of every gold.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence

FULL = os.environ.get("CODEGYM_FULL_SWEEP") == "1"


def sample(items: Sequence[str], n: int, seed: int = 0) -> list[str]:
    """``n`` of ``items`` chosen with ``seed`` (all of them under CODEGYM_FULL_SWEEP=1), sorted."""
    items = sorted(items)
    return items if FULL or n >= len(items) else sorted(random.Random(seed).sample(items, n))


def size(full: int, sampled: int) -> int:
    """A count (episodes, say): ``full`` under CODEGYM_FULL_SWEEP=1, else ``sampled``."""
    return full if FULL else sampled
