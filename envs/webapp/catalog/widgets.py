"""Widget apps: tabs, modal dialog, countdown timer, canvas drawing, quiz."""

from __future__ import annotations

import json
from typing import Any

from ._util import breaking, family, fill, item, task

TABS_VARIANTS = [
    ("Product", ["overview", "specs", "reviews"], ["Overview", "Specs", "Reviews"]),
    ("Account", ["profile", "security", "billing", "alerts"], ["Profile", "Security", "Billing", "Alerts"]),
    ("Recipe", ["ingredients", "method", "notes"], ["Ingredients", "Method", "Notes"]),
    ("Course", ["syllabus", "lessons", "grades"], ["Syllabus", "Lessons", "Grades"]),
    ("Weather", ["today", "week", "radar", "alerts"], ["Today", "Week", "Radar", "Alerts"]),
]

TABS_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body { font-family: sans-serif; margin: 2rem; } [role=tab] { padding: .4rem 1rem; }
[role=tab].active { font-weight: bold; border-bottom: 3px solid #06c; } [role=tabpanel] { padding: 1rem; }</style></head>
<body>
<h1>${title}</h1>
<div role="tablist">${tabs}</div>
${panels}
<script>
const tabs = Array.from(document.querySelectorAll('[role="tab"]'));

function select(tab) {
  for (const t of tabs) {
    const on = t === tab;
    t.classList.toggle("active", on);
    t.setAttribute("aria-selected", on ? "true" : "false");
    t.tabIndex = on ? 0 : -1;
    document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
  }
}

tabs.forEach((tab, i) => {
  tab.addEventListener("click", () => select(tab));
  tab.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      const next = tabs[(i + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
      select(next);
      next.focus();
    }
  });
});
select(tabs[0]);
</script>
</body></html>
"""


@family(len(TABS_VARIANTS))
def tabs(i: int) -> dict[str, Any]:
    """Accessible tabs with keyboard navigation (five variants)."""
    title, keys, labels = TABS_VARIANTS[i]
    tab_html = "".join(
        f'<button role="tab" id="tab-{k}" aria-controls="panel-{k}">{lab}</button>'
        for k, lab in zip(keys, labels, strict=True)
    )
    panel_html = "\n".join(
        f'<section role="tabpanel" id="panel-{k}"><h2>{lab}</h2><p>{lab} content for the '
        f"{title.lower()} page.</p></section>"
        for k, lab in zip(keys, labels, strict=True)
    )
    gold = fill(TABS_HTML, title=title, tabs=tab_html, panels=panel_html)
    k0, k1, k2 = keys[0], keys[1], keys[2]
    rubric = [
        item(
            "show",
            "Clicking a tab shows its panel (each tab in turn, then the first again); clicking the "
            "selected tab again keeps its panel shown.",
            *[
                step
                for k in [*keys[1:], k0, k0]
                for step in ({"click": f"#tab-{k}"}, {"expect": "visible", "sel": f"#panel-{k}"})
            ],
        ),
        item(
            "hide_others",
            f"Exactly one panel is visible: on load only #panel-{k0}; after clicking #tab-{k2} then "
            f"#tab-{k1}, every panel but #panel-{k1} is hidden.",
            {"expect": "visible", "sel": f"#panel-{k0}"},
            *[{"expect": "hidden", "sel": f"#panel-{k}"} for k in keys if k != k0],
            {"click": f"#tab-{k2}"},
            {"click": f"#tab-{k1}"},
            *[{"expect": "hidden", "sel": f"#panel-{k}"} for k in keys if k != k1],
        ),
        item(
            "active_class",
            "The selected tab has the class 'active' and the others lack it (the first tab from the start).",
            {"expect": "class", "sel": f"#tab-{k0}", "has": "active"},
            {"click": f"#tab-{k1}"},
            {"click": f"#tab-{k2}"},
            {"expect": "class", "sel": f"#tab-{k2}", "has": "active"},
            {"expect": "class", "sel": f"#tab-{k1}", "lacks": "active"},
            {"expect": "class", "sel": f"#tab-{k0}", "lacks": "active"},
        ),
        item(
            "aria",
            "The selected tab has aria-selected='true', the others 'false' (the first tab from the start).",
            {"expect": "attr", "sel": f"#tab-{k0}", "name": "aria-selected", "equals": "true"},
            {"expect": "attr", "sel": f"#tab-{k1}", "name": "aria-selected", "equals": "false"},
            {"click": f"#tab-{k1}"},
            {"click": f"#tab-{k2}"},
            {"expect": "attr", "sel": f"#tab-{k2}", "name": "aria-selected", "equals": "true"},
            {"expect": "attr", "sel": f"#tab-{k1}", "name": "aria-selected", "equals": "false"},
            {"expect": "attr", "sel": f"#tab-{k0}", "name": "aria-selected", "equals": "false"},
        ),
        item(
            "keyboard",
            "ArrowRight on a focused tab selects (its panel alone shown, class 'active', aria-selected) and "
            "focuses the next tab; ArrowLeft the previous one; also from a tab that was just clicked.",
            {"press": "ArrowRight", "on": f"#tab-{k0}"},
            {"expect": "visible", "sel": f"#panel-{k1}"},
            {"expect": "attr", "sel": f"#tab-{k1}", "name": "aria-selected", "equals": "true"},
            {"expect": "count", "sel": f"#tab-{k1}:focus", "equals": 1},
            # page keyboard: the keys go to whichever tab now has the focus
            {"press": "ArrowRight"},
            {"expect": "visible", "sel": f"#panel-{k2}"},
            {"expect": "count", "sel": f"#tab-{k2}:focus", "equals": 1},
            {"expect": "hidden", "sel": f"#panel-{k1}"},
            {"expect": "class", "sel": f"#tab-{k2}", "has": "active"},
            {"expect": "class", "sel": f"#tab-{k1}", "lacks": "active"},
            {"expect": "attr", "sel": f"#tab-{k1}", "name": "aria-selected", "equals": "false"},
            {"press": "ArrowLeft"},
            {"expect": "count", "sel": f"#tab-{k1}:focus", "equals": 1},
            {"press": "ArrowLeft"},
            {"expect": "visible", "sel": f"#panel-{k0}"},
            {"expect": "attr", "sel": f"#tab-{k0}", "name": "aria-selected", "equals": "true"},
            # a click, then a key on the clicked tab: the keys start from the tab, not a stale index
            {"click": f"#tab-{k2}"},
            {"press": "ArrowLeft", "on": f"#tab-{k2}"},
            {"expect": "visible", "sel": f"#panel-{k1}"},
            {"expect": "hidden", "sel": f"#panel-{k2}"},
            {"expect": "class", "sel": f"#tab-{k1}", "has": "active"},
            {"expect": "attr", "sel": f"#tab-{k1}", "name": "aria-selected", "equals": "true"},
            {"expect": "count", "sel": f"#tab-{k1}:focus", "equals": 1},
        ),
    ]
    broken = [
        breaking(
            gold,
            "stale-aria",
            ["aria", "keyboard"],
            ('    t.setAttribute("aria-selected", on ? "true" : "false");\n', ""),
        ),
        # panels are never hidden, so "show" sees no transition either (all visible from the start)
        breaking(
            gold,
            "panels-pile-up",
            ["show", "hide_others", "keyboard"],
            (
                'document.getElementById(t.getAttribute("aria-controls")).hidden = !on;',
                'if (on) document.getElementById(t.getAttribute("aria-controls")).hidden = false;',
            ),
        ),
        # the last tab is selected, but its panel never shows
        breaking(
            gold,
            "last-panel-never-shown",
            ["keyboard", "show"] if k2 == keys[-1] else ["show"],  # the keyboard item reaches the third tab
            (
                'document.getElementById(t.getAttribute("aria-controls")).hidden = !on;',
                f'document.getElementById(t.getAttribute("aria-controls")).hidden = !on || t.id === "tab-{keys[-1]}";',
            ),
        ),
        # the last panel shows whichever tab is selected
        breaking(
            gold,
            "last-panel-always-shown",
            ["hide_others", "keyboard"] if k2 == keys[-1] else ["hide_others"],  # keyboard: #panel-k2 hides
            (
                'document.getElementById(t.getAttribute("aria-controls")).hidden = !on;',
                f'document.getElementById(t.getAttribute("aria-controls")).hidden = !on && t.id !== "tab-{keys[-1]}";',
            ),
        ),
        breaking(
            gold,
            "no-keyboard",
            ["keyboard"],
            ('if (e.key === "ArrowRight" || e.key === "ArrowLeft") {', "if (false) {"),
        ),
        breaking(
            gold,
            "right-only",
            ["keyboard"],
            ('if (e.key === "ArrowRight" || e.key === "ArrowLeft") {', 'if (e.key === "ArrowRight") {'),
        ),
        # the selection moves but the focus stays on the tab the key was pressed on
        breaking(gold, "focus-stays", ["keyboard"], ("      next.focus();\n", "")),
        # no tab selected on load: the other panels are hidden in the markup instead
        breaking(
            gold,
            "nothing-selected-on-load",
            ["active_class", "aria"],
            *[
                (f'<section role="tabpanel" id="panel-{k}">', f'<section role="tabpanel" id="panel-{k}" hidden>')
                for k in keys[1:]
            ],
            ("select(tabs[0]);\n</script>", "</script>"),
        ),
    ]
    # wrong apps that once earned 1.0
    later = [
        # select() updates only the first tab and the new one: `current = tab` was forgotten, so a
        # tab selected after the first one keeps its panel, class and aria-selected
        breaking(
            gold,
            "stale-current",
            ["hide_others", "active_class", "aria", "keyboard"],
            (
                "function select(tab) {\n  for (const t of tabs) {",
                "let current = null;\nfunction select(tab) {\n  for (const t of current ? [current, tab] : tabs) {",
            ),
            ("select(tabs[0]);\n</script>", "select(tabs[0]);\ncurrent = tabs[0];\n</script>"),
        ),
        # the keys take their own path: aria-selected and the panels follow, the class 'active' not
        breaking(
            gold,
            "keys-skip-active-class",
            ["keyboard"],
            (
                "      select(next);\n",
                "      for (const t of tabs) {\n"
                '        t.setAttribute("aria-selected", t === next ? "true" : "false");\n'
                '        document.getElementById(t.getAttribute("aria-controls")).hidden = t !== next;\n'
                "      }\n",
            ),
        ),
        # the keys show the next panel but leave the old one visible
        breaking(
            gold,
            "keys-keep-old-panel",
            ["keyboard"],
            (
                "      select(next);\n",
                "      for (const t of tabs) {\n"
                '        t.classList.toggle("active", t === next);\n'
                '        t.setAttribute("aria-selected", t === next ? "true" : "false");\n'
                "      }\n"
                '      document.getElementById(next.getAttribute("aria-controls")).hidden = false;\n',
            ),
        ),
        # the keys step from an index only they update: after a click they start from a stale tab
        breaking(
            gold,
            "keys-from-stale-index",
            ["keyboard"],
            ("tabs.forEach((tab, i) => {", "let current = 0;\ntabs.forEach((tab, i) => {"),
            ("const next = tabs[(i + ", "const next = tabs[(current + "),
            ("      next.focus();\n", "      next.focus();\n      current = tabs.indexOf(next);\n"),
        ),
        # the keys move the selection from a document listener, but the focus never follows
        breaking(
            gold,
            "keys-leave-focus",
            ["keyboard"],
            (
                '  tab.addEventListener("keydown", (e) => {',
                '  if (i === 0) document.addEventListener("keydown", (e) => {',
            ),
            (
                "      const next = tabs[(i + ",
                '      const i = tabs.findIndex((t) => t.classList.contains("active"));\n      const next = tabs[(i + ',
            ),
            ("      next.focus();\n", ""),
        ),
        # aria-selected='false' is written only to a tab that was once selected
        breaking(
            gold,
            "untouched-tabs-lack-aria",
            ["aria"],
            (
                '    t.setAttribute("aria-selected", on ? "true" : "false");\n',
                '    if (on || t.hasAttribute("aria-selected")) t.setAttribute("aria-selected", on ? "true" : "false");\n',
            ),
        ),
        # clicking the selected tab again hides its panel, as an accordion would
        breaking(
            gold,
            "reclick-hides-panel",
            ["show"],
            (
                '  tab.addEventListener("click", () => select(tab));',
                '  tab.addEventListener("click", () => {\n'
                '    const p = document.getElementById(tab.getAttribute("aria-controls"));\n'
                '    if (tab.classList.contains("active")) p.hidden = !p.hidden;\n'
                "    else select(tab);\n"
                "  });",
            ),
        ),
        # no select() on load: the markup hides the panels, but forgets the last one
        breaking(
            gold,
            "last-panel-shown-on-load",
            ["hide_others"],
            *[
                (f'<section role="tabpanel" id="panel-{k}">', f'<section role="tabpanel" id="panel-{k}" hidden>')
                for k in keys[1:-1]
            ],
            (
                "select(tabs[0]);\n</script>",
                'tabs.forEach((t, j) => t.setAttribute("aria-selected", j ? "false" : "true"));\n'
                'tabs[0].classList.add("active");\n</script>',
            ),
        ),
    ]
    request = (
        f"A {title.lower()} page with tabs: buttons with role='tab' and ids "
        + ", ".join(f"#tab-{k}" for k in keys)
        + "; each controls the panel #panel-<same name> "
        "(role='tabpanel'). Exactly one panel is visible; the selected tab has class 'active' and "
        "aria-selected='true' (others 'false'); ArrowRight/ArrowLeft on a focused tab select and focus the "
        f"next/previous tab. The first tab (#tab-{k0}) starts selected."
    )
    return task(
        f"tabs-{i + 1:02d}",
        "tabs",
        request,
        rubric,
        gold,
        [broken[i], *later[i::3]] if i < 3 else broken + later,
        difficulty="easy",
        split="test" if i == 4 else "train",
    )


MODAL_VARIANTS = [
    ("Delete file", "Delete this file?", "Deleted", "open-dialog"),
    ("Subscribe", "Subscribe to updates?", "Subscribed", "open-modal"),
    ("Log out", "Log out now?", "Logged out", "logout"),
    ("Publish post", "Publish this post?", "Published", "publish"),
    ("Archive chat", "Archive this chat?", "Archived", "archive"),
]

MODAL_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body { font-family: sans-serif; margin: 2rem; }
#overlay { position: fixed; inset: 0; background: rgba(0,0,0,.4); display: none; align-items: center; justify-content: center; }
#overlay.open { display: flex; }
#modal { background: white; padding: 1.5rem; border-radius: 8px; min-width: 16rem; }</style></head>
<body>
<h1>${title}</h1>
<button id="${opener}">${title}…</button>
<p id="status">Nothing done yet</p>
<div id="overlay">
  <div id="modal" role="dialog" aria-modal="true" aria-labelledby="modal-title">
    <h2 id="modal-title">${question}</h2>
    <button id="confirm">Yes</button>
    <button id="cancel">Cancel</button>
  </div>
</div>
<script>
const overlay = document.getElementById("overlay");
const open = () => { overlay.classList.add("open"); document.getElementById("confirm").focus(); };
const close = () => overlay.classList.remove("open");

document.getElementById("${opener}").addEventListener("click", open);
document.getElementById("cancel").addEventListener("click", close);
document.getElementById("confirm").addEventListener("click", () => {
  document.getElementById("status").textContent = "${done}";
  close();
});
overlay.addEventListener("click", (e) => { if (e.target === overlay) close(); });
document.addEventListener("keydown", (e) => { if (e.key === "Escape") close(); });
</script>
</body></html>
"""


