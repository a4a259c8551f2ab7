"""WebApp-v0: tasks, gold and broken apps, the React path, reward levels, credit, check_env."""

from __future__ import annotations

import json
import time

import gymnasium as gym
import pytest
from codegym.envs.webapp import WebAppEnv, grader
from codegym.envs.webapp.catalog import build_tasks
from codegym.envs.webapp.flows import validate_flow
from codegym.envs.webapp.react import compile_jsx
from gymnasium.utils.env_checker import check_env

from codegym.errors import InfraError, TaskFormatError

# One task per kind of flow: storage + reload, fake clock, pixels, keyboard, drag, React.
GOLD_SAMPLE = ["todo-01", "timer-02", "canvas-01", "reorder-01", "react-cart-01"]
BROKEN_SAMPLE = ["todo-02", "table-01", "react-rating-01"]


@pytest.fixture(scope="module")
def env():
    e = WebAppEnv()
    yield e
    e.close()


def step(env, task_id, action):
    env.reset(options={"task_id": task_id})
    return env.step(action)


def grade_app(app, rubric):
    """(reward, info) of one grading of an HTML ``app`` against ``rubric`` in a task of its own."""
    e = WebAppEnv(tasks=[{"id": "app", "request": "r", "gold": app, "rubric": rubric}])
    try:
        e.reset()
        return e.step(f"```html\n{app}\n```")[1:5:3]
    finally:
        e.close()


def failed_items(info):
    return sorted(it["id"] for it in info["verdict"]["items"] if not it["passed"])


# ---------------------------------------------------------------------- tasks (no browser)
def test_bundled_set_has_at_least_60_requests_each_with_rubric_gold_and_broken_apps():
    env = WebAppEnv()
    assert len(env.tasks) >= 60
    families = {t["family"] for t in env.tasks}
    assert {
        "todo",
        "calculator",
        "form",
        "tabs",
        "modal",
        "table",
        "countdown",
        "reorder",
        "canvas",
        "quiz",
        "converter",
    } <= families
    for t in env.tasks:
        assert t["rubric"] and t["broken"], t.id
        for b in t["broken"]:
            assert b["code"] != t["gold"] and b["breaks"], (t.id, b["name"])
        assert not any(validate_flow(it["flow"]) for it in t["rubric"]), t.id
    assert sum(t.get("kind") == "react" for t in env.tasks) >= 6


def test_bundled_file_is_what_the_catalog_builds():
    env = WebAppEnv()
    assert [t.data for t in env.tasks] == json.loads("[" + ",".join(json.dumps(t) for t in build_tasks()) + "]")


def test_malformed_flow_is_rejected_at_make_with_the_field_named():
    bad = build_tasks()[0] | {"id": "bad"}
    bad["rubric"] = [{"id": "x", "text": "x", "flow": [{"click": "#a"}]}]
    with pytest.raises(ValueError, match=r"rubric\[0\]\.flow.*last step must be an expectation"):
        WebAppEnv(tasks=[bad])


@pytest.mark.parametrize(
    "broken", ["<p>", {"code": "<p>"}, {"code": "<p>", "breaks": 5}, {"code": "<p>", "breaks": []}]
)
def test_a_broken_app_that_names_no_items_is_rejected_at_make(broken):
    # the sweep checks that each broken app fails exactly the items it names: without a list
    # it crashed there (KeyError) or at make (TypeError) instead of saying what is wrong
    bad = build_tasks()[0] | {"id": "bad", "broken": [broken]}
    with pytest.raises(TaskFormatError, match=r"broken\[0\].*'breaks'"):
        WebAppEnv(tasks=[bad])


@pytest.mark.parametrize(
    ("step", "named"),
    [
        ({"expect": "text", "sel": "#out", "equal": "Bob"}, "'equal'"),  # a typo would pass any text
        ({"expect": "count", "sel": "li", "equals": "1"}, "'equals'"),
        ({"expect": "text", "sel": "#out", "equals": "1", "wait_ms": "2000"}, "'wait_ms'"),
        ({"expect": "attr", "sel": "#b", "equals": "x"}, "'name'"),
        ({"expect": "changed", "sel": "#pad", "since": "before"}, "no earlier step snaps it"),
        ({"fill": "#name", "value": "Bob", "click": "#go"}, "names ['click', 'fill']"),
        ({"advance": "3s"}, "'advance'"),
        ({"select": "#unit"}, "'value'"),
    ],
)
def test_malformed_steps_are_rejected_with_the_field_named(step, named):
    flow = [{"click": "#go"}, step, {"expect": "visible", "sel": "#out"}]
    problems = validate_flow(flow)
    assert any(named in p for p in problems), problems


@pytest.mark.parametrize(
    "timeouts",
    [{"load_timeout_s": 0}, {"item_timeout_s": -1}, {"item_timeout_s": None}, {"load_timeout_s": float("inf")}],
)
def test_timeouts_that_are_not_positive_are_rejected_at_make(timeouts):
    with pytest.raises(ValueError, match="positive number of seconds"):
        WebAppEnv(**timeouts)


def test_reset_observation_states_the_request_and_numbered_rubric():
    env = WebAppEnv()
    obs, info = env.reset(options={"task_id": "calc-01"})
    assert info["task_id"] == "calc-01" and "#btn-clear" in obs and "\n1. " in obs and "```html" in obs


def test_gym_make_builds_the_env():
    e = gym.make("codegym:WebApp-v0")
    assert isinstance(e.unwrapped, WebAppEnv)
    e.close()


# ---------------------------------------------------------------------- grading in Chromium
LATE_APP = """<button id="show">show</button><p id="out">idle</p><script>
const late = (id, text) => {
  const b = document.body.appendChild(document.createElement("button"));
  b.id = id; b.onclick = () => { document.getElementById("out").textContent = text; };
};
document.getElementById("show").addEventListener("click", () => setTimeout(() => late("late", "done"), 600));
setTimeout(() => late("slow", "slow"), 2300);</script>"""


def test_an_element_the_app_lacks_as_loaded_is_waited_for_in_full_once(env):
    # A failing app (a wrong id) costs each item the full wait for the element it lacks; once
    # one item has waited in vain, later items wait briefly for it, as loaded, and only there,
    # and only when their full wait would have ended before it was seen missing.
    click_late = [{"click": "#late"}, {"expect": "text", "sel": "#out", "equals": "done"}]
    rubric = [
        {"id": "first", "text": "t", "flow": click_late},
        {"id": "after-show", "text": "t", "flow": [{"click": "#show"}, *click_late]},
        {"id": "again", "text": "t", "flow": click_late},
        {"id": "looked-at", "text": "t", "flow": [{"expect": "visible", "sel": "#late"}, *click_late]},
        {
            "id": "slow",  # seen missing 2 s after load, shown at 2.3 s: a wait of 3 s sees it
            "text": "t",
            "flow": [
                {"expect": "visible", "sel": "#slow", "wait_ms": 3000},
                {"click": "#slow"},
                {"expect": "text", "sel": "#out", "equals": "slow"},
            ],
        },
    ]
    report = env.pool.run(lambda b: grader.grade_in_browser(b, {"index.html": LATE_APP}, False, rubric, lanes=1), 60)
    first, after_show, again, looked_at, slow = report["items"]
    assert not first["passed"] and "2000ms" in first["reason"], first["reason"]
    assert after_show["passed"], after_show["reason"]  # it appears 0.6 s after an action: a full wait
    assert not again["passed"] and "as loaded, nor did in an earlier item (waited 250 ms)" in again["reason"]
    assert not looked_at["passed"] and "waited 250 ms" in looked_at["reason"], looked_at["reason"]
    assert slow["passed"], slow["reason"]


