"""The untouched page: the transition rule's witness (flows.py).

A grading loads the app once more in a context of its own and never acts on it. A rubric
item passes only if some expectation of its flow did NOT hold on that page: not right after
the load (:func:`initial_state`), not once it had been loaded as long as the slowest item
took, nor at the end of each item's span on its fake clock (:func:`recheck_untouched`). An
item whose actions did nothing, and whose expectations the app meets by itself, passes
nothing.

Until every item has run, the page's fake clock keeps real pace as on the items' pages
(:func:`hold_clock`), so an app cannot tell it from theirs; only then is it fast-forwarded.
Expectations on pixels (``changed``/``unchanged`` since a snap the flow took) count unless the
element's pixels change on the untouched page by themselves (:class:`PixelWatch`).
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
import random
from datetime import timedelta
from typing import Any

from .dom import Dom
from .flows import (
    DEFAULT_THRESHOLD,
    DEFAULT_WAIT_MS,
    MAX_WAIT_MS,
    SNAP_EXPECTS,
    FlowState,
    check,
    pixel_difference,
    step_kind,
)
from .session import FIXED_TIME, Session


def _key(spec: dict[str, Any]) -> str:
    return json.dumps(spec, sort_keys=True)


#: How long the recheck waits (real time) for the untouched page to run out one idle span.
IDLE_TIMEOUT_S = 3.0
#: Steps that are not the user acting on the app: time passing, looking.
PASSIVE = ("expect", "advance", "wait", "snap")


def idle_ms(flow: list[dict[str, Any]]) -> int:
    """Fake time (ms) a flow may span.

    What it advances and waits, its longest expectation wait, and a second for its steps.
    """
    waited = sum(min(int(s["wait"]), MAX_WAIT_MS) for s in flow if step_kind(s) == "wait")
    longest_wait = max((int(s.get("wait_ms", DEFAULT_WAIT_MS)) for s in flow if s.get("expect")), default=0)
    return 1000 + round(advanced_s(flow) * 1000) + waited + longest_wait


def advanced_s(flow: list[dict[str, Any]]) -> float:
    """Fake time (s) a flow's ``advance`` steps move its page's clock on."""
    return sum(int(s["advance"]) for s in flow if step_kind(s) == "advance") / 1000


async def initial_state(page: Any, items: list[dict[str, Any]], dom: Dom | None = None) -> list[dict[str, bool]]:
    """For each item, whether each of its expectations holds on the freshly loaded page.

    Every item starts from the same fresh page (new load, empty storage), so this is asked
    once per grading instead of once per item. An expectation that holds there is no
    transition. What the untouched page shows later is asked once every item has run
    (:func:`recheck_untouched`).
    """
    specs = expectation_specs(items)
    at_load = await read_expectations(page, specs, dom)
    return [{k: at_load[k] for k in map(_key, item["flow"]) if k in specs} for item in items]


def acts(flow: list[dict[str, Any]]) -> bool:
    """Whether a flow acts on the app (a flow that only lets time pass is judged at load)."""
    return any(step_kind(s) not in PASSIVE for s in flow)


def expectation_specs(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The items' expectations by key, ``changed``/``unchanged`` aside (they compare with a snap the flow took)."""
    return {_key(s): s for it in items for s in it["flow"] if s.get("expect") and s["expect"] not in SNAP_EXPECTS}


class Stuck(Exception):
    """The untouched page did not answer in time."""


async def pause(sess: Session, at_s: float | None = None) -> float:
    """Pause the page's fake clock ``at_s`` seconds after its load started; return where it paused.

    With None, or when that time is already past, a little after its present time. Raises
    :class:`Stuck` when the page does not answer.
    """
    loop = asyncio.get_running_loop()
    for margin in (None, 0.05, 0.5, 2.0):
        if margin is None and at_s is None:
            continue
        at = at_s if margin is None else loop.time() - sess.clock_set_at + margin
        try:
            await asyncio.wait_for(sess.page.clock.pause_at(FIXED_TIME + timedelta(seconds=at)), 3)
            return at
        except TimeoutError:
            raise Stuck from None
        except Exception as exc:  # "Cannot fast-forward to the past": the call was late
            if "past" not in str(exc) or margin == 2.0:
                raise Stuck from exc
    raise AssertionError("unreachable")


