"""The browser side of grading: load the app, run every rubric item's flow, collect evidence.

Everything here is a coroutine on the pool's event loop (``pool.py``). A grading gets fresh
browser contexts: the first loads the app for the runtime stage and probes it untouched (and
keeps it untouched until the end), the others (``LANES``) run the items side by side; each rubric item
starts from a freshly loaded app with empty storage (localStorage, sessionStorage, IndexedDB,
Cache Storage and cookies are wiped between items, see ``WIPE_INIT``), so one broken item
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
  everything else to a dead proxy (:func:`proxy_for`); downloads are cancelled and counted;
* dialogs are dismissed and counted per page load (``beforeunload`` ones accepted, as
  Playwright does), popups (``window.open``) closed and counted, main-frame navigations
  away from the origin recorded;
* every step has a timeout and every item a budget; a page stuck in an endless loop is
  abandoned and its context closed (Chromium kills the renderer); if even that hangs, the
  report says so and the pool restarts the browser;
* after load the DOM size and the storage used are measured (huge DOM, storage bomb).
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from codegym.errors import InfraError

from .dom import Dom
from .flows import (
    EVENTS_OF,
    PIXEL_EXPECTS,
    FlowError,
    FlowState,
    check,
    describe,
    do_action,
    expect,
    selectors_of,
    step_kind,
    uncaught,
)
from .server import StaticServer

CLOSE_TIMEOUT_S = 5.0
# Fake clocks start here on every fresh load, for determinism. A datetime, because a number
# means seconds to Playwright for Python (milliseconds in JavaScript).
FIXED_TIME = datetime(2026, 1, 1, tzinfo=UTC)
VIEWPORT = {"width": 640, "height": 480}
# dialogs: per page load (each item loads the app again); popups: per grading
LIMITS = {"dom_nodes": 20_000, "storage_bytes": 1_000_000, "dialogs": 10, "popups": 0}

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


@dataclass(frozen=True)
class Budget:
    """Time limits of one grading.

    Attributes:
        load_s: how long the app may take to fire ``load`` (then it counts as hung).
        item_s: how long one rubric item's flow may take, waits included.

    """

    load_s: float = 8.0
    item_s: float = 15.0


@dataclass
class Watch:
    """What the app did in one browser context besides rendering."""

    origin: str
    page_errors: list[dict[str, str]] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    websockets: list[str] = field(default_factory=list)
    dialogs: int = 0
    #: dialogs opened by the current document, and the most any one document opened (the
    #: limit is per page load: a rubric with more items must not make an app a storm)
    load_dialogs: int = 0
    peak_dialogs: int = 0
    popups: int = 0
    downloads: int = 0
    navigated_away: list[str] = field(default_factory=list)
    crashed: bool = False

    def merge_into(self, agg: dict[str, Any]) -> None:
        """Add this context's events to the grading-wide tally."""
        for key in ("blocked", "websockets", "navigated_away"):
            for url in getattr(self, key):
                if url not in agg[key] and len(agg[key]) < 20:
                    agg[key].append(url)
        agg["dialogs"] += self.dialogs
        agg["peak_dialogs"] = max(agg["peak_dialogs"], self.peak_dialogs)
        agg["popups"] += self.popups
        agg["downloads"] += self.downloads
        agg["crashed"] = agg["crashed"] or self.crashed


def new_tally() -> dict[str, Any]:
    """An empty grading-wide tally of containment events."""
    return {
        "blocked": [],
        "websockets": [],
        "navigated_away": [],
        "dialogs": 0,
        "peak_dialogs": 0,
        "popups": 0,
        "downloads": 0,
        "crashed": False,
        "hung": False,
        "close_hung": False,
    }