@family(len(MODAL_VARIANTS))
def modal(i: int) -> dict[str, Any]:
    """Confirmation modal dialog (five variants)."""
    title, question, done, opener = MODAL_VARIANTS[i]
    gold = fill(MODAL_HTML, title=title, question=question, done=done, opener=opener)
    # open the dialog and wait until it shows (one that fades in takes clicks only then)
    open_dialog = [{"click": f"#{opener}"}, {"expect": "visible", "sel": "#modal"}]
    # closing hides the dimmed backdrop too, and changes nothing
    closed = [
        {"expect": "hidden", "sel": "#modal"},
        {"expect": "hidden", "sel": "#overlay"},
        {"expect": "text", "sel": "#status", "equals": "Nothing done yet"},
    ]
    rubric = [
        item(
            "opens",
            f"Clicking #{opener} shows the dialog #modal (role='dialog', asking '{question}') over the dimmed "
            "backdrop #overlay.",
            *open_dialog,
            {"expect": "text", "sel": "#modal", "contains": question},
            # a <dialog> element has the role without the attribute
            {"expect": "count", "sel": "dialog#modal, #modal[role='dialog']", "equals": 1},
            # the backdrop's corner is darker than the white page (any dim of about 12% or more, on any page)
            {"expect": "pixel", "sel": "#overlay", "at": [0.01, 0.01], "rgb": [112, 112, 112], "tol": 112},
            # full-screen: the page's top corners, above the button, are dimmed too (not a box around the dialog)
            {"expect": "pixel", "sel": "html", "at": [0.005, 0.005], "rgb": [112, 112, 112], "tol": 112},
            {"expect": "pixel", "sel": "html", "at": [0.995, 0.005], "rgb": [112, 112, 112], "tol": 112},
        ),
        item(
            "cancel",
            f"#cancel closes the dialog and its backdrop and changes nothing; #{opener} opens it again.",
            *open_dialog,
            {"click": "#cancel"},
            *closed,
            *open_dialog,
        ),
        item(
            "confirm",
            f"#confirm sets #status to '{done}' and closes the dialog and its backdrop; #{opener} opens it again, "
            f"and #status keeps '{done}' while it is open, after #cancel, and after confirming again.",
            *open_dialog,
            {"click": "#confirm"},
            {"expect": "text", "sel": "#status", "equals": done},
            {"expect": "hidden", "sel": "#modal"},
            {"expect": "hidden", "sel": "#overlay"},
            *open_dialog,
            {"expect": "text", "sel": "#status", "equals": done},
            {"click": "#cancel"},
            {"expect": "hidden", "sel": "#modal"},
            {"expect": "text", "sel": "#status", "equals": done},
            *open_dialog,
            {"click": "#confirm"},
            {"expect": "hidden", "sel": "#modal"},
            {"expect": "text", "sel": "#status", "equals": done},
        ),
        item(
            "escape",
            f"Pressing Escape closes the dialog and its backdrop without changing #status, wherever the focus is "
            f"(also after a click inside the dialog); #{opener} opens it again.",
            *open_dialog,
            {"press": "Escape"},
            *closed,
            *open_dialog,
            # a click on the dialog's top edge (padding or heading) takes the focus off any button the app focused
            {"click": "#modal", "at": [0.5, 0.04]},
            {"press": "Escape"},
            *closed,
            *open_dialog,
        ),
        item(
            "backdrop",
            "Clicking the dimmed backdrop (#overlay, outside #modal) closes the dialog and the backdrop without "
            f"changing #status; a click inside the dialog does not close it; #{opener} opens it again.",
            *open_dialog,
            # inside the dialog, on its top edge (its own padding, or its heading): does not close it
            {"click": "#modal", "at": [0.5, 0.04]},
            {"expect": "visible", "sel": "#modal"},
            {"click": "#overlay", "at": [0.03, 0.03]},
            *closed,
            *open_dialog,
        ),
    ]
    # the dialog box can be hidden by itself (class 'closed'), and opening shows it again
    box_alone = [
        ("#overlay.open { display: flex; }", "#overlay.open { display: flex; } #modal.closed { display: none; }"),
        (
            'const open = () => { overlay.classList.add("open");',
            'const open = () => { overlay.classList.add("open"); document.getElementById("modal").classList.remove("closed");',
        ),
    ]
    broken = [
        breaking(
            gold,
            "no-escape",
            ["escape"],
            ('document.addEventListener("keydown", (e) => { if (e.key === "Escape") close(); });', ""),
        ),
        breaking(
            gold,
            "confirm-stays-open",
            ["confirm"],
            (
                f'document.getElementById("status").textContent = "{done}";\n  close();',
                f'document.getElementById("status").textContent = "{done}";',
            ),
        ),
        breaking(
            gold,
            "backdrop-ignored",
            ["backdrop"],
            ('overlay.addEventListener("click", (e) => { if (e.target === overlay) close(); });', ""),
        ),
        breaking(
            gold,
            "any-click-closes",
            ["backdrop"],
            ("(e) => { if (e.target === overlay) close(); }", "close"),
        ),
        breaking(
            gold,
            "escape-confirms",
            ["escape"],
            ('if (e.key === "Escape") close();', 'if (e.key === "Escape") document.getElementById("confirm").click();'),
        ),
        breaking(
            gold,
            "backdrop-confirms",
            ["backdrop"],
            (
                "if (e.target === overlay) close();",
                'if (e.target === overlay) document.getElementById("confirm").click();',
            ),
        ),
        # only the dialog box is hidden: the page stays dimmed behind an empty backdrop
        breaking(
            gold,
            "overlay-stays-dimmed",
            ["cancel", "confirm", "escape", "backdrop"],
            *box_alone,
            (
                'const close = () => overlay.classList.remove("open");',
                'const close = () => document.getElementById("modal").classList.add("closed");',
            ),
        ),
        breaking(gold, "generic-question", ["opens"], (f"{question}</h2>", "Are you sure?</h2>")),
        breaking(gold, "no-role", ["opens"], ('role="dialog" ', "")),
        breaking(gold, "undimmed", ["opens"], ("background: rgba(0,0,0,.4);", "")),
        # closing hides the backdrop with an inline style that the "open" class cannot override
        breaking(
            gold,
            "cannot-reopen",
            ["cancel", "confirm", "escape", "backdrop"],
            (
                'const close = () => overlay.classList.remove("open");',
                'const close = () => { overlay.style.display = "none"; };',
            ),
        ),
    ]
    confirmed = f'document.getElementById("status").textContent = "{done}";'
    extra = [
        # #confirm hides the dialog box alone: the page stays dimmed (and blocked) behind an empty backdrop
        breaking(
            gold,
            "confirm-leaves-backdrop",
            ["confirm"],
            *box_alone,
            (f"{confirmed}\n  close();", f'{confirmed}\n  document.getElementById("modal").classList.add("closed");'),
        ),
        # #confirm hides the backdrop with an inline style: the opener cannot show it again
        breaking(
            gold,
            "confirm-cannot-reopen",
            ["confirm"],
            (f"{confirmed}\n  close();", f'{confirmed}\n  overlay.style.display = "none";'),
        ),
        # #confirm toggles: a second confirmation puts the initial text back
        breaking(
            gold,
            "confirm-toggles",
            ["confirm"],
            (
                f"{confirmed}\n  close();",
                'const st = document.getElementById("status");\n'
                f'  st.textContent = st.textContent === "{done}" ? "Nothing done yet" : "{done}";\n  close();',
            ),
        ),
        # opening the dialog again wipes the result of the last confirmation
        breaking(
            gold,
            "open-resets-status",
            ["confirm"],
            (
                'const open = () => { overlay.classList.add("open");',
                'const open = () => { document.getElementById("status").textContent = "Nothing done yet"; '
                'overlay.classList.add("open");',
            ),
        ),
        # the backdrop is a dimmed box around the dialog in the page's flow, not full-screen
        breaking(
            gold,
            "backdrop-not-fullscreen",
            ["opens"],
            ("position: fixed; inset: 0; ", "margin-top: 1rem; padding: 2rem; "),
        ),
        # a click on the dialog's own padding counts as a backdrop click
        breaking(
            gold,
            "inside-padding-closes",
            ["backdrop"],
            ("if (e.target === overlay) close();", 'if (e.target === overlay || e.target.id === "modal") close();'),
        ),
        # the backdrop click hides it with an inline style: the opener cannot show it again
        breaking(
            gold,
            "backdrop-cannot-reopen",
            ["backdrop"],
            ("if (e.target === overlay) close();", 'if (e.target === overlay) overlay.style.display = "none";'),
        ),
        # Escape is heard on the dialog alone: once focus leaves its buttons, Escape does nothing
        breaking(
            gold,
            "escape-needs-focus",
            ["escape"],
            ('document.addEventListener("keydown"', 'document.getElementById("modal").addEventListener("keydown"'),
        ),
    ]
    request = (
        f"A page with a button #{opener} that opens a confirmation dialog: #modal (role='dialog', asking "
        f"'{question}') inside a full-screen dimmed backdrop #overlay. #confirm sets #status (initially "
        f"'Nothing done yet') to '{done}' and closes the dialog and its backdrop; #cancel, the Escape key (wherever the focus is) and a "
        f"click on the backdrop outside the dialog close it without changing anything. #{opener} can open it again any number of times."
    )
    return task(
        f"modal-{i + 1:02d}",
        "modal",
        request,
        rubric,
        gold,
        [broken[i % len(broken)], *extra[i::3]] if i < 3 else broken + extra,
        difficulty="easy",
        split="test" if i == 4 else "train",
    )


