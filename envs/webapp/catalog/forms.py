"""Form-shaped apps: validated sign-up forms, calculators, unit converters, step counters."""

from __future__ import annotations

import json
from typing import Any

from ._util import breaking, family, fill, item, task

FORM_VARIANTS = [
    # title, min password length, name field id, name label, confirm field?
    ("Create your account", 8, "name", "Full name", True),
    ("Join the newsletter", 6, "fullname", "Your name", False),
    ("Register for the workshop", 10, "attendee", "Attendee name", True),
    ("Open a library card", 8, "reader", "Reader name", False),
    ("Sign up for the beta", 12, "username", "Username", True),
]

FORM_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body { font-family: sans-serif; margin: 2rem; } label { display: block; margin-top: .6rem; }
.error { color: #b00020; font-size: .9rem; min-height: 1em; }</style></head>
<body>
<h1>${title}</h1>
<form id="signup" novalidate>
  <label>${nlabel} <input id="${nid}"></label><div class="error" id="${nid}-error"></div>
  <label>Email <input id="email"></label><div class="error" id="email-error"></div>
  <label>Password <input id="password" type="password"></label><div class="error" id="password-error"></div>
  ${confirm_html}
  <button id="submit" type="submit">Submit</button>
</form>
<p id="result"></p>
<script>
const MIN = ${minlen};
const form = document.getElementById("signup");

function setError(id, message) {
  document.getElementById(id + "-error").textContent = message;
  return message ? 1 : 0;
}

function validate() {
  const v = (id) => document.getElementById(id).value;
  let errors = 0;
  errors += setError("${nid}", v("${nid}").trim() ? "" : "${nlabel} is required");
  errors += setError("email", /^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$$/.test(v("email")) ? "" : "Enter a valid email address");
  errors += setError("password", v("password").length >= MIN ? "" : "Password must be at least " + MIN + " characters");
  ${confirm_js}
  return errors === 0;
}

form.addEventListener("submit", (e) => {
  e.preventDefault();
  const result = document.getElementById("result");
  if (validate()) {
    result.textContent = "Welcome, " + document.getElementById("${nid}").value.trim() + "!";
  } else {
    result.textContent = "";
  }
});
</script>
</body></html>
"""

CONFIRM_HTML = """<label>Confirm password <input id="confirm" type="password"></label><div class="error" id="confirm-error"></div>"""
CONFIRM_JS = """errors += setError("confirm", v("confirm") === v("password") ? "" : "Passwords do not match");"""


@family(len(FORM_VARIANTS))
def signup(i: int) -> dict[str, Any]:
    """Form with client-side validation (five variants)."""
    title, minlen, nid, nlabel, confirm = FORM_VARIANTS[i]
    gold = fill(
        FORM_HTML,
        title=title,
        minlen=minlen,
        nid=nid,
        nlabel=nlabel,
        confirm_html=CONFIRM_HTML if confirm else "",
        confirm_js=CONFIRM_JS if confirm else "",
    )
    good_pw = "s3cret-" + "x" * minlen
    name = ["Ada Lovelace", "Grace", "Alan Turing", "Katherine", "Linus"][i]

    def valid(*extra: dict[str, Any]) -> list[dict[str, Any]]:
        steps = [
            {"fill": f"#{nid}", "value": name},
            {"fill": "#email", "value": "ada@example.org"},
            {"fill": "#password", "value": good_pw},
        ]
        if confirm:
            steps.append({"fill": "#confirm", "value": good_pw})
        return steps + list(extra)

    def shown(sel: str, **text: str) -> list[dict[str, Any]]:
        """A message the user must see: its text, and the element visible."""
        return [{"expect": "text", "sel": sel, **text}, {"expect": "visible", "sel": sel}]

    # Every rejection is checked against its acceptance (the same field fixed, submitted
    # again): an app that shows a message whatever the input must not pass.
    errors = [nid, "email", "password"] + (["confirm"] if confirm else [])
    exact_pw = "p" * minlen  # the shortest password that is long enough
    rubric = [
        item(
            "required",
            f"Submitting the empty form shows '{nlabel} is required' in #{nid}-error and the email and "
            "password messages too; a name of only spaces (all else valid) is still missing and #result stays "
            "empty; with a name, the message is gone.",
            {"click": "#submit"},
            *shown(f"#{nid}-error", equals=f"{nlabel} is required"),
            # every field is checked, not only the first bad one
            {"expect": "text", "sel": "#email-error", "equals": "Enter a valid email address"},
            {"expect": "text", "sel": "#password-error", "equals": f"Password must be at least {minlen} characters"},
            *valid({"fill": f"#{nid}", "value": "   "}, {"click": "#submit"}),
            {"expect": "text", "sel": f"#{nid}-error", "equals": f"{nlabel} is required"},
            # the blank name counts: no welcome for a form with a field in error
            {"expect": "text", "sel": "#result", "equals": ""},
            {"fill": f"#{nid}", "value": name},
            {"click": "#submit"},
            {"expect": "text", "sel": f"#{nid}-error", "equals": ""},
        ),
        item(
            "email",
            "An address without a domain (e.g. 'ada@') or without a '.tld' (e.g. 'ada.l@example') is rejected "
            "with a message in #email-error.",
            *valid({"fill": "#email", "value": "ada@"}, {"click": "#submit"}),
            *shown("#email-error", equals="Enter a valid email address"),
            {"expect": "text", "sel": "#result", "equals": ""},
            # the dot must come after the @: "has an @ and a dot" is not enough
            {"fill": "#email", "value": "ada.l@example"},
            {"click": "#submit"},
            {"expect": "text", "sel": "#email-error", "equals": "Enter a valid email address"},
            {"expect": "text", "sel": "#result", "equals": ""},
        ),
        item(
            "password",
            f"A password shorter than {minlen} characters is rejected in #password-error (and #result stays "
            f"empty); one of exactly {minlen} is accepted.",
            *valid(
                {"fill": "#password", "value": "x" * (minlen - 1)},
                *([{"fill": "#confirm", "value": "x" * (minlen - 1)}] if confirm else []),
                {"click": "#submit"},
            ),
            *shown("#password-error", equals=f"Password must be at least {minlen} characters"),
            {"expect": "text", "sel": "#result", "equals": ""},
            {"fill": "#password", "value": exact_pw},
            *([{"fill": "#confirm", "value": exact_pw}] if confirm else []),
            {"click": "#submit"},
            {"expect": "text", "sel": "#password-error", "equals": ""},
        ),
        item(
            "success",
            "A valid form shows 'Welcome, <name>!' in #result and no error message; submitting it again "
            "with a bad email empties #result.",
            *valid({"click": "#submit"}),
            *shown("#result", equals=f"Welcome, {name}!"),
            *({"expect": "text", "sel": f"#{e}-error", "equals": ""} for e in errors),
            {"fill": "#email", "value": "nope"},
            {"click": "#submit"},
            {"expect": "text", "sel": "#email-error", "equals": "Enter a valid email address"},
            {"expect": "text", "sel": "#result", "equals": ""},
        ),
        item(
            "clears",
            "Fixing a field and submitting again clears its error message.",
            *valid({"fill": "#email", "value": "nope"}, {"click": "#submit"}),
            *shown("#email-error", contains="valid email"),
            {"fill": "#email", "value": "ok@example.com"},
            {"click": "#submit"},
            {"expect": "text", "sel": "#email-error", "equals": ""},
        ),
    ]
    if confirm:
        rubric.append(
            item(
                "confirm",
                "A confirmation that differs from the password (or is empty) shows 'Passwords do not match' "
                "(and no welcome); a matching one clears it.",
                *valid({"fill": "#confirm", "value": good_pw + "!"}, {"click": "#submit"}),
                *shown("#confirm-error", equals="Passwords do not match"),
                {"expect": "text", "sel": "#result", "equals": ""},
                {"fill": "#confirm", "value": ""},
                {"click": "#submit"},
                {"expect": "text", "sel": "#confirm-error", "equals": "Passwords do not match"},
                {"fill": "#confirm", "value": good_pw},
                {"click": "#submit"},
                {"expect": "text", "sel": "#confirm-error", "equals": ""},
            )
        )
    broken = [
        breaking(
            gold,
            "loose-email",
            ["email"],
            ('/^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$/.test(v("email"))', 'v("email").includes("@")'),
        ),
        breaking(
            gold,
            "sticky-errors",
            ["clears", "required", "password"] + (["confirm"] if confirm else []),
            (
                '  document.getElementById(id + "-error").textContent = message;\n',
                '  if (message) document.getElementById(id + "-error").textContent = message;\n',
            ),
        ),
        breaking(
            gold, "off-by-one-length", ["password"], ('v("password").length >= MIN', 'v("password").length >= MIN - 1')
        ),
        breaking(
            gold,
            "password-message-always",
            ["password", "success"],
            (
                'errors += setError("password", v("password").length >= MIN ? "" : "Password must be at least " '
                '+ MIN + " characters");',
                'setError("password", "Password must be at least " + MIN + " characters");',
            ),
        ),
        breaking(
            gold,
            "email-no-tld",
            ["email"],
            ("/^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$/", "/^\\S+@\\S+$/"),
        ),
        breaking(gold, "welcome-sticks", ["success"], ('  } else {\n    result.textContent = "";\n  }', "  }")),
        breaking(gold, "blank-name-ok", ["required"], (f'v("{nid}").trim() ?', f'v("{nid}") ?')),
        breaking(
            gold,
            "first-error-only",
            ["required"],
            ('errors += setError("email",', 'if (!errors) errors += setError("email",'),
            ('errors += setError("password",', 'if (!errors) errors += setError("password",'),
        ),
        breaking(
            gold,
            "email-at-and-dot",
            ["email"],
            (
                '/^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$/.test(v("email"))',
                '(v("email").includes("@") && v("email").includes("."))',
            ),
        ),
        # a field's message is shown but the field is left out of the verdict: welcome despite an error
        breaking(gold, "name-not-counted", ["required"], (f'errors += setError("{nid}",', f'setError("{nid}",')),
        breaking(
            gold, "password-not-counted", ["password"], ('errors += setError("password",', 'setError("password",')
        ),
    ]
    if confirm:
        broken.append(
            breaking(gold, "confirm-not-counted", ["confirm"], ('errors += setError("confirm",', 'setError("confirm",'))
        )
        broken.append(
            breaking(
                gold,
                "empty-confirm-ok",
                ["confirm"],
                ('v("confirm") === v("password") ?', '(!v("confirm") || v("confirm") === v("password")) ?'),
            )
        )
    fields = f"#{nid} ({nlabel}), #email, #password" + (", #confirm (confirm password)" if confirm else "")
    request = (
        f"A '{title}' form (id 'signup') with fields {fields} and a submit button #submit. Validate on "
        "submit without reloading the page, checking every field: each field's message goes in the element "
        f"with id '<field id>-error' (empty when the field is fine). Rules: {nlabel.lower()} required (not "
        "just spaces); email must "
        f"look like name@domain.tld; password at least {minlen} characters"
        + ("; confirmation must match" if confirm else "")
        + ". Exact messages: "
        f"'{nlabel} is required', 'Enter a valid email address', 'Password must be at least {minlen} "
        "characters'"
        + (", 'Passwords do not match'" if confirm else "")
        + ". When everything is valid, #result shows 'Welcome, <name>!' (empty otherwise)."
    )
    return task(
        f"form-{i + 1:02d}",
        "form",
        request,
        rubric,
        gold,
        [broken[i % len(broken)]] if i < 3 else broken,
        difficulty="medium",
        split="test" if i == 4 else "train",
    )


CALC_VARIANTS = [
    # id prefix, second operator (symbol, word, js), display id
    ("btn", ("×", "times", "*"), "display"),
    ("key", ("−", "minus", "-"), "screen"),
    ("b", ("÷", "divide", "/"), "output"),
    ("calc", ("×", "times", "*"), "readout"),
    ("k", ("÷", "divide", "/"), "lcd"),
]

CALC_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Calculator</title>
<style>body { font-family: sans-serif; margin: 2rem; } #${disp} { font-size: 2rem; min-height: 2.4rem; }
.pad { display: grid; grid-template-columns: repeat(4, 3rem); gap: .3rem; } button { height: 2.5rem; }</style></head>
<body>
<div id="${disp}">0</div>
<div class="pad">
  <button id="${p}-7">7</button><button id="${p}-8">8</button><button id="${p}-9">9</button><button id="${p}-plus">+</button>
  <button id="${p}-4">4</button><button id="${p}-5">5</button><button id="${p}-6">6</button><button id="${p}-${opword}">${opsym}</button>
  <button id="${p}-1">1</button><button id="${p}-2">2</button><button id="${p}-3">3</button><button id="${p}-equals">=</button>
  <button id="${p}-0">0</button><button id="${p}-dot">.</button><button id="${p}-clear">C</button>
</div>
<script>
let current = "0", stored = null, op = null, fresh = false;
const show = () => { document.getElementById("${disp}").textContent = current; };

function apply(a, b, o) {
  if (Number.isNaN(a)) return "Error";
  if (o === "+") return a + b;
  if (o === "${opjs}") {
    if (o === "/" && b === 0) return "Error";
    return a ${opjs} b;
  }
  return b;
}

function format(x) {
  return typeof x === "string" ? x : String(Math.round(x * 1e9) / 1e9);
}

function digit(d) {
  if (fresh || current === "0" || current === "Error") { current = d === "." ? "0." : d; fresh = false; }
  else if (!(d === "." && current.includes("."))) { current += d; }
  show();
}

function operator(o) {
  if (op !== null && !fresh) { current = format(apply(stored, parseFloat(current), op)); }
  stored = parseFloat(current);
  op = o;
  fresh = true;
  show();
}

function equals() {
  if (op === null) return;
  current = format(apply(stored, parseFloat(current), op));
  op = null; stored = null; fresh = true;
  show();
}

function clearAll() { current = "0"; stored = null; op = null; fresh = false; show(); }

for (const d of "0123456789") document.getElementById("${p}-" + d).addEventListener("click", () => digit(d));
document.getElementById("${p}-dot").addEventListener("click", () => digit("."));
document.getElementById("${p}-plus").addEventListener("click", () => operator("+"));
document.getElementById("${p}-${opword}").addEventListener("click", () => operator("${opjs}"));
document.getElementById("${p}-equals").addEventListener("click", equals);
document.getElementById("${p}-clear").addEventListener("click", clearAll);
</script>
</body></html>
"""


@family(len(CALC_VARIANTS))
def calculator(i: int) -> dict[str, Any]:
    """Four-function style calculator with one extra operator per variant (five variants)."""
    p, (opsym, opword, opjs), disp = CALC_VARIANTS[i]
    gold = fill(CALC_HTML, p=p, opsym=opsym, opword=opword, opjs=opjs, disp=disp)

    def keys(*names: str) -> list[dict[str, Any]]:
        return [{"click": f"#{p}-{n}"} for n in names]

    a, b = [(6, 7), (9, 4), (8, 2), (3, 5), (9, 3)][i]
    res = {"*": a * b, "-": a - b, "/": a // b}[opjs]
    chained = {"*": "20", "-": "1", "/": "1.25"}[opjs]
    rubric = [
        item(
            "digits",
            "Clicking digit buttons builds the number on the display.",
            *keys("1", "2"),
            {"expect": "text", "sel": f"#{disp}", "equals": "12"},
        ),
        item(
            "add",
            "12 + 7 shows 7 (the number being entered, not the expression), then = shows 19.",
            *keys("1", "2", "plus", "7"),
            {"expect": "text", "sel": f"#{disp}", "equals": "7"},
            *keys("equals"),
            {"expect": "text", "sel": f"#{disp}", "equals": "19"},
        ),
        item(
            opword,
            f"{a} {opsym} {b} = shows {res}.",
            *keys(str(a), opword, str(b), "equals"),
            {"expect": "text", "sel": f"#{disp}", "equals": str(res)},
        ),
        item(
            "clear",
            "C resets the display to 0 and forgets the pending operation.",
            *keys("5", "plus", "3", "clear"),
            {"expect": "text", "sel": f"#{disp}", "equals": "0"},
            *keys("4", "equals"),
            {"expect": "text", "sel": f"#{disp}", "equals": "4"},
        ),
        item(
            "chain",
            # left to right, not by precedence: (2 + 3) × 4, where eval("2+3*4") gives 14
            f"Operators chain left to right: 2 + 3 {opsym} 4 = shows {chained}.",
            *keys("2", "plus", "3", opword, "4", "equals"),
            {"expect": "text", "sel": f"#{disp}", "equals": chained},
        ),
        item(
            "decimal",
            "The . button enters decimals and a second . in the same number is ignored: 1.5 + 1 = shows 2.5; "
            "after C, 0.1 + 0.2 = shows 0.3; after C, 1 . 2 . 3 shows 1.23; after C, 1 + . 125 = shows 1.125 "
            "(. after an operator starts 0., the result is not rounded to cents).",
            *keys("1", "dot", "5", "plus", "1", "equals"),
            {"expect": "text", "sel": f"#{disp}", "equals": "2.5"},
            *keys("clear", "0", "dot", "1", "plus", "0", "dot", "2", "equals"),
            {"expect": "text", "sel": f"#{disp}", "equals": "0.3"},
            *keys("clear", "1", "dot", "2", "dot", "3"),
            {"expect": "text", "sel": f"#{disp}", "equals": "1.23"},
            *keys("clear", "1", "plus", "dot", "1", "2", "5", "equals"),
            {"expect": "text", "sel": f"#{disp}", "equals": "1.125"},
        ),
        item(
            "after_equals",
            "A digit pressed after = starts a new number: 1 + 2 = then 5 shows 5, and + 1 = then shows 6; "
            "an operator after = continues from the result: + 4 = then shows 10.",
            *keys("1", "plus", "2", "equals"),
            {"expect": "text", "sel": f"#{disp}", "equals": "3"},
            *keys("5"),
            {"expect": "text", "sel": f"#{disp}", "equals": "5"},
            *keys("plus", "1", "equals"),
            {"expect": "text", "sel": f"#{disp}", "equals": "6"},
            *keys("plus", "4", "equals"),
            {"expect": "text", "sel": f"#{disp}", "equals": "10"},
        ),
    ]
    if opjs == "/":
        rubric.append(
            item(
                "div_zero",
                "Dividing by zero shows 'Error', also in the middle of a chain: 8 ÷ 0 = shows Error, "
                "and after C, 8 ÷ 0 + 1 = still shows Error.",
                *keys("8", opword, "0", "equals"),
                {"expect": "text", "sel": f"#{disp}", "equals": "Error"},
                *keys("clear", "8", opword, "0", "plus", "1", "equals"),
                {"expect": "text", "sel": f"#{disp}", "equals": "Error"},
            )
        )
    broken = [
        breaking(
            gold,
            "clear-keeps-operator",
            ["clear"],
            (
                'function clearAll() { current = "0"; stored = null; op = null; fresh = false; show(); }',
                'function clearAll() { current = "0"; fresh = false; show(); }',
            ),
        ),
        breaking(
            gold,
            "no-chaining",
            ["chain", "div_zero"] if opjs == "/" else ["chain"],  # 8 ÷ 0 + 1 = never divides
            ("  if (op !== null && !fresh) { current = format(apply(stored, parseFloat(current), op)); }\n", ""),
        ),
        breaking(
            gold,
            "dot-ignored",
            ["decimal"],
            ('document.getElementById("' + p + '-dot").addEventListener("click", () => digit("."));', ""),
        ),
        breaking(
            gold,
            "append-after-equals",
            ["after_equals"],
            ("  op = null; stored = null; fresh = true;", "  op = null; stored = null; fresh = false;"),
        ),
        breaking(gold, "float-noise", ["decimal"], ("String(Math.round(x * 1e9) / 1e9)", "String(x)")),
        breaking(
            gold,
            "second-dot-accepted",
            ["decimal"],
            ('else if (!(d === "." && current.includes("."))) { current += d; }', "else { current += d; }"),
        ),
        # the display shows the whole expression ("12 + 7") instead of the current number
        breaking(
            gold,
            "expression-display",
            ["add"],
            (
                f'const show = () => {{ document.getElementById("{disp}").textContent = current; }};',
                'const SYM = { "+": "+", "*": "×", "-": "−", "/": "÷" };\n'
                f'const show = () => {{ document.getElementById("{disp}").textContent = (op !== null ? '
                'format(stored) + " " + SYM[op] + " " + (fresh ? "" : current) : current).trim(); };',
            ),
        ),
        # a . after an operator appends to the previous number (1 + . 125 = gives 2.125)
        breaking(
            gold,
            "dot-after-operator-appends",
            ["decimal"],
            (
                'document.getElementById("' + p + '-dot").addEventListener("click", () => digit("."));',
                'document.getElementById("' + p + '-dot").addEventListener("click", () => { '
                'if (current === "Error") current = "0"; '
                'if (!current.includes(".")) { current += "."; fresh = false; } show(); });',
            ),
        ),
        # = only shows the result: the next operator starts from 0 (1 + 2 = + 4 = gives 4)
        breaking(
            gold,
            "result-not-reused",
            ["after_equals"],
            (
                "  current = format(apply(stored, parseFloat(current), op));\n"
                "  op = null; stored = null; fresh = true;\n  show();",
                "  const r = format(apply(stored, parseFloat(current), op));\n"
                '  op = null; stored = null; current = "0"; fresh = false;\n'
                f'  document.getElementById("{disp}").textContent = r;',
            ),
        ),
        breaking(gold, "rounds-to-cents", ["decimal"], ("Math.round(x * 1e9) / 1e9", "Math.round(x * 100) / 100")),
    ]
    # the divide-by-zero mutant only differs from the gold in the variants that have division
    div_broken: list[dict[str, Any]] = []
    if opjs == "/":
        div_broken.append(
            breaking(
                gold,
                "div-zero-only-on-equals",
                ["div_zero"],
                ('    if (o === "/" && b === 0) return "Error";\n', ""),
                (
                    "function equals() {\n  if (op === null) return;\n",
                    "function equals() {\n  if (op === null) return;\n"
                    '  if (op === "/" && parseFloat(current) === 0) '
                    '{ current = "Error"; op = null; stored = null; fresh = true; show(); return; }\n',
                ),
            )
        )
    request = (
        f'A calculator. The display, a <div id="{disp}"> showing the current number as its text, starts at 0. '
        f"Buttons: digits #{p}-0 … #{p}-9, #{p}-dot (.), "
        f"#{p}-plus (+), #{p}-{opword} ({opsym}), #{p}-equals (=) and #{p}-clear (C). Operators apply "
        "left to right as they are entered (2 + 3 + 4 = gives 9); a digit pressed after = starts a new number, "
        "an operator pressed after = continues from the result (1 + 2 = + 4 = gives 7); a . pressed after an "
        "operator starts the next number as 0. (1 + . 125 = gives 1.125); results show in full, without trailing "
        "zeros or floating-point noise (0.1 + 0.2 = gives 0.3)"
        + "; a second . in the same number is ignored"
        + ("; dividing by zero shows 'Error', also mid-chain (8 ÷ 0 + 1 = shows Error)" if opjs == "/" else "")
        + "."
    )
    return task(
        f"calc-{i + 1:02d}",
        "calculator",
        request,
        rubric,
        gold,
        ([broken[i % len(broken)]] if i < 3 else broken) + div_broken,
        difficulty="medium",
        split="test" if i == 4 else "train",
    )


CONVERTER_VARIANTS = [
    # title, units {code: factor to base}, from, to, value, expected, second to
    ("Length", {"km": 1000.0, "mi": 1609.344, "m": 1.0, "ft": 0.3048}, "km", "mi", "10", "6.21", "m"),
    (
        "Weight",
        {"kg": 1.0, "lb": 0.45359237, "oz": 0.028349523125, "g": 0.001},
        "kg",
        "lb",
        "3",
        "6.61",
        "oz",
    ),
    (
        "Volume",
        {"L": 1.0, "gal": 3.785411784, "mL": 0.001, "cup": 0.2365882365},
        "gal",
        "L",
        "2",
        "7.57",
        "mL",
    ),
    ("Speed", {"kmh": 1 / 3.6, "mph": 0.44704, "ms": 1.0, "kn": 0.514444}, "mph", "kmh", "60", "96.56", "ms"),
    (
        "Area",
        {"m2": 1.0, "ft2": 0.09290304, "ha": 10000.0, "acre": 4046.8564224},
        "ha",
        "acre",
        "5",
        "12.36",
        "m2",
    ),
]

CONVERTER_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} converter</title>
<style>body { font-family: sans-serif; margin: 2rem; } #result { font-size: 1.5rem; margin-top: 1rem; }</style></head>
<body>
<h1>${title} converter</h1>
<input id="amount" value="">
<select id="from-unit">${options}</select>
<button id="swap">⇄</button>
<select id="to-unit">${options}</select>
<div id="result"></div>
<script>
const FACTORS = ${factors};
const $$ = (id) => document.getElementById(id);

function convert() {
  const raw = $$("amount").value.trim();
  if (raw === "") { $$("result").textContent = ""; return; }
  const x = Number(raw);
  if (!Number.isFinite(x)) { $$("result").textContent = "Enter a number"; return; }
  const base = x * FACTORS[$$("from-unit").value];
  $$("result").textContent = (base / FACTORS[$$("to-unit").value]).toFixed(2);
}

$$("swap").addEventListener("click", () => {
  const a = $$("from-unit").value;
  $$("from-unit").value = $$("to-unit").value;
  $$("to-unit").value = a;
  convert();
});
for (const id of ["amount", "from-unit", "to-unit"]) {
  $$(id).addEventListener("input", convert);
  $$(id).addEventListener("change", convert);
}
$$("from-unit").value = "${src}";
$$("to-unit").value = "${dst}";
</script>
</body></html>
"""


@family(len(CONVERTER_VARIANTS))
def converter(i: int) -> dict[str, Any]:
    """Unit converter with live update, swap and input checking (five quantities)."""
    title, factors, src, dst, value, expected, dst2 = CONVERTER_VARIANTS[i]
    options = "".join(f'<option value="{u}">{u}</option>' for u in factors)
    gold = fill(CONVERTER_HTML, title=title, options=options, factors=json.dumps(factors), src=src, dst=dst)
    back = f"{float(value) * factors[dst] / factors[src]:.2f}"
    # a second amount: an app that only knows the answer for the first one must not pass
    other = "3.5"
    other_expected = f"{float(other) * factors[src] / factors[dst]:.2f}"
    other_dst2 = f"{float(other) * factors[src] / factors[dst2]:.2f}"
    # the unit no other step uses, as the new source: its factor is checked too
    (src2,) = [u for u in factors if u not in (src, dst, dst2)]
    other_src2 = f"{float(other) * factors[src2] / factors[dst2]:.2f}"
    rubric = [
        item(
            "convert",
            f"Typing {value} with {src} → {dst} shows {expected} in #result (2 decimals), no button needed; "
            f"then typing {other} shows {other_expected}, and 0 shows 0.00.",
            {"fill": "#amount", "value": value},
            {"expect": "text", "sel": "#result", "equals": expected},
            {"fill": "#amount", "value": other},
            {"expect": "text", "sel": "#result", "equals": other_expected},
            # a result that ends in zeros keeps both decimals
            {"fill": "#amount", "value": "0"},
            {"expect": "text", "sel": "#result", "equals": "0.00"},
        ),
        item(
            "unit_change",
            f"With {other} typed, changing #to-unit to {dst2} updates the result to {other_dst2}; then "
            f"changing #from-unit to {src2} updates it to {other_src2}.",
            {"fill": "#amount", "value": other},
            {"expect": "text", "sel": "#result", "equals": other_expected},
            {"select": "#to-unit", "value": dst2},
            {"expect": "text", "sel": "#result", "equals": other_dst2},
            {"select": "#from-unit", "value": src2},
            {"expect": "text", "sel": "#result", "equals": other_src2},
        ),
        item(
            "swap",
            f"#swap exchanges the two units, every time: after a swap and picking {dst2} as #from-unit, "
            f"a second swap gives {src} → {dst2}.",
            {"fill": "#amount", "value": value},
            {"click": "#swap"},
            {"expect": "value", "sel": "#from-unit", "equals": dst},
            {"expect": "value", "sel": "#to-unit", "equals": src},
            # the units the user picked are swapped, not a pair the app remembers
            {"select": "#from-unit", "value": dst2},
            {"click": "#swap"},
            {"expect": "value", "sel": "#from-unit", "equals": src},
            {"expect": "value", "sel": "#to-unit", "equals": dst2},
        ),
        item(
            "swap_result",
            "After a swap the result is the conversion in the new direction.",
            {"fill": "#amount", "value": value},
            {"expect": "text", "sel": "#result", "equals": expected},
            {"click": "#swap"},
            {"expect": "text", "sel": "#result", "equals": back},
        ),
        item(
            "invalid",
            "Text that is not a number shows 'Enter a number', also when it starts with digits ('12abc').",
            {"fill": "#amount", "value": "abc"},
            {"expect": "text", "sel": "#result", "equals": "Enter a number"},
            {"fill": "#amount", "value": "1"},
            {"expect": "text", "sel": "#result", "not_equals": "Enter a number"},
            {"fill": "#amount", "value": "12abc"},
            {"expect": "text", "sel": "#result", "equals": "Enter a number"},
        ),
    ]
    broken = [
        breaking(gold, "one-decimal", ["convert", "unit_change", "swap_result"], (".toFixed(2)", ".toFixed(1)")),
        breaking(
            gold,
            "swap-without-convert",
            ["swap_result"],
            ('  $("to-unit").value = a;\n  convert();\n', '  $("to-unit").value = a;\n'),
        ),
        breaking(
            gold,
            "knows-one-amount",
            ["convert", "unit_change"],
            ("const x = Number(raw);", f"const x = Number.isFinite(Number(raw)) ? {value} : NaN;"),
        ),
        breaking(
            gold,
            "nan-shown",
            ["invalid"],
            ('if (!Number.isFinite(x)) { $("result").textContent = "Enter a number"; return; }', ""),
        ),
        breaking(
            gold,
            "round-no-pad",
            # Math.round(x * 100) / 100 drops the zeros that toFixed(2) keeps
            ["convert"] + (["unit_change"] if other_dst2.endswith("0") or other_src2.endswith("0") else []),
            (
                '(base / FACTORS[$("to-unit").value]).toFixed(2)',
                'String(Math.round(base / FACTORS[$("to-unit").value] * 100) / 100)',
            ),
        ),
        breaking(
            gold,
            "parsefloat",
            ["invalid"],
            ("const x = Number(raw);\n  if (!Number.isFinite(x))", "const x = parseFloat(raw);\n  if (isNaN(x))"),
        ),
        breaking(
            gold,
            "from-unit-ignored",
            ["unit_change"],
            ('for (const id of ["amount", "from-unit", "to-unit"])', 'for (const id of ["amount", "to-unit"])'),
        ),
        breaking(
            gold,
            "swap-stale-units",
            # swaps variables set to the starting units, which picking a unit never updates
            ["swap"],
            (
                '  const a = $("from-unit").value;\n  $("from-unit").value = $("to-unit").value;\n  $("to-unit").value = a;',
                '  [fromU, toU] = [toU, fromU];\n  $("from-unit").value = fromU;\n  $("to-unit").value = toU;',
            ),
            ("const FACTORS =", f'let fromU = "{src}", toU = "{dst}";\nconst FACTORS ='),
        ),
        breaking(
            gold,
            "inverted-factor",
            ["unit_change"],
            (f'"{src2}": {json.dumps(factors[src2])}', f'"{src2}": {json.dumps(1 / factors[src2])}'),
        ),
    ]
    units = ", ".join(factors)
    (base,) = [u for u, f in factors.items() if f == 1.0]
    # the sizes, so that no unit is left to a guess (which cup? a rounded mile?)
    sizes = ", ".join(f"1 {u} = {f:.10g} {base}" for u, f in factors.items() if u != base)
    request = (
        f'A {title.lower()} unit converter: a text input <input id="amount">, selects #from-unit and #to-unit '
        f"(option values: {units}; initially {src} → {dst}; {sizes}), a #swap button that "
        "exchanges the units, and #result showing just the converted number with exactly 2 decimals (e.g. "
        f"'{expected}' or '1500.00': no unit, no thousands separator), updated on every input event as the user types and when a unit changes. "
        "Anything that is not entirely a number (e.g. 'abc' or '12abc') shows 'Enter a number'."
    )
    return task(
        f"convert-{i + 1:02d}",
        "converter",
        request,
        rubric,
        gold,
        [broken[i % len(broken)]] if i < 3 else broken,
        difficulty="easy",
        split="test" if i == 4 else "train",
    )


COUNTER_VARIANTS = [
    # label, min, max, step options, start
    ("Guests", 0, 10, [1, 2], 0),
    ("Volume", 0, 20, [1, 5], 5),
    ("Tickets", 1, 8, [1, 2], 1),
    ("Floor", -2, 12, [1, 3], 0),
    ("Servings", 1, 12, [1, 4], 2),
]

COUNTER_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${label}</title>
<style>body { font-family: sans-serif; margin: 2rem; } #count { font-size: 2rem; }
button:disabled { opacity: .4; }</style></head>
<body>
<h1>${label}</h1>
<button id="dec" aria-label="decrease">−</button>
<span id="count">${start}</span>
<button id="inc" aria-label="increase">+</button>
<label>Step <select id="step">${options}</select></label>
<button id="reset">Reset</button>
<p id="limit-msg"></p>
<script>
const MIN = ${lo}, MAX = ${hi}, START = ${start};
let value = START;

function render() {
  document.getElementById("count").textContent = String(value);
  document.getElementById("dec").disabled = value <= MIN;
  document.getElementById("inc").disabled = value >= MAX;
  document.getElementById("limit-msg").textContent = value >= MAX ? "Maximum reached" : value <= MIN ? "Minimum reached" : "";
}

function change(sign) {
  const step = Number(document.getElementById("step").value);
  value = Math.min(MAX, Math.max(MIN, value + sign * step));
  render();
}

document.getElementById("inc").addEventListener("click", () => change(1));
document.getElementById("dec").addEventListener("click", () => change(-1));
document.getElementById("reset").addEventListener("click", () => { value = START; render(); });
render();
</script>
</body></html>
"""


@family(len(COUNTER_VARIANTS))
def counter(i: int) -> dict[str, Any]:
    """Bounded counter with a step size, limits and reset (five variants)."""
    label, lo, hi, steps, start = COUNTER_VARIANTS[i]
    options = "".join(f'<option value="{s}">{s}</option>' for s in steps)
    gold = fill(COUNTER_HTML, label=label, lo=lo, hi=hi, options=options, start=start)
    big = steps[1]
    # Approach each limit in big steps that overshoot it (after k single steps), so that only
    # an app that clamps lands on it: from 9, a step of 2 must stop at 10.
    up1 = 0 if (hi - start) % big else 1
    up_clicks = -(-(hi - start - up1) // big)
    down1 = 1 if (start + 1 - lo) % big else 2
    down_clicks = -(-(start + down1 - lo) // big)
    # A counter that starts at its minimum shows that from the start.
    at_min = (
        [
            {"expect": "text", "sel": "#limit-msg", "equals": "Minimum reached"},
            {"expect": "attr", "sel": "#dec", "name": "disabled"},
        ]
        if start == lo
        else []
    )
    rubric = [
        item(
            "inc",
            "#inc adds the step (1 by default) to #count.",
            {"click": "#inc"},
            {"expect": "text", "sel": "#count", "equals": str(start + 1)},
        ),
        item(
            "step",
            f"Choosing step {big} in #step makes #inc add {big} and #dec subtract {big}.",
            {"select": "#step", "value": str(big)},
            {"click": "#inc"},
            {"expect": "text", "sel": "#count", "equals": str(min(hi, start + big))},
            {"click": "#dec"},
            {"expect": "text", "sel": "#count", "equals": str(min(hi, start + big) - big)},
        ),
        item(
            "max",
            f"#count never goes above {hi}; #limit-msg says 'Maximum reached' and #inc is disabled there.",
            *[{"click": "#inc"} for _ in range(up1)],
            {"select": "#step", "value": str(big)},
            *[{"click": "#inc"} for _ in range(up_clicks)],
            {"expect": "text", "sel": "#count", "equals": str(hi)},
            {"expect": "text", "sel": "#limit-msg", "equals": "Maximum reached"},
            {"expect": "attr", "sel": "#inc", "name": "disabled"},
            # one step back: the message goes and #inc works again
            {"click": "#dec"},
            {"expect": "text", "sel": "#limit-msg", "equals": ""},
            {"expect": "attr", "sel": "#inc", "name": "disabled", "absent": True},
        ),
        item(
            "min",
            f"#count never goes below {lo}; #limit-msg says 'Minimum reached' and #dec is disabled there.",
            *at_min,
            *[{"click": "#inc"} for _ in range(down1)],
            {"expect": "text", "sel": "#count", "equals": str(start + down1)},
            {"select": "#step", "value": str(big)},
            *[{"click": "#dec"} for _ in range(down_clicks)],
            {"expect": "text", "sel": "#count", "equals": str(lo)},
            *at_min,
            {"click": "#inc"},
            {"expect": "text", "sel": "#limit-msg", "equals": ""},
            {"expect": "attr", "sel": "#dec", "name": "disabled", "absent": True},
        ),
        item(
            "reset",
            f"#reset brings #count back to {start}, also from the maximum (#inc works again, still with the "
            "chosen step).",
            {"click": "#inc"},
            {"click": "#inc"},
            {"expect": "text", "sel": "#count", "equals": str(start + 2)},
            {"select": "#step", "value": str(big)},
            *[{"click": "#inc"} for _ in range(-(-(hi - start - 2) // big))],
            {"click": "#reset"},
            {"expect": "text", "sel": "#count", "equals": str(start)},
            {"expect": "attr", "sel": "#inc", "name": "disabled", "absent": True},
            {"expect": "text", "sel": "#limit-msg", "equals": "Minimum reached" if start == lo else ""},
            {"click": "#inc"},
            {"expect": "text", "sel": "#count", "equals": str(start + big)},
        ),
    ]
    broken = [
        breaking(
            gold,
            "step-ignored",
            ["step", "max", "reset"] + (["min"] if start + down1 - down_clicks != lo else []),
            ('const step = Number(document.getElementById("step").value);', "const step = 1;"),
        ),
        breaking(
            gold,
            "no-upper-clamp",
            ["max"],
            (
                "value = Math.min(MAX, Math.max(MIN, value + sign * step));",
                "value = Math.max(MIN, value + sign * step);",
            ),
            ('document.getElementById("inc").disabled = value >= MAX;', ""),
        ),
        breaking(
            gold,
            "no-lower-clamp",
            ["min"],
            (
                "value = Math.min(MAX, Math.max(MIN, value + sign * step));",
                "value = Math.min(MAX, value + sign * step);",
            ),
            ('document.getElementById("dec").disabled = value <= MIN;', ""),
        ),
        breaking(
            gold,
            "reset-to-zero",
            ["reset"] if start != 0 else [],
            ("() => { value = START; render(); }", "() => { value = 0; render(); }"),
        ),
        breaking(
            gold,
            "limit-msg-never-cleared",
            ["max", "min"] + (["reset"] if start != lo else []),
            (
                'document.getElementById("limit-msg").textContent = value >= MAX ? "Maximum reached" : value <= MIN'
                ' ? "Minimum reached" : "";',
                'if (value >= MAX || value <= MIN) document.getElementById("limit-msg").textContent ='
                ' value >= MAX ? "Maximum reached" : "Minimum reached";',
            ),
        ),
        breaking(
            gold,
            "reset-leaves-limit-state",
            ["reset"],
            (
                "() => { value = START; render(); }",
                '() => { value = START; document.getElementById("count").textContent = START; }',
            ),
        ),
        breaking(
            gold,
            "dec-ignores-step",
            ["step"] + (["min"] if start + down1 - down_clicks != lo else []),
            ("value + sign * step", "value + (sign > 0 ? step : -1)"),
        ),
        # the step is cached in a variable that #reset sets back to 1 while #step still shows the big one
        breaking(
            gold,
            "reset-forgets-step",
            ["reset"],
            (
                "let value = START;",
                "let value = START, step = 1;\n"
                'document.getElementById("step").addEventListener("change", (e) => { step = Number(e.target.value); });',
            ),
            ('  const step = Number(document.getElementById("step").value);\n', ""),
            ("() => { value = START; render(); }", "() => { value = START; step = 1; render(); }"),
        ),
    ]
    broken = [b for b in broken if b["breaks"]]
    # (every variant that starts at its minimum carries this one)
    at_start = (
        [breaking(gold, "not-rendered-on-load", ["min"], ("render();\n</script>", "</script>"))] if at_min else []
    )
    request = (
        f"A '{label}' counter: #count starts at {start}; #inc and #dec add/subtract the step chosen in "
        f'<select id="step"> (options {", ".join(map(str, steps))}); the value stays within {lo}..{hi} '
        "(a step that would pass a limit stops at it) and at a limit the button that would leave the "
        f"range is disabled; #limit-msg says 'Maximum reached' or "
        f"'Minimum reached' at a limit (empty otherwise); #reset returns to {start} and keeps the chosen step."
    )
    return task(
        f"counter-{i + 1:02d}",
        "counter",
        request,
        rubric,
        gold,
        [broken[i % len(broken)], *at_start] if i < 3 else broken + at_start,
        difficulty="easy",
        split="test" if i == 4 else "train",
    )


FAMILIES = [signup, calculator, converter, counter]
