"""Flow contracts: declarative Playwright steps and the expectations a rubric item must meet.

A flow is a list of steps, each a dict with one key naming what it does::

    {"click": "#add"}                     {"dblclick": "#item"}
    {"click": "#overlay", "at": [.02, .02]}   # click at a fraction of the element's box
    {"fill": "#new", "value": "Milk"}     {"type": "#new", "value": "Milk"}   # keystrokes
    {"press": "Enter", "on": "#new"}      {"press": "Escape"}                 # page keyboard
    {"check": "#agree"}                   {"uncheck": "#agree"}
    {"select": "#unit", "value": "km"}    {"hover": "#tip"}
    {"drag": "#row-1", "to": "#row-3"}    {"draw": "#pad", "points": [[.2, .2], [.8, .8]]}
    {"reload": true}                      {"advance": 3000}    # fake clock, milliseconds
    {"wait": 500}                         # real time, milliseconds (at most MAX_WAIT_MS)
    # drag: the pointer passes over what lies between on its way, as a hand's does
    # reload: the app opened again as a new visit (the tab's sessionStorage starts empty)
    {"snap": "#pad", "as": "blank"}       # element screenshot kept for later comparison
    {"expect": KIND, "sel": "...", ...}   # see below

Expectations (polled until they hold or ``wait_ms`` passes, default 1000)::

    text     equals | contains | matches (regex) | not_equals    inner text, spaces collapsed
             (a hidden element's text too: add a ``visible`` step when the user must see it;
             with no comparator: any text)
    texts    equals: [..]                 inner texts of every match, in document order
    count    equals | min                 number of matches
    value    equals | contains | matches | not_equals    form control value
    attr     name, equals | contains | matches | not_equals | absent   (none: present)
    class    has | lacks                  a class name
    visible / hidden / checked / unchecked
    storage  contains                     some localStorage value contains the string
    changed / unchanged   since: SNAP     the element's pixels differ from (match) a snap
    pixel    at: [fx, fy], rgb: [r, g, b], tol   colour of the element's pixel at a fraction of its box

Selectors are Playwright selectors (CSS, ``text=...``, ``:has-text(...)``); actions and
expectations use the first match.

A pass needs the transition observed: every expectation must hold when its step is reached,
and at least one of the flow's expectations must NOT hold on the untouched page: not right
after the load, and, when the flow acts on the app, not after the page ran on its own (fake
clock) for as long as the flow may take, nor once it has been loaded (real time) as long as
the flow took. So the flow saw the app's state change because it acted. A flow whose
expectations all held without it passes nothing. Expectations against a snap
(changed/unchanged) compare with a state captured inside the flow: they count as
transitions unless the element's pixels change on the untouched page by themselves
(``untouched.py``).
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from .dom import NOT_VISIBLE, SEEN_JS, Dom

ACTIONS = (
    "click",
    "dblclick",
    "fill",
    "type",
    "press",
    "check",
    "uncheck",
    "select",
    "hover",
    "drag",
    "draw",
    "reload",
    "advance",
    "wait",
    "snap",
)
EXPECTS = (
    "text",
    "texts",
    "count",
    "value",
    "attr",
    "class",
    "visible",
    "hidden",
    "checked",
    "unchecked",
    "storage",
    "changed",
    "unchanged",
    "pixel",
)
SNAP_EXPECTS = ("changed", "unchanged")  # judged against an earlier snap of the element
# a ``wait`` step's cap, the default ``wait_ms`` of an expectation, and the default share of
# pixels a ``changed``/``unchanged`` check counts as a change (untouched.py plans with them too)
MAX_WAIT_MS = 3000
DEFAULT_WAIT_MS = 1000
DEFAULT_THRESHOLD = 0.002
#: A ``reload`` step opens the app again as a new visit (see ``session.WIPE_INIT``).
REOPEN_PARAM = "__codegym_reopen"

# A drag moves the pointer there in this many steps, over what lies between, as a hand does
# (one jump would fire dragenter/dragover on the target alone).
DRAG_STEPS = 8

# Which DOM events an action can trigger: handlers of these types are credited to the item.
EVENTS_OF = {
    "click": ("click", "mousedown", "mouseup", "pointerdown", "pointerup", "change", "input", "submit"),
    "dblclick": ("dblclick", "click"),
    "fill": ("input", "change", "keyup", "keydown"),
    "type": ("input", "change", "keyup", "keydown", "keypress"),
    "press": ("keydown", "keyup", "keypress", "submit"),
    "check": ("click", "change", "input"),
    "uncheck": ("click", "change", "input"),
    "select": ("change", "input"),
    "hover": ("mouseover", "mouseenter", "pointerenter", "pointerover"),
    "drag": ("dragstart", "dragover", "dragenter", "drop", "dragend", "mousedown", "pointerdown"),
    "draw": ("mousedown", "mousemove", "mouseup", "pointerdown", "pointermove", "pointerup"),
}
ACTION_TIMEOUT_MS = 2000
# The app as loaded (no action run yet) lacks an element when, after an item of the grading
# waited ACTION_TIMEOUT_MS for one to act on in vain, nothing matches its selector (a wrong id,
# most often). Then every selector the grading's items use on the app as loaded is looked up,
# and a later step there waits only this long for one that matched nothing either, when its
# full wait would have ended by the time (after load) it was seen missing, ABSENT_SLACK_S
# given, and nothing matches it when the step starts.
ABSENT_WAIT_MS = 250
ABSENT_SLACK_S = 0.1
# Pointer actions use Playwright's force mode: it skips the actionability waits (two stable
# animation frames, hit-target probe), which cost 3-6x the action itself on a loaded machine,
# while the events still go through the real mouse at the element's coordinates: a covered
# element still does not get the click, and a disabled button still ignores it, as for a user.


class FlowError(Exception):
    """A step could not be carried out (missing element, bad state): the item fails."""


def step_kind(step: dict[str, Any]) -> str:
    """The name of what a step does (``click``, ``expect``, ...)."""
    for key in ("expect", *ACTIONS):
        if key in step:
            return key
    raise ValueError(f"step {step!r} names no action; expected one of {['expect', *ACTIONS]}")


def _text(v: Any) -> bool:
    return isinstance(v, str)


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v < float("inf")


def _pair(v: Any) -> bool:
    return isinstance(v, list | tuple) and len(v) == 2 and all(_number(x) for x in v)


def _scalar(v: Any) -> bool:
    return _text(v) or _number(v)


_COMPARE = {"equals": _scalar, "contains": _scalar, "matches": _text, "not_equals": _scalar}
# Per kind of step: (fields it needs, fields it may have, comparators of which at most one).
_FIELDS: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = {
    "click": ({}, {"at": _pair}, {}),
    "dblclick": ({}, {}, {}),
    "fill": ({"value": _scalar}, {}, {}),
    "type": ({"value": _scalar}, {}, {}),
    "press": ({}, {"on": _text}, {}),
    "check": ({}, {}, {}),
    "uncheck": ({}, {}, {}),
    "select": ({"value": _scalar}, {}, {}),
    "hover": ({}, {}, {}),
    "drag": ({"to": _text}, {}, {}),
    "draw": ({"points": lambda v: isinstance(v, list) and len(v) >= 2 and all(map(_pair, v))}, {}, {}),
    "reload": ({}, {}, {}),
    "advance": ({}, {}, {}),
    "wait": ({}, {}, {}),
    "snap": ({"as": _text}, {}, {}),
    "text": ({"sel": _text}, {}, _COMPARE),
    "texts": ({"sel": _text, "equals": lambda v: isinstance(v, list) and all(map(_text, v))}, {}, {}),
    "count": ({"sel": _text}, {}, {"equals": _number, "min": _number}),
    "value": ({"sel": _text}, {}, _COMPARE),
    "attr": ({"sel": _text, "name": _text}, {}, {**_COMPARE, "absent": lambda v: v is True}),
    "class": ({"sel": _text}, {}, {"has": _text, "lacks": _text}),
    "visible": ({"sel": _text}, {}, {}),
    "hidden": ({"sel": _text}, {}, {}),
    "checked": ({"sel": _text}, {}, {}),
    "unchecked": ({"sel": _text}, {}, {}),
    "storage": ({"contains": _text}, {}, {}),
    "changed": ({"sel": _text, "since": _text}, {"threshold": _number}, {}),
    "unchanged": ({"sel": _text, "since": _text}, {"threshold": _number}, {}),
    "pixel": (
        {"sel": _text, "at": _pair, "rgb": lambda v: isinstance(v, list) and len(v) == 3 and all(map(_number, v))},
        {"tol": _number},
        {},
    ),
}
# What the value of each action's own key must be: a selector, a key name, a time, ...
_ACTION_VALUE = {"press": _text, "reload": lambda v: v is True, "advance": _number, "wait": _number}


def validate_flow(steps: Any) -> list[str]:
    """Problems with a flow (empty list when it is well formed), each naming its step and field.

    A misspelt comparator (``equal``) or a time given as text would otherwise grade: the one
    passing any text, the other failing every answer.
    """
    if not isinstance(steps, list) or not steps:
        return ["flow must be a non-empty list of steps"]
    problems = []
    snaps: set[str] = set()
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            problems.append(f"step {i} is not an object")
            continue
        named = [k for k in ("expect", *ACTIONS) if k in step]
        if len(named) != 1:
            what = f"names {named}" if named else "names no action"
            problems.append(f"step {i} {what}; expected exactly one of {['expect', *ACTIONS]}")
            continue
        kind = named[0]
        if kind == "expect":
            kind = step["expect"]
            if kind not in EXPECTS:
                problems.append(f"step {i}: unknown expectation {kind!r}; expected one of {list(EXPECTS)}")
                continue
            own = {"expect": lambda v: True, "wait_ms": _number}
        else:
            own = {kind: _ACTION_VALUE.get(kind, _text)}
        needs, may, comparators = _FIELDS[kind]
        checks = {**own, **needs, **may, **comparators}
        for key in step:
            if key not in checks:
                problems.append(f"step {i}: unknown field {key!r} for {kind}; expected one of {sorted(checks)}")
            elif not checks[key](step[key]):
                problems.append(f"step {i}: {kind} field {key!r} has a bad value {step[key]!r}")
        problems += [f"step {i}: {kind} needs the field {key!r}" for key in needs if key not in step]
        used = [k for k in comparators if k in step]
        if len(used) > 1:
            problems.append(f"step {i}: {kind} takes one of {sorted(comparators)}, not {used}")
        if kind == "class" and not used:
            problems.append(f"step {i}: class needs 'has' or 'lacks'")
        if "matches" in used and isinstance(step["matches"], str):
            try:
                re.compile(step["matches"])
            except re.error as exc:
                problems.append(f"step {i}: matches is not a regular expression: {exc}")
        if kind in SNAP_EXPECTS and step.get("since") not in snaps:
            problems.append(f"step {i}: {kind} since {step.get('since')!r}, but no earlier step snaps it")
        if kind == "snap":
            snaps.add(step.get("as"))
    kinds = [step_kind(s) for s in steps if isinstance(s, dict) and _known(s)]
    if not kinds or kinds[-1] != "expect":
        problems.append("the last step must be an expectation (the transition to observe)")
    if not any(k != "expect" for k in kinds):
        problems.append("a flow needs at least one action before its final expectation")
    return problems


def _known(step: dict[str, Any]) -> bool:
    try:
        step_kind(step)
        return True
    except ValueError:
        return False


def selectors_of(step: dict[str, Any]) -> list[str]:
    """The selectors a step touches."""
    kind = step_kind(step)
    if kind == "expect":
        return [step["sel"]] if isinstance(step.get("sel"), str) else []
    out = []
    if kind not in ("press", "advance", "wait", "reload") and isinstance(step.get(kind), str):
        out.append(step[kind])
    out += [step[k] for k in ("on", "to") if isinstance(step.get(k), str)]
    return out


@dataclass
class FlowState:
    """What a flow accumulates while it runs."""

    snaps: dict[str, bytes] = field(default_factory=dict)
    last_sel: str | None = None
    #: uncaught errors the app's timers threw while an ``advance`` ran them
    thrown: list[dict[str, str]] = field(default_factory=list)
    #: the element shot (or why there is none) that pixel checks of a selector share until the
    #: flow acts again or a check fails on it (``_element_shot``)
    shots: dict[str, asyncio.Future[bytes | str]] = field(default_factory=dict)
    #: no action has run yet: the page is as the app loaded (snaps and expectations aside)
    as_loaded: bool = True
    #: when (event-loop time) this item's load finished
    loaded_at: float = 0.0
    #: the selectors the grading's items use on the app as loaded (:func:`as_loaded_selectors`),
    #: and those that matched nothing there after a full wait, with how long after its load an
    #: item saw so (ABSENT_WAIT_MS); the grader shares them between the items of a grading
    used_as_loaded: tuple[str, ...] = ()
    absent: dict[str, float] = field(default_factory=dict)
    #: the last expectation polled for ABSENT_WAIT_MS only
    cut_short: bool = False

    def known_absent(self, sel: Any, wait_ms: float) -> bool:
        """Whether a wait of ``wait_ms`` for ``sel`` now would end before it was seen missing."""
        seen = self.absent.get(sel) if self.as_loaded else None
        since_load = asyncio.get_running_loop().time() - self.loaded_at
        return seen is not None and since_load + wait_ms / 1000 <= seen + ABSENT_SLACK_S

    async def learn_absent(self, page: Any, sel: str) -> None:
        """After a full wait for ``sel`` in vain on the app as loaded: what it lacks, and since when."""
        sels = [sel, *(s for s in self.used_as_loaded if s != sel)]
        found = await _matching(page, sels)
        if sel not in found:
            seen = asyncio.get_running_loop().time() - self.loaded_at
            for s in set(sels) - found:
                self.absent[s] = max(seen, self.absent.get(s, 0.0))


def uncaught(text: str) -> dict[str, str]:
    """A page error entry from the text of an uncaught error (its stack, or a thrown value)."""
    first = text.split("\n", 1)[0]
    named = re.match(r"([A-Za-z_$][\w$]*): (.*)", first)
    name, message = named.groups() if named else ("Error", first)
    return {"name": name, "message": message[:300], "stack": text[:1200]}


def parse_errors(errors: list[dict[str, str]]) -> list[dict[str, str]]:
    """The errors that say a script of the page did not parse.

    A script that fails to compile throws a SyntaxError with no stack frame; one thrown while
    a script runs (``JSON.parse("")``, ``querySelector("#1")``, a bad RegExp) has the frame
    that threw it, and is a runtime error of a script that parsed.
    """
    return [e for e in errors if e["name"] == "SyntaxError" and "\n    at " not in (e.get("stack") or "")]


AS_LOADED_LACKS = "nothing matches it on the app as loaded, nor did in an earlier item"


async def _matching(page: Any, sels: Sequence[str]) -> set[str]:
    """Those of ``sels`` that match an element now (all of them when the page does not answer)."""
    try:
        counts = await asyncio.wait_for(asyncio.gather(*(page.locator(s).count() for s in sels)), 0.5)
    except Exception:  # noqa: BLE001 - nothing learnt
        return set(sels)
    return {s for s, n in zip(sels, counts, strict=True) if n}


def as_loaded_selectors(items: list[dict[str, Any]]) -> tuple[str, ...]:
    """The selectors the items' flows use before their first action (snaps aside), and in it."""
    out: list[str] = []
    for it in items:
        for step in it["flow"]:
            out += [s for s in selectors_of(step) if s not in out]
            if step_kind(step) not in ("expect", "snap"):
                break
    return tuple(out)