TIMER_VARIANTS = [("Tea timer", 180), ("Pomodoro break", 300), ("Plank", 45), ("Egg timer", 420), ("Quiz round", 90)]

TIMER_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body { font-family: sans-serif; margin: 2rem; } #time { font-size: 3rem; font-variant-numeric: tabular-nums; }</style></head>
<body>
<h1>${title}</h1>
<div id="time"></div>
<button id="start">Start</button> <button id="pause">Pause</button> <button id="reset">Reset</button>
<p id="done" hidden>Time's up!</p>
<script>
const TOTAL = ${total};
let left = TOTAL, timer = null;

function pad(n) { return String(n).padStart(2, "0"); }
function render() {
  document.getElementById("time").textContent = pad(Math.floor(left / 60)) + ":" + pad(left % 60);
  document.getElementById("done").hidden = left > 0;
}
function tick() {
  left = Math.max(0, left - 1);
  if (left === 0) stop();
  render();
}
function start() { if (timer === null && left > 0) timer = setInterval(tick, 1000); }
function stop() { clearInterval(timer); timer = null; }

document.getElementById("start").addEventListener("click", start);
document.getElementById("pause").addEventListener("click", stop);
document.getElementById("reset").addEventListener("click", () => { stop(); left = TOTAL; render(); });
render();
</script>
</body></html>
"""


def _mmss(s: int) -> str:
    return f"{s // 60:02d}:{s % 60:02d}"


@family(len(TIMER_VARIANTS))
def countdown(i: int) -> dict[str, Any]:
    """Countdown timer driven by a fake clock in the grader (five variants)."""
    title, total = TIMER_VARIANTS[i]
    gold = fill(TIMER_HTML, title=title, total=total)
    t = {"expect": "text", "sel": "#time"}
    rubric = [
        item(
            "counts",
            f"#time stays at {_mmss(total)} until #start; then it counts down once per second, "
            f"showing the whole seconds left rounded up ({_mmss(total - 1)} only once a full second has run).",
            {"advance": 2000},
            {**t, "equals": _mmss(total)},
            {"click": "#start"},
            # half a second in: still the full time (not a first tick at once, nor rounded down)
            {"advance": 500},
            {**t, "equals": _mmss(total)},
            {"advance": 2500},
            {**t, "equals": _mmss(total - 3)},
        ),
        item(
            "finishes",
            f"At zero ({total} s after #start) the timer stops at 00:00 and #done ('Time's up!'), "
            "hidden until then, appears at once.",
            # at rest before #start (timed from the click: an app that starts on load is off by the load time)
            {"advance": 1000},
            {**t, "equals": _mmss(total)},
            {"expect": "hidden", "sel": "#done"},
            {"click": "#start"},
            # the minute boundary mid-second: 01:00, not 00:60 nor 00:59
            *(
                [{"advance": (total - 60) * 1000 + 500}, {**t, "equals": "01:00"}, {"advance": 59500 - 1000}]
                if total > 60
                else [{"advance": (total - 1) * 1000}]
            ),
            {**t, "equals": "00:01"},
            {"expect": "hidden", "sel": "#done"},
            # the message comes with 00:00, not a tick later (short waits: the clock runs on meanwhile)
            {"advance": 1000},
            {**t, "equals": "00:00", "wait_ms": 300},
            {"expect": "visible", "sel": "#done", "wait_ms": 300},
            {"advance": 5000},
            {**t, "equals": "00:00"},
            {"expect": "visible", "sel": "#done"},
            {"expect": "text", "sel": "#done", "equals": "Time's up!"},
        ),
        item(
            "pause",
            "#pause stops the countdown; #start resumes it.",
            {"click": "#start"},
            {"advance": 2000},
            {"click": "#pause"},
            {"advance": 5000},
            {**t, "equals": _mmss(total - 2)},
            {"click": "#start"},
            {"advance": 1000},
            {**t, "equals": _mmss(total - 3)},
        ),
        item(
            "reset",
            f"#reset stops the timer and shows {_mmss(total)} again (hiding #done); #start then counts down afresh.",
            {"click": "#start"},
            {"advance": 4000},
            {**t, "equals": _mmss(total - 4)},
            {"click": "#reset"},
            {"advance": 2000},
            {**t, "equals": _mmss(total)},
            {"click": "#start"},
            {"advance": 2000},
            {**t, "equals": _mmss(total - 2)},
            # run out, then reset: the message goes away again
            {"advance": total * 1000},
            {"expect": "visible", "sel": "#done"},
            {"click": "#reset"},
            {"expect": "hidden", "sel": "#done"},
            {**t, "equals": _mmss(total)},
            # and it can run again
            {"click": "#start"},
            {"advance": 1000},
            {**t, "equals": _mmss(total - 1)},
        ),
        item(
            "double_start",
            "Clicking #start again while it runs changes nothing: not twice as fast, no restart, no lost time.",
            {"advance": 1000},
            {**t, "equals": _mmss(total)},
            {"click": "#start"},
            {"click": "#start"},
            {"advance": 1500},
            # mid-second: a click that restarts the interval or the countdown shows here
            {"click": "#start"},
            {"advance": 1500},
            # a short wait: the clock runs on in real time while an expectation polls
            {**t, "equals": _mmss(total - 3), "wait_ms": 300},
        ),
    ]
    broken = [
        breaking(
            gold, "pause-ignored", ["pause"], ('document.getElementById("pause").addEventListener("click", stop);', "")
        ),
        breaking(
            gold,
            "reset-keeps-running",
            ["reset"],
            ("() => { stop(); left = TOTAL; render(); }", "() => { left = TOTAL; render(); }"),
        ),
        breaking(
            gold,
            "stacked-intervals",
            ["double_start"],
            (
                "if (timer === null && left > 0) timer = setInterval(tick, 1000);",
                "if (left > 0) timer = setInterval(tick, 1000);",
            ),
        ),
        # the message is there from the start, with other words
        breaking(
            gold,
            "done-always-shown",
            ["finishes", "reset"],
            ('<p id="done" hidden>Time\'s up!</p>', '<p id="done">Done.</p>'),
            ('document.getElementById("done").hidden = left > 0;', ""),
        ),
        breaking(
            gold,
            "starts-on-load",
            ["counts", "finishes", "double_start"],
            ("render();\n</script>", "render();\nstart();\n</script>"),
        ),
        # reset clears the interval but keeps its id, so #start thinks it is still running
        breaking(
            gold,
            "reset-kills-start",
            ["reset"],
            ("() => { stop(); left = TOTAL; render(); }", "() => { clearInterval(timer); left = TOTAL; render(); }"),
        ),
        # the message is shown by the last tick and never hidden again
        breaking(
            gold,
            "done-survives-reset",
            ["reset"],
            ('  document.getElementById("done").hidden = left > 0;\n', ""),
            (
                "  if (left === 0) stop();",
                '  if (left === 0) { stop(); document.getElementById("done").hidden = false; }',
            ),
        ),
        # shows 00:00 for a whole second before the message: the countdown lasts a second too long
        breaking(
            gold,
            "done-a-tick-late",
            ["finishes"],
            (
                "  left = Math.max(0, left - 1);\n  if (left === 0) stop();\n  render();",
                '  if (left === 0) { stop(); document.getElementById("done").hidden = false; return; }\n'
                '  left--;\n  document.getElementById("time").textContent = pad(Math.floor(left / 60)) + ":" + pad(left % 60);',
            ),
        ),
        # once run out, #start stays dead even after #reset
        breaking(
            gold,
            "finished-blocks-start",
            ["reset"],
            ("let left = TOTAL, timer = null;", "let left = TOTAL, timer = null, finished = false;"),
            ("  if (left === 0) stop();", "  if (left === 0) { stop(); finished = true; }"),
            ("function start() { if (timer", "function start() { if (finished) return; if (timer"),
        ),
        # a second #start restarts the interval: the running second is lost
        breaking(
            gold,
            "start-restarts-interval",
            ["double_start"],
            (
                "if (timer === null && left > 0) timer = setInterval(tick, 1000);",
                "if (left > 0) { clearInterval(timer); timer = setInterval(tick, 1000); }",
            ),
        ),
        # Date.now()-based, whole seconds rounded down: 02:59 right after #start, 00:59 at 59.5 s left
        breaking(
            gold,
            "rounds-down",
            ["counts", "finishes", "pause"] if total > 60 else ["counts", "pause"],
            ("let left = TOTAL, timer = null;", "let left = TOTAL, timer = null, ms = TOTAL * 1000, endAt = 0;"),
            (
                "  left = Math.max(0, left - 1);\n  if (left === 0) stop();",
                "  ms = Math.max(0, endAt - Date.now());\n  left = Math.floor(ms / 1000);\n  if (ms === 0) stop();",
            ),
            ('document.getElementById("done").hidden = left > 0;', 'document.getElementById("done").hidden = ms > 0;'),
            ("timer = setInterval(tick, 1000);", "{ endAt = Date.now() + ms; timer = setInterval(tick, 250); }"),
            (
                'addEventListener("click", stop);',
                'addEventListener("click", () => { if (timer !== null) tick(); stop(); });',
            ),
            (
                "() => { stop(); left = TOTAL; render(); }",
                "() => { stop(); left = TOTAL; ms = TOTAL * 1000; render(); }",
            ),
        ),
    ]
    request = (
        f"A '{title}' countdown of {total} seconds. #time shows the time left as MM:SS in whole seconds rounded "
        f"up (starting at {_mmss(total)}; {_mmss(total - 1)} once one full second has run); #start "
        "starts or resumes it (a second click while running changes nothing), #pause pauses, #reset stops "
        "and restores the full time (hiding #done). At zero it stops at 00:00 and at that same moment shows #done "
        'with the text "Time\'s up!" (hidden before).'
    )
    return task(
        f"timer-{i + 1:02d}",
        "countdown",
        request,
        rubric,
        gold,
        [broken[j] for j in ([0, 7, 10], [1, 8, 9], [2, 7, 10], [3, 4, 5, 6, 8, 9], [0, 2, 3, 5, 7, 10])[i]],
        difficulty="medium",
        split="test" if i == 4 else "train",
    )


CANVAS_VARIANTS = [
    ("Sketch pad", "pad", ("red", [220, 30, 30])),
    ("Whiteboard", "board", ("blue", [30, 60, 220])),
    ("Signature", "signature", ("green", [20, 150, 60])),
    ("Doodle", "doodle", ("red", [220, 30, 30])),
]

CANVAS_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body { font-family: sans-serif; margin: 1rem; } canvas { border: 1px solid #333; background: #fff; }</style></head>
<body>
<h1>${title}</h1>
<canvas id="${cid}" width="400" height="240"></canvas><br>
<button id="color-black">Black</button> <button id="color-${cname}">${cname}</button>
<button id="clear">Clear</button> <span id="strokes">0 strokes</span>
<script>
const canvas = document.getElementById("${cid}");
const ctx = canvas.getContext("2d");
let drawing = false, color = "#000000", strokes = 0;

function clearCanvas() {
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
}
function point(e) {
  const r = canvas.getBoundingClientRect();
  return [(e.clientX - r.left) * canvas.width / r.width, (e.clientY - r.top) * canvas.height / r.height];
}
canvas.addEventListener("mousedown", (e) => {
  drawing = true;
  ctx.strokeStyle = color; ctx.lineWidth = 8; ctx.lineCap = "round";
  ctx.beginPath(); ctx.moveTo(...point(e));
});
canvas.addEventListener("mousemove", (e) => { if (drawing) { ctx.lineTo(...point(e)); ctx.stroke(); } });
window.addEventListener("mouseup", () => {
  if (!drawing) return;
  drawing = false;
  strokes += 1;
  document.getElementById("strokes").textContent = strokes + (strokes === 1 ? " stroke" : " strokes");
});
document.getElementById("color-black").addEventListener("click", () => { color = "#000000"; });
document.getElementById("color-${cname}").addEventListener("click", () => { color = "${chex}"; });
document.getElementById("clear").addEventListener("click", () => {
  clearCanvas();
  strokes = 0;
  document.getElementById("strokes").textContent = "0 strokes";
});
clearCanvas();
</script>
</body></html>
"""


