"""Split SVG source at drawable-element boundaries, tolerating malformed markup.

A render-progress reward needs, for every drawable element, its character span in the
action and the closed document made of everything up to it. A strict XML parser cannot
give that for the broken documents models write (unclosed tags, cut-off output), so this
module scans tags with one regular expression and keeps its own stack of open elements.

Also here: :func:`screen_svg`, the check that blocks what must never reach the renderer
(XML entities and DTDs: billion-laughs; references to files or the network).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Elements that put paint on the canvas: each one is a split point.
DRAWABLE = frozenset({"rect", "circle", "ellipse", "line", "polyline", "polygon", "path", "text", "use", "image"})
#: Containers whose content is not drawn where it stands (definitions, paint servers).
NOT_RENDERED = frozenset(
    {
        "defs",
        "symbol",
        "clipPath",
        "mask",
        "marker",
        "pattern",
        "linearGradient",
        "radialGradient",
        "filter",
        "style",
        "title",
        "desc",
        "metadata",
        "script",
        "foreignObject",
    }
)
#: Attribute the splitter adds to each split element so the render worker can find it.
KEY_ATTR = "data-codegym-k"

_TAG = re.compile(
    r"<!--.*?(?:-->|\Z)"
    r"|<!\[CDATA\[.*?(?:\]\]>|\Z)"
    r"|<\?.*?(?:\?>|\Z)"
    r"|<!(?:[^\[>]|\[.*?(?:\]|\Z))*(?:>|\Z)"
    r"|<(?P<close>/?)(?P<name>[A-Za-z_][\w:.-]*)(?P<attrs>(?:\"[^\"]*\"|'[^']*'|[^'\">])*)(?:>|\Z)",
    re.S,
)


@dataclass(frozen=True)
class Element:
    """One drawable element of the source.

    Attributes:
        start: offset of its ``<``.
        end: offset just past its end (its end tag, or where an enclosing tag closed it).
        tag: its local name.
        closers: the end tags that close what is still open after it (for a closed prefix).
        key_at: offset just past its tag name (where the worker's key attribute goes).

    """

    start: int
    end: int
    tag: str
    closers: str
    key_at: int


def _local(name: str) -> str:
    return name.rsplit(":", 1)[-1]


def split_svg(code: str) -> list[Element]:
    """The drawable elements of ``code`` in document order, with their spans and closers.

    An element counts when no ancestor is drawable or a non-rendered container. An element
    left open ends where an enclosing end tag (or the end of the text) closed it.
    """
    stack: list[tuple[str, int | None]] = []  # (qualified name, index into pending or None)
    pending: list[dict] = []
    done: list[Element] = []

    def finish(idx: int, end: int, own: str = "") -> None:
        item = pending[idx]
        names = [n for n, _ in stack]
        # An element some other tag closed is still open in its prefix: close it too.
        closers = (f"</{own}>" if own else "") + "".join(f"</{n}>" for n in reversed(names))
        done.append(Element(item["start"], end, item["tag"], closers, item["key_at"]))

    def blocked() -> bool:
        return any(_local(n) in DRAWABLE or _local(n) in NOT_RENDERED for n, _ in stack)

    for m in _TAG.finditer(code):
        name = m.group("name")
        if name is None:
            continue
        local = _local(name)
        if m.group("close"):
            if not any(n == name for n, _ in stack):
                continue  # a stray end tag closes nothing
            while stack:
                n, idx = stack.pop()
                if idx is not None:
                    if n == name:
                        finish(idx, m.end())
                    else:
                        finish(idx, m.start(), own=n)
                if n == name:
                    break
            continue
        self_closing = m.group("attrs").rstrip().endswith("/") and m.group(0).endswith(">")
        split = local in DRAWABLE and not blocked()
        idx = None
        if split:
            pending.append({"start": m.start(), "tag": local, "key_at": m.start("name") + len(name)})
            idx = len(pending) - 1
        if self_closing:
            if idx is not None:
                finish(idx, m.end())
        else:
            stack.append((name, idx))
    while stack:  # left open at the end of the text
        n, idx = stack.pop()
        if idx is not None:
            finish(idx, len(code), own=n)
    done.sort(key=lambda e: e.start)
    return done


def annotate(code: str, elements: list[Element]) -> tuple[str, list[tuple[int, int, str]]]:
    """``code`` with ``KEY_ATTR="k"`` added to each element, and the elements' spans in it.

    Returns:
        The annotated text and, per element, ``(start, end, closers)`` in annotated offsets.

    """
    inserts = sorted((e.key_at, f' {KEY_ATTR}="{k}"') for k, e in enumerate(elements))
    out, last, shift_at = [], 0, []
    for at, text in inserts:
        out.append(code[last:at])
        out.append(text)
        shift_at.append((at, len(text)))
        last = at
    out.append(code[last:])

    def shifted(pos: int, inclusive: bool) -> int:
        return pos + sum(n for at, n in shift_at if at < pos or (inclusive and at == pos))

    spans = [(shifted(e.start, False), shifted(e.end, True), e.closers) for e in elements]
    return "".join(out), spans


# --------------------------------------------------------------------------- screening
_ENTITY = re.compile(r"<!(?:DOCTYPE|ENTITY)", re.I)
_REF = re.compile(
    r"""(?:(?:xlink:)?href|src)\s*=\s*(["'])\s*(?P<v1>[^"']*)\1"""
    r"""|url\(\s*["']?(?P<v2>[^)"']*)"""
    r"""|@import""",
    re.I,
)


_ID = re.compile(r"""(?:^|\s)id\s*=\s*(["'])(?P<v>[^"']*)\1""")
_HREF = re.compile(r"""(?:^|\s)(?:xlink:)?href\s*=\s*(["'])\s*#(?P<v>[^"']*)\1""")


def reference_cycle(code: str) -> list[str]:
    """Ids on a cycle of ``<use>`` references (an element that ends up using itself), or []."""
    edges: dict[str, set[str]] = {}
    stack: list[tuple[str, str | None]] = []
    for m in _TAG.finditer(code):
        name = m.group("name")
        if name is None:
            continue
        if m.group("close"):
            if any(n == name for n, _ in stack):
                while stack and stack.pop()[0] != name:
                    pass
            continue
        attrs = m.group("attrs")
        ident = _ID.search(attrs)
        me = ident.group("v") if ident else None
        ref = _HREF.search(attrs) if _local(name) in ("use", "tref") else None
        if ref:
            # A reference made inside an element is made by that element and its ancestors.
            for owner in [i for _, i in stack if i] + ([me] if me else []):
                edges.setdefault(owner, set()).add(ref.group("v"))
        if not (attrs.rstrip().endswith("/") and m.group(0).endswith(">")):
            stack.append((name, me))
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = 2
        path.pop()
        return []

    for start in sorted(edges):
        if start not in state:
            cycle = visit(start)
            if cycle:
                return cycle
    return []


def screen_svg(code: str) -> list[tuple[str, str]]:
    """Reasons to refuse rendering ``code``: ``(flag, message)`` pairs; empty when clean.

    Flags: ``xml_entities`` (DTDs and entity declarations: billion-laughs, external
    entities), ``external_reference`` (any reference that is not ``#id`` or ``data:``,
    e.g. ``file://``, ``http://``, ``@import``) and ``recursive_reference`` (``<use>``
    elements that end up using themselves: unbounded recursion).
    """
    found: list[tuple[str, str]] = []
    cycle = reference_cycle(code)
    if cycle:
        found.append(("recursive_reference", f"<use> references form a cycle through ids {cycle}"))
    if _ENTITY.search(code):
        found.append(("xml_entities", "DOCTYPE / ENTITY declarations are not allowed (entity expansion)"))
    for m in _REF.finditer(code):
        value = (m.group("v1") or m.group("v2") or "").strip()
        if m.group(0).lower() == "@import" or not (value.startswith("#") or value.startswith("data:") or value == ""):
            shown = value or m.group(0)
            found.append(
                ("external_reference", f"external reference {shown[:80]!r} is not allowed; use #id or data: URLs")
            )
            break
    return found