FRESH_PARAM = "__codegym_fresh"
# Every item starts on a fresh app with empty storage. The browser clears localStorage,
# IndexedDB, Cache Storage and cookies (DevTools' Storage.clearDataForOrigin); sessionStorage
# belongs to the tab and survives navigations (so does ``window.name``), and the previous
# item's page may still write while it unloads (pagehide), after that wipe. So this init
# script, which runs before any of the app's scripts, clears both Web Storages, the window's
# name and the cookies the page can see (every cookie the app can set from script) again when
# the URL carries FRESH_PARAM, and then drops the parameter (a later ``reload`` step must keep
# the storage it is testing). The tab's history is reset before each item (its length would
# tell an app how many items ran before).
WIPE_INIT = (
    f"(() => {{ try {{ const u = new URL(location.href); if (u.searchParams.has('{FRESH_PARAM}')) {{"
    " sessionStorage.clear(); localStorage.clear(); window.name = '';"
    " for (const c of document.cookie.split(';')) { const name = c.split('=')[0].trim();"
    " if (name) document.cookie = name + '=; Max-Age=0; path=/'; }"
    f" u.searchParams.delete('{FRESH_PARAM}');"
    " history.replaceState(history.state, '', u.pathname + u.search + u.hash); } } catch (e) {} })();"
)


@dataclass
class Session:
    """One browser context with one page and the watch over what the app does in it."""

    ctx: Any
    page: Any
    watch: Watch
    budget: Budget
    cdp: Any = None
    credit: bool = False
    #: the app was loaded in this context (its storage may need a wipe before the next item)
    used: bool = False
    #: the grader's isolated world in the page (reads and click points without Playwright's
    #: injected script, see dom.py)
    dom: Dom | None = None
    #: when (event-loop time) the app last finished loading in this session's page, and when
    #: its fake clock was last set to FIXED_TIME (just before that load)
    loaded_at: float = 0.0
    clock_set_at: float = 0.0


# Nothing listens here: whatever the browser sends to this proxy fails.
DEAD_PROXY = "http://127.0.0.1:9"


def proxy_for(origin: str) -> dict[str, str]:
    """The context's proxy settings: only the app's own ``host:port`` is reached directly.

    Chromium sends loopback addresses past any proxy unless the bypass list says
    ``<-loopback>``. With it, every other address, other localhost ports included, goes to the
    dead proxy. That also covers what the context's request routing never sees: a worker's
    WebSocket, speculation-rules prefetches and prerenders, WebRTC's TURN over TCP and
    WebTransport.
    """
    return {"server": DEAD_PROXY, "bypass": "<-loopback>," + origin.split("://", 1)[1]}


async def open_session(browser: Any, origin: str, credit: bool = False, budget: Budget = Budget()) -> Session:
    """A fresh context and page for the app at ``origin``, every containment hook installed.

    Every request whose URL is not on ``origin`` is blocked (by routing, where it is seen,
    and by the proxy settings), WebSockets are mocked, the fake clock is installed.
    """
    # The page stays on about:blank, making no request, until a grading loads the app.
    watch = Watch(origin)
    ctx = await browser.new_context(
        viewport=VIEWPORT,
        service_workers="block",
        device_scale_factor=1,
        locale="en-US",
        timezone_id="UTC",
        reduced_motion="reduce",
        accept_downloads=False,  # a download is cancelled (nothing is written) and counted
        proxy=proxy_for(origin),
    )
    try:
        return await _equip(ctx, watch, origin, credit, budget)
    except BaseException:  # a failed or cancelled set-up must not leave the context open
        await _quiet(asyncio.shield(ctx.close()))
        raise