# What React 18 does with a state set in a mouse move or mouseover (a hover preview): it
# renders in a MessageChannel task, while the click that follows renders at once. Here the
# preview sticks, so a user who clicks #go sees #star filled from then on.
STICKY_PREVIEW_APP = """<button id="go">go</button><p id="rating">none</p><span id="star">*</span><script>
const post = (fn) => { const c = new MessageChannel(); c.port1.onmessage = fn; c.port2.postMessage(0); };
const go = document.getElementById("go");
go.addEventListener("mousemove", () => {
  post(() => { const t = performance.now(); while (performance.now() - t < 30) {} });  // other work queued first
  post(() => document.getElementById("star").classList.add("filled"));
});
go.addEventListener("click", () => { document.getElementById("rating").textContent = "rated"; });</script>"""


def test_work_the_app_queued_before_a_read_is_seen_by_it(env):
    # The grader's reads can overtake the app's queued task: before they waited a turn of
    # that queue, from a tenth to two thirds of these items passed on a page that never lacks 'filled'.
    flow = [
        {"click": "#go"},
        {"expect": "text", "sel": "#rating", "equals": "rated"},
        {"expect": "class", "sel": "#star", "lacks": "filled", "wait_ms": 300},
    ]
    rubric = [{"id": f"item-{i}", "text": "t", "flow": flow} for i in range(20)]
    report = env.pool.run(lambda b: grader.grade_in_browser(b, {"index.html": STICKY_PREVIEW_APP}, False, rubric), 60)
    assert [it["passed"] for it in report["items"]] == [False] * 20
    assert all("observed ['filled']" in it["reason"] for it in report["items"]), report["items"][0]["reason"]


@pytest.mark.parametrize("task_id", GOLD_SAMPLE)
def test_gold_app_earns_full_reward(env, task_id):
    env.reset(options={"task_id": task_id})
    _, reward, terminated, truncated, info = env.step(env.gold_action())
    assert reward == 1.0, info["feedback"]
    assert terminated and not truncated
    assert info["reward_components"] == {"format": 1.0, "source": 1.0, "runtime": 1.0, "functional": 1.0}
    assert info["audit"] == {"flags": [], "audit_reward": 1.0}
    assert all(v > 0 for _, _, v in info["token_rewards"]) and info["token_rewards"]


# Correct apps written otherwise than the gold (red-team findings of false fails).
OTHERWISE = {
    # disabled with an attribute value, as a user and :disabled see it alike
    "counter-01": [
        (
            f'document.getElementById("{b}").disabled = value {op} {lim};',
            f'const {b}B = document.getElementById("{b}");'
            f' value {op} {lim} ? {b}B.setAttribute("disabled", "disabled") : {b}B.removeAttribute("disabled");',
        )
        for b, op, lim in (("dec", "<=", "MIN"), ("inc", ">=", "MAX"))
    ],
}


@pytest.mark.parametrize("task_id", sorted(OTHERWISE))
def test_a_correct_app_written_otherwise_than_the_gold_earns_full_reward(env, task_id):
    env.reset(options={"task_id": task_id})
    app = env.tasks.get(task_id)["gold"]
    for old, new in OTHERWISE[task_id]:
        assert old in app
        app = app.replace(old, new)
    _, reward, _, _, info = env.step(f"```html\n{app}\n```")
    assert reward == 1.0, info["feedback"]


@pytest.mark.parametrize(
    ("task_id", "style", "fails"),
    [
        ("form-01", "[id$='-error'], #result { display: none !important; }", "all"),
        ("modal-01", "#overlay.open { opacity: 0 !important; }", ["backdrop", "cancel", "confirm", "escape", "opens"]),
        ("modal-01", "#overlay.open { transform: translateX(-5000px); }", "all"),
    ],
    ids=["form-messages-not-displayed", "modal-transparent", "modal-off-the-page"],
)
def test_what_the_user_cannot_see_is_not_shown(env, task_id, style, fails):
    env.reset(options={"task_id": task_id})
    app = env.tasks.get(task_id)["gold"].replace("</head>", f"<style>{style}</style></head>")
    _, reward, _, _, info = env.step(f"```html\n{app}\n```")
    every = sorted(it["id"] for it in info["verdict"]["items"])
    assert failed_items(info) == (every if fails == "all" else fails), info["feedback"]


def test_an_app_that_keeps_its_list_only_for_the_tab_does_not_persist_it(env):
    # It restores from sessionStorage (gone with the tab) and writes a copy to localStorage it
    # never reads: a new visit starts empty, so "persist" fails, and "count" (which counts again
    # after a reload), and the rest passes.
    env.reset(options={"task_id": "todo-01"})
    app = env.tasks.get("todo-01")["gold"]
    for old, new in (
        ('JSON.parse(localStorage.getItem(KEY) || "[]")', 'JSON.parse(sessionStorage.getItem(KEY) || "[]")'),
        (
            "localStorage.setItem(KEY, JSON.stringify(entries));",
            "sessionStorage.setItem(KEY, JSON.stringify(entries));"
            ' localStorage.setItem("log", JSON.stringify(entries));',
        ),
    ):
        assert old in app
        app = app.replace(old, new)
    _, reward, _, _, info = env.step(f"```html\n{app}\n```")
    assert failed_items(info) == ["count", "persist"], info["feedback"]


@pytest.mark.parametrize("task_id", BROKEN_SAMPLE)
def test_each_broken_app_fails_exactly_the_items_it_breaks(env, task_id):
    env.reset(options={"task_id": task_id})
    for bad in env.broken_actions():
        _, reward, _, _, info = step(env, task_id, bad["action"])
        assert failed_items(info) == sorted(bad["breaks"]), (bad["name"], info["feedback"])
        n = len(info["verdict"]["items"])
        assert reward == pytest.approx(0.3 + 0.7 * (n - len(bad["breaks"])) / n)
        failed = [it for it in info["verdict"]["items"] if not it["passed"]]
        assert all(it["evidence"]["dom"] and it["evidence"]["screenshot_png_b64"] for it in failed)


