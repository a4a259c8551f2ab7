"""WebApp-v0: build a web app from a request; graded by executable flows in headless Chromium."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from codegym.core import CodeEnv, Outcome, Task, extract_code
from codegym.errors import TaskFormatError, did_you_mean

from . import credit as cr
from .flows import validate_flow
from .grader import LIMITS, grade_in_browser, parse_errors
from .pool import BrowserPool
from .react import compile_jsx, react_files
from .session import Budget

WEIGHTS = {"format": 0.1, "source": 0.1, "runtime": 0.1, "functional": 0.7}
SECURITY_FLAGS = ("blocked_request", "websocket", "popup", "navigation_away", "download")
_HTML_TAG = re.compile(
    r"<(?:!doctype|html|head|body|script|div|main|section|form|button|input|ul|table|canvas|h[1-6]|p)\b", re.I
)
# Text with no fence is an app only when it has the frame of a page or a script: prose that
# mentions a <div> is not one.
_PAGE_TAG = re.compile(r"<(?:!doctype|html|body|script)\b", re.I)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)


class WebAppEnv(CodeEnv):
    """Write a web app that a scripted user can operate in a real browser.

    ## Description

    Each task is an app request (to-do list with persistence, calculator, form validation,
    tabs, modal, sortable/filterable table, countdown timer, drag to reorder, canvas drawing,
    quiz, unit converter, ...) with a rubric: user-visible requirements, each checked by an
    executable flow (Playwright steps such as click/fill/press/drag/draw/reload/advance-clock,
    then the transition that must be observed: visible text, DOM count, value, attribute,
    class, storage that survives a reload, pixels of a region that change). The app runs in
    headless Chromium (Debian's, driven by Playwright; never downloaded), served from a local
    static server on ``127.0.0.1`` at an ephemeral port, one server per grading.

    Sandbox: the app's JavaScript is untrusted. It is contained by Chromium's own isolation
    (renderer processes; fresh browser contexts per grading, so nothing is shared with other
    episodes: cookies, storage, cache; one keeps the untouched app the transition rule compares
    with, two run the items side by side; service workers are blocked; every rubric item starts
    on a freshly loaded page with all storage, the window's name and the tab's history wiped) plus
    request blocking: every request to any address but the app's own origin, including other
    localhost ports, is aborted and flagged; WebSockets are mocked and flagged; behind that,
    each context's proxy settings send everything but the app's own ``host:port`` to a dead
    proxy, loopback included, which also stops what request routing never sees (a worker's
    WebSocket, speculation-rules prefetches, WebRTC's TURN over TCP, WebTransport). Downloads
    are cancelled and flagged, dialogs dismissed, windows never opened, navigation away recorded,
    every step and item runs under a timeout (an endless loop is abandoned and its context
    closed; a browser that hangs or crashes is restarted by the pool). Each renderer and GPU
    process may map 1 GiB of data (``BrowserPool(memory_limit_mb=...)``): past it allocations
    fail (a ``RangeError``) or the process crashes (``renderer_crash``; the GPU process is
    shared by every page: ``gpu_crash`` when it crashes twice, the second time while the app
    was graded alone on a fresh browser); the app's storage quota (IndexedDB, Cache Storage,
    kept in the browser process's memory) is 10 MB (``session.QUOTA_BYTES``). Chromium runs
    with ``--no-sandbox`` because graders run as root here, so the OS-level renderer sandbox
    is NOT part of the containment: run graders in a container or VM when the apps may carry
    browser exploits rather than ordinary bad JavaScript. The grader reads the page from
    JavaScript worlds the app cannot reach (Playwright's utility world, and its own isolated
    world in ``dom.py``), so an app that patches ``Element.prototype``, ``Storage`` or
    ``getComputedStyle`` cannot change what is read.

    Task format (JSON/JSONL, see ``catalog/`` for the bundled ones): ``id``, ``kind``
    (``html``/``react``), ``request``, ``rubric`` (list of ``{"id", "text", "flow"}``, the flow
    language is in ``flows.py``), ``gold`` (the app's code), ``broken`` (list of ``{"name",
    "code", "breaks": [item ids]}``), optional ``split``/``difficulty``/``family``.

    ## Action

    The model's text. The app is taken from its last ```html block (HTML tasks: one
    self-contained HTML file) or ```jsx block (React tasks: a component, ``export default
    function App``, compiled with esbuild and mounted into a fixed page with React 18 served
    locally), else the raw text.

    ## Observation

    Text: the request, the numbered rubric, and the answer format.

    ## Reward

    Hierarchical (RCCA), each level gated by the ones below it, all in [0, 1]:

    ``reward = 0.1*F + 0.1*F*S + 0.1*F*S*R + 0.7*F*S*P``

    * F ``format``: an app could be extracted (HTML with markup outside comments, and with no
      fence a page or a script: prose that mentions a ``<div>`` is none / JSX code), from a
      block that is not tagged as another language (``python``, ``bash``, ...: ``NOT_AN_APP``);
    * S ``source``: it parses / compiles (React: esbuild succeeded, the compile rate; HTML: no
      script fails to parse, a ``SyntaxError`` without a stack frame, while the page loads);
    * R ``runtime``: the page loaded without uncaught errors (those the app's own handlers
      hid included), without hanging, and within the limits (DOM nodes, storage bytes,
      dialogs); a React component must also have mounted something into ``#root``;
    * P ``functional``: share of rubric items whose flow passed (transition observed).

    ``token_rewards``: each item's code spans (touched elements, their bound handlers, lines
    in the stacks of errors it hit) get +1/n if it passed, -1/n if it failed; compile errors'
    lines get -0.1. (``verdict["items"][i]["code_spans"]`` are the same spans, as offsets
    into the extracted app rather than into the action.) ``audit.flags`` lists
    containment events (``blocked_request``, ``websocket``, ``popup``, ``navigation_away``,
    ``download``, ``hung_page``, ``dialog_storm``, ``huge_dom``, ``storage_bomb``,
    ``renderer_crash``, ``gpu_crash``); the first five set ``audit_reward`` to 0.

    ## Starting state

    A task drawn with the seed (or ``options["task_id"]``); nothing runs before ``step``.

    ## Episode end

    Termination after the one graded step (single turn); with ``max_turns > 1`` the episode
    goes on with the feedback until all items pass (termination) or the turn limit
    (truncation).

    ## Arguments

    * ``tasks``: folder / JSON(L) / list of task dicts replacing the 66 bundled tasks.
    * ``pool``: a :class:`BrowserPool` (default: the process-wide shared pool, which the
      last env using it closes in :meth:`close`; a pool given here is left to its owner, and
      one from ``BrowserPool.shared()`` to whoever called it, who releases it).
    * ``screenshots``: ``"failed"`` (default), ``"all"`` or ``"none"``: which items carry a
      base64 PNG thumbnail in the verdict.
    * ``credit``: trace handlers through DevTools for ``token_rewards`` (default True).
    * ``load_timeout_s`` (8) / ``item_timeout_s`` (15): when a load / one item's flow counts as hung.
    * ``sandbox``: accepted for the common signature (and checked like every env's) but not
      used: the browser is this family's sandbox (see Description).
    * and CodeEnv's ``max_turns``, ``record_timing``, ``split``, ``difficulty``.

    ## Version history

    * v0: first version.
    """

    bundled_tasks: ClassVar[str] = "webapp"
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        *,
        pool: BrowserPool | None = None,
        screenshots: str = "failed",
        credit: bool = True,
        load_timeout_s: float = 8.0,
        item_timeout_s: float = 15.0,
        **kwargs: Any,
    ) -> None:
        if screenshots not in ("failed", "all", "none"):
            raise ValueError(
                f"screenshots must be 'failed', 'all' or 'none', got {screenshots!r}."
                f"{did_you_mean(str(screenshots), ('failed', 'all', 'none'))}"
            )
        # The browser is this family's sandbox (see docstring): ``sandbox`` is checked like
        # every env's, so a misspelt one fails here too, and then not used.
        super().__init__(**kwargs)
        self._pool = pool
        self._holds_shared = False  # self._pool came from BrowserPool.shared()
        self.screenshots, self.credit = screenshots, credit
        self.budget = Budget(load_timeout_s, item_timeout_s)

    # ------------------------------------------------------------------ tasks
    def parse_task(self, task: Task) -> Task:
        """Check a task's request, rubric (with flows), gold app and broken apps."""
        task.require("request", str)
        task.require("gold", str)
        kind = task.get("kind", "html")
        if kind not in ("html", "react"):
            raise TaskFormatError(task.source, "kind", f"expected 'html' or 'react', got {kind!r}")
        rubric = task.require("rubric", list)
        if not rubric:
            raise TaskFormatError(task.source, "rubric", "needs at least one item")
        ids = set()
        for i, item in enumerate(rubric):
            if (
                not isinstance(item, dict)
                or not isinstance(item.get("id"), str)
                or not isinstance(item.get("text"), str)
            ):
                raise TaskFormatError(
                    task.source, f"rubric[{i}]", "each item needs string 'id' and 'text' and a 'flow'"
                )
            if item["id"] in ids:
                raise TaskFormatError(task.source, f"rubric[{i}].id", f"duplicate item id {item['id']!r}")
            ids.add(item["id"])
            problems = validate_flow(item.get("flow"))
            if problems:
                raise TaskFormatError(task.source, f"rubric[{i}].flow", "; ".join(problems))
        broken = task.get("broken", [])
        if not isinstance(broken, list):
            raise TaskFormatError(task.source, "broken", "must be a list of broken apps")
        for j, bad in enumerate(broken):
            if (
                not isinstance(bad, dict)
                or not isinstance(bad.get("code"), str)
                or not isinstance(bad.get("breaks"), list)
                or not bad["breaks"]
                or not all(isinstance(b, str) and b in ids for b in bad["breaks"])
            ):
                raise TaskFormatError(
                    task.source, f"broken[{j}]", "needs 'code' and 'breaks', a list of the rubric item ids it breaks"
                )
        return task

    def _start(self, task: Task) -> str:
        rubric = "\n".join(f"{i}. {item['text']}" for i, item in enumerate(task["rubric"], 1))
        if task.get("kind", "html") == "react":
            fmt = (
                "Answer with one React function component in a ```jsx block (`export default function "
                "App() {...}`). React 18 is available (`import React, { useState } from 'react'` or the "
                "global `React`); no other imports, no network."
            )
        else:
            fmt = (
                "Answer with one self-contained HTML file (HTML, CSS and JavaScript inline) in a ```html "
                "block. The page cannot reach the network: no CDNs, no external files."
            )
        return (
            f"Build this web app.\n\n{task['request']}\n\nRequirements (a scripted user checks each one in "
            f"a real browser):\n{rubric}\n\n{fmt}"
        )

    def gold_action(self) -> str:
        """The gold app in the fence its task asks for."""
        task = self.episode.task
        return fence(task["gold"], task.get("kind", "html"))

    def broken_actions(self) -> list[dict[str, Any]]:
        """The task's known-broken apps as actions: ``{"name", "action", "breaks"}``."""
        task = self.episode.task
        return [
            {
                "name": b.get("name", f"broken{j}"),
                "action": fence(b["code"], task.get("kind", "html")),
                "breaks": list(b["breaks"]),
            }
            for j, b in enumerate(task.get("broken", []))
        ]

    # ------------------------------------------------------------------ grading
    @property
    def pool(self) -> BrowserPool:
        """The browser pool this env grades with (a pool from before a fork: this process's own)."""
        if self._pool is None or not self._pool.usable_here():
            self._pool, self._holds_shared = BrowserPool.shared(), True
        return self._pool

    def _live_attributes(self) -> tuple[str, ...]:
        return ("_pool", "_holds_shared")

    def _fork_resources(self, clone: CodeEnv) -> None:
        # The clone takes a hold of the shared pool of its own when it grades; the pool the
        # user gave it (which copying dropped, as for a pickle) it keeps.
        clone._pool = None if self._holds_shared else self._pool  # type: ignore[attr-defined]
        clone._holds_shared = False  # type: ignore[attr-defined]

    def _grade(self, action: str) -> Outcome:
        task = self.episode.task
        kind = task.get("kind", "html")
        rubric = task["rubric"]
        n = len(rubric)
        comps = {"format": 0.0, "source": 0.0, "runtime": 0.0, "functional": 0.0}
        code = extract_code(action, "jsx" if kind == "react" else "html")
        if kind == "react" and code is not None and code.language not in ("jsx", None):
            # a component tagged as JavaScript, maybe followed by a shell block to run it
            code = extract_code(action, "javascript") or code
        foreign = code is not None and code.language in NOT_AN_APP
        if code is None or foreign or not _looks_like(kind, code.code, code.fenced):
            what = "a ```jsx block with a component" if kind == "react" else "a ```html block with the page"
            got = f" (the block found is tagged ```{code.language})" if foreign else ""
            return Outcome(
                0.0,
                comps,
                f"No app found: expected {what}{got}.",
                verdict={"kind": kind, "stage": "format"},
                terminated=self.max_turns == 1,
            )
        comps["format"] = 1.0
        src, off = code.code, code.start
        spans: list[tuple[int, int, float]] = []
        verdict: dict[str, Any] = {"kind": kind}
        if kind == "react":
            compiled = compile_jsx(src)
            verdict["compile_errors"] = compiled.errors
            if not compiled.ok:
                msg = "; ".join(f"line {e['line']}:{e['column']}: {e['text']}" for e in compiled.errors[:3])
                spans = [(s + off, e + off, -0.1) for s, e in cr.compile_error_spans(src, compiled.errors)]
                verdict["stage"] = "source"
                return Outcome(
                    _reward(comps),
                    comps,
                    f"The component did not compile: {msg}",
                    token_rewards=spans,
                    verdict=verdict,
                    terminated=self.max_turns == 1,
                )
            files = react_files(compiled.js)
        else:
            files = {"index.html": src}
        report, gpu_crash = self._browser_report(files, kind == "react", rubric)
        origin = report["origin"]
        if report["tally"]["close_hung"]:
            self.pool.mark_suspect()  # a context that would not close: restart before next use
        report = _normalise(report, origin)
        load, items, tally = report["load"], report["items"], report["tally"]
        syntax = parse_errors(load["page_errors"])
        flags = _flags(load, tally) + (["gpu_crash"] if gpu_crash else [])
        comps["source"] = 0.0 if syntax else 1.0
        # A component that mounted nothing did not run (its items were not run either).
        ran = load["loaded"] and load.get("rendered") is not False
        comps["runtime"] = float(ran and not load["page_errors"] and not set(flags) - set(SECURITY_FLAGS))
        passed = {r["id"]: r["passed"] for r in items}
        comps["functional"] = sum(passed.values()) / n if comps["source"] else 0.0
        reward = _reward(comps)
        results = {r["id"]: r for r in items}
        code_spans = {r["id"]: cr.item_spans(src, r, kind == "html") for r in items}  # (offsets into src)
        for r in items:
            value = (1.0 if r["passed"] else -1.0) / n
            spans += [(s + off, e + off, value) for s, e in code_spans[r["id"]]]
        if syntax and kind == "html":  # (a React app's are places in the compiled bundle, not in src)
            spans += [(s + off, e + off, -0.1) for s, e in cr.compile_error_spans(src, load["parse_at"], html=True)]
        verdict.update(
            {
                "stages": dict(comps),
                "load": {
                    k: load.get(k)
                    for k in (
                        "loaded",
                        "rendered",
                        "hung",
                        "error",
                        "dom_nodes",
                        "storage_bytes",
                        "dialogs",
                        "page_errors",
                        "parse_at",
                        "console_errors",
                    )
                },
                "items": [
                    _item_verdict(item, results.get(item["id"]), code_spans.get(item["id"], [])) for item in rubric
                ],
                "containment": {
                    k: tally[k] for k in ("blocked", "websockets", "navigated_away", "dialogs", "popups", "downloads")
                },
                "flags": flags,
            }
        )
        feedback = _feedback(comps, load, verdict["items"], flags, syntax)
        security = [f for f in flags if f in SECURITY_FLAGS]
        return Outcome(
            reward,
            comps,
            feedback,
            token_rewards=spans,
            verdict=verdict,
            audit_flags=flags,
            audit_reward=0.0 if security else reward,
            terminated=self.max_turns == 1 or comps["functional"] == 1.0,
        )

    def _browser_report(
        self, files: dict[str, str | bytes], react: bool, rubric: list[dict[str, Any]]
    ) -> tuple[dict[str, Any], bool]:
        """The grading's browser side, and whether the app crashed Chromium's GPU process.

        A GPU crash (WebGL textures past the memory cap) takes every page's WebGL with it. Every
        grading running then sees it, so the app is graded again, alone on the restarted
        browser (``BrowserPool.run_gpu_checked``), and blamed when that one's crashes too.
        A page whose renderer died is graded once more too: the machine's OOM killer or an
        operator can kill a renderer; the app is blamed (``renderer_crash``) when it dies again.
        """
        report, gpu_crash = self._graded_once(files, react, rubric)
        if report["tally"]["crashed"]:
            report, gpu_crash = self._graded_once(files, react, rubric)
        return report, gpu_crash

    def _graded_once(
        self, files: dict[str, str | bytes], react: bool, rubric: list[dict[str, Any]]
    ) -> tuple[dict[str, Any], bool]:
        for alone in (False, True):
            report, crashed = self.pool.run_gpu_checked(
                lambda browser: grade_in_browser(
                    browser, files, react, rubric, self.credit, self.screenshots, self.budget
                ),
                timeout_s=30 + self.budget.load_s + (self.budget.item_s + 10) * len(rubric),
                alone=alone,
            )
            if not crashed:
                return report, False
        return report, True

    def _close_resources(self) -> None:
        # The last env to close closes the shared pool; a pool the user gave stays theirs.
        pool, self._pool = self._pool, None
        if self._holds_shared and pool is not None and pool.usable_here():
            pool.release()
        self._holds_shared = False


