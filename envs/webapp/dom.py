"""The grader's own view of the page: DOM reads and click points from an isolated world.

Playwright's locators answer every question through its injected script (about 330 kB of
JavaScript), which is compiled and run again in every new document. Each rubric item starts
on a fresh load, so that cost came once per item: about 20 ms of CPU, more than the load
itself (``bench/web.py``). For the questions flows ask most (plain CSS selectors: how many
match, the first one's text, value, attribute, visibility; where to click it; select its
text for a fill; its screenshot for pixel expectations), this module answers with a small
script of its own, installed in an isolated world of each document (DevTools'
``Page.createIsolatedWorld``). Like Playwright's utility world, that world shares the DOM
with the app but not its JavaScript globals, so an app that patches ``Element.prototype``
or ``localStorage`` cannot change what the grader reads.

Every answer reproduces Playwright's semantics for the case it handles (the functions named
in ``AGENT_JS`` follow playwright-core's injected script), and every other case answers
``None``: the caller then asks Playwright, which waits, retries and words its errors as
before. Cases left to Playwright: selectors the browser's own CSS engine does not accept
(``text=``, ``:text-is()``, ``:visible``, ``>>`` chains), selector lists, documents with open
shadow roots (Playwright's CSS engine pierces them, ``querySelectorAll`` does not), elements
that are missing, hidden, disabled, read-only or not fully inside the viewport (Playwright
waits for them or scrolls to them), anything that is not a text input, text area or native
checkbox, and screenshots while an animation runs or a text field has the caret
(Playwright stops the one and hides the other first).
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

WORLD = "codegym-grader"
CALL_TIMEOUT_S = 2.0
#: What :meth:`Dom.screenshot` gives for an element that is not visible (no pixels to shoot).
NOT_VISIBLE = b""

# Whether a user can see an element Playwright counts as visible: not faded out (opacity 0 on
# it or an ancestor, shadow hosts included), nor placed wholly before the page's top or left
# edge, where no scrolling reaches it.
SEEN_JS = """(e) => {
    for (let n = e; n; n = n.parentElement || (n.getRootNode() instanceof ShadowRoot ? n.getRootNode().host : null))
      if (getComputedStyle(n).opacity === '0') return false;
    const r = e.getBoundingClientRect();
    return r.right + scrollX > 0 && r.bottom + scrollY > 0;
  }"""

AGENT_JS = r"""
(() => {
  const XHTML = 'http://www.w3.org/1999/xhtml';
  const hasOpenShadowRoot = () => {
    const walk = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) if (n.shadowRoot) return true;
    return false;
  };
  // null: a selector for Playwright's own engine (or a document it reads differently)
  const matches = (sel) => {
    // left to Playwright: lists (its own semantics), pseudo-elements, nesting, namespaces (it rejects them)
    if (typeof sel !== 'string' || /,|::|&|\|(?!=)/.test(sel)) return null;
    let found;
    try { found = document.querySelectorAll(sel); } catch (e) { return null; }
    return hasOpenShadowRoot() ? null : found;
  };
  // What a user can see of an element Playwright counts as visible (the Python side's SEEN_JS).
  const seen = __SEEN__;
  // playwright-core injectedScript: computeBox / isElementVisible
  const isVisible = (e) => {
    const style = getComputedStyle(e);
    if (style.display === 'contents') {
      for (let c = e.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && isVisible(c)) return true;
        if (c.nodeType === 3) {
          const range = document.createRange();
          range.selectNode(c);
          const r = range.getBoundingClientRect();
          if (r.width > 0 && r.height > 0) return true;
        }
      }
      return false;
    }
    if (!e.checkVisibility() || style.visibility !== 'visible') return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  // A viewport rect's enclosing whole-pixel rect in document coordinates (Chromium's
  // enclosingIntRect, as Playwright clips an element's screenshot).
  const inPage = (r) => {
    const x = r.x + scrollX, y = r.y + scrollY;
    const x0 = Math.floor(x + 1e-3), y0 = Math.floor(y + 1e-3);
    return {x: x0, y: y0, width: Math.ceil(x + r.width - 1e-3) - x0, height: Math.ceil(y + r.height - 1e-3) - y0};
  };
  // In full view: inside the viewport and inside every ancestor that clips its overflow
  // (a scrolled list, an overflow:hidden box), where Playwright would scroll first.
  const inView = (e, r) => {
    if (!(r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight)) return false;
    for (let a = e.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const b = a.getBoundingClientRect(), left = b.left + a.clientLeft, top = b.top + a.clientTop;
      const right = left + a.clientWidth, bottom = top + a.clientHeight;
      if (r.left < left || r.top < top || r.right > right || r.bottom > bottom) return false;
    }
    return true;
  };
  const round = (v) => (v * 100 | 0) / 100;
  const isHtml = (e) => e.namespaceURI === XHTML;
  const TYPEABLE = ['', 'email', 'number', 'password', 'search', 'tel', 'text', 'url'];
  // After one turn of the document's posted-message queue: what the app queued there before
  // a read or a shot has run first. React does: a state set in a mouseover (or another continuous
  // event) renders in a MessageChannel task, while the click that follows renders at once,
  // and input and DevTools calls may overtake that task.
  const settled = () => new Promise((done) => {
    const c = new MessageChannel();
    c.port1.onmessage = () => done();
    c.port2.postMessage(null);
  });
  globalThis.__codegym = {
    // {n, got}: the number of matches and what the expectation reads off the first one
    async read(kind, sel, arg) {
      await settled();
      if (kind === 'storage') {
        const out = [];
        for (let i = 0; i < localStorage.length; i++) out.push(String(localStorage.getItem(localStorage.key(i))));
        return {n: out.length, got: out};
      }
      const found = matches(sel);
      if (!found) return null;
      const n = found.length, e = found[0];
      if (kind === 'count') return {n, got: n};
      if (kind === 'texts') return [...found].every(isHtml) ? {n, got: [...found].map((x) => x.innerText)} : null;
      if (!n) return {n, got: null};
      if (kind === 'visible' || kind === 'hidden') return {n, got: isVisible(e) && seen(e)};
      if (kind === 'text') return isHtml(e) ? {n, got: e.innerText} : null;
      if (kind === 'attr') return {n, got: e.getAttribute(arg)};
      if (kind === 'value') return ['INPUT', 'TEXTAREA', 'SELECT'].includes(e.nodeName) ? {n, got: e.value} : null;
      if (kind === 'checked') {
        const box = e.nodeName === 'INPUT' && ['checkbox', 'radio'].includes(e.type);
        return box ? {n, got: e.checked} : null;
      }
      return null;
    },
    // Where a force click lands (the middle of the first box, as Playwright computes it),
    // when the element is in full view: no scrolling, so nothing else to reproduce.
    clickPoint(sel, at) {
      const found = matches(sel);
      if (!found || !found.length) return null;
      const e = found[0];
      const whole = e.getBoundingClientRect();
      if (!inView(e, whole)) return null;
      if (at) {
        if (!whole.width && !whole.height) return null;
        const s = getComputedStyle(e);
        const left = parseInt(s.borderLeftWidth || '', 10), top = parseInt(s.borderTopWidth || '', 10);
        return [round(whole.x + left + at[0] * whole.width), round(whole.y + top + at[1] * whole.height)];
      }
      for (const r of e.getClientRects()) {
        if (r.width * r.height > 0.99) return [round(r.x + r.width / 2), round(r.y + r.height / 2)];
      }
      return null;
    },
    // The clip Playwright's element screenshot takes (inPage of the box), when there is nothing
    // for its preparations to do: the element is in full view, no animation runs, fonts are
    // loaded and no text field has a caret to hide.
    // 'hidden': the first match is not visible (Playwright's shot would wait for it to be).
    async shotClip(sel) {
      await settled();
      const found = matches(sel);
      if (!found || !found.length) return null;
      if (!isVisible(found[0])) return 'hidden';
      const active = document.activeElement;
      if (active && (active.matches('input, textarea') || active.isContentEditable)) return null;
      if (document.getAnimations().length || document.fonts.status !== 'loaded') return null;
      const r = found[0].getBoundingClientRect();
      return inView(found[0], r) ? inPage(r) : null;
    },
    box(sel) {
      const found = matches(sel);
      if (!found || !found.length || !isVisible(found[0])) return null;
      const r = found[0].getBoundingClientRect();
      return {x: r.x, y: r.y, width: r.width, height: r.height};
    },
    // The first match's enclosing whole-pixel box in document coordinates, and whether all of
    // it is in the viewport (a shot of what is not has to capture beyond it).
    pageBox(sel) {
      const found = matches(sel);
      if (!found || !found.length || !isVisible(found[0])) return null;
      const r = found[0].getBoundingClientRect();
      return {...inPage(r), inViewport: r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight};
    },
    // playwright-core injectedScript.fill + selectText for text inputs and text areas that
    // are visible, enabled and editable right now: the text to type next (none: press Delete).
    selectForFill(sel, value) {
      const found = matches(sel);
      if (!found || !found.length) return null;
      const e = found[0];
      const input = e.nodeName === 'INPUT' && TYPEABLE.includes(e.type.toLowerCase());
      if (!(input || e.nodeName === 'TEXTAREA') || !isVisible(e) || e.closest('[inert]')) return null;
      if (e.matches(':disabled') || e.hasAttribute('readonly') || e.closest('[aria-disabled]')) return null;
      const number = input && e.type.toLowerCase() === 'number';
      if (number && isNaN(Number(value.trim()))) return null;
      if (input) {
        e.select();
        e.focus();
      } else {
        e.selectionStart = 0;
        e.selectionEnd = e.value.length;
        e.focus();
      }
      return number ? value.trim() : value;
    },
    // playwright-core injectedScript.focusNode(node, resetSelectionIfNotFocused=true)
    focus(sel) {
      const found = matches(sel);
      if (!found || !found.length || found[0].isContentEditable) return null;
      const e = found[0];
      const wasFocused = document.activeElement === e && document.hasFocus();
      e.focus();
      e.focus();
      if (!wasFocused && e.nodeName === 'INPUT') {
        try { e.setSelectionRange(0, 0); } catch (x) {}
      }
      return true;
    },
    // milliseconds until what real time (which the fake clock does not run) drives here has
    // run its course: the running CSS animations and transitions and Web Animations that end
    // (an endless one, a spinner, never does); -1 when that cannot be told (media playing)
    realTimeLeft() {
      if ([...document.querySelectorAll('video, audio')].some((m) => !m.paused && !m.ended)) return -1;
      let left = 0;
      for (const a of document.getAnimations()) {
        const end = a.effect ? a.effect.getComputedTiming().endTime : 0;
        const rate = a.playbackRate, now = a.currentTime === null ? (rate < 0 ? end : 0) : a.currentTime;
        if ((a.playState !== 'running' && !a.pending) || !Number.isFinite(end) || !rate) continue;
        left = Math.max(left, (rate > 0 ? end - now : now) / Math.abs(rate));  // (reversed: back to 0)
      }
      return left;
    },
    // resolves after the tasks the app queued so far (setTimeout(0), promise chains) ran
    drain() {
      return new Promise((resolve) => setTimeout(() => resolve(0), 0));
    },
    async stats() {
      let ls = 0;
      try {
        for (let i = 0; i < localStorage.length; i++) {
          const k = localStorage.key(i);
          ls += k.length + (localStorage.getItem(k) || '').length;
        }
      } catch (e) {}
      let usage = 0;
      try { usage = (await navigator.storage.estimate()).usage || 0; } catch (e) {}
      return {storage_bytes: 2 * ls + usage};
    },
  };
})();
""".replace("__SEEN__", SEEN_JS)


class Dom:
    """The grader's isolated world in one page, rebuilt for every new document.

    Args:
        cdp: a DevTools session attached to the page (``context.new_cdp_session(page)``).

    """

    def __init__(self, cdp: Any) -> None:
        self.cdp = cdp
        self._frame: str | None = None
        self._context: int | None = None
        # one install at a time: reads asked together (the transition probe) share it
        self._installing: asyncio.Future[None] | None = None

    def forget(self) -> None:
        """A new document is loading: the next call installs the agent in it.

        (Without this the first call after a navigation finds out by a failed evaluation.)
        """
        self._context = None

    async def call(self, fn: str, *args: Any) -> Any:
        """``fn(*args)`` of the agent in the current document; None means "ask Playwright".

        Raises TimeoutError when the page does not answer within ``CALL_TIMEOUT_S`` (an
        endless loop on its main thread), and Playwright's Error for a closed page.
        """
        return await asyncio.wait_for(self._call(fn, args), CALL_TIMEOUT_S)

    async def screenshot(self, sel: str) -> bytes | None:
        """The first match's PNG as ``locator.screenshot(animations="disabled")`` takes it.

        :data:`NOT_VISIBLE` when that match is not visible (Playwright's shot would wait until
        it is); None when Playwright has to take it (see ``shotClip`` in ``AGENT_JS``).
        """
        clip = await self.call("shotClip", sel)
        if clip == "hidden":
            return NOT_VISIBLE
        if clip is None:
            return None
        shot = await asyncio.wait_for(
            self.cdp.send(
                "Page.captureScreenshot",
                {"format": "png", "clip": {**clip, "scale": 1}, "captureBeyondViewport": False},
            ),
            CALL_TIMEOUT_S,
        )
        return base64.b64decode(shot["data"])

    async def _call(self, fn: str, args: tuple[Any, ...]) -> Any:
        expression = f"globalThis.__codegym.{fn}(...{json.dumps(args)})"
        for _ in range(3):
            while self._context is None:
                if self._installing is None:
                    self._installing = asyncio.ensure_future(self._install())
                    self._installing.add_done_callback(self._installed)
                await asyncio.shield(self._installing)
            context = self._context
            try:
                reply = await self.cdp.send(
                    "Runtime.evaluate",
                    {"expression": expression, "contextId": context, "returnByValue": True, "awaitPromise": True},
                )
            except Exception as exc:
                if "Cannot find context" not in str(exc):
                    raise
                if self._context == context:
                    self._context = None  # a new document since the last call: a new world
                continue
            if "exceptionDetails" in reply:
                if "__codegym" in json.dumps(reply["exceptionDetails"]):
                    if self._context == context:
                        self._context = None  # the world outlived its agent: install it again
                    continue
                return None  # e.g. a document without localStorage: Playwright decides
            return reply["result"].get("value")
        return None

    def _installed(self, fut: asyncio.Future[None]) -> None:
        self._installing = None
        if not fut.cancelled():
            fut.exception()  # raised to every caller through the shield; not "never retrieved"

    async def _install(self) -> None:
        try:
            await self._install_in(await self._main_frame())
        except Exception:  # noqa: BLE001 - the main frame's id went stale: look it up again
            self._frame = None
            await self._install_in(await self._main_frame())

    async def _main_frame(self) -> str:
        if self._frame is None:
            tree = await self.cdp.send("Page.getFrameTree")
            self._frame = tree["frameTree"]["frame"]["id"]
        return self._frame

    async def _install_in(self, frame: str) -> None:
        world = await self.cdp.send("Page.createIsolatedWorld", {"frameId": frame, "worldName": WORLD})
        context = world["executionContextId"]
        await self.cdp.send("Runtime.evaluate", {"expression": AGENT_JS, "contextId": context})
        self._context = context