def _norm(text: str | None) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


async def do_action(page: Any, step: dict[str, Any], state: FlowState, dom: Dom | None = None) -> None:
    """Carry out one action step on ``page``; raise FlowError when it cannot be done.

    With ``dom`` (the grader's isolated world, ``dom.py``), clicks, fills and key presses
    on an element that is ready for them go straight to the mouse and keyboard; everything
    else goes through Playwright's locators, which wait for the element and word the error.
    """
    kind = step_kind(step)
    sel = next(iter(selectors_of(step)), None)  # (a key press: the element it is sent to, if any)
    known_absent = state.known_absent(sel, ACTION_TIMEOUT_MS) and not await _matching(page, [sel])
    as_loaded, state.as_loaded = state.as_loaded, state.as_loaded and kind == "snap"
    t = ABSENT_WAIT_MS if known_absent else ACTION_TIMEOUT_MS
    state.last_sel = sel
    what = f"{step['press']!r}" + (f" on {sel!r}" if sel else "") if kind == "press" else repr(sel or "")
    state.shots.clear()  # what the page shows may change from here

    def loc(s: str) -> Any:
        return page.locator(s).first

    async def fast(fn: str, *args: Any) -> Any:
        return None if dom is None else await dom.call(fn, *args)

    async def within(coro: Any) -> None:  # input sent past Playwright's locators: same time limit
        try:
            await asyncio.wait_for(coro, t / 1000)
        except TimeoutError:
            raise FlowError(f"could not {kind} {what}: the page did not take the input within {t} ms") from None

    try:
        if kind in ("click", "dblclick"):
            at = step.get("at")
            point = await fast("clickPoint", sel, at)
            if point is not None:
                await within((page.mouse.click if kind == "click" else page.mouse.dblclick)(*point))
            elif kind == "dblclick":
                await loc(sel).dblclick(timeout=t, force=True)
            elif at:
                box = await loc(sel).bounding_box(timeout=t)
                if box is None:
                    raise FlowError(f"cannot click {sel!r}: it is not visible")
                await loc(sel).click(
                    position={"x": at[0] * box["width"], "y": at[1] * box["height"]}, timeout=t, force=True
                )
            else:
                await loc(sel).click(timeout=t, force=True)
        elif kind == "fill":
            value = str(step.get("value", ""))
            text = await fast("selectForFill", sel, value)
            if text is None:
                await loc(sel).fill(value, timeout=t)
            elif text:
                await within(page.keyboard.insert_text(text))
            else:
                await within(page.keyboard.press("Delete"))
        elif kind == "type":
            await loc(sel).press_sequentially(str(step.get("value", "")), timeout=t)
        elif kind == "press":
            if step.get("on"):
                if await fast("focus", step["on"]):
                    await within(page.keyboard.press(step["press"]))
                else:
                    await loc(step["on"]).press(step["press"], timeout=t)
            else:
                await within(page.keyboard.press(step["press"]))
        elif kind == "check":
            await loc(sel).check(timeout=t, force=True)
        elif kind == "uncheck":
            await loc(sel).uncheck(timeout=t, force=True)
        elif kind == "select":
            await loc(sel).select_option(str(step.get("value")), timeout=t)
        elif kind == "hover":
            await loc(sel).hover(timeout=t, force=True)
        elif kind == "drag":
            await loc(sel).drag_to(loc(step["to"]), timeout=t, steps=DRAG_STEPS)
        elif kind == "draw":
            box = await fast("box", sel) or await loc(sel).bounding_box(timeout=t)
            if box is None:
                raise FlowError(f"cannot draw on {sel!r}: it is not visible")
            pts = [(box["x"] + fx * box["width"], box["y"] + fy * box["height"]) for fx, fy in step["points"]]
            await within(page.mouse.move(*pts[0]))
            await within(page.mouse.down())
            for p in pts[1:]:
                await within(page.mouse.move(*p, steps=6))
            await within(page.mouse.up())
        elif kind == "reload":
            if dom is not None:
                dom.forget()
            url = urlsplit(page.url)
            query = "&".join(q for q in (url.query, f"{REOPEN_PARAM}=1") if q)
            # (within the page's load timeout, which session.py sets from the budget)
            await page.goto(urlunsplit(url._replace(query=query)), wait_until="load")
        elif kind == "advance":
            try:
                await page.clock.run_for(int(step["advance"]))
            except Exception as exc:
                # The fake clock runs every due timer, then re-raises the first error one threw
                # (callbacks report theirs themselves, session.ERRORS_INIT; a string given to
                # setTimeout does not): an uncaught error of the app, and time has passed all the same.
                text = str(exc).removeprefix("Clock.run_for: ")
                if page.is_closed() or "has been closed" in text or "context was destroyed" in text:
                    raise
                state.thrown.append(uncaught(text))
        elif kind == "wait":
            await page.wait_for_timeout(min(int(step["wait"]), MAX_WAIT_MS))
        elif kind == "snap":
            png = None if dom is None else await dom.screenshot(sel)
            state.snaps[step["as"]] = png or await loc(sel).screenshot(timeout=t, animations="disabled")
    except FlowError:
        raise
    except Exception as exc:  # noqa: BLE001 - Playwright's errors become the item's failure
        if known_absent:
            raise FlowError(f"could not {kind} {what}: {AS_LOADED_LACKS} (waited {t} ms)") from exc
        if as_loaded and sel is not None and isinstance(exc, PlaywrightTimeoutError):
            await state.learn_absent(page, sel)
        raise FlowError(f"could not {kind} {what}: {_short(exc)}") from exc


