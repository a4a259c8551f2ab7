"""WebApp-v0's own DOM reads and click points (dom.py) against Playwright's locators.

Each answer the grader's isolated world gives must be the answer Playwright gives; where it
cannot give one (shadow DOM, Playwright's own selectors, an element out of view) it must say
so and Playwright must answer instead; and an app that patches the DOM's prototypes in its
own world must not change what the grader reads.
"""

from __future__ import annotations

import io

import pytest
from codegym.envs.webapp import BrowserPool, WebAppEnv
from codegym.envs.webapp.flows import FlowState, check, do_action
from codegym.envs.webapp.server import StaticServer
from codegym.envs.webapp.session import close_session, goto, new_tally, open_session
from PIL import Image

PAGE = """<!doctype html><html><body>
<p id="plain">  Hello,
   world </p>
<p id="none" style="display:none">gone</p>
<p id="ghost" style="visibility:hidden">ghost</p>
<p id="empty"></p>
<div id="contents" style="display:contents"><span>inside</span></div>
<div id="contents-empty" style="display:contents"></div>
<p id="opacity" style="opacity:0">faint</p>
<input id="text" value="typed">
<input id="num" type="number" value="3">
<input id="box" type="checkbox" checked>
<input id="radio" type="radio">
<textarea id="area">line one
line two</textarea>
<select id="unit"><option value="km">Kilometres</option><option value="mi" selected>Miles</option></select>
<ul id="list"><li class="a b">one</li><li>two <b>bold</b></li><li style="display:none">three</li></ul>
<div id="attrs" data-state="open" class="  x  y " aria-label="">attrs</div>
<svg id="pic" width="10" height="10"><text id="svgtext">svg</text></svg>
<div role="checkbox" id="aria-box" aria-checked="true">aria</div>
<script>localStorage.setItem("k", "stored value");</script>
</body></html>"""

SPECS = [
    {"expect": kind, "sel": sel}
    for kind in ("text", "visible", "hidden", "count", "texts", "value", "checked", "unchecked")
    for sel in (
        "#plain",
        "#none",
        "#ghost",
        "#empty",
        "#contents",
        "#contents-empty",
        "#opacity",
        "#text",
        "#num",
        "#box",
        "#radio",
        "#area",
        "#unit",
        "#list li",
        "#list li:nth-child(2)",
        "#attrs",
        "#missing",
        "#aria-box",
        "#svgtext",
    )
] + [
    {"expect": "attr", "sel": "#attrs", "name": "data-state", "equals": "open"},
    {"expect": "attr", "sel": "#attrs", "name": "aria-label", "absent": True},
    {"expect": "attr", "sel": "#attrs", "name": "title", "absent": True},
    {"expect": "class", "sel": "#attrs", "has": "y"},
    {"expect": "class", "sel": "#list li", "lacks": "b"},
    {"expect": "storage", "contains": "stored"},
]


@pytest.fixture(scope="module")
def pool():
    p = BrowserPool()
    yield p
    p.close()


def on_page(pool, html, fn):
    """Run ``fn(session, origin)`` on a fresh session with ``html`` loaded."""

    async def go(browser):
        sess = await open_session(browser, server.origin)
        try:
            await goto(sess.page, server.origin, False)
            return await fn(sess, server.origin)
        finally:
            await close_session(sess, new_tally())

    with StaticServer({"index.html": html}) as server:
        return pool.run(go, 60)


async def outcome(coro):
    try:
        return await coro
    except Exception as exc:  # noqa: BLE001 - the error itself is the answer to compare
        return f"error: {str(exc).splitlines()[0]}"


def left_to_playwright(spec):
    """The reads the isolated world declines: Playwright's answer is an error or needs ARIA."""
    kind, sel = spec["expect"], spec.get("sel")
    controls = ("#text", "#num", "#box", "#radio", "#area", "#unit", "#missing")
    return (
        (sel == "#svgtext" and kind in ("text", "texts"))
        or (kind == "value" and sel not in controls)
        or (kind in ("checked", "unchecked") and sel not in ("#box", "#radio", "#missing"))
    )


def test_every_read_agrees_with_playwright_and_the_world_declines_only_what_it_must(pool):
    async def both(sess, _):
        out = []
        for spec in SPECS:
            state = FlowState()
            fast = await outcome(check(sess.page, spec, state, sess.dom))
            slow = await outcome(check(sess.page, spec, state, None))
            kind = {"class": "attr", "hidden": "visible", "unchecked": "checked"}.get(spec["expect"], spec["expect"])
            name = "class" if spec["expect"] == "class" else spec.get("name")
            own = await sess.dom.call("read", kind, spec.get("sel"), name)
            out.append((spec, fast, slow, own is None))
        return out

    answers = on_page(pool, PAGE, both)
    for spec, fast, slow, _ in answers:
        assert fast == slow, spec
    assert [spec for spec, *_, declined in answers if declined] == [s for s in SPECS if left_to_playwright(s)]
    aria = next(fast for spec, fast, *_ in answers if spec == {"expect": "checked", "sel": "#aria-box"})
    assert aria == (True, "checked")


