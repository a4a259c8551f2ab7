"""Text spaces for code: any Unicode string up to a maximum length.

Gymnasium's ``Text`` space checks every character against a charset (alphanumerics by
default), which rejects code: spaces, newlines, brackets, non-ASCII identifiers. These
spaces accept any ``str`` within the length bounds, and ``sample()`` draws printable text
with spaces and newlines so that ``check_env`` exercises the env with code-like input.
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium import spaces

# What sample() draws from: printable ASCII (code punctuation, digits, letters, space,
# newline, tab) and a few non-ASCII letters so that encodings are exercised too.
SAMPLE_CHARSET = string.printable.replace("\r", "").replace("\x0b", "").replace("\x0c", "") + "éλ你"


class UnicodeText(spaces.Text):
    """A ``gymnasium.spaces.Text`` that contains every Unicode string of allowed length.

    Args:
        max_length: longest string contained.
        min_length: shortest string contained.
        seed: seed of the space's sampler.

    """

    def __init__(self, max_length: int, *, min_length: int = 0, seed: int | None = None) -> None:
        super().__init__(max_length, min_length=min_length, charset=SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        """True for any ``str`` whose length is within the bounds; no charset check."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """Printable text with spaces and newlines, at most 256 characters long."""
        if mask is not None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        hi = min(self.max_length, 256)
        length = int(self.np_random.integers(self.min_length, hi + 1))
        idx = self.np_random.integers(0, len(SAMPLE_CHARSET), size=length)
        return "".join(SAMPLE_CHARSET[i] for i in np.asarray(idx))

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, UnicodeText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )
