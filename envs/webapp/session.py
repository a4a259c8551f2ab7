"""Browser contexts for gradings: each with every containment hook, and opened ahead by a pool.

A :class:`Session` is one fresh browser context with one page, for the app at one origin:
requests that leave the origin are blocked and recorded (and the context's proxy settings
send them to a dead proxy, loopback included), WebSockets are mocked, dialogs dismissed and
counted, windows the app asks for counted (and never opened, or closed at once: pool.LAUNCH_ARGS),
downloads cancelled, the fake clock installed (every fresh load starts it at ``FIXED_TIME``);
:class:`Watch` keeps what the app did. A pooled browser
keeps a :class:`Spare` for the next grading (its static server and its contexts, opened
while the current grading runs), see ``grader.grade_in_browser``.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from codegym.errors import InfraError

from .dom import Dom
from .flows import REOPEN_PARAM, parse_errors, uncaught
from .server import StaticServer

CLOSE_TIMEOUT_S = 5.0
POPUPS_COUNTED = 20  # a context counts the windows its page asks for up to here (about)
# Fake clocks start here on every fresh load, for determinism. A datetime, because a number
# means seconds to Playwright for Python (milliseconds in JavaScript).
FIXED_TIME = datetime(2026, 1, 1, tzinfo=UTC)
VIEWPORT = {"width": 640, "height": 480}
# The app's storage quota (IndexedDB, Cache Storage, the origin's private file system). A
# context's storage is kept in the browser process's memory, which no process cap covers. Past
# the quota a write fails with QuotaExceededError, so what an app stores stays small (writes
# still queued are held until they fail: see pool.py). The storage bomb flag is raised at a
# tenth of this.
QUOTA_BYTES = 10_000_000


@dataclass(frozen=True)
class Budget:
    """Time limits of one grading.

    Attributes:
        load_s: how long the app may take to fire ``load`` (then it counts as hung).
        item_s: how long one rubric item's flow may take, waits included.

    """

    load_s: float = 8.0
    item_s: float = 15.0

    def __post_init__(self) -> None:
        for name in ("load_s", "item_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise ValueError(f"Budget.{name} must be a positive number of seconds, got {value!r}")


@dataclass
class Watch:
    """What the app did in one browser context besides rendering."""

    origin: str
    page_errors: list[dict[str, str]] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    websockets: list[str] = field(default_factory=list)
    dialogs: int = 0
    #: dialogs opened since the grader last loaded the app (for the probe, or for an item:
    #: the limit is per item, so a rubric with more items must not make an app a storm; its
    #: reload steps and the app's own navigations, pushState included, count with it), and
    #: the most any one load opened
    load_dialogs: int = 0
    peak_dialogs: int = 0
    #: windows the page asked for (window.open, a link or form with a target), up to about
    #: POPUPS_COUNTED, and those that opened (the full browser's; the popups count the more)
    popups: int = 0
    opened: int = 0
    downloads: int = 0
    #: where scripts failed to parse that the app's error handlers hid (grader.load_check)
    parse_at: list[dict[str, int]] = field(default_factory=list)
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
        agg["popups"] += max(self.popups, self.opened)
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
        "dom_nodes": 0,  # the most DOM nodes a page kept after an item's last step (grader.dom_nodes)
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
# the storage it is testing). The fake clock's performance time (``performance.now()``, the
# time requestAnimationFrame passes) would go on from the context's earlier loads, which tells
# a later item from the untouched probe's load: in every document, frames included, it starts
# from 0 when the page first reads it (as a real browser's does at each navigation). The tab's
# history is reset before each item (its length would tell an app how many items ran before).
# A ``reload`` step opens the app again as a new visit would (flows.REOPEN_PARAM): the tab's
# sessionStorage and name start empty, what the app keeps in localStorage, IndexedDB or
# cookies stays (an app that keeps its state only for the tab does not persist it).
WIPE_INIT = (
    "(() => { try { const u = new URL(location.href);"
    f" const fresh = u.searchParams.has('{FRESH_PARAM}'), reopen = u.searchParams.has('{REOPEN_PARAM}');"
    " if (fresh || reopen) { sessionStorage.clear(); window.name = '';"
    " if (fresh) { localStorage.clear(); for (const c of document.cookie.split(';')) {"
    " const name = c.split('=')[0].trim(); if (name) document.cookie = name + '=; Max-Age=0; path=/'; } }"
    f" u.searchParams.delete('{FRESH_PARAM}'); u.searchParams.delete('{REOPEN_PARAM}');"
    " history.replaceState(history.state, '', u.pathname + u.search + u.hash); } } catch (e) {}"
    # The fake clock's performance time runs on across the context's loads: in every document
    # (frames too) start it again at the first read (the clock's own log, in init scripts after
    # this one, moves it until then).
    " try { const now = performance.now.bind(performance), raf = requestAnimationFrame.bind(window);"
    " let base; const since = (t) => t - (base === undefined ? (base = now()) : base);"
    " Object.defineProperty(performance, 'now', {value: () => since(now()), configurable: true, writable: true});"
    " window.requestAnimationFrame = (cb) => raf((t) => cb(since(t))); } catch (e) {} })();"
)


SUPPRESSED = "__codegym_suppressed "
# An app cannot hide its own errors. ``window.onerror = () => true`` or an error listener
# that calls ``preventDefault`` keeps an uncaught error (a script that does not parse, one that
# throws) out of the console and out of DevTools' ``Runtime.exceptionThrown``, which is where
# Playwright's ``pageerror`` comes from: a page with a broken script passed the source and
# runtime stages. This init script runs before any of the app's: its listeners (capturing, so
# first on the window) read every error and unhandled rejection the browser raised, and once
# the event is over (a MessageChannel task: the fake clock does not hold it) report those the
# app prevented, through the console.error it kept (no URL: session._equip reads it as
# uncaught). It uses only what it kept (no Array or Object method the app could replace, a
# record with no prototype for JSON), reads the stack before the app's handlers can touch the
# error, and pins ``Error.prepareStackTrace`` so that stacks keep V8's wording.
# What a timer callback throws never reaches the window: the fake clock runs timers itself,
# catches the error and logs it with the page's global ``console.error``, which the app can
# replace. So the callbacks of setTimeout, setInterval, requestAnimationFrame and
# requestIdleCallback are wrapped: what they throw is reported at once through the kept
# console.error and goes no further (in a browser without the fake clock an error in one
# timer does not stop the others either). Code given to setTimeout or setInterval as a string
# becomes a callback that runs it the way the clock would, by an indirect eval in the global
# scope (the kept eval: an app's own ``eval`` is not called, as in a browser).
ERRORS_INIT = (
    "(() => { try { const apply = Reflect.apply, json = JSON.stringify, report = console.error, con = console,"
    " win = globalThis, record = Object.create, str = String, indirect = globalThis.eval;"
    " const get = (C, k) => Object.getOwnPropertyDescriptor(C.prototype, k).get;"
    " const prevented = get(Event, 'defaultPrevented'), error = get(ErrorEvent, 'error'),"
    " message = get(ErrorEvent, 'message'), line = get(ErrorEvent, 'lineno'), column = get(ErrorEvent, 'colno'),"
    " reason = get(PromiseRejectionEvent, 'reason'), target = get(Event, 'target');"
    " Object.defineProperty(Error, 'prepareStackTrace', {value: undefined, writable: false, configurable: false});"
    f" const send = (entry) => apply(report, con, ['{SUPPRESSED}' + json(entry)]);"
    " const pending = record(null), ch = new MessageChannel(), port = ch.port2, post = port.postMessage;"
    " let head = 0, tail = 0;"
    " ch.port1.onmessage = () => { while (head < tail) { const p = pending[head]; delete pending[head++];"
    " if (apply(prevented, p.e, [])) send(p.entry); } };"
    " const later = (e, stack, at) => { const p = record(null), entry = record(null); entry.stack = stack;"
    " if (at) { entry.line = apply(line, e, []); entry.column = apply(column, e, []); } p.e = e; p.entry = entry;"
    " pending[tail++] = p; if (tail - head === 1) apply(post, port, [0]); };"
    " const stackOf = (v, fallback) => { try { const s = v.stack; if (typeof s === 'string' && s) return s;"
    " } catch (x) {} return fallback(); };"
    # the stack of a thrown value, or the value itself after ``what``
    " const thrown = (v, what) => stackOf(v, () => { try { return what + ' ' + str(v); } catch (x) { return what; } });"
    " const now = (v) => { const entry = record(null); entry.stack = thrown(v, 'Uncaught'); send(entry); };"
    " for (const name of ['setTimeout', 'setInterval', 'requestAnimationFrame', 'requestIdleCallback']) {"
    " const schedule = win[name]; if (typeof schedule !== 'function') continue;"
    " const strings = name === 'setTimeout' || name === 'setInterval';"
    " win[name] = function () { const args = arguments, callback = args[0]; if (typeof callback === 'function') {"
    " args[0] = function () { try { return apply(callback, this, arguments); } catch (e) { now(e); } };"
    # code given as a string: run as the clock runs it (an indirect eval), with the eval kept
    " } else if (strings) { const code = str(callback);"
    " args[0] = function () { try { indirect(code); } catch (e) { now(e); } }; }"
    " return apply(schedule, this, args); }; }"
    " win.addEventListener('error', (e) => { if (!e.isTrusted || apply(target, e, []) !== win) return;"
    " later(e, stackOf(apply(error, e, []), () => apply(message, e, [])), true); }, true);"
    " win.addEventListener('unhandledrejection', (e) => { if (!e.isTrusted) return; const v = apply(reason, e, []);"
    " later(e, thrown(v, 'Uncaught (in promise)'), false); }, true);"
    " } catch (e) {} })();"
)


def suppressed(text: str, watch: Watch) -> dict[str, str] | None:
    """The page error an app hid (ERRORS_INIT's report), or None for any other message.

    A script that did not parse also gets its place in ``watch.parse_at``.
    """
    if not text.startswith(SUPPRESSED):
        return None
    try:
        entry = json.loads(text[len(SUPPRESSED) :])
        err = uncaught(str(entry["stack"]))
    except (ValueError, KeyError, TypeError):
        return None
    if parse_errors([err]) and isinstance(entry.get("line"), int) and len(watch.parse_at) < 50:
        watch.parse_at.append({"line": entry["line"], "column": max(0, int(entry.get("column") or 1) - 1)})
    return err


@dataclass
class Session:
    """One browser context with one page and the watch over what the app does in it."""

    ctx: Any
    page: Any
    watch: Watch
    budget: Budget
    cdp: Any = None
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


async def open_session(browser: Any, origin: str, budget: Budget = Budget()) -> Session:
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
        return await _equip(ctx, watch, origin, budget)
    except BaseException:  # a failed or cancelled set-up must not leave the context open
        await _quiet(asyncio.shield(ctx.close()))
        raise


async def _equip(ctx: Any, watch: Watch, origin: str, budget: Budget) -> Session:
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
    await ctx.add_init_script(WIPE_INIT + ERRORS_INIT)
    page = await ctx.new_page()

    def on_popup(p: Any) -> None:  # (the full browser opens them: pool.LAUNCH_ARGS)
        watch.opened += 1
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
        own = (watch.origin + "/", "blob:" + watch.origin + "/")  # a blob: document the app made
        if not frame.url.startswith(own) and frame.url != "about:blank":
            watch.navigated_away.append(frame.url[:200])

    def on_console(msg: Any) -> None:
        if msg.type != "error":
            return
        if not msg.location.get("url"):
            # Uncaught: what ERRORS_INIT reports (a timer callback threw, or the app hid an
            # error), or what the fake clock logs itself (a string given to setTimeout threw);
            # both log from an init script, with no URL, and no pageerror fires. The app's own
            # console.error, even in a timer, carries the app's URL (code it evals has none
            # either, and would count as uncaught).
            if len(watch.page_errors) < 50:
                watch.page_errors.append(suppressed(msg.text, watch) or uncaught(msg.text))
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

    crashed = asyncio.get_running_loop().create_future()

    def on_crash(_: Any) -> None:
        watch.crashed = True
        if not crashed.done():
            crashed.set_result(None)

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
    cdp = CrashSafeCDP(await ctx.new_cdp_session(page), crashed)

    def on_window_open(_: Any) -> None:
        watch.popups += 1
        if watch.popups == POPUPS_COUNTED:  # enough to flag; an app calling in a loop floods no one
            asyncio.ensure_future(_quiet(cdp.send("Page.disable")))

    # DevTools tells of every window the page asks for, opened or blocked, from any of its frames.
    cdp.on("Page.windowOpen", on_window_open)
    await cdp.send("Page.enable")
    await cdp.send("Storage.overrideQuotaForOrigin", {"origin": origin, "quotaSize": QUOTA_BYTES})
    return Session(ctx, page, watch, budget, cdp, dom=Dom(cdp))


class CrashSafeCDP:
    """A page's DevTools session whose calls fail at once when the page's renderer crashes.

    Chromium never answers a DevTools call to a renderer that died (the app's heap, or the
    machine's OOM killer): without this, a grading waited for its whole time limit and was
    taken for a hung browser.
    """

    def __init__(self, cdp: Any, crashed: asyncio.Future[None]) -> None:
        self._cdp, self._crashed = cdp, crashed

    async def send(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """``cdp.send``, or RuntimeError as soon as the page's renderer crashes."""
        call = asyncio.ensure_future(self._cdp.send(method, params))
        await asyncio.wait({call, self._crashed}, return_when=asyncio.FIRST_COMPLETED)
        if call.done():
            return call.result()
        call.cancel()
        raise RuntimeError(f"the page's renderer crashed; {method} went unanswered")

    def __getattr__(self, name: str) -> Any:  # on, remove_listener, detach
        return getattr(self._cdp, name)


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


def start_server() -> StaticServer:
    """An empty static server for one grading (:meth:`StaticServer.serve` gives it the app)."""
    try:
        return StaticServer()
    except (OSError, RuntimeError) as exc:  # no free port / no thread: the machine, not the app
        raise InfraError(f"could not start the app's static server: {exc}") from exc


def close_unused(sessions: list[Session | None]) -> Callable[[asyncio.Future[Session]], None]:
    """A done-callback that closes the session a future opened unless it is one of ``sessions``."""

    def close(fut: asyncio.Future[Session]) -> None:
        if not fut.cancelled() and fut.exception() is None and all(fut.result() is not s for s in sessions):
            asyncio.ensure_future(_quiet(fut.result().ctx.close()))

    return close


@dataclass
class Spare:
    """A grading's server and contexts, opened before its app is known."""

    server: StaticServer
    sessions: list[asyncio.Future[Session]]
    #: the settings its contexts were opened with (the page's load timeout comes from them)
    budget: Budget | None = None

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


def mark_pooled(browser: Any) -> None:
    """Mark ``browser`` as long-lived: each grading opens the next one's server and contexts ahead."""
    _POOLED.add(id(browser))


def open_spare(browser: Any, budget: Budget, n: int) -> None:
    """Start opening the next grading's server and ``n`` contexts, if ``browser`` is pooled and has none."""
    if id(browser) not in _POOLED or _SPARES.get(id(browser)):
        return
    try:
        server = StaticServer()
    except (OSError, RuntimeError):  # the next grading will say so when it starts its own
        return
    futs = [asyncio.ensure_future(open_session(browser, server.origin, budget)) for _ in range(n)]
    for fut in futs:
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())  # never "exception never retrieved"
    _SPARES.setdefault(id(browser), []).append(Spare(server, futs, budget))


def claim_spare(browser: Any, budget: Budget, n: int) -> Spare | None:
    """The spare opened with these settings, its contexts beyond ``n`` closed; None if there is none."""
    spares = _SPARES.get(id(browser), [])
    while spares:
        spare = spares.pop(0)
        if spare.budget == budget:
            for fut in spare.sessions[n:]:
                _discard(fut)
            del spare.sessions[n:]
            return spare
        spare.discard()
    return None


def _discard(fut: asyncio.Future[Session]) -> None:
    """Close the context ``fut`` opens, now or when it is open (cancelling could leave it open)."""
    fut.add_done_callback(close_unused([]))


async def spare_opened(browser: Any) -> None:
    """Wait until the contexts of ``browser``'s spares are open (or failed to open)."""
    opening = [fut for spare in _SPARES.get(id(browser), []) for fut in spare.sessions]
    if opening:
        await asyncio.wait(opening)  # (not gather: a timeout must not cancel them)


async def drop_spare(browser: Any) -> None:
    """Close the spares kept for ``browser`` (the pool calls this before closing it)."""
    _POOLED.discard(id(browser))
    spares = _SPARES.pop(id(browser), [])
    for spare in spares:  # first: closing a context of a hung browser may never return
        spare.server.close()
    for spare in spares:
        for fut in spare.sessions:
            if not fut.done():
                fut.cancel()  # the browser closes next, with whatever it opened
            elif not fut.cancelled() and fut.exception() is None:
                await _quiet(fut.result().ctx.close())


async def session_for(browser: Any, origin: str, budget: Budget, opening: asyncio.Future[Session]) -> Session:
    """The session ``opening`` gives, or a new one when it failed (a spare from a dead browser)."""
    try:
        return await asyncio.wait_for(asyncio.shield(opening), 10)
    except Exception:  # noqa: BLE001
        _discard(opening)
    return await open_session(browser, origin, budget)