ACTION_PAGE = """<!doctype html><html><body style="margin:0">
<input id="text" value="old"><input id="num" type="number"><textarea id="area">a
b</textarea>
<button id="btn" style="position:absolute; left:100px; top:60px; width:81px; height:31px; border:3px solid">go</button>
<p style="position:absolute; left:10px; top:120px; width:90px">a <span id="inline">one two three four five</span></p>
<div id="far" style="position:absolute; top:1500px">far</div>
<pre id="log"></pre>
<script>
  const log = (s) => { document.getElementById("log").textContent += s + "\\n"; };
  for (const type of ["mousedown", "mouseup", "click", "dblclick", "input", "change", "keydown", "focus"]) {
    document.addEventListener(type, (e) => log([type, e.target.id, e.clientX, e.clientY, e.detail,
      e.key || "", e.target.value ?? ""].join(" ")), true);
  }
</script></body></html>"""

ACTIONS = [
    [{"fill": "#text", "value": "new words"}],
    [{"fill": "#text", "value": ""}],
    [{"fill": "#num", "value": " 42 "}],
    [{"fill": "#area", "value": "x\ny"}],
    [{"click": "#btn"}],
    [{"click": "#btn", "at": [0.1, 0.9]}],
    [{"dblclick": "#btn"}],
    [{"click": "#inline"}],
    [{"press": "Enter", "on": "#text"}],
    [{"click": "#text"}, {"press": "ArrowLeft", "on": "#text"}],
    [{"click": "#far"}],
]


def test_every_action_does_what_playwright_does(pool):
    async def both(sess, origin):
        out = []
        for steps in ACTIONS:
            logs = []
            for dom in (sess.dom, None):
                await goto(sess.page, origin, False)
                for step in steps:
                    await do_action(sess.page, step, FlowState(), dom)
                logs.append(await sess.page.evaluate("document.getElementById('log').textContent"))
            out.append((steps, *logs))
        return out

    for steps, fast, slow in on_page(pool, ACTION_PAGE, both):
        assert fast == slow and fast, steps


def test_off_screen_shadow_dom_and_playwright_selectors_are_left_to_playwright(pool):
    html = """<div id="host"></div><p class="opt">Nice</p><p class="opt">Paris</p>
      <button id="below" style="margin-top:2000px" onclick="this.textContent='hit'">b</button>
      <script>document.getElementById("host").attachShadow({mode: "open"}).innerHTML =
        '<span id="inner">shadow text</span>';</script>"""

    async def probe(sess, _):
        dom = sess.dom
        unanswered = [
            await dom.call("read", "text", "#inner", None),  # in a shadow root: Playwright pierces it
            await dom.call("read", "count", ".opt:text-is('Paris')", None),
            await dom.call("read", "count", "text=Paris", None),
            await dom.call("read", "count", "p, span", None),
            await dom.call("clickPoint", "#below", None),  # needs scrolling
        ]
        state = FlowState()
        seen = [
            await check(sess.page, {"expect": "text", "sel": "#inner", "equals": "shadow text"}, state, dom),
            await check(sess.page, {"expect": "count", "sel": ".opt:text-is('Paris')", "equals": 1}, state, dom),
        ]
        await do_action(sess.page, {"click": "#below"}, state, dom)
        seen.append(await check(sess.page, {"expect": "text", "sel": "#below", "equals": "hit"}, state, dom))
        return unanswered, seen

    unanswered, seen = on_page(pool, html, probe)
    assert unanswered == [None] * 5
    assert [ok for ok, _ in seen] == [True, True, True], seen


def test_elements_scrolled_out_of_view_are_left_to_playwright_which_scrolls_to_them(pool):
    # Below the window, or in the window but scrolled out of a list's visible part: Playwright
    # scrolls before it clicks or takes a screenshot, so the world must not answer.
    html = """<ul id="list" style="height:60px; overflow:auto; margin:0; padding:0">
      <li style="height:40px">one</li><li style="height:40px">two</li>
      <li id="row" style="height:40px" onclick="this.textContent='hit'">three</li></ul>
      <button id="below" style="margin-top:2000px" onclick="this.textContent='hit'">b</button>"""

    async def probe(sess, _):
        dom, state = sess.dom, FlowState()
        asked = [
            ("clickPoint", "#row", None),
            ("clickPoint", "#below", None),
            ("shotClip", "#row"),
            ("shotClip", "#below"),
        ]
        unanswered = [await dom.call(*call) for call in asked]
        seen = []
        for sel in ("#row", "#below"):
            await do_action(sess.page, {"click": sel}, state, dom)
            seen.append(await check(sess.page, {"expect": "text", "sel": sel, "equals": "hit"}, state, dom))
        return unanswered, seen

    unanswered, seen = on_page(pool, html, probe)
    assert unanswered == [None] * 4
    assert [ok for ok, _ in seen] == [True, True], seen


