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
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass, field

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
        key_at: offset just past its tag name (where the worker's key attribute goes).
        own: the element's own end tag when some other tag closed it (``"</rect>"``), else "".
        open_at: the elements still open after it, as an index into ``open_tags`` (-1: none).
        open_tags: ``(name, parent index)`` of every element that was ever open, shared by
            all elements of one split (a persistent stack: the closers of every element
            cost memory linear in the document, however deep it nests).

    """

    start: int
    end: int
    tag: str
    key_at: int
    own: str = ""
    open_at: int = -1
    open_tags: list[tuple[str, int]] = field(default_factory=list, compare=False, repr=False)

    @property
    def closers(self) -> str:
        """The end tags that close what is still open after it (for a closed prefix)."""
        return self.own + closers_of(self.open_tags, self.open_at)


def closers_of(open_tags: list[tuple[str, int]], at: int) -> str:
    """End tags of the open elements from ``at`` (an index into ``open_tags``) up to the root."""
    out = []
    while at >= 0:
        name, at = open_tags[at]
        out.append(f"</{name}>")
    return "".join(out)


def _local(name: str) -> str:
    return name.rsplit(":", 1)[-1]


def split_svg(code: str) -> list[Element]:
    """The drawable elements of ``code`` in document order, with their spans and closers.

    An element counts when no ancestor is drawable or a non-rendered container. An element
    left open ends where an enclosing end tag (or the end of the text) closed it. Time and
    memory are linear in the length of ``code`` (no per-element walk of the open elements).
    """
    open_tags: list[tuple[str, int]] = []  # persistent stack: (name, parent index)
    stack: list[tuple[str, int | None, int]] = []  # (qualified name, index into pending or None, open_tags index)
    on_stack: Counter[str] = Counter()
    blocking = 0  # open elements that are drawable or non-rendered containers
    pending: list[dict] = []
    done: list[Element] = []

    def top() -> int:
        return stack[-1][2] if stack else -1

    def finish(idx: int, end: int, own: str = "") -> None:
        item = pending[idx]
        # An element some other tag closed is still open in its prefix: close it too.
        done.append(
            Element(item["start"], end, item["tag"], item["key_at"], f"</{own}>" if own else "", top(), open_tags)
        )

    def pop() -> tuple[str, int | None]:
        nonlocal blocking
        n, idx, _ = stack.pop()
        on_stack[n] -= 1
        blocking -= _blocks(n)
        return n, idx

    for m in _TAG.finditer(code):
        name = m.group("name")
        if name is None:
            continue
        local = _local(name)
        if m.group("close"):
            if not on_stack[name]:
                continue  # a stray end tag closes nothing
            while stack:
                n, idx = pop()
                if idx is not None:
                    if n == name:
                        finish(idx, m.end())
                    else:
                        finish(idx, m.start(), own=n)
                if n == name:
                    break
            continue
        self_closing = m.group("attrs").rstrip().endswith("/") and m.group(0).endswith(">")
        split = local in DRAWABLE and not blocking
        idx = None
        if split:
            pending.append({"start": m.start(), "tag": local, "key_at": m.start("name") + len(name)})
            idx = len(pending) - 1
        if self_closing:
            if idx is not None:
                finish(idx, m.end())
        else:
            open_tags.append((name, top()))
            stack.append((name, idx, len(open_tags) - 1))
            on_stack[name] += 1
            blocking += _blocks(name)
    while stack:  # left open at the end of the text
        n, idx = pop()
        if idx is not None:
            finish(idx, len(code), own=n)
    done.sort(key=lambda e: e.start)
    return done


def _blocks(name: str) -> bool:
    local = _local(name)
    return local in DRAWABLE or local in NOT_RENDERED


def annotate(code: str, elements: list[Element]) -> tuple[str, list[tuple[int, int, tuple[str, int]]]]:
    """``code`` with ``KEY_ATTR="k"`` added to each element, and the elements' spans in it.

    Returns:
        The annotated text and, per element, ``(start, end, (own, open_at))`` in annotated
        offsets: the element's closers are ``own + closers_of(open_tags, open_at)``, with
        ``open_tags`` shared by the elements (:attr:`Element.open_tags`).

    """
    inserts = sorted((e.key_at, f' {KEY_ATTR}="{k}"') for k, e in enumerate(elements))
    out, last, where, total = [], 0, [], [0]
    for at, text in inserts:
        out.append(code[last:at])
        out.append(text)
        where.append(at)
        total.append(total[-1] + len(text))
        last = at
    out.append(code[last:])

    def shifted(pos: int, inclusive: bool) -> int:
        # the text inserted before ``pos`` (at ``pos`` too when inclusive): prefix sums, one bisect
        return pos + total[(bisect_right if inclusive else bisect_left)(where, pos)]

    spans = [(shifted(e.start, False), shifted(e.end, True), (e.own, e.open_at)) for e in elements]
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
    """Ids on a cycle of ``<use>`` references (an element that ends up using itself), or [].

    The graph has a node per element with an id (an occurrence: ids may repeat) and one
    per id: an element contains its nearest descendants with ids, a ``<use>`` inside an
    element (or the ``<use>`` itself) refers to an id, and an id stands for each element
    carrying it. A reference made inside an element is thus made by it and all its
    ancestors, with one edge per element: time and memory linear in the document, and an
    iterative search (a chain of thousands of references cannot exhaust Python's stack).
    """
    edges: dict[str, list[str]] = {}
    stack: list[tuple[str, str | None]] = []  # (qualified name, nearest occurrence with an id at or above it)
    on_stack: Counter[str] = Counter()
    for m in _TAG.finditer(code):
        name = m.group("name")
        if name is None:
            continue
        if m.group("close"):
            if on_stack[name]:
                while stack:
                    n, _ = stack.pop()
                    on_stack[n] -= 1
                    if n == name:
                        break
            continue
        attrs = m.group("attrs")
        ident = _ID.search(attrs)
        owner = stack[-1][1] if stack else None
        if ident:
            me = f"e{m.start()}"
            edges.setdefault("#" + ident.group("v"), []).append(me)
            if owner is not None:
                edges.setdefault(owner, []).append(me)
            owner = me
        ref = _HREF.search(attrs) if _local(name) in ("use", "tref") else None
        if ref and owner is not None:
            edges.setdefault(owner, []).append("#" + ref.group("v"))
        if not (attrs.rstrip().endswith("/") and m.group(0).endswith(">")):
            stack.append((name, owner))
            on_stack[name] += 1
    state: dict[str, int] = {}
    for root in sorted(edges):
        if root in state:
            continue
        path, todo = [root], [iter(sorted(edges.get(root, ())))]
        state[root] = 1
        while todo:
            nxt = next(todo[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                todo.pop()
            elif state.get(nxt) == 1:
                cycle = path[path.index(nxt) :]
                return [n[1:] for n in cycle if n.startswith("#")]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                todo.append(iter(sorted(edges.get(nxt, ()))))
    return []


#: Elements that pull a raster picture (or another document) into the drawing.
RASTER_ELEMENTS = frozenset({"image", "foreignobject", "feimage"})
_DATA_URL = r"""url\(\s*(?:["']\s*)?data:"""
_DATA_REF = re.compile(r"""(?:^|\s)(?:xlink:)?(?:href|src)\s*=\s*(["'])\s*data:|""" + _DATA_URL, re.I)
_CSS_DATA_URL = re.compile(_DATA_URL, re.I)


def screen_raster(code: str) -> list[tuple[str, str]]:
    """Reasons to refuse ``code`` for drawing with a picture instead of vector elements.

    Flag ``raster_image``: an ``<image>`` (anywhere: in ``<defs>``, a ``<pattern>``, a
    ``<symbol>``), a ``<foreignObject>`` or ``<feImage>`` element, or a ``data:`` URL in a
    reference or a CSS ``url(...)`` (a ``<use>`` of an embedded document can hold a
    picture). ``<image>`` elements whose reference the external-reference screen already
    refuses are left to it. The task is to draw the target with vector elements: embedding
    the target's pixels would copy it, not draw it.
    """
    for m in _TAG.finditer(code):
        name = m.group("name")
        if name is None or m.group("close"):
            continue
        local = _local(name).lower()
        if local in RASTER_ELEMENTS:
            ref = _REF.search(m.group("attrs"))
            value = (ref.group("v1") or ref.group("v2") or "").strip() if ref else ""
            if local == "image" and value and not value.startswith(("#", "data:")):
                continue  # an external file or address: refused as external_reference
            return [("raster_image", f"<{name}> would paint a picture into the drawing; {_DRAW_WITH_VECTORS}")]
        if _DATA_REF.search(m.group("attrs")):
            return [
                (
                    "raster_image",
                    f"a data: URL in <{name}> would paint a picture into the drawing; {_DRAW_WITH_VECTORS}",
                )
            ]
    if _CSS_DATA_URL.search(code):  # CSS in <style>
        return [("raster_image", f"a data: URL would paint a picture into the drawing; {_DRAW_WITH_VECTORS}")]
    return []


_DRAW_WITH_VECTORS = (
    "draw the target with vector elements (rect, circle, ellipse, line, polyline, polygon, path, text) instead"
)


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