def _short(exc: BaseException) -> str:
    text = str(exc).split("\n")[0] or type(exc).__name__
    return text[:240]


# What the isolated world reads for an expectation (``dom.py``), and under which name.
READ_AS = {"class": "attr", "hidden": "visible", "unchecked": "checked"}


def is_pixel(spec: dict[str, Any]) -> bool:
    """Whether an expectation looks at an element's pixels (a shot, not a read)."""
    return spec["expect"] in SNAP_EXPECTS or spec["expect"] == "pixel"


async def check(page: Any, spec: dict[str, Any], state: FlowState, dom: Dom | None = None) -> tuple[bool, Any]:
    """Evaluate one expectation once; returns (holds, what was observed)."""
    kind, sel = spec["expect"], spec.get("sel")
    if is_pixel(spec):
        return await _check_pixels(page, spec, state, dom)
    name = "class" if kind == "class" else spec.get("name")
    seen = None if dom is None else await dom.call("read", READ_AS.get(kind, kind), sel, name)
    if seen is None:
        seen = await _read(page, kind, sel, name)
    return _judge(spec, seen["n"], seen["got"])


async def _read(page: Any, kind: str, sel: str, name: str | None) -> dict[str, Any]:
    """What ``dom.py``'s ``read`` answers, asked through Playwright's locators."""
    if kind == "storage":
        values = await page.evaluate(
            "() => { const o = []; for (let i = 0; i < localStorage.length; i++) "
            "o.push(String(localStorage.getItem(localStorage.key(i)))); return o; }"
        )
        return {"n": len(values), "got": values}
    locs = page.locator(sel)
    n = await locs.count()
    if kind == "count":
        return {"n": n, "got": n}
    if kind == "texts":
        return {"n": n, "got": await locs.all_inner_texts() if n else []}
    if n == 0:
        return {"n": 0, "got": None}
    el = locs.first
    if kind in ("visible", "hidden"):
        got = await el.is_visible() and await el.evaluate(SEEN_JS)
    elif kind in ("checked", "unchecked"):
        got = await el.is_checked(timeout=500)
    elif kind == "text":
        got = await el.inner_text(timeout=500)
    elif kind == "value":
        got = await el.input_value(timeout=500)
    elif kind in ("attr", "class"):
        got = await el.get_attribute(name, timeout=500)
    else:
        raise ValueError(f"unknown expectation {kind!r}")
    return {"n": n, "got": got}