@family(len(CANVAS_VARIANTS))
def canvas(i: int) -> dict[str, Any]:
    """Canvas drawing with colours, clear and a stroke counter (four variants)."""
    title, cid, (cname, rgb) = CANVAS_VARIANTS[i]
    chex = "#" + "".join(f"{c:02x}" for c in rgb)
    gold = fill(CANVAS_HTML, title=title, cid=cid, cname=cname, chex=chex)
    line = [[0.1, 0.3], [0.5, 0.3], [0.9, 0.3]]  # off-centre: a line, not a flood, passes
    black, white = [0, 0, 0], [255, 255, 255]

    def px(at: list[float], rgb: list[int], tol: int = 70) -> dict[str, Any]:
        return {"expect": "pixel", "sel": f"#{cid}", "at": at, "rgb": rgb, "tol": tol}

    rubric = [
        item(
            "draws",
            f"Dragging the mouse across the 400x240 #{cid} draws a continuous line about 8px wide along the path of "
            "the drag, and only while the button is held (the rest stays white).",
            {"expect": "attr", "sel": f"#{cid}", "name": "width", "equals": "400"},
            {"expect": "attr", "sel": f"#{cid}", "name": "height", "equals": "240"},
            {"snap": f"#{cid}", "as": "blank"},
            # a bend: the drawn path, not a straight start-to-end line
            {"draw": f"#{cid}", "points": [[0.1, 0.3], [0.6, 0.3], [0.6, 0.7]]},
            {"hover": f"#{cid}"},  # the button is up: moving to the centre draws nothing
            {"expect": "changed", "sel": f"#{cid}", "since": "blank"},
            # halfway between two sampled mouse positions: a line, not dots at the samples
            px([0.31, 0.3], black),
            px([0.35, 0.312], black),  # about 3px below the middle of the line: not a thin line
            px([0.35, 0.26], white, 30),  # about 10px above it: not a thick one
            px([0.6, 0.5], black),
            px([0.55, 0.6], white, 30),  # between the end of the drag and the hover point
            px([0.5, 0.85], white, 30),
        ),
        item(
            "clear",
            "#clear wipes the drawing back to a blank canvas; later strokes do not bring the old ones back.",
            {"snap": f"#{cid}", "as": "blank"},
            {"draw": f"#{cid}", "points": line},
            {"expect": "changed", "sel": f"#{cid}", "since": "blank"},
            {"click": "#clear"},
            {"expect": "unchanged", "sel": f"#{cid}", "since": "blank"},
            {"draw": f"#{cid}", "points": [[0.2, 0.8], [0.6, 0.8]]},
            px([0.4, 0.8], black),
            px([0.5, 0.3], white, 30),
        ),
        item(
            "color",
            f"After clicking #color-{cname}, strokes are drawn in {cname}; after #color-black, in black "
            "(earlier strokes keep their colour).",
            {"click": f"#color-{cname}"},
            {"draw": f"#{cid}", "points": line},
            {"click": "#color-black"},
            {"draw": f"#{cid}", "points": [[0.1, 0.6], [0.5, 0.6], [0.9, 0.6]]},
            px([0.5, 0.3], rgb),
            px([0.5, 0.6], black),
            px([0.5, 0.455], white, 30),  # the second stroke does not start from where the first ended
            px([0.5, 0.85], white, 30),
        ),
        item(
            "strokes",
            "#strokes counts finished strokes ('1 stroke', '2 strokes'; clicking a button is no stroke); #clear "
            "resets it to '0 strokes'.",
            {"draw": f"#{cid}", "points": [[0.2, 0.2], [0.4, 0.3]]},
            {"expect": "text", "sel": "#strokes", "equals": "1 stroke"},
            {"click": f"#color-{cname}"},
            {"draw": f"#{cid}", "points": [[0.2, 0.7], [0.6, 0.8]]},
            {"expect": "text", "sel": "#strokes", "equals": "2 strokes"},
            {"click": "#clear"},
            {"expect": "text", "sel": "#strokes", "equals": "0 strokes"},
            {"draw": f"#{cid}", "points": [[0.3, 0.5], [0.5, 0.5]]},
            {"expect": "text", "sel": "#strokes", "equals": "1 stroke"},
        ),
    ]
    broken = [
        breaking(gold, "clear-does-nothing", ["clear"], ("  clearCanvas();\n  strokes = 0;", "  strokes = 0;")),
        breaking(
            gold,
            "floods-the-canvas",
            ["draws", "clear", "color"],
            (
                "if (drawing) { ctx.lineTo(...point(e)); ctx.stroke(); }",
                "if (drawing) { ctx.fillStyle = color; ctx.fillRect(0, 0, canvas.width, canvas.height); }",
            ),
        ),
        breaking(gold, "colour-ignored", ["color"], ("ctx.strokeStyle = color;", 'ctx.strokeStyle = "#000000";')),
        breaking(
            gold,
            "counts-moves",
            ["strokes"],
            (
                "if (drawing) { ctx.lineTo(...point(e)); ctx.stroke(); }",
                "if (drawing) { ctx.lineTo(...point(e)); ctx.stroke(); strokes += 0.01; }",
            ),
        ),
        breaking(
            gold,
            "clear-keeps-count",
            ["strokes"],
            ('  strokes = 0;\n  document.getElementById("strokes").textContent = "0 strokes";\n', ""),
        ),
        # the path is never restarted: every stroke re-strokes all earlier ones (cleared or not) in the new colour
        breaking(
            gold,
            "no-begin-path",
            ["clear", "color"],
            ("ctx.beginPath(); ctx.moveTo(...point(e));", "ctx.moveTo(...point(e));"),
        ),
        breaking(
            gold,
            "drawing-never-stops",
            ["draws", "clear", "color", "strokes"],
            ("  drawing = false;\n  strokes += 1;", "  strokes += 1;"),
        ),
        breaking(
            gold,
            "dots-no-line",
            ["draws"],
            (
                "ctx.lineTo(...point(e)); ctx.stroke();",
                "const [x, y] = point(e); ctx.fillStyle = color; ctx.fillRect(x - 4, y - 4, 8, 8);",
            ),
        ),
        breaking(
            gold,
            "mouseup-anywhere-counts",
            ["strokes"],
            (
                'window.addEventListener("mouseup", () => {\n  if (!drawing) return;',
                'window.addEventListener("mouseup", () => {',
            ),
        ),
        # a straight line from the press to the release point
        breaking(
            gold,
            "straight-line-tool",
            ["draws"],
            ("ctx.beginPath(); ctx.moveTo(...point(e));", "window.start = point(e);"),
            (
                'window.addEventListener("mouseup", () => {\n  if (!drawing) return;',
                'window.addEventListener("mouseup", (e) => {\n  if (!drawing) return;\n'
                "  ctx.beginPath(); ctx.moveTo(...window.start); ctx.lineTo(...point(e)); ctx.stroke();",
            ),
            ("if (drawing) { ctx.lineTo(...point(e)); ctx.stroke(); }", ""),
        ),
        breaking(gold, "black-button-dead", ["color"], ('() => { color = "#000000"; }', "() => { }")),
        breaking(gold, "thin-line", ["draws"], ("ctx.lineWidth = 8;", "ctx.lineWidth = 2;")),
        breaking(gold, "default-canvas-size", ["draws"], (' width="400" height="240"', "")),
        # segments from the last point seen, which a new stroke never resets: strokes join up
        breaking(
            gold,
            "strokes-joined",
            ["color"],
            ("ctx.beginPath(); ctx.moveTo(...point(e));", ""),
            (
                "if (drawing) { ctx.lineTo(...point(e)); ctx.stroke(); }",
                "if (drawing) { const p = point(e); if (window.last) { ctx.beginPath(); ctx.moveTo(...window.last); "
                "ctx.lineTo(...p); ctx.stroke(); } window.last = p; }",
            ),
        ),
    ]
    request = (
        f'A \'{title}\' drawing app: a white <canvas id="{cid}" width="400" height="240"> where pressing '
        f"and dragging the mouse draws a line (width about 8px), buttons #color-black and #color-{cname} to pick "
        f"the colour ({chex}), #clear to wipe the canvas, and #strokes counting finished strokes ('1 stroke', "
        "'2 strokes'; reset to '0 strokes' by #clear)."
    )
    return task(
        f"canvas-{i + 1:02d}",
        "canvas",
        request,
        rubric,
        gold,
        [broken[i % len(broken)]] if i < 3 else broken,
        difficulty="medium",
        split="test" if i == 3 else "train",
    )