def hold_at_s(items: list[dict[str, Any]]) -> float:
    """Where :func:`hold_clock` pauses the untouched page's clock: the shortest acting item's span (s)."""
    return min((idle_ms(it["flow"]) for it in items if acts(it["flow"])), default=0) / 1000


async def hold_clock(sess: Session, items: list[dict[str, Any]]) -> float:
    """Pause the untouched page's fake clock when it reaches the shortest acting item's span.

    Until then the clock runs in real time, as it does on the items' pages, so that an app
    cannot tell the untouched page from theirs (by how its fake time keeps pace with real
    time); past that span what the page does by itself (a banner that hides itself later)
    must not fail that item. Returns where it paused.
    """
    at = hold_at_s(items)
    await asyncio.sleep(max(0.0, sess.clock_set_at + at - asyncio.get_running_loop().time()))
    return await pause(sess, at)


async def read_expectations(page: Any, specs: dict[str, dict[str, Any]], dom: Dom | None) -> dict[str, bool]:
    """Whether each expectation (by key) holds on the page now; read-only, asked all at once."""
    state = FlowState()

    async def holds(step: dict[str, Any]) -> bool:
        try:
            return (await check(page, step, state, dom))[0]
        except Exception:  # noqa: BLE001
            return False

    keys = list(specs)
    return dict(zip(keys, await asyncio.gather(*(holds(specs[k]) for k in keys)), strict=True))


def transition_seen(steps: list[dict[str, Any]], held: dict[str, bool]) -> bool:
    """The transition rule (flows.py): some expectation did not hold on the untouched page.

    A ``changed``/``unchanged`` expectation compares with a snap the flow took itself: it counts as one unless
    ``held`` says the element's pixels changed there by themselves.
    """
    return any(s.get("expect") and not held.get(_key(s), s["expect"] not in SNAP_EXPECTS) for s in steps)


NO_TRANSITION = (
    "no transition: every expectation already held on the freshly loaded page, or came true on it without "
    "the flow's actions"
)


# What real time drives starts at different moments in different pages (an animation at the
# page's first frame, a worker): on the untouched page it ended up to 0.34 s later after load
# than on the items' pages on a busy machine (two cores, one spinning), and an item that only
# waited for a CSS animation ending 0.4 s after load passed 3 times in 20 when the page was
# read just as late. So the recheck lets it run its course first: animations until they end,
# what cannot be told (a worker's timers) this much longer than the slowest item took.
REAL_TIME_SLACK_S = 0.5
ANIMATION_EVENT_S = 0.1


async def _real_time_left(sess: Session) -> float:
    """Seconds until what real time drives on the page has run its course (``realTimeLeft``).

    Infinite when that cannot be told: a worker (its timers), a frame, media playing, no answer.
    """
    if sess.page.workers or len(sess.page.frames) > 1 or sess.dom is None:
        return math.inf
    try:
        left = await asyncio.wait_for(sess.dom.call("realTimeLeft"), 0.5)
    except Exception:  # noqa: BLE001 - a page that does not answer: the read after says so
        return math.inf
    return left / 1000 if isinstance(left, int | float) and left >= 0 else math.inf