async def _equip(ctx: Any, watch: Watch, origin: str, credit: bool, budget: Budget) -> Session:
    """Install the containment hooks and the fake clock in a new context, and open its page."""

    async def block(route: Any) -> None:
        if len(watch.blocked) < 50:
            watch.blocked.append(route.request.url[:200])
        await route.abort("blockedbyclient")

    # A regex (not a Python callable) lets Playwright's driver pass same-origin requests on by
    # itself, without a round trip to Python for each of them.
    await ctx.route(re.compile("^(?!" + re.escape(origin + "/") + ")"), block)

    async def mock_ws(ws: Any) -> None:
        # Not calling connect_to_server() keeps the socket a local mock: nothing leaves.
        watch.websockets.append(ws.url[:200])
        await ws.close()

    await ctx.route_web_socket(re.compile(r".*"), mock_ws)
    await ctx.clock.install(time=FIXED_TIME)
    await ctx.add_init_script(WIPE_INIT)
    page = await ctx.new_page()

    def on_popup(p: Any) -> None:
        watch.popups += 1
        asyncio.ensure_future(_quiet(p.close()))

    def on_dialog(d: Any) -> None:
        if d.type == "beforeunload":  # an "unsaved changes" guard: leave, as Playwright does
            asyncio.ensure_future(_quiet(d.accept()))
            return
        watch.dialogs += 1
        watch.load_dialogs += 1
        watch.peak_dialogs = max(watch.peak_dialogs, watch.load_dialogs)
        asyncio.ensure_future(_quiet(d.dismiss()))

    def on_nav(frame: Any) -> None:
        if frame.parent_frame is not None:
            return
        watch.load_dialogs = 0
        own = (watch.origin + "/", "blob:" + watch.origin + "/")  # a blob: document the app made
        if not frame.url.startswith(own) and frame.url != "about:blank":
            watch.navigated_away.append(frame.url[:200])

    def on_console(msg: Any) -> None:
        if msg.type != "error":
            return
        if not msg.location.get("url"):
            # Uncaught in a timer: the fake clock runs timers itself and logs what they throw
            # with console.error from its init script (no URL), and no pageerror fires. The
            # app's own console.error, even in a timer, carries the app's URL (code it evals
            # has none either, and would count as uncaught).
            if len(watch.page_errors) < 50:
                watch.page_errors.append(uncaught(msg.text))
        elif len(watch.console_errors) < 50:
            watch.console_errors.append(msg.text[:300])

    def on_error(err: Any) -> None:
        if len(watch.page_errors) < 50:
            watch.page_errors.append(
                {
                    "name": getattr(err, "name", "") or "Error",
                    "message": str(err)[:300],
                    "stack": (err.stack or "")[:1200],
                }
            )

    def on_crash(_: Any) -> None:
        watch.crashed = True

    def on_download(_: Any) -> None:
        watch.downloads += 1

    ctx.on("page", on_popup)
    page.on("dialog", on_dialog)
    page.on("framenavigated", on_nav)
    page.on("console", on_console)
    page.on("pageerror", on_error)
    page.on("crash", on_crash)
    page.on("download", on_download)
    page.set_default_timeout(3000)
    page.set_default_navigation_timeout(budget.load_s * 1000)
    cdp = await ctx.new_cdp_session(page)
    return Session(ctx, page, watch, budget, cdp, credit, dom=Dom(cdp))


async def _quiet(coro: Any) -> None:
    try:
        await coro
    except Exception:  # noqa: BLE001 - the popup or dialog may already be gone
        pass


async def close_session(sess: Session, tally: dict[str, Any]) -> None:
    """Close a context and add its events to the tally; a close that hangs marks the browser."""
    sess.watch.merge_into(tally)
    try:
        await asyncio.wait_for(sess.ctx.close(), CLOSE_TIMEOUT_S)
    except Exception:  # noqa: BLE001
        tally["close_hung"] = True


async def goto(page: Any, origin: str, react: bool, fresh: bool = False) -> bool:
    """Open the app and wait until it is ready; False when a React root stayed empty.

    ``fresh``: the init script wipes Web Storage before the app's scripts run.
    The fake clock starts at ``FIXED_TIME`` again: Playwright replays every clock call of
    the context (earlier items' advances, and the real time since the context opened) in
    each new document, so without this an item's dates depended on what ran before it.
    """
    await page.clock.set_system_time(FIXED_TIME)
    await page.goto(f"{origin}/?{FRESH_PARAM}=1" if fresh else f"{origin}/", wait_until="load")
    if react:
        try:
            await page.wait_for_function(
                "() => { const r = document.getElementById('root'); return r && r.childElementCount > 0; }",
                timeout=2000,
            )
        except Exception:  # noqa: BLE001 - an app that renders nothing fails its items
            return False
    return True


async def wipe(sess: Session, origin: str) -> None:
    """Clear every kind of storage of the origin (the next fresh load clears Web Storage again)."""
    await sess.cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})