QUIZ_VARIANTS = [
    (
        "Capitals",
        [
            ("Capital of France?", ["Lyon", "Paris", "Nice"], 1),
            ("Capital of Japan?", ["Tokyo", "Kyoto", "Osaka"], 0),
            ("Capital of Canada?", ["Toronto", "Vancouver", "Ottawa"], 2),
        ],
    ),
    (
        "Planets",
        [
            ("Largest planet?", ["Saturn", "Jupiter", "Neptune"], 1),
            ("Closest to the Sun?", ["Mercury", "Venus", "Mars"], 0),
            ("Has the most moons?", ["Earth", "Mars", "Saturn"], 2),
        ],
    ),
    (
        "Arithmetic",
        [("7 × 8?", ["54", "56", "58"], 1), ("12 + 30?", ["42", "32", "52"], 0), ("81 ÷ 9?", ["8", "7", "9"], 2)],
    ),
    (
        "Chemistry",
        [
            ("Symbol for gold?", ["Ag", "Au", "Gd"], 1),
            ("H2O is?", ["Water", "Salt", "Ozone"], 0),
            ("Atomic number of carbon?", ["12", "8", "6"], 2),
        ],
    ),
    (
        "Music",
        [
            ("Notes in an octave?", ["7", "8", "12"], 1),
            ("A piano has how many keys?", ["88", "76", "61"], 0),
            ("Beats in 3/4 time?", ["4", "2", "3"], 2),
        ],
    ),
]