def _judge(spec: dict[str, Any], n: int, got: Any) -> tuple[bool, Any]:
    kind = spec["expect"]
    if kind == "storage":
        return any(spec["contains"] in v for v in got), [v[:80] for v in got[:5]]
    if kind == "count":
        return (n == spec["equals"] if "equals" in spec else n >= spec.get("min", 1)), n
    if kind == "hidden":
        return (n == 0 or not got), ("absent" if n == 0 else "visible")
    if kind == "texts":
        texts = [_norm(t) for t in got]
        return texts == list(spec["equals"]), texts
    if n == 0:
        return False, "no element matches"
    if kind == "visible":
        return got, "visible" if got else "not visible"
    if kind in ("checked", "unchecked"):
        return got == (kind == "checked"), "checked" if got else "unchecked"
    if kind == "text":
        return _compare(_norm(got), spec)
    if kind == "value":
        return _compare(got, spec)
    if kind == "attr":
        if spec.get("absent"):
            return got is None, got
        if not any(k in spec for k in _COMPARE):  # present (disabled="" is present)
            return got is not None, got
        return (got is not None and _compare(got, spec)[0]), got
    if kind == "class":
        classes = (got or "").split()
        if "has" in spec:
            return spec["has"] in classes, classes
        return spec["lacks"] not in classes, classes
    raise ValueError(f"unknown expectation {kind!r}")