async def recheck_untouched(
    sess: Session,
    items: list[dict[str, Any]],
    results: list[dict[str, Any] | None],
    held: list[dict[str, bool]],
    hold: asyncio.Task[float],
    pixels: PixelWatch,
) -> list[int] | None:
    """After every item ran, the passing items whose expectations the untouched page came to meet.

    That page has stayed untouched, in a context of its own, its fake clock running in real
    time as on the items' pages until the shortest span (``hold``). It is read once it has
    been loaded (in real time) as long as the slowest passing item took from its load to its
    last step, or until what real time drives there has run its course (the end of a CSS
    animation, which the fake clock does not run), up to ``REAL_TIME_SLACK_S`` longer. Then
    its fake clock is run, paused, to each item's span (as long as that flow may take, advances
    included) and read there. None when the page no longer answers.
    """
    passing = [i for i, r in enumerate(results) if r is not None and r["passed"] and acts(items[i]["flow"])]
    if not passing:
        pixels.cancel()
        return []
    specs = expectation_specs([items[i] for i in passing])
    await pixels.stop()
    loop = asyncio.get_running_loop()
    slowest = max((results[i]["settled_s"] for i in passing), default=0.0)
    behind = slowest - (loop.time() - sess.loaded_at)
    if behind > 0:
        await asyncio.sleep(min(behind, sess.budget.item_s))
    deadline = sess.loaded_at + slowest + REAL_TIME_SLACK_S
    while loop.time() < deadline:
        left = await _real_time_left(sess)  # (an animation's end may start the next one)
        if left <= 0:
            break
        # the end's event reaches the app at a frame after it
        await asyncio.sleep(max(0.0, min(left + ANIMATION_EVENT_S, deadline - loop.time())))
    hold.cancel()
    seen = {i: dict(held[i]) for i in passing}

    async def read(due: list[int], fake_s: float | None = None) -> None:
        now = await asyncio.wait_for(
            read_expectations(sess.page, {k: specs[k] for i in due for k in seen[i]}, sess.dom), 3
        )
        await pixels.look(fake_s)
        for i in due:
            seen[i] = {k: was or now[k] for k, was in seen[i].items()}

    try:
        await read(passing)  # (the page's clock still runs in real time, or paused where hold_clock put it)
        fake_s = await hold if hold.done() and not hold.cancelled() else await pause(sess)
        # as long as the flow may take, or as far as the item's page ran (a slow flow ran further)
        spans = {
            i: max(idle_ms(items[i]["flow"]) / 1000, results[i]["settled_s"] + advanced_s(items[i]["flow"]))
            for i in passing
        }
        for span in sorted({s for s in spans.values() if s > fake_s}):
            try:
                await asyncio.wait_for(sess.page.clock.run_for(round((span - fake_s) * 1000)), IDLE_TIMEOUT_S)
            except TimeoutError:
                break  # the page's fake time lags behind (a heavy animation): what was read stands
            except Exception:  # noqa: BLE001 - a timer threw (Playwright re-raises it); the others ran
                pass
            fake_s = span
            await read([i for i, s in spans.items() if s == span], fake_s)
    except Exception:  # noqa: BLE001 - timed out, stuck, or gone: the page no longer answers
        return None
    failed = []
    for i in passing:
        steps = items[i]["flow"]
        moved = {
            _key(s): pixels.moved.get(s["sel"], math.inf) <= spans[i] for s in steps if s.get("expect") in SNAP_EXPECTS
        }
        if not transition_seen(steps, {**seen[i], **moved}):
            failed.append(i)
    return failed


#: The watch's looks are this far apart at random (s): at a fixed pace, a square that blinks
#: every 0.1 s was shot in the same phase each time on a busy machine (a look took 0.1 s).
PIXEL_WATCH_S = (0.02, 0.12)
#: Looks taken before the watch stops: a fast grading still sees a change that takes a few
#: tenths of a second, and a blink shot in one phase every time is a chance in 500 (even odds per look).
MIN_LOOKS = 10


def _gap() -> float:
    """A random gap between two looks (s)."""
    return random.uniform(*PIXEL_WATCH_S)


