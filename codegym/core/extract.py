"""Pull the code out of a model's completion: fenced block, language tag, or raw code.

The env, not the caller, extracts the code (docs/contract.md, Env contract), and it keeps the
character offsets of what it took so that token-level rewards computed on the code can be
mapped back onto spans of the original action string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# ```lang\n ... ``` ; the closing fence may be missing when a completion was cut off.
# A fence opens only where a run of backticks (or tildes) begins, and every part of the opening
# line is matched once (possessive): the old pattern tried every backtick of a long run as an
# opening, with every shorter length, and a reply of n backticks cost n**3 steps (16,000 of
# them: minutes). A backtick fence's info string holds no backtick (CommonMark), a tilde
# fence's no tilde, so a line of many fences is read once. A closing fence starts a line; an
# info string right after it (```js console.log(1)``` in the code) does not close the block,
# while blanks or prose after a space do (``` That's it.).
_FENCE = re.compile(
    r"(?<![`~])(?:(?P<bt>`{3,}+)[ \t]*+(?P<lb>[\w+#.-]*+)[^\n`]*+|(?P<tl>~{3,}+)[ \t]*+(?P<lt>[\w+#.-]*+)[^\n~]*+)\n"
    r"(?P<body>.*?)(?:\n[ \t]*(?(bt)(?P=bt)|(?P=tl))[`~]*(?![\w+#-])|\Z)",
    re.S,
)

LANGUAGE_ALIASES = {
    "py": "python",
    "python3": "python",
    "python": "python",
    "cpp": "cpp",
    "c++": "cpp",
    "cc": "cpp",
    "cxx": "cpp",
    "js": "javascript",
    "javascript": "javascript",
    "node": "javascript",
    "jsx": "jsx",
    "rs": "rust",
    "rust": "rust",
    "sh": "bash",
    "bash": "bash",
    "shell": "bash",
    "diff": "diff",
    "patch": "diff",
    "svg": "svg",
    "xml": "svg",
    "tex": "tikz",
    "latex": "tikz",
    "tikz": "tikz",
    "html": "html",
    "tsx": "jsx",
    "cuda": "cuda",
    "cu": "cuda",
}


@dataclass(frozen=True)
class Extracted:
    """Code found in a completion.

    Attributes:
        code: the extracted code.
        start: offset of ``code`` in the completion (``completion[start:end] == code``).
        end: end offset, exclusive.
        language: normalised language tag of the fence, or None (unfenced, or untagged).
        fenced: whether the code came from a fenced block.

    """

    code: str
    start: int
    end: int
    language: str | None
    fenced: bool


def extract_code(completion: str, language: str | None = None) -> Extracted | None:
    """Return the code of a completion, or None when it holds none.

    Rules, in order: among fenced blocks, the last one tagged with ``language`` (or an alias),
    else the last untagged one, else the last of any tag; with no fence at all, the whole
    completion stripped of surrounding blank space (raw code). Empty code is None.

    Args:
        completion: the model's text.
        language: the language the task asks for (``python``, ``cpp``, ...), if any.

    """
    blocks = []
    for m in _FENCE.finditer(completion):
        tag = (m.group("lb") or m.group("lt") or "").lower()
        blocks.append((LANGUAGE_ALIASES.get(tag, tag or None), m.start("body"), m.end("body")))
    if blocks:
        want = LANGUAGE_ALIASES.get(language or "", language)
        chosen = ([b for b in blocks if want and b[0] == want] or [b for b in blocks if b[0] is None] or blocks)[-1]
        lang, start, end = chosen
        code = completion[start:end]
        if not code.strip():
            return None
        return Extracted(code, start, end, lang, True)
    stripped = completion.strip()
    if not stripped:
        return None
    start = completion.index(stripped)
    return Extracted(stripped, start, start + len(stripped), None, False)