async def _check_pixels(page: Any, spec: dict[str, Any], state: FlowState, dom: Dom | None) -> tuple[bool, Any]:
    kind = spec["expect"]
    png = await _element_shot(page, spec["sel"], state, dom)
    if isinstance(png, str):
        return False, png
    if kind in SNAP_EXPECTS:
        before = state.snaps.get(spec["since"])
        if before is None:
            return False, f"no snap named {spec['since']!r} was taken"
        frac = pixel_difference(before, png)
        changed = frac > spec.get("threshold", DEFAULT_THRESHOLD)
        return changed == (kind == "changed"), f"{frac:.4f} of pixels differ"
    return pixel_matches(png, spec)


async def _element_shot(page: Any, sel: str, state: FlowState, dom: Dom | None) -> bytes | str:
    """The first match's PNG, or why there is none; one shot serves every check of ``sel``.

    A flow's consecutive pixel expectations on one canvas judge one picture of it (about
    40 ms a shot), and the untouched page's are read off one picture at once. A flow's
    action and a check that fails on a shared shot drop it (``do_action``, ``expect``).
    """
    shared = state.shots.get(sel)
    if shared is not None:
        return await asyncio.shield(shared)
    taking = state.shots[sel] = asyncio.ensure_future(_take_shot(page, sel, dom))
    try:
        return await taking
    except BaseException:
        if state.shots.get(sel) is taking:
            del state.shots[sel]
        raise


