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
    a, b = ("Buy milk", "Call mom") if i % 2 == 0 else ("Read chapter 3", "Water plants")
    rubric = [
        item("add", f"Typing a {noun} in #{inp} and clicking #{add} shows it in the list #{lst}.",
             {"fill": f"#{inp}", "value": a}, {"click": f"#{add}"},
             {"expect": "text", "sel": f"#{lst} li .label", "equals": a}),
        item("enter", f"Pressing Enter in #{inp} also adds the {noun}.",
             {"fill": f"#{inp}", "value": b}, {"press": "Enter", "on": f"#{inp}"},
             {"expect": "count", "sel": f"#{lst} li", "equals": 1}),
        item("empty", f"An empty or blank {noun} is not added.",
             {"fill": f"#{inp}", "value": "   "}, {"click": f"#{add}"},
             {"fill": f"#{inp}", "value": a}, {"click": f"#{add}"},
             {"expect": "count", "sel": f"#{lst} li", "equals": 1}),
        item("delete", f"Each {noun} has a button with class 'delete' that removes that {noun} only.",
             {"fill": f"#{inp}", "value": a}, {"click": f"#{add}"},
             {"fill": f"#{inp}", "value": b}, {"click": f"#{add}"},
             {"click": f"#{lst} li:first-child .delete"},
             {"expect": "texts", "sel": f"#{lst} li .label", "equals": [b]}),
        item("count", f"#{count} shows how many {noun}s are in the list.",
             {"fill": f"#{inp}", "value": a}, {"click": f"#{add}"},
             {"fill": f"#{inp}", "value": b}, {"click": f"#{add}"},
             {"expect": "text", "sel": f"#{count}", "equals": "2"}),
        item("persist", f"The {noun}s survive a page reload (localStorage).",
             {"fill": f"#{inp}", "value": b}, {"click": f"#{add}"},
             {"reload": True},
             {"expect": "text", "sel": f"#{lst} li .label", "equals": b}),
    ]
    broken = [
        breaking(gold, "no-persistence", ["persist"],
                 (f'let entries = JSON.parse(localStorage.getItem(KEY) || "[]");', "let entries = [];")),
        breaking(gold, "adds-blank-and-wrong-delete", ["empty", "delete"],
                 ("  if (!text) return;\n", ""),
                 ("removeEntry(i));", "removeEntry(entries.length - 1));")),
        breaking(gold, "stale-count", ["count"],
                 (f'document.getElementById("{count}").textContent = String(entries.length);',
                  f'document.getElementById("{count}").textContent = String(Math.min(entries.length, 1));')),
    ]
    request = (f"A small list of {noun}s. An input #{inp} and a button #{add} labelled '{label}' add a {noun}; "
               f"each {noun} is an <li> in <ul id=\"{lst}\"> holding a <span class=\"label\"> with its text and a "
               f"'Delete' button with class 'delete'. #{count} shows the number of {noun}s. The list is kept in "
               f"localStorage so it survives a reload.")
    return task(f"todo-{i + 1:02d}", "todo", request, rubric, gold, [broken[i % 3]] if i < 3 else broken,
                difficulty="easy" if i < 3 else "medium", split="test" if i == 5 else "train")


FAMILIES = [todo]
