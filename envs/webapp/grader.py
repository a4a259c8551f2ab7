"""The browser side of grading: load the app, run every rubric item's flow, collect evidence.

Everything here is a coroutine on the pool's event loop (``pool.py``). A grading gets fresh
browser contexts (``session.py``): the first loads the app for the runtime stage and probes it
untouched (and keeps it untouched until the end), the others (``LANES``) run the items side
by side; each rubric item starts from a freshly loaded app with empty storage (localStorage,
sessionStorage, IndexedDB, Cache Storage and cookies are wiped between items, see
``session.WIPE_INIT``), so one broken item
cannot make another fail and a broken app fails exactly the items it breaks. A page that
hangs costs its context: the next item gets a new one. The fake clock (``advance`` steps) is
installed in every context and set to 2026-01-01T00:00:00Z at every fresh load; time flows
naturally until a flow advances it. Flows read the page and find click points through the
grader's own isolated world where they can (``dom.py``), through Playwright's locators
otherwise.

Containment of the app's untrusted JavaScript (see the env docstring for the whole story):

* every request whose URL is not on the app's own origin (``http://127.0.0.1:PORT/``) is
  aborted and recorded, including other localhost ports; WebSockets are answered by a mock
  that never connects; service workers are blocked; the context's proxy settings send
  everything else to a dead proxy (``session.proxy_for``); downloads are cancelled and counted;
* dialogs are dismissed and counted per item and for the probe's load (``beforeunload``
  ones accepted, as Playwright does), windows the app asks for counted and never opened (``session.py``),
  main-frame navigations away from the origin recorded;
* an error the app hides from the console (``window.onerror`` returning true, an error
  listener calling ``preventDefault``) still counts (``session.ERRORS_INIT``);
* every step has a timeout and every item a budget; a page stuck in an endless loop is
  abandoned and its context closed (Chromium kills the renderer); if even that hangs, the
  report says so and the pool restarts the browser;
* after load the DOM size (every node the page keeps alive, in shadow roots and frames too)
  and the storage used are measured (huge DOM, storage bomb), and the DOM size again after
  each item's last step.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from .dom import Dom
from .flows import (
    ABSENT_WAIT_MS,
    AS_LOADED_LACKS,
    EVENTS_OF,
    FlowError,
    FlowState,
    as_loaded_selectors,
    describe,
    do_action,
    expect,
    parse_errors,
    selectors_of,
    step_kind,
)
from .session import (
    Budget,
    Session,
    Spare,
    claim_spare,
    close_session,
    close_unused,
    goto,
    new_tally,
    open_session,
    open_spare,
    session_for,
    start_server,
    wipe,
)
from .untouched import (
    NO_TRANSITION,
    PixelWatch,
    hold_clock,
    initial_state,
    recheck_untouched,
    transition_seen,
)

# dialogs: per item (each loads the app again; its reload steps and the app's own navigations
# count with it) and for the probe's load; popups: per grading; dom_nodes: the nodes
# (elements, text) a page keeps alive, see dom_nodes()
LIMITS = {"dom_nodes": 50_000, "storage_bytes": 1_000_000, "dialogs": 10, "popups": 0}

# The handlers for some event types of the element a selector finds, or of its nearest
# ancestor (up to ``window``) that has any: that is event delegation. ``getEventListeners`` is
# DevTools' Command Line API (``includeCommandLineAPI``): one evaluation instead of a DevTools
# round trip per ancestor and per handler. It sees the listeners of the world it runs in,
# which is the page's own.
# (The API is not installed where the page has a global of that name, see handler_sources.)
HANDLERS_JS = """(sel, types) => { let e = null; try { e = document.querySelector(sel); } catch (x) {}
  if (!e) return []; const chain = []; for (let n = e; n && chain.length < 12; n = n.parentNode) chain.push(n);
  chain.push(window);
  for (const n of chain) { const all = getEventListeners(n), found = []; let matching = false;
    for (const t of types) for (const l of all[t] || []) { matching = true;
      try { const f = typeof l.listener === 'function' ? l.listener : l.listener.handleEvent;
        const s = Function.prototype.toString.call(f);
        if (s.length < 20000 && !found.includes(s)) found.push(s); } catch (x) {} }
    if (matching) return found; }
  return []; }"""


# Two contexts per grading run the rubric items side by side, besides the probe's. Measured
# with bench/web.py's 12 apps on 2 cores (headless shell, two runs each): one item lane 0.48
# s/app, two 0.38 and 0.39, three 0.40. A context costs ~70 ms of CPU (a renderer process); a
# pool opens them ahead, during the previous grading.
LANES = 2

SETTLE_S = 0.05  # errors thrown from setTimeout(0)/promises just after load are load errors


async def dom_nodes(sess: Session, exact: bool = False) -> int:
    """How many DOM nodes the page keeps alive: Chromium's count for its renderer process.

    A walk of the document would miss nodes in shadow roots (closed ones cannot be walked),
    in frames, and detached ones its script holds. The count includes the nodes an app
    replaced (garbage) until they are collected, which happens at V8's whim: the same page
    counts 67 or 68. ``exact`` (the count the verdict shows) and a count over the limit
    collect them first and count again (15-50 ms on 2 cores); a collection that takes seconds
    leaves the first count.
    """
    count = (await asyncio.wait_for(sess.cdp.send("Memory.getDOMCounters"), 3))["nodes"]
    if exact or count > LIMITS["dom_nodes"]:
        try:
            await asyncio.wait_for(sess.cdp.send("HeapProfiler.collectGarbage"), 3)
            count = (await asyncio.wait_for(sess.cdp.send("Memory.getDOMCounters"), 3))["nodes"]
        except TimeoutError:
            pass
    return int(count)


async def load_check(
    sess: Session, origin: str, react: bool, probe: Callable[[], Awaitable[None]] | None = None
) -> dict[str, Any]:
    """The runtime stage: load once, wait briefly, measure (did it load without errors?).

    ``probe`` (questions about the untouched page) runs during the wait, before the page is
    measured. It is not asked when the app rendered nothing or a script did not parse.
    ``out["parse_at"]``: where scripts failed to parse (1-based line, 0-based column of the
    document), which the page error of a parse failure does not say.
    """
    out: dict[str, Any] = {"loaded": False, "hung": False, "dom_nodes": 0, "storage_bytes": 0, "parse_at": []}

    def on_exception(event: dict[str, Any]) -> None:
        details = event.get("exceptionDetails", {})
        if details.get("exception", {}).get("className") == "SyntaxError" and "stackTrace" not in details:
            out["parse_at"].append({"line": details.get("lineNumber", 0) + 1, "column": details.get("columnNumber", 0)})

    sess.cdp.on("Runtime.exceptionThrown", on_exception)
    try:
        await sess.cdp.send("Runtime.enable")
        sess.dom.forget()
        sess.watch.load_dialogs = 0
        sess.clock_set_at = asyncio.get_running_loop().time()
        out["rendered"] = await asyncio.wait_for(goto(sess.page, origin, react, fresh=True), sess.budget.load_s + 3)
        sess.loaded_at = asyncio.get_running_loop().time()
        await asyncio.wait_for(sess.cdp.send("Runtime.disable"), 3)
        settle = asyncio.sleep(SETTLE_S)
        if probe is not None and out["rendered"] and not parse_errors(sess.watch.page_errors):
            await asyncio.gather(settle, probe())
        else:
            await settle
        out.update(await asyncio.wait_for(sess.dom.call("stats"), 3) or {})
        out["dom_nodes"] = await dom_nodes(sess, exact=True)
        out["loaded"] = True
    except Exception as exc:  # noqa: BLE001 - a load timeout is the app's failure
        out["hung"] = isinstance(exc, TimeoutError) or "Timeout" in type(exc).__name__
        out["error"] = str(exc).split("\n")[0][:300] or "timed out"
    sess.cdp.remove_listener("Runtime.exceptionThrown", on_exception)
    w = sess.watch
    out["page_errors"] = list(w.page_errors)
    out["parse_at"] += w.parse_at  # (those the app's error handlers hid)
    out["console_errors"] = list(w.console_errors)
    out["dialogs"] = w.dialogs
    return out


async def run_item(
    sess: Session,
    origin: str,
    react: bool,
    item: dict[str, Any],
    credit: bool,
    screenshots: str,
    initial: asyncio.Future[list[dict[str, bool]]],
    index: int,
    used_as_loaded: tuple[str, ...],
    absent: dict[str, float],
) -> dict[str, Any]:
    """Run one rubric item's flow on a freshly loaded app and say whether the transition was seen."""
    steps = item["flow"]
    w = sess.watch
    sess.used = True
    w.load_dialogs = 0
    marks = (len(w.page_errors), len(w.console_errors))
    res: dict[str, Any] = {
        "id": item["id"],
        "passed": False,
        "reason": "",
        "failed_step": None,
        "selectors": [],
        "handlers": [],
    }
    state = FlowState(used_as_loaded=used_as_loaded, absent=absent)
    page = sess.page
    try:
        await asyncio.wait_for(sess.cdp.send("Page.resetNavigationHistory"), 3)
    except Exception:  # noqa: BLE001 - a closed or hung page: the load below says so
        pass
    try:
        await asyncio.wait_for(
            _flow(
                page,
                sess.cdp if credit else None,
                sess.dom,
                origin,
                react,
                steps,
                state,
                res,
            ),
            sess.budget.item_s,
        )
    except TimeoutError:
        res["passed"] = False
        res["reason"] = "timed out: the page stopped responding (endless loop or busy main thread?)"
        res["hung"] = True
    if res["passed"]:
        # The transition rule (flows.py): some expectation must fail on the untouched page.
        # That page is probed once per grading, possibly while this item ran in another context.
        if not transition_seen(steps, (await initial)[index]):
            res["passed"] = False
            res["failed_step"] = len(steps) - 1
            res["reason"] = NO_TRANSITION
    busy = False
    if not res.get("hung"):
        # what the last step set off (a request from a zero-delay timer) happens before the
        # page is replaced, so whether it is seen and flagged does not depend on timing
        try:
            await sess.dom.call("drain")
            # a second round trip lets the route see the request: 16 of 16 runs flagged, 9 of 12
            # with one call, 10 of 16 with one call of two task turns
            await sess.dom.call("drain")
            res["dom_nodes"] = await dom_nodes(sess)
        except TimeoutError:
            busy = True  # e.g. an endless loop the last step set off: judged just below
        except Exception:  # noqa: BLE001 - a closed page is judged just below
            pass
    if (busy or not res["passed"]) and not res.get("hung") and not await _responsive(page):
        # A step that timed out because the handler it fired never returned (endless loop).
        res["hung"] = True
        if not res["passed"]:
            res["reason"] += " (the page stopped responding: endless loop or busy main thread?)"
    if not res.get("hung"):
        if not res["passed"]:
            res["dom"] = await _excerpt(page, state.last_sel)
        if screenshots == "all" or (screenshots == "failed" and not res["passed"]):
            res["screenshot"] = await _screenshot(page)
    res["page_errors"] = w.page_errors[marks[0] :] + state.thrown
    res["console_errors"] = w.console_errors[marks[1] :]
    return res