async def _take_shot(page: Any, sel: str, dom: Dom | None) -> bytes | str:
    png = None if dom is None else await dom.screenshot(sel)
    if png == NOT_VISIBLE:  # (not worth Playwright's wait for it to show: the expectation polls)
        return "not visible"
    if png is None:
        locs = page.locator(sel)
        if await locs.count() == 0:
            return "no element matches"
        png = await locs.first.screenshot(timeout=1000, animations="disabled")
    return png


def pixel_matches(png: bytes, spec: dict[str, Any]) -> tuple[bool, Any]:
    """Whether the pixel at ``spec["at"]`` (fractions of the image) is within ``tol`` of ``rgb``."""
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    fx, fy = spec["at"]
    x, y = min(int(fx * img.width), img.width - 1), min(int(fy * img.height), img.height - 1)
    got = img.getpixel((x, y))
    ok = all(abs(a - b) <= spec.get("tol", 60) for a, b in zip(got, spec["rgb"], strict=True))
    return ok, list(got)


def _compare(got: str, spec: dict[str, Any]) -> tuple[bool, str]:
    if "equals" in spec:
        return got == str(spec["equals"]), got
    if "contains" in spec:
        return str(spec["contains"]) in got, got
    if "matches" in spec:
        return re.search(spec["matches"], got) is not None, got
    if "not_equals" in spec:
        return got != str(spec["not_equals"]), got
    return bool(got), got