def test_failed_items_get_negative_spans_on_the_code_they_touch(env):
    env.reset(options={"task_id": "tabs-01"})
    bad = next(b for b in env.broken_actions() if b["name"] == "stale-aria")
    _, _, _, _, info = step(env, "tabs-01", bad["action"])
    action = bad["action"]
    negative = [action[s:e] for s, e, v in info["token_rewards"] if v < 0]
    # the failing items touch #tab-specs/#tab-reviews and the tabs' click/keydown handlers
    assert any("tab-" in text for text in negative)
    assert any('addEventListener("keydown"' in text or "select(next)" in text for text in negative)
    positive = [action[s:e] for s, e, v in info["token_rewards"] if v > 0]
    assert any("panel-" in text or "select(tab)" in text for text in positive)


def test_credit_names_the_handler_bound_when_the_item_acted():
    # Item "stop" rebinds #t before clicking it; item "start" clicked #t while it still ran
    # startTimer. Each item's credit must name the handler its own click ran.
    app = """<p id="s">idle</p><button id="arm">arm</button><button id="t">toggle</button><script>
      const s = document.getElementById("s"), t = document.getElementById("t");
      function startTimer() { s.textContent = "started"; }
      function stopTimer() { s.textContent = "stopped"; }
      t.onclick = startTimer;
      document.getElementById("arm").onclick = () => { t.onclick = stopTimer; s.textContent = "armed"; };
      </script>"""
    start = {
        "id": "start",
        "text": "starts",
        "flow": [{"click": "#t"}, {"expect": "text", "sel": "#s", "equals": "started"}],
    }
    stop = {
        "id": "stop",
        "text": "armed, stops",
        "flow": [{"click": "#arm"}, {"click": "#t"}, {"expect": "text", "sel": "#s", "equals": "stopped"}],
    }
    reward, info = grade_app(app, [start, dict(start, id="start-2"), stop])
    assert reward == 1.0, info["feedback"]
    credited = {it["id"]: " ".join(app[a:b] for a, b in it["code_spans"]) for it in info["verdict"]["items"]}
    assert "function stopTimer" in credited["stop"] and "function startTimer" not in credited["stop"], credited
    assert "function startTimer" in credited["start"] and "function stopTimer" not in credited["start"], credited


def test_credit_finds_listener_objects_and_ignores_a_page_made_getEventListeners():
    # A listener object's handleEvent is credited; a page's own global getEventListeners
    # (which would shadow DevTools' and could name any code) credits nothing rather than "decoy".
    listener = """<p id="s">idle</p><button id="t">go</button><script>
      const s = document.getElementById("s");
      document.getElementById("t").addEventListener("click", { handleEvent() { s.textContent = "went"; } });
      </script>"""
    decoy = listener.replace(
        "<script>", "<script>function decoy() {} window.getEventListeners = () => ({click: [{listener: decoy}]});"
    )
    item = {"id": "go", "text": "goes", "flow": [{"click": "#t"}, {"expect": "text", "sel": "#s", "equals": "went"}]}
    for app, credited, not_credited in ((listener, "handleEvent()", None), (decoy, None, "decoy")):
        reward, info = grade_app(app, [item])
        assert reward == 1.0, info["feedback"]
        spans = " ".join(app[a:b] for a, b in info["verdict"]["items"][0]["code_spans"])
        assert credited is None or credited in spans, spans
        assert not_credited is None or not_credited not in spans, spans


def test_react_component_compiles_mounts_and_grades(env):
    env.reset(options={"task_id": "react-rating-01"})
    gold = env.gold_action()
    assert gold.startswith("```jsx")
    _, reward, _, _, info = env.step(gold)
    assert reward == 1.0, info["feedback"]
    assert info["verdict"]["kind"] == "react" and info["verdict"]["compile_errors"] == []


def test_react_component_with_typescript_types_compiles_and_grades(env):
    env.reset(options={"task_id": "react-rating-01"})
    typed = env.gold_action().replace(
        "```jsx\n", "```tsx\ntype Stars = 1 | 2 | 3 | 4 | 5;\nconst most: Stars = 5;\n", 1
    )
    _, reward, _, _, info = env.step(typed)
    assert reward == 1.0, info["feedback"]


def test_react_component_in_a_javascript_fence_before_a_shell_block_is_the_answer(env):
    env.reset(options={"task_id": "react-rating-01"})
    action = env.gold_action().replace("```jsx\n", "```javascript\n", 1) + "\nRun it:\n```bash\nnpm start\n```\n"
    _, reward, _, _, info = env.step(action)
    assert reward == 1.0, info["feedback"]


def test_react_compile_error_stops_at_the_source_level_with_the_line_blamed(env):
    code = "export default function App() {\n  return <div><span>unclosed</div>;\n}\n"
    _, reward, _, _, info = step(env, "react-rating-01", f"```jsx\n{code}```")
    assert info["reward_components"] == {"format": 1.0, "source": 0.0, "runtime": 0.0, "functional": 0.0}
    assert reward == pytest.approx(0.1)
    assert "did not compile" in info["feedback"]
    action = f"```jsx\n{code}```"
    blamed = [action[s:e] for s, e, v in info["token_rewards"] if v < 0]
    assert blamed[0] == "return <div><span>unclosed</div>;" and info["verdict"]["compile_errors"]


def test_an_answer_cut_off_mid_component_gets_the_floor_with_its_last_line_blamed(env):
    # What a completion that hit the token limit looks like: no closing fence, a blank end.
    action = "```jsx\nexport default function App() {\n  return <div>hi</div>;\n"
    _, reward, _, _, info = step(env, "react-rating-01", action)
    assert reward == pytest.approx(0.1) and info["reward_components"]["source"] == 0.0
    assert [action[s:e] for s, e, v in info["token_rewards"]] == ["return <div>hi</div>;"]


@pytest.mark.parametrize("where", ["script", "page text"])
def test_error_lines_are_counted_as_the_browser_counts_them(where):
    # A U+2028 inside a script ends a line for V8; in the page's text it ends none for the
    # HTML parser. Either way the error's line must be the throw's.
    text, note = ("", "a\u2028b") if where == "script" else ("<p>a\u2028b\u2028c</p>", "ab")
    app = (
        text
        + """<button id="b">go</button><p id="o">-</p><script>
      const note = "NOTE";
      function thrower() { throw new Error("kaboom"); }
      document.getElementById("b").onclick = () => { thrower(); };
      </script>""".replace("NOTE", note)
    )
    flow = [{"click": "#b"}, {"expect": "text", "sel": "#o", "equals": "done"}]
    _, info = grade_app(app, [{"id": "go", "text": "go", "flow": flow}])
    action = f"```html\n{app}\n```"
    blamed = [action[s:e] for s, e, v in info["token_rewards"] if v < 0]
    assert 'function thrower() { throw new Error("kaboom"); }' in blamed, blamed