async def _responsive(page: Any) -> bool:
    try:
        await asyncio.wait_for(page.evaluate("1"), 1.5)
        return True
    except Exception:  # noqa: BLE001 - timeout, or a crashed/closed page
        return False


async def _flow(
    page: Any,
    cdp: Any,
    dom: Dom | None,
    origin: str,
    react: bool,
    steps: list[dict[str, Any]],
    state: FlowState,
    res: dict[str, Any],
) -> None:
    if dom is not None:
        dom.forget()
    try:
        await goto(page, origin, react, fresh=True)
    except Exception as exc:  # noqa: BLE001
        res["reason"] = f"the app did not load: {str(exc).splitlines()[0][:200]}"
        return
    loaded_at = state.loaded_at = asyncio.get_running_loop().time()
    for i, step in enumerate(steps):
        kind = step_kind(step)
        res["selectors"] += [s for s in selectors_of(step) if s not in res["selectors"]]
        if kind == "expect":
            state.last_sel = step.get("sel")
            ok, got = await expect(page, step, state, dom)
            if not ok:
                res["failed_step"] = i
                res["reason"] = f"step {i}: expected {describe(step)}; observed {got!r}"
                if state.cut_short:
                    res["reason"] += f" ({AS_LOADED_LACKS}: waited {ABSENT_WAIT_MS} ms)"
                return
            continue
        if cdp is not None and kind in EVENTS_OF:
            # the handlers bound right now: an earlier step (or item) may have rebound them
            for sel in selectors_of(step):
                for src in await handler_sources(cdp, sel, EVENTS_OF[kind]):
                    if src not in res["handlers"]:
                        res["handlers"].append(src)
        try:
            await do_action(page, step, state, dom)
        except FlowError as exc:
            res["failed_step"] = i
            res["reason"] = f"step {i}: {exc}"
            return
    res["passed"] = True
    res["settled_s"] = asyncio.get_running_loop().time() - loaded_at  # real time the flow took after load


