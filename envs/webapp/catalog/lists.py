"""List-shaped apps: to-do with persistence, sortable/filterable table, drag to reorder."""

from __future__ import annotations

from typing import Any

from ._util import breaking, family, fill, item, task

TODO_VARIANTS = [
    # noun, input id, add id, list id, count id, storage key, add label
    ("task", "new-task", "add-task", "task-list", "task-count", "todo.tasks", "Add"),
    ("grocery item", "item-input", "add-item", "grocery-list", "item-count", "groceries", "Add item"),
    ("note", "note-text", "save-note", "notes", "note-count", "notes.v1", "Save"),
    ("chore", "chore", "add-chore", "chores", "chore-total", "chores", "Add chore"),
    ("book", "book-title", "add-book", "reading-list", "book-count", "reading", "Add book"),
    ("idea", "idea-input", "add-idea", "idea-list", "idea-count", "ideas", "Add idea"),
]

TODO_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>My ${noun}s</title>
<style>
  body { font-family: sans-serif; margin: 2rem; }
  li { display: flex; gap: .5rem; align-items: center; margin: .25rem 0; }
  .label { min-width: 12rem; }
</style></head>
<body>
<h1>My ${noun}s</h1>
<input id="${inp}" placeholder="New ${noun}" autocomplete="off">
<button id="${add}">${label}</button>
<p><span id="${count}">0</span> ${noun}s</p>
<ul id="${lst}"></ul>
<script>
const KEY = "${key}";
let entries = JSON.parse(localStorage.getItem(KEY) || "[]");
const input = document.getElementById("${inp}");
const list = document.getElementById("${lst}");

function save() { localStorage.setItem(KEY, JSON.stringify(entries)); }

function render() {
  list.innerHTML = "";
  entries.forEach((text, i) => {
    const li = document.createElement("li");
    const span = document.createElement("span");
    span.className = "label";
    span.textContent = text;
    const del = document.createElement("button");
    del.className = "delete";
    del.textContent = "Delete";
    del.addEventListener("click", () => removeEntry(i));
    li.append(span, del);
    list.appendChild(li);
  });
  document.getElementById("${count}").textContent = String(entries.length);
}

function addEntry() {
  const text = input.value.trim();
  if (!text) return;
  entries.push(text);
  input.value = "";
  save();
  render();
}

function removeEntry(i) {
  entries.splice(i, 1);
  save();
  render();
}