def pixel_difference(png_a: bytes, png_b: bytes) -> float:
    """Share of pixels that differ between two PNGs (1.0 when their sizes differ)."""
    from PIL import Image, ImageChops

    a = Image.open(io.BytesIO(png_a)).convert("RGB")
    b = Image.open(io.BytesIO(png_b)).convert("RGB")
    if a.size != b.size:
        return 1.0
    # the largest channel difference per pixel (grey levels would hide a blue-only change)
    r, g, bl = ImageChops.difference(a, b).split()
    diff = ImageChops.lighter(ImageChops.lighter(r, g), bl).point(lambda v: 255 if v > 16 else 0)
    hist = diff.histogram()
    return hist[255] / (a.size[0] * a.size[1])


async def expect(page: Any, spec: dict[str, Any], state: FlowState, dom: Dom | None = None) -> tuple[bool, Any]:
    """Poll an expectation until it holds or its wait runs out.

    The wait is ABSENT_WAIT_MS only while nothing matches a selector the app as loaded lacks
    (``FlowState.known_absent``); ``state.cut_short`` says whether it ended so.
    """
    loop = asyncio.get_running_loop()
    wait_ms = spec.get("wait_ms", DEFAULT_WAIT_MS)
    start, short = loop.time(), state.known_absent(spec.get("sel"), wait_ms)
    state.cut_short = False
    while True:
        shared = is_pixel(spec) and spec["sel"] in state.shots
        try:
            ok, got = await check(page, spec, state, dom)
        except Exception as exc:  # noqa: BLE001 - a page mid-navigation, a detached node
            ok, got = False, f"error: {_short(exc)}"
        if ok:
            return ok, got
        state.shots.clear()  # look again at a fresh picture
        if shared:
            continue  # (the picture was an earlier check's: at once)
        state.cut_short = short and got == "no element matches"
        if loop.time() - start >= (ABSENT_WAIT_MS if state.cut_short else wait_ms) / 1000:
            return ok, got
        await asyncio.sleep(0.05)


def describe(spec: dict[str, Any]) -> str:
    """Human-readable form of an expectation, for feedback."""
    kind = spec["expect"]
    what = ", ".join(f"{k}={v!r}" for k, v in spec.items() if k not in ("expect", "sel", "wait_ms"))
    target = f" of {spec['sel']!r}" if spec.get("sel") else ""
    return f"{kind}{target}" + (f" ({what})" if what else "")