async def handler_sources(cdp: Any, sel: str, types: tuple[str, ...]) -> list[str]:
    """Source text of the handlers for ``types`` on ``sel``.

    When the element has none, the nearest ancestor (up to ``window``) that has some is
    taken instead: that is event delegation. For a handler that is an object, its
    ``handleEvent`` method.
    """
    try:
        # A page's own global of that name would stand in for DevTools' (and could name any
        # code): then no credit. (With the API installed, the name is always in globalThis.)
        own = await cdp.send(
            "Runtime.evaluate", {"expression": "'getEventListeners' in globalThis", "returnByValue": True}
        )
        if own.get("result", {}).get("value") is not False:
            return []
        reply = await cdp.send(
            "Runtime.evaluate",
            {
                "expression": f"({HANDLERS_JS})({json.dumps(sel)}, {json.dumps(list(types))})",
                "includeCommandLineAPI": True,
                "returnByValue": True,
            },
        )
    except Exception:  # noqa: BLE001 - credit is best effort; the page may be navigating
        return []
    found = reply.get("result", {}).get("value")
    return [s for s in found if isinstance(s, str)] if isinstance(found, list) else []


async def _no_transition_later(page: Any, steps: list[dict[str, Any]], res: dict[str, Any], screenshots: str) -> None:
    """Fail an item the untouched page met later, with that page's evidence."""
    res.update(passed=False, failed_step=len(steps) - 1, reason=NO_TRANSITION + " (the untouched page, later)")
    sel = next((s.get("sel") for s in reversed(steps) if s.get("expect")), None)
    res["dom"] = await _excerpt(page, sel)
    if screenshots in ("all", "failed"):
        res["screenshot"] = await _screenshot(page)