# Two contexts per grading run the rubric items side by side, besides the probe's. Measured
# with bench/web.py's 12 apps on 2 cores (headless shell, two runs each): one item lane 0.48
# s/app, two 0.38 and 0.39, three 0.40. A context costs ~70 ms of CPU (a renderer process); a
# pool opens them ahead, during the previous grading.
LANES = 2

SETTLE_S = 0.05  # errors thrown from setTimeout(0)/promises just after load are load errors


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
        out["loaded"] = True
    except Exception as exc:  # noqa: BLE001 - a load timeout is the app's failure
        out["hung"] = isinstance(exc, TimeoutError) or "Timeout" in type(exc).__name__
        out["error"] = str(exc).split("\n")[0][:300] or "timed out"
    sess.cdp.remove_listener("Runtime.exceptionThrown", on_exception)
    w = sess.watch
    out["page_errors"] = list(w.page_errors)
    out["console_errors"] = list(w.console_errors)
    out["dialogs"] = w.dialogs
    return out


def parse_errors(errors: list[dict[str, str]]) -> list[dict[str, str]]:
    """The errors that say a script of the page did not parse.

    A script that fails to compile throws a SyntaxError with no stack frame; one thrown while
    a script runs (``JSON.parse("")``, ``querySelector("#1")``, a bad RegExp) has the frame
    that threw it, and is a runtime error of a script that parsed.
    """
    return [e for e in errors if e["name"] == "SyntaxError" and "\n    at " not in (e.get("stack") or "")]


def _key(spec: dict[str, Any]) -> str:
    return json.dumps(spec, sort_keys=True)


#: How long the probe waits (real time) for an untouched page to run out one idle span.
IDLE_TIMEOUT_S = 3.0
#: Steps that are not the user acting on the app: time passing, looking.
PASSIVE = ("expect", "advance", "wait", "snap")


def idle_ms(flow: list[dict[str, Any]]) -> int:
    """Fake time (ms) a flow may span.

    What it advances and waits, its longest expectation wait, and a second for its steps.
    """
    moved = sum(int(s["advance"]) for s in flow if step_kind(s) == "advance")
    waited = sum(min(int(s["wait"]), 3000) for s in flow if step_kind(s) == "wait")
    return 1000 + moved + waited + max((int(s.get("wait_ms", 1000)) for s in flow if s.get("expect")), default=0)


async def initial_state(page: Any, items: list[dict[str, Any]], dom: Dom | None = None) -> list[dict[str, bool]]:
    """For each item, whether each of its expectations holds on the page without any action.

    Every item starts from the same fresh page (new load, empty storage), so this is asked
    once per grading instead of once per item: right after the load, and, for an item whose
    flow acts on the app, again after the page ran untouched (fake clock) for as long as that
    flow may take. An expectation that holds either time is no transition: an app that shows
    the final state by itself a moment after it loads must not pass items whose actions did
    nothing. (A flow that only lets time pass is judged by the load alone: time is its action.)
    """
    specs = {
        _key(step): step
        for item in items
        for step in item["flow"]
        if step.get("expect") and step["expect"] not in PIXEL_EXPECTS
    }

    async def read(keys: list[str]) -> dict[str, bool]:
        return await read_expectations(page, {k: specs[k] for k in keys}, dom)

    at_load = await read(list(specs))
    held = [{k: at_load[k] for k in map(_key, item["flow"]) if k in specs} for item in items]
    spans = {i: idle_ms(it["flow"]) for i, it in enumerate(items) if acts(it["flow"])}
    elapsed = 0
    for span in sorted(set(spans.values())):
        try:
            await asyncio.wait_for(page.clock.run_for(span - elapsed), IDLE_TIMEOUT_S)
        except TimeoutError:
            break  # stuck (the load's measurement after this says so) or very slow
        except Exception:  # noqa: BLE001 - a timer threw (Playwright re-raises it); the others ran
            pass
        elapsed = span
        due = [i for i, s in spans.items() if s == span]
        later = await read(sorted({k for i in due for k in held[i]}))
        for i in due:
            held[i] = {k: was or later[k] for k, was in held[i].items()}
    return held