QUIZ_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} quiz</title>
<style>body { font-family: sans-serif; margin: 2rem; } .option.selected { outline: 3px solid #06c; }</style></head>
<body>
<h1>${title} quiz</h1>
<div id="quiz">
  <p id="question"></p>
  <div id="options"></div>
  <button id="submit">Submit</button> <button id="next" hidden>Next</button>
  <p id="feedback"></p>
</div>
<p id="score">Score: 0</p>
<p id="result"></p>
<script>
const QUESTIONS = ${questions};
let index = 0, score = 0, chosen = null, answered = false;

function show() {
  const q = QUESTIONS[index];
  document.getElementById("question").textContent = q.text;
  const box = document.getElementById("options");
  box.innerHTML = "";
  q.options.forEach((label, i) => {
    const b = document.createElement("button");
    b.className = "option";
    b.textContent = label;
    b.addEventListener("click", () => {
      if (answered) return;
      chosen = i;
      box.querySelectorAll(".option").forEach((o) => o.classList.toggle("selected", o === b));
    });
    box.appendChild(b);
  });
  chosen = null; answered = false;
  document.getElementById("feedback").textContent = "";
  document.getElementById("next").hidden = true;
}

document.getElementById("submit").addEventListener("click", () => {
  if (chosen === null || answered) return;
  answered = true;
  const q = QUESTIONS[index];
  if (chosen === q.answer) { score += 1; document.getElementById("feedback").textContent = "Correct!"; }
  else { document.getElementById("feedback").textContent = "Wrong. The answer is " + q.options[q.answer] + "."; }
  document.getElementById("score").textContent = "Score: " + score;
  if (index === QUESTIONS.length - 1) {
    document.getElementById("result").textContent = "You scored " + score + "/" + QUESTIONS.length;
  } else {
    document.getElementById("next").hidden = false;
  }
});
document.getElementById("next").addEventListener("click", () => { index += 1; show(); });
show();
</script>
</body></html>
"""


@family(len(QUIZ_VARIANTS))
def quiz(i: int) -> dict[str, Any]:
    """Three-question multiple-choice quiz (five topics)."""
    title, qs = QUIZ_VARIANTS[i]
    questions = [{"text": t, "options": o, "answer": a} for t, o, a in qs]
    gold = fill(QUIZ_HTML, title=title, questions=json.dumps(questions, ensure_ascii=False))

    def pick(q: int, right: bool = True) -> list[dict[str, Any]]:
        _, opts, ans = qs[q]
        label = opts[ans] if right else opts[(ans + 1) % 3]
        return [{"click": f"#options .option:text-is('{label}')"}, {"click": "#submit"}]

    wrong_label = qs[0][1][(qs[0][2] + 1) % 3]
    right_label = qs[0][1][qs[0][2]]
    rubric = [
        item(
            "select",
            "Clicking an option marks it (only it) with the class 'selected'.",
            {"click": f"#options .option:text-is('{wrong_label}')"},
            {"expect": "class", "sel": f"#options .option:text-is('{wrong_label}')", "has": "selected"},
            {"click": f"#options .option:text-is('{right_label}')"},
            {"expect": "class", "sel": f"#options .option:text-is('{right_label}')", "has": "selected"},
            {"expect": "class", "sel": f"#options .option:text-is('{wrong_label}')", "lacks": "selected"},
        ),
        item(
            "correct",
            "Submitting the right answer adds one to #score ('Score: 1') and says 'Correct!'; submitting the same "
            "question again changes nothing.",
            *pick(0),
            # again, unless the app hid #submit once answered (then a harmless click on #feedback)
            {"click": "#submit:visible, #feedback"},
            {"expect": "text", "sel": "#score", "equals": "Score: 1"},
            {"expect": "text", "sel": "#feedback", "equals": "Correct!"},
        ),
        item(
            "wrong",
            "A wrong answer leaves the score and names the right answer in #feedback; the question cannot then be "
            "answered again.",
            *pick(0, right=False),
            {"expect": "text", "sel": "#feedback", "equals": f"Wrong. The answer is {right_label}."},
            # a second try with the right answer (unless the app hid the options / #submit: harmless clicks)
            {"click": f"#options .option:text-is('{right_label}'):visible, #feedback"},
            {"click": "#submit:visible, #feedback"},
            {"expect": "text", "sel": "#feedback", "equals": f"Wrong. The answer is {right_label}."},
            {"expect": "text", "sel": "#score", "equals": "Score: 0"},
        ),
        item(
            "next",
            "#next, hidden until the answer is submitted (#submit with no option selected does nothing), shows the "
            "following question with #feedback cleared (and hides again).",
            {"click": "#submit:visible, #feedback"},  # nothing selected yet
            {"expect": "hidden", "sel": "#next"},
            *pick(0),
            {"expect": "visible", "sel": "#next"},
            {"click": "#next"},
            {"expect": "text", "sel": "#question", "equals": qs[1][0]},
            {"expect": "hidden", "sel": "#next"},
            {"expect": "text", "sel": "#feedback", "not_equals": "Correct!"},
            {"click": "#submit:visible, #feedback"},  # nothing selected on the new question
            {"expect": "hidden", "sel": "#next"},
        ),
        item(
            "final",
            "Submitting the last answer, right or wrong, shows 'You scored N/3' in #result at once; feedback names "
            "the current question's answer.",
            *pick(0),
            {"click": "#next"},
            *pick(1, right=False),
            {"expect": "text", "sel": "#feedback", "equals": f"Wrong. The answer is {qs[1][1][qs[1][2]]}."},
            {"click": "#next"},
            *pick(2, right=False),
            {"expect": "text", "sel": "#result", "equals": "You scored 1/3"},
        ),
        item(
            "perfect",
            "All three right: #score shows 'Score: 3' and #result 'You scored 3/3'.",
            *pick(0),
            {"click": "#next"},
            *pick(1),
            {"click": "#next"},
            *pick(2),
            {"expect": "text", "sel": "#score", "equals": "Score: 3"},
            {"expect": "text", "sel": "#result", "equals": "You scored 3/3"},
        ),
    ]
    broken = [
        breaking(
            gold,
            "score-not-shown",
            ["correct", "final", "perfect"],
            ('document.getElementById("score").textContent = "Score: " + score;', ""),
            ('"You scored " + score + "/"', '"You scored " + 0 + "/"'),
        ),
        breaking(
            gold,
            "vague-feedback",
            ["wrong", "final"],
            ('"Wrong. The answer is " + q.options[q.answer] + "."', '"Wrong."'),
        ),
        breaking(
            gold,
            "next-does-nothing",
            ["next", "final", "perfect"],
            ('document.getElementById("next").addEventListener("click", () => { index += 1; show(); });', ""),
        ),
        breaking(
            gold,
            "resubmit-farms-score",
            ["correct"],
            ("if (chosen === null || answered) return;", "if (chosen === null) return;"),
        ),
        breaking(
            gold,
            "selected-not-cleared",
            ["select"],
            (
                'box.querySelectorAll(".option").forEach((o) => o.classList.toggle("selected", o === b));',
                'b.classList.add("selected");',
            ),
        ),
        breaking(
            gold,
            "next-always-visible",
            ["next"],
            ('document.getElementById("next").hidden = true;', ""),
            ('<button id="next" hidden>', '<button id="next">'),
        ),
        breaking(
            gold,
            "feedback-names-first-answer",
            ["final"],
            (
                '"Wrong. The answer is " + q.options[q.answer]',
                '"Wrong. The answer is " + QUESTIONS[0].options[QUESTIONS[0].answer]',
            ),
        ),
        # options stay live after a wrong answer, and only a right one closes the question: retry until right
        breaking(
            gold,
            "retry-until-right",
            ["wrong"],
            ("      if (answered) return;\n      chosen = i;", "      chosen = i;"),
            (
                "if (chosen === null || answered) return;\n  answered = true;",
                "if (chosen === null || answered) return;",
            ),
            ("if (chosen === q.answer) { score += 1;", "if (chosen === q.answer) { score += 1; answered = true;"),
        ),
        breaking(
            gold, "feedback-not-cleared", ["next"], ('  document.getElementById("feedback").textContent = "";\n', "")
        ),
        # the choice survives #next: #submit grades an option nobody selected on the new question
        breaking(gold, "choice-not-reset", ["next"], ("  chosen = null; answered = false;", "  answered = false;")),
        breaking(
            gold,
            "result-only-if-right",
            ["final"],
            ("if (index === QUESTIONS.length - 1) {", "if (index === QUESTIONS.length - 1 && chosen === q.answer) {"),
        ),
    ]
    request = (
        f"A {title.lower()} quiz of three questions: "
        + "; ".join(f"'{t}' ({', '.join(o)}; answer {o[a]})" for t, o, a in qs)
        + ". Show the current question in #question "
        "and its options as buttons with class 'option' inside #options, each labelled with just the option text; "
        "clicking one selects it (class 'selected'). #submit grades the selection (nothing happens with none "
        "selected): 'Correct!' or 'Wrong. The answer is X.' in #feedback, and #score shows 'Score: N' (each question "
        "can be answered only once). #next is hidden until the answer is submitted and moves on to the next question, "
        "clearing #feedback; submitting the last answer shows 'You scored N/3' in #result at once."
    )
    return task(
        f"quiz-{i + 1:02d}",
        "quiz",
        request,
        rubric,
        gold,
        [broken[i % len(broken)]] if i < 3 else broken,
        difficulty="medium",
        split="test" if i == 4 else "train",
    )


FAMILIES = [tabs, modal, countdown, canvas, quiz]