async def _excerpt(page: Any, sel: str | None) -> str:
    try:
        target = page.locator(sel).first if sel else page.locator("body")
        if sel and await asyncio.wait_for(page.locator(sel).count(), 2) == 0:
            target = page.locator("body")
        html = await asyncio.wait_for(target.evaluate("e => e.outerHTML"), 2)
        return re.sub(r"\s+", " ", html)[:600]
    except Exception:  # noqa: BLE001
        return ""


async def _screenshot(page: Any) -> str | None:
    """A small PNG of the viewport as base64 (about 5-15 kB)."""
    try:
        png = await asyncio.wait_for(page.screenshot(type="png", animations="disabled"), 4)
    except Exception:  # noqa: BLE001
        return None
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    img.thumbnail((240, 180))
    buf = io.BytesIO()
    img.quantize(64).save(buf, format="PNG", optimize=True)
    return base64.b64encode(buf.getvalue()).decode("ascii")


async def grade_in_browser(
    browser: Any,
    files: dict[str, str | bytes],
    react: bool,
    items: list[dict[str, Any]],
    credit: bool = True,
    screenshots: str = "failed",
    budget: Budget | None = None,
    lanes: int = LANES,
) -> dict[str, Any]:
    """Serve ``files``, load the app (runtime stage), then run each item's flow.

    The report is the browser side of the verdict, with the ``origin`` the grading's own static
    server had. The first context loads the app for the runtime stage and probes it untouched
    (the transition rule), and keeps that page untouched until every item has run. Items run
    in ``lanes`` other contexts at once (each with its own storage, so they cannot see each
    other), starting while that load settles and is probed. Their results count only when the
    runtime stage passes (otherwise the report has no items).
    """
    budget = budget or Budget()
    tally = new_tally()
    used_as_loaded = as_loaded_selectors(items)  # and those of them the app as loaded lacks (flows.ABSENT_WAIT_MS)
    absent: dict[str, float] = {}
    n = 1 + max(1, min(lanes, len(items)))  # contexts: the probe's, and the item lanes'
    spare = claim_spare(browser, budget, n)
    open_spare(browser, budget, 1 + lanes)  # the next grading's server and contexts open while this one runs
    if spare is None:
        spare = Spare(start_server(), [])
    server = spare.server
    server.serve(files)
    origin = server.origin
    opening = spare.sessions + [
        asyncio.ensure_future(open_session(browser, origin, budget)) for _ in range(n - len(spare.sessions))
    ]
    sessions: list[Session | None] = [None] * n
    results: list[dict[str, Any] | None] = [None] * len(items)
    queue = list(enumerate(items))
    initial: asyncio.Future[list[dict[str, bool]]] = asyncio.get_running_loop().create_future()
    load: dict[str, Any] = {"loaded": False, "hung": False, "page_errors": [], "console_errors": []}
    runs = False  # the runtime stage passed: items count
    hold: asyncio.Task[float] | None = None  # pauses the untouched page's clock (hold_clock)
    pixels: PixelWatch | None = None

    async def lane(k: int) -> None:
        sessions[k] = await asyncio.shield(opened[k])
        while queue:
            index, item = queue.pop(0)
            sess = sessions[k]
            if sess is None:
                sess = sessions[k] = await open_session(browser, origin, budget)
            try:
                if sess.used:
                    await asyncio.wait_for(wipe(sess, origin), 10)
            except Exception:  # noqa: BLE001 - the page would not let go: new context
                await close_session(sess, tally)
                sess = sessions[k] = await open_session(browser, origin, budget)
            res = await run_item(sess, origin, react, item, credit, screenshots, initial, index, used_as_loaded, absent)
            results[index] = res
            tally["dom_nodes"] = max(tally["dom_nodes"], res.get("dom_nodes") or 0)
            if res.get("hung"):
                tally["hung"] = True
                await close_session(sess, tally)
                sessions[k] = None

    opened = [asyncio.ensure_future(session_for(browser, origin, budget, f)) for f in opening]
    others = [asyncio.ensure_future(lane(k)) for k in range(1, n)]
    try:
        first = sessions[0] = await opened[0]

        async def probe() -> None:
            nonlocal hold, pixels
            pixels = PixelWatch(first, items)  # (its first shots as early as the items' snaps)
            try:
                found, _ = await asyncio.wait_for(
                    asyncio.gather(initial_state(first.page, items, first.dom), pixels.start()), budget.item_s
                )
            except TimeoutError:
                found = [{} for _ in items]  # no item can show a transition
            initial.set_result(found)  # items in the other lanes may finish now
            hold = asyncio.ensure_future(hold_clock(first, items))
            hold.add_done_callback(pixels.held)

        load = await load_check(first, origin, react, probe)
        if load["hung"]:
            tally["hung"] = True
        if load["loaded"] and not parse_errors(load["page_errors"]) and load.get("rendered", True):
            runs = True
            await asyncio.gather(*others)
            if hold is not None and pixels is not None:
                failed = await recheck_untouched(first, items, results, initial.result(), hold, pixels)
                if failed is None:
                    tally["hung"] = True  # the untouched page stopped answering on its own
                for i in failed or []:
                    await _no_transition_later(first.page, items[i]["flow"], results[i], screenshots)
    finally:
        if pixels is not None:
            pixels.cancel()
        if hold is not None:
            hold.cancel()
            await asyncio.gather(hold, return_exceptions=True)
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        await asyncio.gather(*(close_session(sess, tally) for sess in sessions if sess is not None))
        for task in opened:  # contexts that no lane took (the grading ended first)
            task.add_done_callback(close_unused(sessions))
        server.close()
    items_out = [r for r in results if r is not None] if runs else []
    return {"origin": origin, "load": load, "items": items_out, "tally": tally}