def fence(code: str, kind: str) -> str:
    """Wrap an app in the fence a task of ``kind`` expects."""
    return f"```{'jsx' if kind == 'react' else 'html'}\n{code.rstrip()}\n```"


# Fence tags (as extract_code names them) of languages that are no web app, though a block
# in one may hold markup (a Python script that prints a page). Any other tag is taken: models
# also write ```index.html, ```xml, ```text or ```javascriptreact.
NOT_AN_APP = frozenset(
    {"python", "cpp", "c", "rust", "bash", "diff", "tikz", "cuda", "java", "go", "ruby", "php", "sql", "json", "yaml"}
)


def _looks_like(kind: str, code: str, fenced: bool) -> bool:
    if kind == "react":
        return "<" in code and ("function" in code or "=>" in code or "class " in code)
    markup = _HTML_COMMENT.sub("", code)  # a page that is only a comment shows nothing
    return bool((_HTML_TAG if fenced else _PAGE_TAG).search(markup))


def _reward(c: dict[str, float]) -> float:
    f, s, r, p = c["format"], c["source"], c["runtime"], c["functional"]
    w = WEIGHTS
    return w["format"] * f + w["source"] * f * s + w["runtime"] * f * s * r + w["functional"] * f * s * p


def _flags(load: dict[str, Any], tally: dict[str, Any]) -> list[str]:
    flags = []
    if tally["blocked"]:
        flags.append("blocked_request")
    if tally["websockets"]:
        flags.append("websocket")
    if tally["popups"] > LIMITS["popups"]:
        flags.append("popup")
    if tally["navigated_away"]:
        flags.append("navigation_away")
    if tally["downloads"]:
        flags.append("download")
    if tally["hung"] or tally["close_hung"]:
        flags.append("hung_page")
    if tally["peak_dialogs"] > LIMITS["dialogs"]:
        flags.append("dialog_storm")
    if max(load.get("dom_nodes", 0), tally["dom_nodes"]) > LIMITS["dom_nodes"]:
        flags.append("huge_dom")
    if load.get("storage_bytes", 0) > LIMITS["storage_bytes"]:
        flags.append("storage_bomb")
    if tally["crashed"]:
        flags.append("renderer_crash")
    return flags


