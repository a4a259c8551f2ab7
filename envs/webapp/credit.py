"""Rubric-to-code credit: trace each rubric item to the spans of the app's code it rests on.

An item's spans are, in the app's source:

* the elements its flow touches: every occurrence of an id (``#add``), a class (``.row``) or a
  text (``text=Add``, ``:has-text("Add")``) the flow names, as the whole source line;
* the handlers bound to those elements (or their ancestors) for the events the flow fires,
  found in the page through the DevTools protocol, as the handler's full source text;
* the lines named by the stack of an uncaught error thrown while the flow ran.

Spans get +1/n for a passed item and -1/n for a failed one (n = rubric size); spans of
different items may overlap and then add, as docs/contract.md's ``token_rewards`` allow.
"""

from __future__ import annotations

import re
from typing import Any

_ID = re.compile(r"#([A-Za-z_][\w-]*)")
_CLASS = re.compile(r"(?<!\w)\.([A-Za-z_][\w-]*)")
_TEXT = re.compile(r"""(?:^text=|has-text\(|:text\()\s*["']?([^"')]+)["']?""")
_ATTR = re.compile(r"""\[[\w-]+[*^$~|]?=["']?([^"'\]]+)["']?\]""")
MAX_HITS = 8


def tokens_of(selector: str) -> list[str]:
    """The names a selector refers to (ids, classes, texts, attribute values)."""
    out: list[str] = []
    for rx in (_ID, _CLASS, _TEXT, _ATTR):
        out += [m.strip() for m in rx.findall(selector) if len(m.strip()) >= 2]
    return list(dict.fromkeys(out))


def line_span(source: str, pos: int) -> tuple[int, int]:
    """The span of the line holding ``pos``, without its indentation and newline.

    A blank last line (where a cut-off answer ends) gives the line before it.
    """
    pos = min(pos, len(source))
    start = source.rfind("\n", 0, pos) + 1
    end = source.find("\n", pos)
    end = len(source) if end < 0 else end
    while start < end and source[start] in " \t":
        start += 1
    if start == end == len(source) and start > 0:
        return line_span(source, source.rfind("\n", 0, start))
    return (start, min(max(end, start + 1), len(source)))


_EOL = re.compile(r"\r\n|[\n\r\u2028\u2029]")  # line terminators, as JavaScript counts lines
_SCRIPT = re.compile(r"<script\b[^>]*>.*?(?:</script\s*>|\Z)", re.S | re.I)


def _position(source: str, line: int, column: int, html: bool = False) -> int | None:
    """The offset of a 0-based (line, column) as the browser counts them; None past the end.

    JavaScript also ends lines at U+2028 and U+2029; in an HTML document only an inline
    script's do (the HTML parser counts the lines before a script, V8 those within it).
    """
    breaks = [(m.start(), m.end()) for m in _EOL.finditer(source)]
    if html:
        scripts = [m.span() for m in _SCRIPT.finditer(source)]
        breaks = [b for b in breaks if source[b[0]] in "\r\n" or any(a <= b[0] < z for a, z in scripts)]
    if not 0 <= line <= len(breaks):
        return None
    start = breaks[line - 1][1] if line else 0
    end = breaks[line][0] if line < len(breaks) else len(source)
    return start + min(max(column, 0), end - start)


def token_spans(source: str, token: str) -> list[tuple[int, int]]:
    """Lines where ``token`` occurs as a whole name (not inside a longer name)."""
    rx = re.compile(r"(?<![\w-])" + re.escape(token) + r"(?![\w-])")
    return [line_span(source, m.start()) for m in list(rx.finditer(source))[:MAX_HITS]]


def handler_span(source: str, handler: str) -> tuple[int, int] | None:
    """Where a handler's source text (Function.prototype.toString) sits in ``source``."""
    pos = source.find(handler)
    if pos >= 0:
        return (pos, pos + len(handler))
    # An inline attribute handler prints as "function onclick(event) {\nBODY\n}".
    m = re.match(r"function on\w+\(event\) \{\n(.*)\n\}$", handler, re.S)
    if m and m.group(1).strip():
        body = m.group(1)
        pos = source.find(body)
        if pos >= 0:
            return (pos, pos + len(body))
    return None


_STACK = re.compile(r"/(?:index\.html)?:(\d+):(\d+)")


def error_spans(source: str, page_errors: list[dict[str, str]], html: bool) -> list[tuple[int, int]]:
    """Lines of ``source`` named in the stacks of uncaught errors.

    HTML apps only: a React app's stack points into compiled code.
    """
    if not html:
        return []
    out = []
    for err in page_errors:
        for m in _STACK.finditer(err.get("stack", "")):
            pos = _position(source, int(m.group(1)) - 1, int(m.group(2)), html=True)
            if pos is not None:
                out.append(line_span(source, pos))
    return out[:MAX_HITS]


def merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, non-overlapping union of spans."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def item_spans(source: str, result: dict[str, Any], html: bool) -> list[tuple[int, int]]:
    """All code spans of one item's result (see the module docstring)."""
    spans: list[tuple[int, int]] = []
    for sel in result.get("selectors", []):
        for tok in tokens_of(sel):
            spans += token_spans(source, tok)
    for h in result.get("handlers", []):
        span = handler_span(source, h)
        if span:
            spans.append(span)
    spans += error_spans(source, result.get("page_errors", []), html)
    return merge([(s, e) for s, e in spans if 0 <= s < e <= len(source)])


def compile_error_spans(source: str, errors: list[dict[str, Any]], html: bool = False) -> list[tuple[int, int]]:
    """Lines of compile or parse errors (1-based line, 0-based column, as esbuild and V8 say)."""
    out = []
    for err in errors:
        pos = _position(source, int(err.get("line", 1)) - 1, int(err.get("column", 0)), html)
        if pos is not None:
            out.append(line_span(source, pos))
    return merge([(s, e) for s, e in out if 0 <= s < e <= len(source)])