document.getElementById("${add}").addEventListener("click", addEntry);
input.addEventListener("keydown", (e) => { if (e.key === "Enter") addEntry(); });
render();
</script>
</body></html>
"""


@family(len(TODO_VARIANTS))
def todo(i: int) -> dict[str, Any]:
    """To-do list with persistence (six variants)."""
    noun, inp, add, lst, count, key, label = TODO_VARIANTS[i]
    gold = fill(TODO_HTML, noun=noun, inp=inp, add=add, lst=lst, count=count, key=key, label=label)
    a, b, c = ("Buy milk", "Call mom", "Pay rent") if i % 2 == 0 else ("Read chapter 3", "Water plants", "Walk dog")

    def added(*texts: str) -> list[dict[str, Any]]:
        """Steps that type and add each text in turn."""
        return [step for text in texts for step in ({"fill": f"#{inp}", "value": text}, {"click": f"#{add}"})]

    rubric = [
        item(
            "add",
            f"Typing a {noun} in #{inp} and clicking #{add} shows it in the list #{lst}.",
            {"fill": f"#{inp}", "value": a},
            {"click": f"#{add}"},
            {"expect": "text", "sel": f"#{lst} li .label", "equals": a},
        ),
        item(
            "enter",
            f"Pressing Enter in #{inp} also adds the {noun}, and saves it like the button does.",
            {"fill": f"#{inp}", "value": b},
            {"press": "Enter", "on": f"#{inp}"},
            {"expect": "count", "sel": f"#{lst} li", "equals": 1},
            {"expect": "storage", "contains": b},
        ),
        item(
            "empty",
            f"An empty or blank {noun} is not added, by the button or by Enter.",
            {"fill": f"#{inp}", "value": "   "},
            {"click": f"#{add}"},
            {"fill": f"#{inp}", "value": "  "},
            {"press": "Enter", "on": f"#{inp}"},
            {"fill": f"#{inp}", "value": a},
            {"click": f"#{add}"},
            {"expect": "count", "sel": f"#{lst} li", "equals": 1},
        ),
        item(
            "delete",
            f"Each {noun} has a 'Delete' button with class 'delete' that removes that {noun} only (even if another "
            "has the same text).",
            *added(a, b, c, b),
            # not the first, not the last, and its text repeats further down: only this one goes
            {"click": f"#{lst} li:nth-child(2) .delete"},
            {"expect": "texts", "sel": f"#{lst} li .label", "equals": [a, c, b]},
            # a second delete right after: buttons must not act on stale positions
            {"click": f"#{lst} li:nth-child(2) .delete"},
            {"expect": "texts", "sel": f"#{lst} li .label", "equals": [a, b]},
            {"expect": "text", "sel": f"#{lst} li .delete", "equals": "Delete"},
        ),
        item(
            "count",
            f"#{count} shows how many {noun}s are in the list, after adding, deleting and reloading.",
            *added(a, b),
            {"expect": "text", "sel": f"#{count}", "equals": "2"},
            {"reload": True},
            {"expect": "text", "sel": f"#{count}", "equals": "2"},
            {"click": f"#{lst} li:nth-child(1) .delete"},
            {"expect": "text", "sel": f"#{count}", "equals": "1"},
        ),
        item(
            "persist",
            f"The {noun}s survive a page reload (localStorage), including {noun}s added or deleted after a reload.",
            *added(a, b),
            {"reload": True},
            {"expect": "texts", "sel": f"#{lst} li .label", "equals": [a, b]},
            *added(c),
            {"click": f"#{lst} li:last-child .delete"},  # the one just added: delete bugs belong to 'delete'
            {"reload": True},
            {"expect": "texts", "sel": f"#{lst} li .label", "equals": [a, b]},
            {"expect": "storage", "contains": b},
        ),
    ]
    enter_path = 'input.addEventListener("keydown", (e) => { if (e.key === "Enter") addEntry(); });'
    broken = [
        breaking(
            gold,
            "no-persistence",
            ["count", "persist"],
            ('let entries = JSON.parse(localStorage.getItem(KEY) || "[]");', "let entries = [];"),
        ),
        breaking(
            gold,
            "adds-blank-and-wrong-delete",
            ["empty", "delete"],
            ("  if (!text) return;\n", ""),
            ("removeEntry(i));", "removeEntry(entries.length - 1));"),
        ),
        breaking(
            gold,
            "stale-count",
            ["count"],
            (
                f'document.getElementById("{count}").textContent = String(entries.length);',
                f'document.getElementById("{count}").textContent = String(Math.min(entries.length, 1));',
            ),
        ),
        breaking(
            gold,
            "delete-not-saved",
            ["persist"],
            ("  entries.splice(i, 1);\n  save();\n", "  entries.splice(i, 1);\n"),
        ),
        breaking(
            gold,
            "load-shown-not-kept",
            ["count", "persist"],
            ('let entries = JSON.parse(localStorage.getItem(KEY) || "[]");', "let entries = [];"),
            (
                "render();\n</script>",
                'entries = JSON.parse(localStorage.getItem(KEY) || "[]");\nrender();\nentries = [];\n</script>',
            ),
        ),
        breaking(
            gold,
            "delete-by-text",
            ["delete"],
            ("removeEntry(i));", "removeEntry(text));"),
            ("entries.splice(i, 1);", "entries = entries.filter((t) => t !== i);"),
        ),
        breaking(
            gold,
            "delete-stale-index",
            ["delete"],
            (
                "function removeEntry(i) {\n  entries.splice(i, 1);\n  save();\n  render();\n}",
                "function removeEntry(i) {\n  entries.splice(i, 1);\n  save();\n  list.children[i].remove();\n"
                f'  document.getElementById("{count}").textContent = String(entries.length);\n}}',
            ),
        ),
        breaking(
            gold, "delete-button-symbol", ["delete"], ('del.textContent = "Delete";', 'del.textContent = "\u2715";')
        ),
        breaking(
            gold,
            "count-only-on-add",
            ["count"],
            (f'  document.getElementById("{count}").textContent = String(entries.length);\n', ""),
            (
                "  save();\n  render();\n}\n\nfunction removeEntry",
                f'  save();\n  render();\n  document.getElementById("{count}").textContent = String(entries.length);\n}}\n\n'
                "function removeEntry",
            ),
        ),
        breaking(
            gold,
            "count-not-on-load",
            ["count"],
            (f'  document.getElementById("{count}").textContent = String(entries.length);\n', ""),
            (
                "function save() { localStorage.setItem(KEY, JSON.stringify(entries)); }",
                "function save() { localStorage.setItem(KEY, JSON.stringify(entries)); "
                f'document.getElementById("{count}").textContent = String(entries.length); }}',
            ),
        ),
        # Enter handled by a second copy of the add code that lost a line
        breaking(
            gold,
            "enter-adds-blank",
            ["empty"],
            (
                enter_path,
                'input.addEventListener("keydown", (e) => { if (e.key !== "Enter") return; '
                'entries.push(input.value); input.value = ""; save(); render(); });',
            ),
        ),
        breaking(
            gold,
            "enter-not-saved",
            ["enter"],
            (
                enter_path,
                'input.addEventListener("keydown", (e) => { if (e.key !== "Enter") return; '
                'const t = input.value.trim(); if (!t) return; entries.push(t); input.value = ""; render(); });',
            ),
        ),
    ]
    request = (
        f"A small list of {noun}s. An input #{inp} and a button #{add} labelled '{label}' (or Enter in the "
        f'input) add a {noun}; each {noun} is an <li> in <ul id="{lst}"> holding a <span class="label"> with its '
        f"text and a 'Delete' button with class 'delete' that removes just that one, at once. New {noun}s go at "
        f"the end of the list (duplicates allowed); blank ones are ignored. #{count} holds just the number of "
        f"{noun}s (e.g. '2'). The list is kept "
        f"in localStorage so it survives a reload."
    )
    return task(
        f"todo-{i + 1:02d}",
        "todo",
        request,
        rubric,
        gold,
        [broken[i % 3]] if i < 3 else broken,
        difficulty="easy" if i < 3 else "medium",
        split="test" if i == 5 else "train",
    )


TABLE_VARIANTS = [
    # title, table id, name header, number header, number key, rows (name, number), filter query
    (
        "Planets",
        "planets",
        "Planet",
        "Moons",
        "moons",
        [("Mars", 2), ("Jupiter", 95), ("Earth", 1), ("Neptune", 16), ("Saturn", 146), ("Uranus", 28)],
        "UR",
    ),
    (
        "Cities",
        "cities",
        "City",
        "Population (k)",
        "pop",
        [("Oslo", 709), ("Lima", 10719), ("Bern", 134), ("Cairo", 9540), ("Quito", 2800), ("Accra", 2388)],
        "O",
    ),
    (
        "Mountains",
        "peaks",
        "Mountain",
        "Height (m)",
        "height",
        [
            ("Kilimanjaro", 5895),
            ("Elbrus", 5642),
            ("Denali", 6190),
            ("Vinson", 4892),
            ("Aconcagua", 6961),
            ("Kosciuszko", 2228),
        ],
        "KO",
    ),
    (
        "Rivers",
        "rivers",
        "River",
        "Length (km)",
        "length",
        [("Rhine", 1233), ("Nile", 6650), ("Thames", 346), ("Danube", 2850), ("Amazon", 6400), ("Seine", 777)],
        "NE",
    ),
    (
        "Fruit stock",
        "stock",
        "Fruit",
        "Quantity",
        "qty",
        [("Pear", 40), ("Apple", 120), ("Mango", 7), ("Banana", 65), ("Kiwi", 300), ("Cherry", 9)],
        "AN",
    ),
]

TABLE_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body { font-family: sans-serif; margin: 2rem; } th { cursor: pointer; text-align: left; }
td, th { padding: .2rem .8rem; }</style></head>
<body>
<h1>${title}</h1>
<input id="filter" placeholder="Filter by name">
<p id="row-count"></p>
<table id="${tid}">
  <thead><tr><th id="sort-name">${hname}</th><th id="sort-${nkey}">${hnum}</th></tr></thead>
  <tbody></tbody>
</table>
<script>
const rows = ${rows};
let sortKey = null, ascending = true, query = "";

function visibleRows() {
  const q = query.toLowerCase();
  let out = rows.filter(r => r.name.toLowerCase().includes(q));
  if (sortKey) {
    out = out.slice().sort((a, b) => {
      const x = a[sortKey], y = b[sortKey];
      const c = typeof x === "number" ? x - y : x.localeCompare(y);
      return ascending ? c : -c;
    });
  }
  return out;
}

function render() {
  const shown = visibleRows();
  const body = document.querySelector("#${tid} tbody");
  body.innerHTML = "";
  for (const r of shown) {
    const tr = document.createElement("tr");
    tr.innerHTML = "<td></td><td></td>";
    tr.children[0].textContent = r.name;
    tr.children[1].textContent = String(r.value);
    body.appendChild(tr);
  }
  document.getElementById("row-count").textContent = "Showing " + shown.length + " of " + rows.length;
}

function sortBy(key) {
  if (sortKey === key) { ascending = !ascending; } else { sortKey = key; ascending = true; }
  render();
}

document.getElementById("sort-name").addEventListener("click", () => sortBy("name"));
document.getElementById("sort-${nkey}").addEventListener("click", () => sortBy("value"));
document.getElementById("filter").addEventListener("input", (e) => { query = e.target.value; render(); });
render();
</script>
</body></html>
"""