def _normalise(obj: Any, origin: str) -> Any:
    """Replace the ephemeral origin by ``http://app`` (its host by ``app``): ``info`` is deterministic."""
    if isinstance(obj, str):
        return obj.replace(origin, "http://app").replace(origin.partition("://")[2], "app")
    if isinstance(obj, list):
        return [_normalise(v, origin) for v in obj]
    if isinstance(obj, dict):
        return {k: _normalise(v, origin) for k, v in obj.items()}
    return obj


def _item_verdict(item: dict[str, Any], r: dict[str, Any] | None, code_spans: list[tuple[int, int]]) -> dict[str, Any]:
    if r is None:
        return {
            "id": item["id"],
            "text": item["text"],
            "passed": False,
            "reason": "not run: the app did not load, did not parse, or rendered nothing",
            "evidence": {},
        }
    return {
        "id": item["id"],
        "text": item["text"],
        "passed": r["passed"],
        "reason": r["reason"],
        "failed_step": r["failed_step"],
        "code_spans": [list(s) for s in code_spans],
        "evidence": {
            "dom": r.get("dom", ""),
            "page_errors": r["page_errors"],
            "console_errors": r["console_errors"],
            "screenshot_png_b64": r.get("screenshot"),
        },
    }


def _feedback(
    comps: dict[str, float],
    load: dict[str, Any],
    items: list[dict[str, Any]],
    flags: list[str],
    syntax: list[dict[str, str]],
) -> str:
    lines = []
    if syntax:
        where = f" (line {load['parse_at'][0]['line']})" if load.get("parse_at") else ""
        lines.append(f"The page's script did not parse: SyntaxError: {syntax[0]['message']}{where}")
    if not load["loaded"]:
        lines.append(f"The page did not finish loading: {load.get('error', 'timeout')}")
    elif load.get("rendered") is False:
        lines.append("The component rendered nothing into #root, so no rubric item could run.")
    for e in load["page_errors"][:3]:
        lines.append(f"Uncaught error while loading: {e['name']}: {e['message']}")
    ok = sum(1 for it in items if it["passed"])
    lines.append(f"Rubric: {ok}/{len(items)} items pass.")
    for it in items:
        if not it["passed"]:
            lines.append(f"- FAILED '{it['text']}': {it['reason']}")
            errs = it["evidence"].get("page_errors") or []
            if errs:
                lines.append(f"  uncaught error: {errs[0]['message']}")
    if flags:
        lines.append("Flagged: " + ", ".join(flags) + ".")
    return "\n".join(lines)