def acts(flow: list[dict[str, Any]]) -> bool:
    """Whether a flow acts on the app (a flow that only lets time pass is judged at load)."""
    return any(step_kind(s) not in PASSIVE for s in flow)


def acting_specs(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The expectations (by key) of the items that act, pixel ones aside (they compare with a snap)."""
    return {
        _key(s): s
        for it in items
        if acts(it["flow"])
        for s in it["flow"]
        if s.get("expect") and s["expect"] not in PIXEL_EXPECTS
    }


async def freeze(sess: Session, items: list[dict[str, Any]]) -> dict[str, bool] | None:
    """Stop the untouched page's fake clock where the probe left it, and read it there.

    The clock would go on in real time, and a timer of the app past an item's span (a banner
    that hides itself) is not the kind of change :func:`recheck_untouched` looks for: from
    here on only what real time drives can change the page. The pause lands a little after
    the clock's present time (load, the real time since, and the spans the probe ran); None
    when it could not be paused.
    """
    fake_ms = max((idle_ms(it["flow"]) for it in items if acts(it["flow"])), default=0)
    ahead = asyncio.get_running_loop().time() - sess.clock_set_at + fake_ms / 1000 + 0.05
    try:
        await asyncio.wait_for(sess.page.clock.pause_at(FIXED_TIME + timedelta(seconds=ahead)), 3)
        return await asyncio.wait_for(read_expectations(sess.page, acting_specs(items), sess.dom), 3)
    except Exception:  # noqa: BLE001 - a hung or closed page
        return None


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

    A pixel expectation compares with a snap the flow took itself, so it counts as one.
    """
    return any(s.get("expect") in PIXEL_EXPECTS or (s.get("expect") and not held.get(_key(s), True)) for s in steps)


NO_TRANSITION = (
    "no transition: every expectation already held on the freshly loaded page, or came true on it without "
    "the flow's actions"
)


async def recheck_untouched(
    sess: Session,
    items: list[dict[str, Any]],
    results: list[dict[str, Any] | None],
    held: list[dict[str, bool]],
    at_end: dict[str, bool],
    screenshots: str,
) -> bool:
    """After every item ran, read the passing items' expectations on the probe page once more.

    That page has stayed untouched, in a context of its own, its fake clock paused where the
    probe left it (``at_end``: what it showed then). It is read once it has been loaded (in
    real time) as long as the slowest passing item took from its load to its last step: an
    expectation that came true there since the pause came true by real time alone (a worker's
    timer, the end of a CSS animation: the fake clock runs neither), which is no transition
    either, and the item fails. False when the page no longer answers.
    """
    passing = [i for i, r in enumerate(results) if r is not None and r["passed"] and acts(items[i]["flow"])]
    loop = asyncio.get_running_loop()
    behind = max((results[i]["settled_s"] for i in passing), default=0.0) - (loop.time() - sess.loaded_at)
    if behind > 0:
        await asyncio.sleep(min(behind, sess.budget.item_s))
    specs = {k: s for k, s in acting_specs([items[i] for i in passing]).items()}
    if not specs:
        return True
    try:
        now = await asyncio.wait_for(read_expectations(sess.page, specs, sess.dom), 3)
    except TimeoutError:
        return False
    for i in passing:
        steps, res = items[i]["flow"], results[i]
        real = {k: now.get(k, False) and not at_end.get(k, True) for k in held[i]}
        if transition_seen(steps, {k: was or real[k] for k, was in held[i].items()}):
            continue
        res.update(passed=False, failed_step=len(steps) - 1, reason=NO_TRANSITION + " (the untouched page, later)")
        sel = next((s.get("sel") for s in reversed(steps) if s.get("expect")), None)
        res["dom"] = await _excerpt(sess.page, sel)
        if screenshots in ("all", "failed"):
            res["screenshot"] = await _screenshot(sess.page)
    return True