@family(len(TABLE_VARIANTS))
def table(i: int) -> dict[str, Any]:
    """Sortable and filterable table (five data sets)."""
    import json

    title, tid, hname, hnum, nkey, data, query = TABLE_VARIANTS[i]
    rows = json.dumps([{"name": n, "value": v} for n, v in data])
    gold = fill(TABLE_HTML, title=title, tid=tid, hname=hname, hnum=hnum, nkey=nkey, rows=rows)
    # the data rows, in a <tbody> or (made by script) straight in the table; not <thead> or <tfoot>
    names_col = f"#{tid} > tbody > tr > td:first-child, #{tid} > tr > td:first-child"
    shown_col = f"#{tid} > tbody > tr:visible > td:first-child, #{tid} > tr:visible > td:first-child"
    shown_num = f"#{tid} > tbody > tr:visible > td:nth-child(2), #{tid} > tr:visible > td:nth-child(2)"
    digit = next(d for d in "123456789" if any(d in str(v) for _, v in data[:3]))
    by_num = [n for n, _ in sorted(data, key=lambda r: r[1])]
    by_name = sorted(n for n, _ in data)
    matching = [n for n, _ in data if query.lower() in n.lower()]
    # Filtered and sorted together: a query that keeps some rows (at least two), sorted in the
    # direction whose order differs from the unsorted one.
    fq = next(
        q for q in (query, "a", "e", "o", "i", "n") if 1 < sum(q.lower() in n.lower() for n, _ in data) < len(data)
    )
    kept = [n for n, _ in data if fq.lower() in n.lower()]
    sorted_kept = [n for n in by_num if n in kept]
    sort_clicks = 1 if sorted_kept != kept else 2
    if sort_clicks == 2:
        sorted_kept.reverse()

    def by_text(names: list[str], clicks: int) -> list[str]:  # numbers compared as strings
        value = dict(data)
        return sorted(names, key=lambda n: str(value[n]), reverse=clicks == 2)

    rubric = [
        item(
            "sort_asc",
            f"Clicking the '{hnum}' header (#sort-{nkey}) sorts rows by that number, smallest first, also when "
            "coming back to it from the other header.",
            {"click": f"#sort-{nkey}"},
            {"expect": "texts", "sel": names_col, "equals": by_num},
            {"click": "#sort-name"},
            {"click": f"#sort-{nkey}"},
            {"expect": "texts", "sel": names_col, "equals": by_num},
        ),
        item(
            "sort_desc",
            f"Clicking #sort-{nkey} a second time sorts largest first; a third click smallest first again.",
            {"click": f"#sort-{nkey}"},
            {"click": f"#sort-{nkey}"},
            {"expect": "texts", "sel": names_col, "equals": by_num[::-1]},
            {"click": f"#sort-{nkey}"},
            {"expect": "texts", "sel": names_col, "equals": by_num},
        ),
        item(
            "sort_name",
            f"Clicking the '{hname}' header (#sort-name) sorts rows alphabetically, A first, also right after "
            "sorting by the other column; clicking it again sorts Z first.",
            {"click": f"#sort-{nkey}"},
            {"click": "#sort-name"},
            {"expect": "texts", "sel": names_col, "equals": by_name},
            {"click": "#sort-name"},
            {"expect": "texts", "sel": names_col, "equals": by_name[::-1]},
        ),
        item(
            "filter",
            "Typing in #filter shows only rows whose name (not the number) contains the text, ignoring case; "
            "editing or clearing the text brings rows back.",
            {"type": "#filter", "value": query},
            {"expect": "texts", "sel": shown_col, "equals": matching},
            # a digit of some number: no name holds one (a 'no matches' row with a single cell may show)
            {"fill": "#filter", "value": ""},  # a Delete keystroke; then keystrokes, for keyup handlers too
            {"type": "#filter", "value": digit},
            {"expect": "count", "sel": shown_num, "equals": 0},
            {"fill": "#filter", "value": ""},
            {"expect": "texts", "sel": shown_col, "equals": [n for n, _ in data]},
        ),
        item(
            "count",
            "#row-count says 'Showing N of M' for the rows shown, from the start.",
            {"expect": "text", "sel": "#row-count", "equals": f"Showing {len(data)} of {len(data)}"},
            {"type": "#filter", "value": query},
            {"expect": "text", "sel": "#row-count", "equals": f"Showing {len(matching)} of {len(data)}"},
        ),
        item(
            "filter_sort",
            "Sorting keeps the filter: only matching rows show, in the new order; clearing the filter then "
            "shows every row, still in that order.",
            {"type": "#filter", "value": fq},
            *[{"click": f"#sort-{nkey}"} for _ in range(sort_clicks)],
            {"expect": "texts", "sel": shown_col, "equals": sorted_kept},
            {"fill": "#filter", "value": ""},
            {"expect": "texts", "sel": shown_col, "equals": by_num if sort_clicks == 1 else by_num[::-1]},
        ),
    ]
    broken = [
        breaking(
            gold,
            "never-descending",
            ["sort_desc", "sort_name"] + (["filter_sort"] if sort_clicks == 2 else []),
            ("if (sortKey === key) { ascending = !ascending; }", "if (sortKey === key) { ascending = true; }"),
        ),
        breaking(
            gold,
            "case-sensitive-filter",
            ["filter", "count"] + (["filter_sort"] if any(fq not in n for n in kept) else []),
            ("const q = query.toLowerCase();", "const q = query;"),
            ("r.name.toLowerCase().includes(q)", "r.name.includes(q)"),
        ),
        breaking(
            gold,
            "text-sort-of-numbers",
            ["sort_asc", "sort_desc"] + (["filter_sort"] if by_text(kept, sort_clicks) != sorted_kept else []),
            (
                'const c = typeof x === "number" ? x - y : x.localeCompare(y);',
                "const c = String(x).localeCompare(String(y));",
            ),
        ),
        breaking(
            gold,
            "one-direction-for-all-headers",
            ["sort_name"],
            (
                "if (sortKey === key) { ascending = !ascending; } else { sortKey = key; ascending = true; }",
                "if (sortKey === null) { ascending = true; } else { ascending = !ascending; } sortKey = key;",
            ),
        ),
        breaking(
            gold,
            "row-count-only-on-filter",
            ["count"],
            (
                '  document.getElementById("row-count").textContent = "Showing " + shown.length + " of " + rows.length;\n',
                "",
            ),
            (
                "(e) => { query = e.target.value; render(); }",
                "(e) => { query = e.target.value; render(); "
                'document.getElementById("row-count").textContent = '
                '"Showing " + visibleRows().length + " of " + rows.length; }',
            ),
        ),
        breaking(
            gold,
            "direction-per-header",
            ["sort_asc"],
            (
                "  if (sortKey === key) { ascending = !ascending; } else { sortKey = key; ascending = true; }",
                "  dirs[key] = !dirs[key]; sortKey = key; ascending = dirs[key];",
            ),
            ("let sortKey = null,", "const dirs = {}; let sortKey = null,"),
        ),
        breaking(
            gold,
            "third-click-unsorts",
            ["sort_desc"],
            (
                "if (sortKey === key) { ascending = !ascending; }",
                "if (sortKey === key) { if (ascending) ascending = false; else { sortKey = null; ascending = true; } }",
            ),
        ),
        breaking(
            gold,
            "name-sort-ignores-direction",
            ["sort_name"],
            (
                'const c = typeof x === "number" ? x - y : x.localeCompare(y);\n      return ascending ? c : -c;',
                'if (typeof x !== "number") return x.localeCompare(y);\n      return ascending ? x - y : y - x;',
            ),
        ),
    ]
    sort_in_dom = (
        "function sortBy(key) {\n  if (sortKey === key) { ascending = !ascending; } else { sortKey = key; ascending = true; }\n"
        "  render();\n}"
    )
    broken += [
        # each keystroke filters what is shown now: deleting text never brings rows back
        breaking(
            gold,
            "filter-narrows-shown-rows",
            ["filter", "filter_sort"],
            (
                'let sortKey = null, ascending = true, query = "";',
                'let sortKey = null, ascending = true, query = "";\nlet pool = rows;',
            ),
            ("let out = rows.filter(", "let out = pool = pool.filter("),
        ),
        # headers reorder the <tr>s in place; the filter rebuilds the body in the original order
        breaking(
            gold,
            "sort-in-dom-filter-rebuilds",
            ["filter_sort"],
            (
                sort_in_dom,
                "function sortBy(key) {\n  if (sortKey === key) { ascending = !ascending; } else { sortKey = key; ascending = true; }\n"
                "  const body = document.querySelector('#" + tid + " tbody'), col = key === 'name' ? 0 : 1;\n"
                "  [...body.children].sort((a, b) => { const x = a.children[col].textContent, "
                "y = b.children[col].textContent;\n"
                "    const c = col ? Number(x) - Number(y) : x.localeCompare(y); return ascending ? c : -c; })\n"
                "    .forEach((tr) => body.appendChild(tr));\n}",
            ),
            ("  if (sortKey) {", "  if (false) {"),
        ),
        breaking(
            gold,
            "filter-on-row-text",
            ["filter"],
            ("r.name.toLowerCase().includes(q)", "(r.name + ' ' + r.value).toLowerCase().includes(q)"),
        ),
    ]
    request = (
        f"A table of {title.lower()} (<table id=\"{tid}\">, names in the first column, '{hnum}' in the second) "
        f"with clickable headers #sort-name and #sort-{nkey}: the first click sorts ascending, the next click "
        f"on the same header toggles the direction (a click on the other header starts it ascending again). An "
        f"input #filter keeps, as the user types, only rows whose name contains the text (case-insensitive). "
        f"Sorting and filtering combine: changing one keeps the other. #row-count always reads 'Showing N of M'. "
        f"Initially rows are in "
        f"this order: {', '.join(n for n, _ in data)}."
    )
    return task(
        f"table-{i + 1:02d}",
        "table",
        request,
        rubric,
        gold,
        broken if i % 2 else [broken[(i // 2) % 3]],
        difficulty="medium",
        split="test" if i == 4 else "train",
    )


REORDER_VARIANTS = [
    ("Playlist", "playlist", ["Intro", "Verse", "Chorus", "Outro"], "playlist.order"),
    ("Priorities", "priorities", ["Email", "Gym", "Groceries", "Taxes"], "prio"),
    ("Itinerary", "stops", ["Paris", "Lyon", "Nice", "Marseille"], "trip"),
    ("Backlog", "backlog", ["Login page", "Search", "Dark mode", "Export CSV"], "backlog.v2"),
    ("Recipe steps", "steps", ["Chop", "Fry", "Simmer", "Serve"], "recipe"),
]

REORDER_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body { font-family: sans-serif; margin: 2rem; }
#${lid} li { padding: .4rem; margin: .2rem 0; border: 1px solid #999; background: #f4f4f4; cursor: grab; width: 16rem; }
#${lid} li.over { border-color: #06c; }</style></head>
<body>
<h1>${title}</h1>
<ol id="${lid}"></ol>
<p>Order: <span id="order"></span></p>
<script>
const KEY = "${key}";
let items = JSON.parse(localStorage.getItem(KEY) || "null") || ${items};
let dragIndex = null;

function move(from, to) {
  const [moved] = items.splice(from, 1);
  items.splice(to, 0, moved);
  localStorage.setItem(KEY, JSON.stringify(items));
  render();
}

function render() {
  const list = document.getElementById("${lid}");
  list.innerHTML = "";
  items.forEach((text, i) => {
    const li = document.createElement("li");
    li.draggable = true;
    li.innerHTML = '<span class="name"></span> <button class="up">Up</button>';
    li.querySelector(".name").textContent = text;
    li.querySelector(".up").addEventListener("click", () => { if (i > 0) move(i, i - 1); });
    li.addEventListener("dragstart", (e) => { dragIndex = i; e.dataTransfer.setData("text/plain", String(i)); });
    li.addEventListener("dragover", (e) => { e.preventDefault(); li.classList.add("over"); });
    li.addEventListener("dragleave", () => li.classList.remove("over"));
    li.addEventListener("drop", (e) => { e.preventDefault(); if (dragIndex !== null && dragIndex !== i) move(dragIndex, i); dragIndex = null; });
    list.appendChild(li);
  });
  document.getElementById("order").textContent = items.join(", ");
}
render();
</script>
</body></html>
"""


@family(len(REORDER_VARIANTS))
def reorder(i: int) -> dict[str, Any]:
    """Drag to reorder, with Up buttons and a persisted order (five variants)."""
    import json

    title, lid, names, key = REORDER_VARIANTS[i]
    gold = fill(REORDER_HTML, title=title, lid=lid, items=json.dumps(names), key=key)
    a, b, c, d = names
    sel = f"#{lid} li .name"
    rubric = [
        item(
            "drag_down",
            "Dragging the first item onto the third (dropped on its name) moves it to third place.",
            {"drag": f"#{lid} li:nth-child(1)", "to": f"#{lid} li:nth-child(3) .name"},
            {"expect": "texts", "sel": sel, "equals": [b, c, a, d]},
        ),
        item(
            "drag_up",
            "Dragging the last item onto the first moves it to the top.",
            {"drag": f"#{lid} li:nth-child(4)", "to": f"#{lid} li:nth-child(1)"},
            {"expect": "texts", "sel": sel, "equals": [d, a, b, c]},
        ),
        item(
            "summary",
            "#order lists the items in their current order, joined by ', ', from the start and after every move.",
            {"expect": "text", "sel": "#order", "equals": ", ".join([a, b, c, d])},
            {"click": f"#{lid} li:nth-child(3) .up"},
            {"expect": "text", "sel": "#order", "equals": ", ".join([a, c, b, d])},
            {"click": f"#{lid} li:nth-child(2) .up"},
            {"expect": "text", "sel": "#order", "equals": ", ".join([c, a, b, d])},
            {"drag": f"#{lid} li:nth-child(1)", "to": f"#{lid} li:nth-child(4) .name"},
            {"expect": "text", "sel": "#order", "equals": ", ".join([a, b, d, c])},
            {"click": f"#{lid} li:nth-child(3) .up"},
            {"expect": "text", "sel": "#order", "equals": ", ".join([a, d, b, c])},
        ),
        item(
            "up_button",
            "Each item's 'Up' button (class 'up') moves it one place up; on the first item it does nothing, "
            "and clicking an item's name does nothing.",
            {"click": f"#{lid} li:nth-child(1) .up"},
            {"click": f"#{lid} li:nth-child(4) .name"},
            {"click": f"#{lid} li:nth-child(3) .up"},
            {"expect": "texts", "sel": sel, "equals": [a, c, b, d]},
        ),
        item(
            "persist",
            "The order survives a page reload (localStorage), in the list and in #order, whether changed by Up "
            "or by dragging.",
            {"click": f"#{lid} li:nth-child(2) .up"},
            {"reload": True},
            {"expect": "texts", "sel": sel, "equals": [b, a, c, d]},
            {"expect": "text", "sel": "#order", "equals": ", ".join([b, a, c, d])},
            {"drag": f"#{lid} li:nth-child(1)", "to": f"#{lid} li:nth-child(3) .name"},
            {"reload": True},
            {"expect": "texts", "sel": sel, "equals": [a, c, b, d]},
            {"expect": "storage", "contains": b},
        ),
    ]
    broken = [
        breaking(
            gold,
            "stale-summary",
            ["summary", "persist"],
            (
                'document.getElementById("order").textContent = items.join(", ");',
                f'document.getElementById("order").textContent = {json.dumps(", ".join(names))};',
            ),
        ),
        breaking(
            gold,
            "up-moves-down",
            ["summary", "up_button", "persist"],
            ("if (i > 0) move(i, i - 1);", "if (i < items.length - 1) move(i, i + 1);"),
        ),
        breaking(
            gold,
            "no-drop",
            ["drag_down", "drag_up", "summary", "persist"],
            (
                'li.addEventListener("dragover", (e) => { e.preventDefault(); li.classList.add("over"); });',
                'li.addEventListener("dragover", () => { li.classList.add("over"); });',
            ),
        ),
        breaking(
            gold,
            "only-up-saves",
            ["persist"],
            ("  localStorage.setItem(KEY, JSON.stringify(items));\n  render();", "  render();"),
            (
                "{ if (i > 0) move(i, i - 1); }",
                "{ if (i > 0) { move(i, i - 1); localStorage.setItem(KEY, JSON.stringify(items)); } }",
            ),
        ),
        breaking(
            gold,
            "summary-only-on-drop",
            ["summary", "persist"],
            ('  document.getElementById("order").textContent = items.join(", ");\n', ""),
            (
                "move(dragIndex, i); dragIndex = null;",
                'move(dragIndex, i); document.getElementById("order").textContent = items.join(", "); dragIndex = null;',
            ),
        ),
        breaking(
            gold,
            "up-wraps-around",
            ["up_button"],
            ("{ if (i > 0) move(i, i - 1); }", "{ move(i, i > 0 ? i - 1 : items.length - 1); }"),
        ),
        # #order starts as static default text and is only updated on a move: wrong after a reload.
        breaking(
            gold,
            "summary-not-restored",
            ["persist"],
            ('  document.getElementById("order").textContent = items.join(", ");\n', ""),
            (
                "  localStorage.setItem(KEY, JSON.stringify(items));\n  render();",
                "  localStorage.setItem(KEY, JSON.stringify(items));\n  render();\n"
                '  document.getElementById("order").textContent = items.join(", ");',
            ),
            ('<span id="order"></span>', f'<span id="order">{", ".join(names)}</span>'),
        ),
        # The drop index is read from e.target: dropping onto an item's name text goes wrong
        # (NaN, spliced in at 0: so the drop onto the first item in drag_up still looks right).
        breaking(
            gold,
            "drop-uses-event-target",
            ["drag_down", "summary", "persist"],
            ("li.draggable = true;", "li.draggable = true; li.dataset.i = i;"),
            (
                "if (dragIndex !== null && dragIndex !== i) move(dragIndex, i);",
                "const to = Number(e.target.dataset.i); if (dragIndex !== null && dragIndex !== to) move(dragIndex, to);",
            ),
        ),
        # The Up handler sits on the whole <li>: clicking an item's name moves it up too.
        breaking(
            gold,
            "click-item-moves-up",
            ["up_button"],
            ('li.querySelector(".up").addEventListener("click",', 'li.addEventListener("click",'),
        ),
        # Up swaps the DOM nodes in place but indexes the array with the render-time index:
        # a second Up on the same item swaps the wrong entries (drag uses live DOM indexes).
        breaking(
            gold,
            "up-stale-index",
            ["summary"],
            (
                "{ if (i > 0) move(i, i - 1); }",
                "{ if (i > 0) { const [m] = items.splice(i, 1); items.splice(i - 1, 0, m); "
                "localStorage.setItem(KEY, JSON.stringify(items)); "
                "if (li.previousElementSibling) list.insertBefore(li, li.previousElementSibling); "
                'document.getElementById("order").textContent = items.join(", "); } }',
            ),
            ("{ dragIndex = i;", "{ dragIndex = [...list.children].indexOf(li);"),
            (
                "if (dragIndex !== null && dragIndex !== i) move(dragIndex, i);",
                "const to = [...list.children].indexOf(li); if (dragIndex !== null && dragIndex !== to) move(dragIndex, to);",
            ),
        ),
        # Drop moves the <li> in the DOM and rebuilds the array from it but does not re-render:
        # the Up buttons keep their old indexes, so an Up right after a drag moves the wrong entry.
        breaking(
            gold,
            "drop-no-rerender",
            ["summary"],
            ("{ dragIndex = i;", "{ dragIndex = [...li.parentNode.children].indexOf(li);"),
            (
                "if (dragIndex !== null && dragIndex !== i) move(dragIndex, i);",
                "const lis = [...list.children], to = lis.indexOf(li); if (dragIndex !== null && dragIndex !== to) { "
                "const src = lis[dragIndex]; if (dragIndex < to) li.after(src); else li.before(src); "
                'items = [...list.querySelectorAll(".name")].map((n) => n.textContent); '
                "localStorage.setItem(KEY, JSON.stringify(items)); "
                'document.getElementById("order").textContent = items.join(", "); }',
            ),
        ),
        # The item moves as soon as the pointer enters another item, not on the drop: the
        # drag passes over the items on its way (flows.DRAG_STEPS) and lands on the first one.
        breaking(
            gold,
            "moves-on-dragenter",
            ["drag_down", "drag_up", "summary", "persist"],
            (
                'li.addEventListener("dragleave"',
                'li.addEventListener("dragenter", (e) => { e.preventDefault(); '
                "if (dragIndex !== null && dragIndex !== i) { move(dragIndex, i); dragIndex = null; } });\n"
                '    li.addEventListener("dragleave"',
            ),
        ),
    ]
    request = (
        f"A reorderable list '{title}': <ol id=\"{lid}\"> with one draggable <li> per item "
        f"({', '.join(names)}), each holding <span class=\"name\"> and an 'Up' button (class 'up'). "
        f"Dropping an item anywhere onto another moves it to that item's place; an item's 'Up' button moves it "
        f"one place up (the first item's 'Up' does nothing), and clicking elsewhere on an item does nothing. "
        f"#order shows the current order joined by ', ' (e.g. '{a}, {b}, ...'), and "
        f"the order is saved in localStorage."
    )
    return task(
        f"reorder-{i + 1:02d}",
        "reorder",
        request,
        rubric,
        gold,
        [broken[i % 3]] if i < 3 else broken,
        difficulty="medium" if i < 3 else "hard",
        split="test" if i == 4 else "train",
    )


FAMILIES = [todo, table, reorder]