@pytest.mark.parametrize("esbuild", ["kill -9 $$", "sleep 5"])
def test_esbuild_killed_or_stuck_is_an_infra_error_not_the_models(tmp_path, monkeypatch, esbuild):
    # The OOM killer or an overloaded machine must not score a component as not compiling.
    exe = tmp_path / "node_modules/.bin/esbuild"
    for path in (exe, tmp_path / "node_modules/react/umd/react.production.min.js"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    (tmp_path / "node_modules/react-dom/umd").mkdir(parents=True)
    (tmp_path / "node_modules/react-dom/umd/react-dom.production.min.js").write_text("")
    exe.write_text(f"#!/bin/sh\ncat >/dev/null\n{esbuild}\n")
    exe.chmod(0o755)
    monkeypatch.setenv("CODEGYM_NPM_DIR", str(tmp_path))
    with pytest.raises(InfraError, match="esbuild"):
        compile_jsx("export default function App() { return <div />; }", timeout_s=1)


def test_a_lone_surrogate_in_an_answer_is_graded_not_an_infra_error(env):
    for task_id, fence in (("counter-01", "html"), ("react-rating-01", "jsx")):
        _, reward, _, _, info = step(env, task_id, f"```{fence}\n<p>\ud800</p>\n```")
        assert "infra_error" not in info and reward < 1.0, info.get("infra_error")


def test_component_that_throws_on_render_fails_runtime(env):
    code = "export default function App() {\n  throw new Error('render exploded');\n  return <div />;\n}\n"
    _, reward, _, _, info = step(env, "react-rating-02", f"```jsx\n{code}```")
    assert info["reward_components"]["runtime"] == 0.0 and info["reward_components"]["functional"] == 0.0
    assert reward == pytest.approx(0.2)
    assert "render exploded" in info["feedback"]


def test_component_that_mounts_nothing_fails_runtime(env):
    code = "export default function App() {\n  return 1 < 2 ? null : <div />;\n}\n"
    _, reward, _, _, info = step(env, "react-rating-02", f"```jsx\n{code}```")
    assert info["reward_components"] == {"format": 1.0, "source": 1.0, "runtime": 0.0, "functional": 0.0}
    assert reward == pytest.approx(0.2) and "rendered nothing" in info["feedback"]


@pytest.mark.parametrize(
    ("timer", "uncaught"),
    [
        ("setTimeout(() => null.boom, 10);", "TypeError"),
        # deeper than V8's 10 stack frames: the clock's own frames are cut from the stack
        ("function f(k) { if (k === 0) null.boom; f(k - 1); } setTimeout(() => f(12), 10);", "TypeError"),
        ("requestAnimationFrame(() => { throw 'a string'; });", "Error"),
        # caught and logged by the app: a console error, not an uncaught one
        ("setTimeout(() => { try { JSON.parse('{bad'); } catch (e) { console.error(e); } }, 10);", None),
    ],
)
def test_error_thrown_in_a_timer_callback_fails_runtime(timer, uncaught):
    # The fake clock runs timers itself and logs their errors to the console: no
    # "pageerror" fires, yet the app threw, so runtime must be 0 and the error in evidence.
    app = f"""<p id="n">0</p><script>
      setTimeout(() => {{ document.getElementById("n").textContent = "1"; }}, 10);
      {timer}</script>"""
    item = {"text": "shows one", "flow": [{"advance": 100}, {"expect": "text", "sel": "#n", "equals": "1"}]}
    _, info = grade_app(app, [{"id": "one", **item}])
    evidence = info["verdict"]["items"][0]["evidence"]
    assert info["reward_components"]["source"] == 1.0, info["feedback"]
    if uncaught is None:
        assert info["reward_components"]["runtime"] == 1.0, info["feedback"]
        assert not evidence["page_errors"] and "SyntaxError" in evidence["console_errors"][0]
    else:
        assert info["reward_components"]["runtime"] == 0.0, info["feedback"]
        assert [err["name"] for err in evidence["page_errors"]] == [uncaught], evidence


def test_html_syntax_error_stops_at_the_source_level_with_the_line_blamed(env):
    html = "<html><body>\n<button id='inc'>+</button>\n<script>\nlet n = 0;\nfunction (}\n</script></body></html>"
    action = f"```html\n{html}\n```"
    _, reward, _, _, info = step(env, "counter-01", action)
    assert info["reward_components"]["source"] == 0.0 and reward == pytest.approx(0.1)
    assert "did not parse" in info["feedback"] and "(line 5)" in info["feedback"]
    assert [action[s:e] for s, e, v in info["token_rewards"] if v < 0] == ["function (}"]


@pytest.mark.parametrize(
    "throws", ["JSON.parse(localStorage.getItem('n') || '');", "document.querySelector('#1');", "new RegExp('(');"]
)
def test_syntax_error_thrown_while_running_is_a_runtime_error_not_a_parse_error(throws):
    # A script that parsed and then threw a SyntaxError (JSON, selector, RegExp) fails the
    # runtime level only: its items are still graded.
    app = f"""<p id="n">0</p><button id="inc">+</button><script>
      let n = 0;
      document.getElementById("inc").onclick = () => {{ n += 1; document.getElementById("n").textContent = n; }};
      {throws}</script>"""
    item = {"text": "+ adds one", "flow": [{"click": "#inc"}, {"expect": "text", "sel": "#n", "equals": "1"}]}
    _, info = grade_app(app, [{"id": "inc", **item}])
    comps = info["reward_components"]
    assert (comps["source"], comps["runtime"], comps["functional"]) == (1.0, 0.0, 1.0), info["feedback"]
    assert "did not parse" not in info["feedback"]


@pytest.mark.parametrize(
    "reply",
    [
        "Sure! I would build it with React.",
        "Sorry, I can't write this. I'd use a <div> per panel and a <button> per tab.",
        "```html\n<!-- <div> for each panel: TODO -->\n```",
        "```python\nprint('<div id=\"panel-1\">Panel</div>')\n```",
    ],
    ids=["prose", "prose naming tags", "only a comment", "a page printed by python"],
)
def test_text_without_an_app_gets_the_floor_without_a_browser(env, reply):
    _, reward, terminated, _, info = step(env, "todo-02", reply)
    assert reward == 0.0 and terminated
    assert "No app found" in info["feedback"] and info["reward_components"]["format"] == 0.0


@pytest.mark.parametrize(
    ("task_id", "tag"), [("counter-01", "index.html"), ("counter-01", "xml"), ("react-rating-01", "javascriptreact")]
)
def test_an_app_in_a_fence_of_another_web_tag_is_graded(env, task_id, tag):
    gold = env.tasks.get(task_id)["gold"]
    _, reward, _, _, info = step(env, task_id, f"```{tag}\n{gold}\n```")
    assert reward == 1.0, info["feedback"]


def test_an_app_sent_without_a_fence_is_still_graded(env):
    # a page with a sentence before it: the browser shows the sentence and runs the app
    _, reward, _, _, _ = step(env, "counter-01", "Here is the app:\n" + env.tasks.get("counter-01")["gold"])
    assert reward == 1.0


def test_a_page_already_showing_the_final_state_is_no_transition(env):
    # A forged page that prints the expected result up front: nothing changes when the flow
    # acts, so the item fails (the grader needs the transition, not just the end state).
    item = {
        "id": "add",
        "text": "1 + 2 = shows 3.",
        "flow": [
            {"click": "#one"},
            {"click": "#plus"},
            {"click": "#two"},
            {"click": "#eq"},
            {"expect": "text", "sel": "#out", "equals": "3"},
        ],
    }
    forged = "<div id='out'>3</div>" + "".join(f"<button id='{k}'>{k}</button>" for k in ("one", "plus", "two", "eq"))
    e = WebAppEnv(tasks=[{"id": "sum", "request": "sum", "gold": forged, "rubric": [item]}])
    e.reset()
    _, reward, _, _, info = e.step(f"```html\n{forged}\n```")
    assert not info["verdict"]["items"][0]["passed"] and "no transition" in info["verdict"]["items"][0]["reason"]
    assert reward == pytest.approx(0.3)


@pytest.mark.parametrize("later", ["setTimeout(show, 20)", "setTimeout(show, 600)", "requestAnimationFrame(show)"])
def test_a_page_that_shows_the_final_state_by_itself_a_moment_later_is_no_transition(later):
    # The buttons do nothing; the result appears on its own shortly after load, while the
    # flow clicks. The probe lets the untouched page run as long as the flow takes.
    app = f"""<div id="out">0</div><button id="one">1</button><button id="eq">=</button><script>
      const show = () => {{ document.getElementById("out").textContent = "1"; }};
      {later};</script>"""
    flow = [{"click": "#one"}, {"click": "#eq"}, {"expect": "text", "sel": "#out", "equals": "1"}]
    reward, info = grade_app(app, [{"id": f"one-{k}", "text": "1 = shows 1", "flow": flow} for k in range(3)])
    assert [it["passed"] for it in info["verdict"]["items"]] == [False] * 3, info["feedback"]
    assert all("no transition" in it["reason"] for it in info["verdict"]["items"])


@pytest.mark.parametrize(
    "later",
    [
        # a worker's timer, and the end of a CSS animation: the fake clock runs neither
        "const w = new Worker(URL.createObjectURL(new Blob(['setTimeout(() => postMessage(1), 400)'])));"
        " w.onmessage = show;",
        "const a = document.getElementById('fade'); a.addEventListener('animationend', show);"
        " a.style.animation = 'fade 0.4s';",
    ],
    ids=["worker-timer", "css-animation"],
)
def test_a_page_that_shows_the_final_state_after_real_time_is_no_transition(later):
    # The buttons do nothing; the result appears 0.4 s (real time) after load, while the
    # flow's expectation is still waiting for it.
    app = f"""<style>@keyframes fade {{ from {{ opacity: 0 }} to {{ opacity: 1 }} }}</style>
      <div id="out">0</div><div id="fade">.</div><button id="one">1</button><script>
      const show = () => {{ document.getElementById("out").textContent = "1"; }};
      {later}</script>"""
    flow = [{"click": "#one"}, {"expect": "text", "sel": "#out", "equals": "1"}]
    reward, info = grade_app(app, [{"id": f"one-{k}", "text": "1 shows 1", "flow": flow} for k in range(2)])
    assert [it["passed"] for it in info["verdict"]["items"]] == [False] * 2, info["feedback"]
    assert all("no transition" in it["reason"] for it in info["verdict"]["items"])


def test_a_page_that_shows_the_final_state_only_where_time_runs_at_real_pace_is_no_transition():
    # The button does nothing. 600 ms (fake) after load the app asks the animation timeline
    # (real time, which the fake clock does not run) how much real time passed: where the two
    # kept pace, as on the items' pages, it shows the end state. The untouched page must keep
    # that pace too, or it never shows it and every item passes.
    app = """<button id="b">go</button><p id="out">idle</p><script>
      const real = () => document.timeline.currentTime || 0, r0 = real(), f0 = Date.now();
      setTimeout(() => {
        if (real() - r0 > 0.5 * (Date.now() - f0)) document.getElementById("out").textContent = "clicked";
      }, 600);</script>"""
    flow = [{"click": "#b"}, {"expect": "text", "sel": "#out", "equals": "clicked"}]
    reward, info = grade_app(app, [{"id": f"b-{k}", "text": "go shows clicked", "flow": flow} for k in range(3)])
    assert [it["passed"] for it in info["verdict"]["items"]] == [False] * 3, info["feedback"]
    assert all("no transition" in it["reason"] for it in info["verdict"]["items"])


@pytest.mark.parametrize(("period_ms", "top_px"), [(100, 0), (350, 0), (100, 700)], ids=["fast", "slow", "below-fold"])
def test_a_canvas_that_changes_by_itself_shows_no_transition_in_its_pixels(period_ms, top_px):
    # Nothing draws or clears: a square in the corner blinks on its own. Polling finds a frame
    # that differs from the flow's snap, and one that matches it.
    app = f"""<canvas id="pad" width="200" height="120" style="margin-top: {top_px}px"></canvas>
      <button id="clear">clear</button><script>
      const ctx = document.getElementById("pad").getContext("2d"); let on = false;
      ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, 200, 120);
      setInterval(() => {{ on = !on; ctx.fillStyle = on ? "#000" : "#fff"; ctx.fillRect(0, 0, 24, 24); }}, {period_ms});
      </script>"""
    line = [[0.1, 0.5], [0.9, 0.5]]
    snap_draw = [{"snap": "#pad", "as": "blank"}, {"draw": "#pad", "points": line}]
    changed = {"expect": "changed", "sel": "#pad", "since": "blank"}
    unchanged = {"expect": "unchanged", "sel": "#pad", "since": "blank"}
    rubric = [
        {"id": "draws", "text": "dragging draws", "flow": [*snap_draw, changed]},
        {"id": "clear", "text": "clear wipes it", "flow": [*snap_draw, changed, {"click": "#clear"}, unchanged]},
    ]
    reward, info = grade_app(app, rubric)
    assert [it["passed"] for it in info["verdict"]["items"]] == [False, False], info["feedback"]


def test_watching_the_untouched_pad_does_not_resize_it():
    # A pad that marks every window resize. A shot beyond the viewport lays the
    # page out at its full size (a resize event): the watch shot the pad in view that way,
    # the mark looked like a change by itself, and this correct pad failed both items.
    app = """<canvas id="pad" width="200" height="120"></canvas><div style="height: 2000px"></div><script>
      const c = document.getElementById("pad"), ctx = c.getContext("2d"); let down = false;
      ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, 200, 120);
      let resized = 0;  // (a bar along its top grows at each resize)
      addEventListener("resize", () => { ctx.fillStyle = "#f00"; ctx.fillRect(0, 0, 4 * ++resized, 4); });
      c.addEventListener("pointerdown", (e) => { down = true; ctx.beginPath(); ctx.moveTo(e.offsetX, e.offsetY); });
      c.addEventListener("pointermove", (e) => { if (down) { ctx.lineTo(e.offsetX, e.offsetY); ctx.stroke(); } });
      c.addEventListener("pointerup", () => { down = false; });</script>"""
    draw = [{"snap": "#pad", "as": "blank"}, {"draw": "#pad", "points": [[0.3, 0.6], [0.9, 0.6]]}]
    changed = {"expect": "changed", "sel": "#pad", "since": "blank"}
    rubric = [{"id": f"draws-{k}", "text": "dragging draws", "flow": [*draw, changed]} for k in range(2)]
    reward, info = grade_app(app, rubric)
    assert reward == 1.0, info["feedback"]


@pytest.mark.parametrize("shown_after_ms", [300, None], ids=["late", "never"])
def test_a_pixel_expectation_waits_for_a_hidden_element_and_fails_one_that_stays_hidden(shown_after_ms):
    # The overlay is there from the start, hidden; Open shows it (late: after 0.3 s).
    show = "" if shown_after_ms is None else f"setTimeout(() => {{ ov.hidden = false; }}, {shown_after_ms})"
    app = f"""<div id="overlay" hidden style="position: fixed; inset: 0; background: rgb(90, 90, 90)"></div>
      <button id="open">Open</button><script>
      const ov = document.getElementById("overlay");
      document.getElementById("open").onclick = () => {{ {show} }};</script>"""
    dims = {"expect": "pixel", "sel": "#overlay", "at": [0.5, 0.5], "rgb": [90, 90, 90], "tol": 20}
    reward, info = grade_app(app, [{"id": "dims", "text": "Open dims the page", "flow": [{"click": "#open"}, dims]}])
    if shown_after_ms is None:
        assert reward < 1.0 and "not visible" in info["verdict"]["items"][0]["reason"], info["feedback"]
    else:
        assert reward == 1.0, info["feedback"]


def test_pixel_expectations_judge_the_picture_after_the_last_action_and_a_change_after_it():
    # Consecutive pixel expectations on one canvas share a shot (flows._element_shot): an
    # action drops it, and so does an expectation that fails on it.
    app = """<canvas id="pad" width="100" height="60"></canvas><button id="red">red</button>
      <button id="blue">blue</button><button id="fade">fade</button><script>
      const ctx = document.getElementById("pad").getContext("2d"), on = (id) => document.getElementById(id);
      const paint = (c) => { ctx.fillStyle = c; ctx.fillRect(0, 0, 100, 60); };
      paint("#fff");
      on("red").onclick = () => paint("#f00");
      on("blue").onclick = () => paint("#00f");
      on("fade").onclick = () => { paint("#f00"); setTimeout(() => paint("#00f"), 200); };</script>"""

    def px(rgb):
        return {"expect": "pixel", "sel": "#pad", "at": [0.5, 0.5], "rgb": rgb, "tol": 20}

    red, blue = px([255, 0, 0]), px([0, 0, 255])
    rubric = [
        {"id": "stale", "text": "red stays", "flow": [{"click": "#red"}, red, {"click": "#blue"}, red]},
        {"id": "turns", "text": "blue after red", "flow": [{"click": "#red"}, red, {"click": "#blue"}, blue]},
        {"id": "fades", "text": "fade: red, then blue", "flow": [{"click": "#fade"}, red, blue]},
    ]
    reward, info = grade_app(app, rubric)
    assert [it["passed"] for it in info["verdict"]["items"]] == [False, True, True], info["feedback"]


def test_a_canvas_that_changes_by_itself_after_an_items_span_fails_no_item():
    # The pad paints a badge by itself at 5 s: past "draws"' span, though within "timer"'s.
    app = """<canvas id="pad" width="200" height="120"></canvas><p id="t">0</p><button id="go">go</button><script>
      const c = document.getElementById("pad"), ctx = c.getContext("2d"); let down = false;
      ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, 200, 120);
      c.addEventListener("pointerdown", (e) => { down = true; ctx.beginPath(); ctx.moveTo(e.offsetX, e.offsetY); });
      c.addEventListener("pointermove", (e) => { if (down) { ctx.lineTo(e.offsetX, e.offsetY); ctx.stroke(); } });
      c.addEventListener("pointerup", () => { down = false; });
      setTimeout(() => { ctx.fillStyle = "#f00"; ctx.fillRect(150, 80, 50, 40); }, 5000);
      document.getElementById("go").onclick = () => setTimeout(() => { t.textContent = "done"; }, 6000);</script>"""
    draw = [{"snap": "#pad", "as": "blank"}, {"draw": "#pad", "points": [[0.1, 0.3], [0.5, 0.3]]}]
    rubric = [
        {
            "id": "draws",
            "text": "dragging draws",
            "flow": [*draw, {"expect": "changed", "sel": "#pad", "since": "blank"}],
        },
        {
            "id": "timer",
            "text": "go: done after 6 s",
            "flow": [{"click": "#go"}, {"advance": 6500}, {"expect": "text", "sel": "#t", "equals": "done"}],
        },
    ]
    reward, info = grade_app(app, rubric)
    assert reward == 1.0, info["feedback"]


def test_what_the_app_does_by_itself_later_than_an_items_span_fails_no_item():
    # The banner hides itself at 5 s, the toast at 3 s. "dismiss" takes a second and "toast"
    # only lets time pass; the timer item makes the probe run the untouched page past both.
    # Neither self-hiding is a real-time change, so no item may fail for it, however long
    # the grading takes.
    app = """<div id="banner">Sale!</div><button id="dismiss">x</button><div id="toast">Saved</div>
      <p id="t">0</p><button id="go">go</button><script>
      const $ = (id) => document.getElementById(id);
      setTimeout(() => { $("banner").hidden = true; }, 5000);
      setTimeout(() => { $("toast").hidden = true; }, 3000);
      $("dismiss").onclick = () => { $("banner").hidden = true; };
      $("go").onclick = () => setTimeout(() => { $("t").textContent = "done"; }, 6000);</script>"""
    rubric = [
        {
            "id": "dismiss",
            "text": "x hides the banner",
            "flow": [{"click": "#dismiss"}, {"expect": "hidden", "sel": "#banner"}],
        },
        {
            "id": "toast",
            "text": "the toast hides after 3 s",
            "flow": [{"advance": 3500}, {"expect": "hidden", "sel": "#toast"}],
        },
        {
            "id": "timer",
            "text": "go: done after 6 s",
            "flow": [{"click": "#go"}, {"advance": 6500}, {"expect": "text", "sel": "#t", "equals": "done"}],
        },
    ]
    reward, info = grade_app(app, rubric + [dict(r, id=f"{r['id']}-{k}") for r in rubric for k in range(2)])
    assert reward == 1.0, info["feedback"]


def test_a_page_whose_fake_time_lags_is_not_failed_by_the_later_read():
    # A heavy animation (tens of ms per frame) keeps the probe from running the page's fake
    # time within its limit; the page goes on running it afterwards, so what it shows later
    # (the banner hiding itself at 12 s) is no real-time change, and "dismiss" still passes.
    app = """<canvas id="c" width="200" height="100"></canvas><div id="banner">Sale!</div>
      <button id="dismiss">x</button><p id="n">0</p><button id="inc">+</button><script>
      const $ = (id) => document.getElementById(id), ctx = $("c").getContext("2d");
      function frame(t) { let s = 0; for (let i = 0; i < 1.2e7; i++) s += Math.sqrt(i);
        ctx.clearRect(0, 0, 200, 100); ctx.fillRect((t / 10) % 200, 40, 10, s % 2); requestAnimationFrame(frame); }
      requestAnimationFrame(frame);
      setTimeout(() => { $("banner").hidden = true; }, 12000);
      $("dismiss").onclick = () => { $("banner").hidden = true; };
      $("inc").onclick = () => setTimeout(() => { $("n").textContent = "1"; }, 1000);</script>"""
    rubric = [
        {
            "id": "dismiss",
            "text": "x hides it",
            "flow": [{"click": "#dismiss"}, {"expect": "hidden", "sel": "#banner"}],
        },
        {
            "id": "inc",
            "text": "+ counts after 1 s",
            "flow": [{"click": "#inc"}, {"advance": 3000}, {"expect": "text", "sel": "#n", "equals": "1"}],
        },
    ]
    reward, info = grade_app(app, rubric)
    assert reward == 1.0, info["feedback"]


def test_a_flow_that_only_lets_time_pass_is_judged_by_the_load():
    # Time is this flow's action: the toast that hides itself after 3 s is the requirement.
    app = """<div id="toast">Saved</div><script>
      setTimeout(() => { document.getElementById("toast").hidden = true; }, 3000);</script>"""
    flow = [{"expect": "visible", "sel": "#toast"}, {"advance": 3500}, {"expect": "hidden", "sel": "#toast"}]
    reward, info = grade_app(app, [{"id": "hides", "text": "the toast hides after 3 s", "flow": flow}])
    assert reward == 1.0, info["feedback"]


def test_attr_without_a_comparator_means_present_and_changed_sees_any_channel():
    # disabled="" is present; a blue box turning navy is a change (its grey level barely moves).
    app = """<button id="lock">lock</button><input id="target">
      <div id="box" style="width:40px;height:40px;background:#0000ff"></div>
      <script>document.getElementById("lock").onclick = () => { document.getElementById("target").disabled = true;
        document.getElementById("box").style.background = "#000080"; };</script>"""
    rubric = [
        {
            "id": "lock",
            "text": "locks",
            "flow": [{"click": "#lock"}, {"expect": "attr", "sel": "#target", "name": "disabled"}],
        },
        {
            "id": "dim",
            "text": "dims",
            "flow": [
                {"snap": "#box", "as": "before"},
                {"click": "#lock"},
                {"expect": "changed", "sel": "#box", "since": "before"},
            ],
        },
    ]
    reward, info = grade_app(app, rubric)
    assert reward == 1.0, info["feedback"]


def test_info_is_deterministic_for_the_same_action(env):
    env.reset(options={"task_id": "counter-03"})
    bad = env.broken_actions()[0]["action"]
    infos = [step(env, "counter-03", bad)[4] for _ in range(2)]
    failed = [it for it in infos[0]["verdict"]["items"] if not it["passed"]]
    assert failed and all(it["evidence"]["screenshot_png_b64"] for it in failed)
    assert infos[0] == infos[1]
    assert "127.0.0.1" not in json.dumps(infos[0])  # the ephemeral port is normalised away


def test_info_does_not_carry_the_ephemeral_port():
    # The app prints its own host (127.0.0.1:PORT, a new port per grading) where a failed
    # item's DOM excerpt shows it.
    app = """<p id="where"></p><button id="go">go</button><script>
      document.getElementById("where").textContent = location.host + " " + location.href;</script>"""
    flow = [{"click": "#go"}, {"expect": "text", "sel": "#where", "equals": "elsewhere"}]
    evidence = [
        grade_app(app, [{"id": "go", "text": "go", "flow": flow}])[1]["verdict"]["items"][0]["evidence"]
        for _ in range(2)
    ]
    assert "app http://app/" in evidence[0]["dom"]
    for ev in evidence:
        ev.pop("screenshot_png_b64")  # pixels of the printed port: only text can be normalised
    assert evidence[0] == evidence[1]


def test_check_env_passes():
    e = WebAppEnv()
    check_env(e, skip_render_check=True)
    e.close()


def test_pickled_env_grades_again(env):
    import pickle

    env.reset(options={"task_id": "counter-02"})
    clone = pickle.loads(pickle.dumps(env))
    _, reward, _, _, info = clone.step(clone.gold_action())
    assert reward == 1.0, info["feedback"]


def test_every_item_starts_its_fake_clock_on_2026_01_01():
    # Each item reads the date on a fresh load, then advances the clock 5 s. Four items in two
    # lanes: some run after another item in the same context, whose advance must not carry
    # over; the second grading runs in contexts opened during the first, a while before.
    app = """<p id="when">-</p><button id="show">show</button><script>
      document.getElementById("show").onclick = () => {
        document.getElementById("when").textContent = new Date().toISOString().slice(0, 19); };
      </script>"""
    flow = [
        {"click": "#show"},
        {"expect": "text", "sel": "#when", "equals": "2026-01-01T00:00:00"},
        {"advance": 5000},
        {"click": "#show"},
        {"expect": "text", "sel": "#when", "equals": "2026-01-01T00:00:05"},
    ]
    rubric = [{"id": f"date-{k}", "text": "shows the date", "flow": flow} for k in range(4)]
    e = WebAppEnv(tasks=[{"id": "clock", "request": "clock", "gold": app, "rubric": rubric}])
    try:
        for _ in range(2):
            e.reset()
            _, reward, _, _, info = e.step(f"```html\n{app}\n```")
            assert reward == 1.0, info["feedback"]
            time.sleep(1.2)
    finally:
        e.close()


def test_unsaved_changes_guard_lets_the_next_item_load():
    # A beforeunload guard is accepted, as Playwright does: the item after a typing item in
    # the same context must still load its fresh page.
    app = """<textarea id="note"></textarea><p id="status">empty</p><button id="inc">+</button><p id="n">0</p>
      <script>let dirty = false, n = 0;
      document.getElementById("note").oninput = () => { dirty = true;
        document.getElementById("status").textContent = "unsaved"; };
      document.getElementById("inc").onclick = () => { n += 1; document.getElementById("n").textContent = n; };
      addEventListener("beforeunload", (e) => { if (dirty) { e.preventDefault(); e.returnValue = ""; } });
      </script>"""
    typing = {
        "text": "typing",
        "flow": [{"fill": "#note", "value": "hi"}, {"expect": "text", "sel": "#status", "equals": "unsaved"}],
    }
    inc = {"text": "+", "flow": [{"click": "#inc"}, {"expect": "text", "sel": "#n", "equals": "1"}]}
    rubric = [{"id": f"type-{k}", **typing} for k in range(3)] + [{"id": f"inc-{k}", **inc} for k in range(3)]
    reward, info = grade_app(app, rubric)
    assert reward == 1.0, info["feedback"]


def test_a_few_dialogs_per_load_are_no_storm_however_long_the_rubric():
    # Two alerts on every load: 12 or more dialogs over 6 items, but the limit is per page load.
    app = """<p id="n">0</p><button id="inc">+</button><script>alert("Welcome!"); alert("Press +");
      let n = 0;
      document.getElementById("inc").onclick = () => { n += 1; document.getElementById("n").textContent = n; };
      </script>"""
    item = {"text": "+", "flow": [{"click": "#inc"}, {"expect": "text", "sel": "#n", "equals": "1"}]}
    reward, info = grade_app(app, [{"id": f"inc-{k}", **item} for k in range(6)])
    assert reward == 1.0 and "dialog_storm" not in info["audit"]["flags"], info["feedback"]
    assert info["verdict"]["containment"]["dialogs"] >= 12  # two per load: each item, and the runtime stage


def test_items_do_not_see_each_others_storage():
    # Item "dirty" writes sessionStorage (which survives navigations in a tab) and
    # localStorage; item "clean" runs next in the same tab and must start from empty storage.
    app = """<p id="seen"></p><button id="set">set</button><button id="noop">noop</button><script>
      let clicks = 0;
      const show = () => { document.getElementById("seen").textContent =
        (sessionStorage.getItem("v") || "none") + "|" + (localStorage.getItem("v") || "none") + "|" + clicks; };
      document.getElementById("set").onclick = () => { sessionStorage.setItem("v", "set");
        localStorage.setItem("v", "set"); show(); };
      document.getElementById("noop").onclick = () => { clicks += 1; show(); };
      show();</script>"""
    rubric = [
        {
            "id": "dirty",
            "text": "set",
            "flow": [{"click": "#set"}, {"expect": "text", "sel": "#seen", "equals": "set|set|0"}],
        },
        {
            "id": "clean",
            "text": "clean",
            "flow": [{"click": "#noop"}, {"expect": "text", "sel": "#seen", "equals": "none|none|1"}],
        },
    ]
    e = WebAppEnv(tasks=[{"id": "iso", "request": "iso", "gold": app, "rubric": rubric}])
    e.reset()
    _, reward, _, _, info = e.step(f"```html\n{app}\n```")
    assert reward == 1.0, info["feedback"]


def test_what_a_page_writes_while_it_unloads_does_not_reach_the_next_item():
    # The page writes a cookie and localStorage on pagehide, after the wipe between items.
    app = """<p id="seen">-</p><p id="n">0</p><button id="inc">+</button><script>
      let n = 0;
      const cookie = (document.cookie.match(/n=(\\d+)/) || [])[1] || "none";
      document.getElementById("seen").textContent = cookie + "|" + (localStorage.getItem("n") || "none");
      document.getElementById("inc").onclick = () => { n += 1; document.getElementById("n").textContent = n; };
      addEventListener("pagehide", () => {
        document.cookie = "n=" + n + "; max-age=9999"; localStorage.setItem("n", n); });
      </script>"""
    flow = [
        {"expect": "text", "sel": "#seen", "equals": "none|none"},
        {"click": "#inc"},
        {"expect": "text", "sel": "#n", "equals": "1"},
    ]
    reward, info = grade_app(app, [{"id": f"inc-{k}", "text": "starts clean", "flow": flow} for k in range(4)])
    assert reward == 1.0, info["feedback"]


@pytest.mark.parametrize(
    "memory",
    [
        "const seen = window.name === 'seen'; window.name = 'seen';",  # the tab's name survives loads
        "const seen = history.length > 2;",  # so do its history entries
    ],
)
def test_an_app_cannot_tell_a_later_item_from_the_untouched_probe(memory):
    # An app with no handler that shows the final state from its second load on: the probe's
    # load (or an earlier item's) must leave nothing in the tab that the next load can read.
    app = f"""<button id="b">go</button><p id="out">idle</p><script>{memory}
      if (seen) document.getElementById("out").textContent = "clicked";</script>"""
    flow = [{"click": "#b"}, {"expect": "text", "sel": "#out", "equals": "clicked"}]
    reward, info = grade_app(app, [{"id": f"click-{k}", "text": "click", "flow": flow} for k in range(3)])
    assert [it["passed"] for it in info["verdict"]["items"]] == [False] * 3, info["feedback"]


def test_performance_time_does_not_tell_a_later_item_from_the_probe():
    # The fake clock's performance time went on across an item lane's loads: after an item
    # that advanced the clock, the next load saw a large performance.now(), which the probe's
    # load never did. An app with no handler could show the final state only then.
    app = """<button id="b">go</button><p id="out">idle</p><script>
      if (performance.now() > 1000) document.getElementById("out").textContent = "clicked";
      requestAnimationFrame((t) => { if (t > 1000) document.getElementById("out").textContent = "clicked"; });
      const frame = document.createElement("iframe"); frame.hidden = true; document.body.append(frame);
      if (frame.contentWindow.performance.now() > 1000) document.getElementById("out").textContent = "clicked";
      </script>"""
    flow = [{"click": "#b"}, {"advance": 3000}, {"expect": "text", "sel": "#out", "equals": "clicked"}]
    reward, info = grade_app(app, [{"id": f"click-{k}", "text": "click", "flow": flow} for k in range(5)])
    assert [it["passed"] for it in info["verdict"]["items"]] == [False] * 5, info["feedback"]


def test_every_item_starts_fresh_and_keeps_the_error_its_load_threw():
    # Each item loads the app again: the same fresh state for all, and the error thrown
    # while its page loaded is its evidence (runtime fails on the runtime stage's load).
    app = """<p id="n">0</p><button id="inc">+</button><script>
      let n = 0;
      document.getElementById("inc").onclick = () => { n += 1; document.getElementById("n").textContent = n; };
      </script><script>throw new Error("init failure");</script>"""
    item = {"text": "+ adds one", "flow": [{"click": "#inc"}, {"expect": "text", "sel": "#n", "equals": "1"}]}
    rubric = [{"id": f"inc-{k}", **item} for k in range(3)]
    e = WebAppEnv(tasks=[{"id": "first", "request": "first", "gold": app, "rubric": rubric}])
    e.reset()
    _, _, _, _, info = e.step(f"```html\n{app}\n```")
    items = info["verdict"]["items"]
    assert [it["passed"] for it in items] == [True, True, True], info["feedback"]
    assert info["reward_components"]["runtime"] == 0.0
    for it in items:
        assert [err["message"] for err in it["evidence"]["page_errors"]] == ["init failure"], it