class PixelWatch:
    """Whether the elements that ``changed``/``unchanged`` look at change on the untouched page by themselves.

    Each is shot once the page is loaded, then at random gaps (``PIXEL_WATCH_S``) until every item has
    run (``MIN_LOOKS`` times at least), and at every later read: one that differs from its
    first shot (as much as the least its expectations call a change) has ``moved`` at that
    fake time, and a change there is no transition for an item whose span reaches it. Shots
    are taken as the page is, no animation stopped (the page must stay untouched).
    """

    def __init__(self, sess: Session, items: list[dict[str, Any]]) -> None:
        self.sess = sess
        self.threshold: dict[str, float] = {}
        for it in items:
            for s in it["flow"]:
                if acts(it["flow"]) and s.get("expect") in SNAP_EXPECTS:
                    t = float(s.get("threshold", DEFAULT_THRESHOLD))
                    self.threshold[s["sel"]] = min(t, self.threshold.get(s["sel"], t))
        self.sels = list(self.threshold)
        self.first: dict[str, bytes | None] = {}
        #: the fake time (s after load) at which each element was first seen changed
        self.moved: dict[str, float] = {}
        self.paused_at = hold_at_s(items)
        self.looks = 0
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Take the first shots, then watch (nothing to do without pixel expectations)."""
        try:
            for sel in self.sels:
                self.first[sel] = await self._shot(sel)
        except Exception:  # noqa: BLE001 - a page that stops answering: the recheck says so
            return
        if self.sels:
            self._task = asyncio.ensure_future(self._watch())

    def cancel(self) -> None:
        """Stop the watch."""
        if self._task is not None:
            self._task.cancel()

    async def stop(self) -> None:
        """Stop watching (every item has run), once it has looked ``MIN_LOOKS`` times.

        From here on only :meth:`look` shoots.
        """
        self.cancel()
        try:
            while self.first and self.looks < MIN_LOOKS and len(self.moved) < len(self.sels):
                await asyncio.sleep(_gap())
                await self.look()
        except Exception:  # noqa: BLE001 - a page that stops answering: the recheck says so
            return

    def held(self, hold: asyncio.Future[float]) -> None:
        """Take where :func:`hold_clock` paused the clock: later than planned when it was late."""
        if not hold.cancelled() and hold.exception() is None:
            self.paused_at = hold.result()

    async def look(self, fake_s: float | None = None) -> None:
        """Shoot each element that has not moved yet and compare with its first shot.

        ``fake_s``: the page's fake time (s after load); None: it runs in real time until
        ``paused_at``.
        """
        self.looks += 1
        if fake_s is None:
            fake_s = min(asyncio.get_running_loop().time() - self.sess.clock_set_at, self.paused_at)
        for sel in self.sels:
            if sel in self.moved or sel not in self.first:
                continue
            now, first = await self._shot(sel), self.first[sel]
            if (now is None) != (first is None) or (
                now is not None and first is not None and pixel_difference(first, now) > self.threshold[sel]
            ):
                self.moved[sel] = fake_s

    async def _watch(self) -> None:
        try:
            while True:
                await asyncio.sleep(_gap())
                await self.look()
        except Exception:  # noqa: BLE001 - a page that stops answering: the recheck says so
            return

    async def _shot(self, sel: str) -> bytes | None:
        """The element's pixels, wherever it is on the page (None: not visible).

        Only an element not wholly in the viewport is shot beyond it: Chromium then lays the
        page out again at its full size (the page gets a resize event), and on a busy machine
        such a shot of an element in view came out shifted by a pixel, or from the page's top
        corner.
        """
        box = None if self.sess.dom is None else await self.sess.dom.call("pageBox", sel)
        if box is None:  # (also where the isolated world leaves the selector to Playwright)
            loc = self.sess.page.locator(sel)
            view_box = await loc.first.bounding_box(timeout=1000) if await loc.count() else None
            box = view_box and await self._in_page(view_box)
        if not box or box["width"] < 1 or box["height"] < 1:
            return None
        clip = {"x": box["x"], "y": box["y"], "width": box["width"], "height": box["height"], "scale": 1}
        shot = await asyncio.wait_for(
            self.sess.cdp.send(
                "Page.captureScreenshot",
                {"format": "png", "clip": clip, "captureBeyondViewport": not box["inViewport"]},
            ),
            3,
        )
        return base64.b64decode(shot["data"])

    async def _in_page(self, box: dict[str, float]) -> dict[str, Any]:
        """A box in the viewport as :meth:`_shot` takes it (see ``pageBox`` in dom.py)."""
        view = (await asyncio.wait_for(self.sess.cdp.send("Page.getLayoutMetrics"), 3))["cssVisualViewport"]
        x, y = box["x"] + view["pageX"], box["y"] + view["pageY"]
        x0, y0 = math.floor(x + 1e-3), math.floor(y + 1e-3)
        return {
            "x": x0,
            "y": y0,
            "width": math.ceil(x + box["width"] - 1e-3) - x0,
            "height": math.ceil(y + box["height"] - 1e-3) - y0,
            "inViewport": box["x"] >= 0
            and box["y"] >= 0
            and box["x"] + box["width"] <= view["clientWidth"]
            and box["y"] + box["height"] <= view["clientHeight"],
        }