async def run_item(
    sess: Session,
    origin: str,
    react: bool,
    item: dict[str, Any],
    screenshots: str,
    initial: asyncio.Future[list[dict[str, bool]]],
    index: int,
) -> dict[str, Any]:
    """Run one rubric item's flow on a freshly loaded app and say whether the transition was seen."""
    steps = item["flow"]
    w = sess.watch
    sess.used = True
    marks = (len(w.page_errors), len(w.console_errors))
    res: dict[str, Any] = {
        "id": item["id"],
        "passed": False,
        "reason": "",
        "failed_step": None,
        "selectors": [],
        "handlers": [],
    }
    state = FlowState()
    page = sess.page
    try:
        await asyncio.wait_for(sess.cdp.send("Page.resetNavigationHistory"), 3)
    except Exception:  # noqa: BLE001 - a closed or hung page: the load below says so
        pass
    try:
        await asyncio.wait_for(
            _flow(
                page,
                sess.cdp if sess.credit else None,
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
    loaded_at = asyncio.get_running_loop().time()
    for i, step in enumerate(steps):
        kind = step_kind(step)
        state.step = i
        res["selectors"] += [s for s in selectors_of(step) if s not in res["selectors"]]
        if kind == "expect":
            state.last_sel = step.get("sel")
            ok, got = await expect(page, step, state, dom)
            if not ok:
                res["failed_step"] = i
                res["reason"] = f"step {i}: expected {describe(step)}; observed {got!r}"
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
    budget: Budget = Budget(),
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
    tally = new_tally()
    n = 1 + max(1, min(lanes, len(items)))  # contexts: the probe's, and the item lanes'
    spare = _claim_spare(browser, credit, budget, n)
    _keep_spares(browser, credit, budget, 1 + lanes)  # the next grading's server and contexts open while this one runs
    if spare is None:
        spare = Spare(start_server(), [])
    server = spare.server
    server.serve(files)
    origin = server.origin
    opening = spare.sessions[:n] + [
        asyncio.ensure_future(open_session(browser, origin, credit, budget)) for _ in range(n - len(spare.sessions))
    ]
    sessions: list[Session | None] = [None] * n
    results: list[dict[str, Any] | None] = [None] * len(items)
    queue = list(enumerate(items))
    initial: asyncio.Future[list[dict[str, bool]]] = asyncio.get_running_loop().create_future()
    load: dict[str, Any] = {"loaded": False, "hung": False, "page_errors": [], "console_errors": []}
    runs = False  # the runtime stage passed: items count
    at_end: dict[str, bool] | None = None  # the untouched page when its clock was paused

    async def lane(k: int) -> None:
        sess = sessions[k] = await asyncio.shield(opened[k])
        while queue:
            index, item = queue.pop(0)
            sess = sessions[k]
            if sess is None:
                sess = sessions[k] = await open_session(browser, origin, credit, budget)
            try:
                if sess.used:
                    await asyncio.wait_for(wipe(sess, origin), 10)
            except Exception:  # noqa: BLE001 - the page would not let go: new context
                await close_session(sess, tally)
                sess = sessions[k] = await open_session(browser, origin, credit, budget)
            res = await run_item(sess, origin, react, item, screenshots, initial, index)
            results[index] = res
            if res.get("hung"):
                tally["hung"] = True
                await close_session(sess, tally)
                sessions[k] = None

    opened = [asyncio.ensure_future(_session_for(browser, origin, credit, budget, f)) for f in opening]
    others = [asyncio.ensure_future(lane(k)) for k in range(1, n)]
    try:
        first = sessions[0] = await opened[0]

        async def probe() -> None:
            nonlocal at_end
            try:
                found = await asyncio.wait_for(initial_state(first.page, items, first.dom), budget.item_s)
            except TimeoutError:
                found = [{} for _ in items]  # no item can show a transition
            initial.set_result(found)  # items in the other lanes may finish now
            at_end = await freeze(first, items)

        load = await load_check(first, origin, react, probe)
        if load["hung"]:
            tally["hung"] = True
        if load["loaded"] and not parse_errors(load["page_errors"]) and load.get("rendered", True):
            runs = True
            await asyncio.gather(*others)
            if at_end is None or not await recheck_untouched(
                first, items, results, initial.result(), at_end, screenshots
            ):
                tally["hung"] = True  # the untouched page stopped answering on its own
    finally:
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        await asyncio.gather(*(close_session(sess, tally) for sess in sessions if sess is not None))
        for task in opened:  # contexts that no lane took (the grading ended first)
            task.add_done_callback(_close_unused(sessions))
        server.close()
    items_out = [r for r in results if r is not None] if runs else []
    return {"origin": origin, "load": load, "items": items_out, "tally": tally}


def start_server() -> StaticServer:
    """An empty static server for one grading (:meth:`StaticServer.serve` gives it the app)."""
    try:
        return StaticServer()
    except (OSError, RuntimeError) as exc:  # no free port / no thread: the machine, not the app
        raise InfraError(f"could not start the app's static server: {exc}") from exc


def _close_unused(sessions: list[Session | None]) -> Callable[[asyncio.Future[Session]], None]:
    def close(fut: asyncio.Future[Session]) -> None:
        if not fut.cancelled() and fut.exception() is None and all(fut.result() is not s for s in sessions):
            asyncio.ensure_future(_quiet(fut.result().ctx.close()))

    return close


@dataclass
class Spare:
    """A grading's server and contexts, opened before its app is known."""

    server: StaticServer
    sessions: list[asyncio.Future[Session]]
    key: tuple[bool, Budget] | None = None

    def discard(self) -> None:
        """Close the contexts and the server (opened with settings no grading asked for)."""
        for fut in self.sessions:
            _discard(fut)
        self.server.close()


# One spare per pooled browser for the next grading (a server and one context per lane),
# opened while the current grading runs: opening a context (a new renderer process) is mostly
# waiting, which overlaps well. The server comes first because each context's proxy settings
# name its port. A browser launched for one grading (the benchmark's baseline) gets none.
_SPARES: dict[int, list[Spare]] = {}
_POOLED: set[int] = set()


def keep_spares(browser: Any) -> None:
    """Mark ``browser`` as long-lived: each grading opens the next one's server and contexts ahead."""
    _POOLED.add(id(browser))


def _keep_spares(browser: Any, credit: bool, budget: Budget, n: int) -> None:
    if id(browser) not in _POOLED or _SPARES.get(id(browser)):
        return
    try:
        server = StaticServer()
    except (OSError, RuntimeError):  # the next grading will say so when it starts its own
        return
    futs = [asyncio.ensure_future(open_session(browser, server.origin, credit, budget)) for _ in range(n)]
    for fut in futs:
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())  # never "exception never retrieved"
    _SPARES.setdefault(id(browser), []).append(Spare(server, futs, (credit, budget)))


def _claim_spare(browser: Any, credit: bool, budget: Budget, n: int) -> Spare | None:
    """The spare opened with these settings, its contexts beyond ``n`` closed; None if there is none."""
    spares = _SPARES.get(id(browser), [])
    while spares:
        spare = spares.pop(0)
        if spare.key == (credit, budget):
            for fut in spare.sessions[n:]:
                _discard(fut)
            del spare.sessions[n:]
            return spare
        spare.discard()
    return None


def _discard(fut: asyncio.Future[Session]) -> None:
    """Close the context ``fut`` opens, now or when it is open (cancelling could leave it open)."""

    def close(done: asyncio.Future[Session]) -> None:
        if not done.cancelled() and done.exception() is None:
            asyncio.ensure_future(_quiet(done.result().ctx.close()))

    fut.add_done_callback(close)


async def drop_spare(browser: Any) -> None:
    """Close the spares kept for ``browser`` (the pool calls this before closing it)."""
    _POOLED.discard(id(browser))
    for spare in _SPARES.pop(id(browser), []):
        for fut in spare.sessions:
            if not fut.done():
                fut.cancel()  # the browser closes next, with whatever it opened
            elif not fut.cancelled() and fut.exception() is None:
                await _quiet(fut.result().ctx.close())
        spare.server.close()


async def _session_for(
    browser: Any, origin: str, credit: bool, budget: Budget, opening: asyncio.Future[Session]
) -> Session:
    """The session ``opening`` gives, or a new one when it failed (a spare from a dead browser)."""
    try:
        return await asyncio.wait_for(asyncio.shield(opening), 10)
    except Exception:  # noqa: BLE001
        _discard(opening)
    return await open_session(browser, origin, credit, budget)