def test_selectors_playwright_rejects_and_inert_fields_are_left_to_it(pool):
    # The browser's own engine takes pseudo-elements, nesting and namespaces; Playwright's
    # rejects them, and it will not fill an inert field (the world would type elsewhere).
    html = """<ul><li>one</li></ul><div inert><input id="behind" value="old"></div><input id="front" autofocus>"""

    async def probe(sess, _):
        dom = sess.dom
        reads = [await dom.call("read", "count", sel, None) for sel in ("li::before", "& li", "*|li")]
        return reads, await dom.call("selectForFill", "#behind", "typed")

    reads, fill = on_page(pool, html, probe)
    assert reads == [None] * 3 and fill is None


SHOT_PAGE = """<!doctype html><html><body style="margin:0">
<canvas id="pad" width="200" height="120" style="position:absolute; left:10.5px; top:20.3px; border:2px solid #333">
</canvas>
<div id="card" style="position:absolute; left:250.25px; top:40.7px; width:97.4px; height:33.3px;
  background:linear-gradient(90deg, #f00, #00f); transform:rotate(7deg)">card <b>text</b></div>
<input id="field" style="position:absolute; left:20px; top:200px">
<div id="spin" style="position:absolute; left:300px; top:200px; width:20px; height:20px; background:#0a0"></div>
<script>
  const c = document.getElementById("pad").getContext("2d");
  c.strokeStyle = "#c22"; c.lineWidth = 5; c.beginPath(); c.moveTo(10, 10); c.lineTo(190, 100); c.stroke();
</script></body></html>"""


def pixels(png):
    img = Image.open(io.BytesIO(png)).convert("RGB")
    return img.size, img.tobytes()


def test_screenshots_match_playwrights_pixel_for_pixel_and_leave_it_the_hard_cases(pool):
    async def shots(sess, _):
        page, dom = sess.page, sess.dom
        out = {}
        for sel in ("#pad", "#card"):
            own = await dom.screenshot(sel)
            theirs = await page.locator(sel).first.screenshot(animations="disabled")
            out[sel] = (own is not None, own is not None and pixels(own) == pixels(theirs))
        await page.locator("#field").focus()  # a caret Playwright would hide: its job
        out["caret"] = await dom.screenshot("#pad")
        await page.evaluate("document.activeElement.blur()")
        await page.evaluate("document.getElementById('spin').animate([{opacity: 0}, {opacity: 1}], 5000)")
        out["animation"] = await dom.screenshot("#pad")  # Playwright would stop it first
        return out

    out = on_page(pool, SHOT_PAGE, shots)
    assert out["#pad"] == (True, True) and out["#card"] == (True, True), out
    assert out["caret"] is None and out["animation"] is None


def test_an_app_that_patches_the_dom_in_its_own_world_cannot_fake_what_the_grader_reads():
    # The click changes nothing on the page; it patches every read the page itself could
    # answer (innerText, getAttribute, querySelectorAll, Storage, getComputedStyle) to say
    # what the rubric wants. The grader reads from its own world, so every item still fails.
    app = """<p id="out" class="idle">idle</p><button id="go">go</button><p id="gone" style="display:none">x</p>
      <script>document.getElementById("go").onclick = () => {
        Object.defineProperty(HTMLElement.prototype, "innerText", {get() { return "done"; }});
        Element.prototype.getAttribute = function () { return "done"; };
        const all = Document.prototype.querySelectorAll;
        Document.prototype.querySelectorAll = function (s) { return all.call(this, "#out"); };
        Storage.prototype.getItem = function () { return "done"; };
        Object.defineProperty(Storage.prototype, "length", {get() { return 1; }});
        Storage.prototype.key = function () { return "k"; };
        Element.prototype.checkVisibility = () => true;
        Element.prototype.getBoundingClientRect = () => ({width: 10, height: 10});
        window.getComputedStyle = () => ({display: "block", visibility: "visible"});
      };</script>"""
    rubric = [
        {"id": "text", "text": "t", "flow": [{"click": "#go"}, {"expect": "text", "sel": "#out", "equals": "done"}]},
        {"id": "class", "text": "c", "flow": [{"click": "#go"}, {"expect": "class", "sel": "#out", "has": "done"}]},
        {"id": "storage", "text": "s", "flow": [{"click": "#go"}, {"expect": "storage", "contains": "done"}]},
        {"id": "visible", "text": "v", "flow": [{"click": "#go"}, {"expect": "visible", "sel": "#gone"}]},
        {"id": "count", "text": "n", "flow": [{"click": "#go"}, {"expect": "count", "sel": "li", "min": 1}]},
    ]
    e = WebAppEnv(tasks=[{"id": "patch", "request": "patch", "gold": app, "rubric": rubric}])
    e.reset()
    _, reward, _, _, info = e.step(f"```html\n{app}\n```")
    e.close()
    assert [it["passed"] for it in info["verdict"]["items"]] == [False] * 5, info["feedback"]
    assert reward < 1.0
