"""React apps: the component is JSX, compiled with esbuild and mounted in a fixed page."""

from __future__ import annotations

import json
from typing import Any

from ._util import breaking, family, fill, item, task

RATING_VARIANTS = [("Rate this recipe", 5), ("How was your stay?", 5), ("Rate the movie", 10)]

RATING_JSX = """import React, { useState } from "react";

export default function App() {
  const [rating, setRating] = useState(0);
  const [hover, setHover] = useState(0);
  const shown = hover || rating;
  const stars = Array.from({ length: ${n} }, (_, i) => i + 1);
  return (
    <div>
      <h1>${title}</h1>
      <div id="stars" onMouseLeave={() => setHover(0)}>
        {stars.map((s) => (
          <button
            key={s}
            className={s <= shown ? "star filled" : "star"}
            aria-label={s + " stars"}
            onClick={() => setRating(s)}
            onMouseEnter={() => setHover(s)}
          >
            ★
          </button>
        ))}
      </div>
      <p id="rating">{rating ? rating + " / ${n}" : "Not rated"}</p>
      <button id="clear-rating" onClick={() => setRating(0)}>Clear</button>
    </div>
  );
}
"""


@family(len(RATING_VARIANTS))
def rating(i: int) -> dict[str, Any]:
    """Star rating widget as a React component (three variants)."""
    title, n = RATING_VARIANTS[i]
    gold = fill(RATING_JSX, title=title, n=n)
    star = lambda k: f"#stars .star:nth-child({k})"  # noqa: E731
    rubric = [
        item(
            "rate",
            f"Clicking the third star shows '3 / {n}' in #rating (under the title, with all {n} stars).",
            {"click": star(3)},
            {"expect": "text", "sel": "#rating", "equals": f"3 / {n}"},
            {"expect": "count", "sel": "#stars .star", "equals": n},
            {"expect": "text", "sel": "h1", "equals": title},
        ),
        item(
            "filled",
            "Stars up to the chosen one have the class 'filled', later ones do not.",
            {"click": star(4)},
            {"hover": "#rating"},  # the mouse leaves the stars: what shows now is the rating
            {"expect": "class", "sel": star(1), "has": "filled"},
            {"expect": "class", "sel": star(4), "has": "filled"},
            {"expect": "class", "sel": star(5), "lacks": "filled"},
        ),
        item(
            "change",
            "Clicking another star changes the rating; clicking the same star again keeps it.",
            {"click": star(5)},
            {"click": star(2)},
            {"expect": "text", "sel": "#rating", "equals": f"2 / {n}"},
            {"click": star(2)},
            {"expect": "text", "sel": "#rating", "equals": f"2 / {n}"},
        ),
        item(
            "clear",
            "#clear-rating goes back to 'Not rated', with no star 'filled'.",
            {"click": star(2)},
            {"expect": "text", "sel": "#rating", "equals": f"2 / {n}"},
            {"click": "#clear-rating"},
            {"expect": "text", "sel": "#rating", "equals": "Not rated"},
            # the mouse is on #clear-rating now: no preview either
            {"expect": "class", "sel": star(1), "lacks": "filled"},
        ),
        item(
            "hover",
            "Hovering a star previews it (stars up to it get 'filled') without rating; leaving ends the preview.",
            {"hover": star(4)},
            {"expect": "class", "sel": star(3), "has": "filled"},
            {"expect": "text", "sel": "#rating", "equals": "Not rated"},
            {"hover": "#rating"},
            {"expect": "class", "sel": star(3), "lacks": "filled"},
            # the preview may show fewer stars than the rating
            {"click": star(4)},
            {"hover": star(2)},
            {"expect": "class", "sel": star(3), "lacks": "filled"},
            {"expect": "text", "sel": "#rating", "equals": f"4 / {n}"},
        ),
    ]
    broken = [
        breaking(
            gold,
            "clear-does-nothing",
            ["clear"],
            ('<button id="clear-rating" onClick={() => setRating(0)}>', '<button id="clear-rating">'),
        ),
        breaking(
            gold,
            "only-one-filled",
            ["filled", "hover"],
            ('s <= shown ? "star filled" : "star"', 's === shown ? "star filled" : "star"'),
        ),
        breaking(gold, "no-preview", ["hover"], ("const shown = hover || rating;", "const shown = rating;")),
        breaking(gold, "preview-only", ["filled"], ("const shown = hover || rating;", "const shown = hover;")),
        # (the stale preview also lights stars after #clear-rating)
        breaking(gold, "preview-sticks", ["clear", "hover"], (" onMouseLeave={() => setHover(0)}", "")),
        breaking(
            gold,
            "preview-never-below-rating",
            ["hover"],
            ("const shown = hover || rating;", "const shown = Math.max(hover, rating);"),
        ),
        breaking(gold, "no-title", ["rate"], (f"<h1>{title}</h1>", "<h1>Rating</h1>")),
        breaking(
            gold,
            "click-again-clears",
            ["change"],
            ("onClick={() => setRating(s)}", "onClick={() => setRating(rating === s ? 0 : s)}"),
        ),
    ]
    if n != 5:
        broken.append(breaking(gold, "five-stars", ["rate"], (f"{{ length: {n} }}", "{ length: 5 }")))
    # the stars light from their own state, which #clear-rating forgets: 'Not rated' under lit stars
    clear_keeps_stars = breaking(
        gold,
        "clear-keeps-stars",
        ["clear"],
        ("  const shown = hover || rating;", "  const [lit, setLit] = useState(0);\n  const shown = hover || lit;"),
        ("onClick={() => setRating(s)}", "onClick={() => { setRating(s); setLit(s); }}"),
    )
    request = (
        f"A React star-rating widget titled '{title}' (an <h1>): #stars holds exactly {n} buttons with class "
        "'star', as its only children, star k being the k-th of them (in document order). Clicking "
        f"star k rates k: #rating shows 'k / {n}' ('Not rated' before). Stars 1..k have the extra class "
        "'filled'; hovering a star previews the same way without changing the rating (#rating keeps showing "
        "the rating). Only #clear-rating resets to 'Not rated', with no star filled (clicking the rated star "
        "again keeps the rating)."
    )
    return task(
        f"react-rating-{i + 1:02d}",
        "react-rating",
        request,
        rubric,
        gold,
        [broken[i % 3], *broken[3:], *([clear_keeps_stars] if i < 2 else [])],  # the hover cheats in every variant
        difficulty="easy",
        kind="react",
        split="test" if i == 2 else "train",
    )


CART_VARIANTS = [
    ("Bakery", [("bread", "Bread", 3.5), ("croissant", "Croissant", 1.75), ("cake", "Cake", 12.0)]),
    ("Stationery", [("pen", "Pen", 1.2), ("notebook", "Notebook", 4.5), ("stapler", "Stapler", 8.99)]),
    ("Garden", [("seeds", "Seeds", 2.25), ("pot", "Pot", 6.0), ("gloves", "Gloves", 9.5)]),
]

CART_JSX = """import React, { useState } from "react";

const PRODUCTS = ${products};

export default function App() {
  const [cart, setCart] = useState({});
  const add = (id) => setCart((c) => ({ ...c, [id]: (c[id] || 0) + 1 }));
  const remove = (id) => setCart((c) => { const next = { ...c }; delete next[id]; return next; });
  const count = Object.values(cart).reduce((a, b) => a + b, 0);
  const total = PRODUCTS.reduce((sum, p) => sum + (cart[p.id] || 0) * p.price, 0);
  return (
    <div>
      <h1>${shop} shop</h1>
      <ul id="products">
        {PRODUCTS.map((p) => (
          <li key={p.id}>
            {p.name} ($${p.price.toFixed(2)}){" "}
            <button id={"add-" + p.id} onClick={() => add(p.id)}>Add to cart</button>
          </li>
        ))}
      </ul>
      <h2>Cart (<span id="cart-count">{count}</span>)</h2>
      <ul id="cart">
        {PRODUCTS.filter((p) => cart[p.id]).map((p) => (
          <li key={p.id}>
            <span className="name">{p.name}</span> × <span className="qty">{cart[p.id]}</span>{" "}
            <button className="remove" onClick={() => remove(p.id)}>Remove</button>
          </li>
        ))}
      </ul>
      <p id="total">Total: $${total.toFixed(2)}</p>
    </div>
  );
}
"""


@family(len(CART_VARIANTS))
def cart(i: int) -> dict[str, Any]:
    """Shopping cart as a React component (three shops)."""
    shop, products = CART_VARIANTS[i]
    gold = fill(CART_JSX, shop=shop, products=json.dumps([{"id": k, "name": n, "price": p} for k, n, p in products]))
    (a, an, ap), (b, bn, bp), (c, cn, cp) = products
    rubric = [
        item(
            "add",
            "'Add to cart' (#add-<id>) puts the product in the cart; #cart-count shows 1.",
            {"click": f"#add-{a}"},
            {"expect": "text", "sel": "#cart-count", "equals": "1"},
            {"expect": "texts", "sel": "#cart li .name", "equals": [an]},
        ),
        item(
            "qty",
            "Adding the same product twice shows quantity 2 and #cart-count 2.",
            {"click": f"#add-{a}"},
            {"click": f"#add-{a}"},
            {"expect": "text", "sel": "#cart li .qty", "equals": "2"},
            {"expect": "text", "sel": "#cart-count", "equals": "2"},
        ),
        item(
            "total",
            "#total shows the sum of price × quantity as 'Total: $X.YZ'; each line its own quantity.",
            {"click": f"#add-{a}"},
            {"click": f"#add-{a}"},
            {"click": f"#add-{b}"},
            {"click": f"#add-{c}"},
            {"expect": "text", "sel": "#total", "equals": f"Total: ${2 * ap + bp + cp:.2f}"},
            {"expect": "texts", "sel": "#cart li .qty", "equals": ["2", "1", "1"]},
            {"expect": "text", "sel": "#cart-count", "equals": "4"},
        ),
        item(
            "remove",
            "A cart line's 'Remove' button (class 'remove') removes that product only; re-adding starts at 1.",
            {"click": f"#add-{a}"},
            {"click": f"#add-{c}"},
            {"click": "#cart li:nth-child(2) .remove"},  # the second line (not the 2nd product), then the first
            {"expect": "texts", "sel": "#cart li .name", "equals": [an]},
            {"click": f"#add-{c}"},
            {"click": "#cart li:first-child .remove"},
            {"expect": "texts", "sel": "#cart li .name", "equals": [cn]},
            {"expect": "texts", "sel": "#cart li .qty", "equals": ["1"]},
            {"expect": "text", "sel": "#cart-count", "equals": "1"},
        ),
        item(
            "remove_total",
            "Removing everything brings #total back to 'Total: $0.00' and #cart-count to 0.",
            {"click": f"#add-{a}"},
            {"click": f"#add-{a}"},
            {"expect": "text", "sel": "#total", "equals": f"Total: ${2 * ap:.2f}"},
            {"click": "#cart li:first-child .remove"},
            {"expect": "text", "sel": "#total", "equals": "Total: $0.00"},
            {"expect": "text", "sel": "#cart-count", "equals": "0"},
        ),
        item(
            "order",
            "Cart lines follow the product order, whatever order they were added in.",
            {"click": f"#add-{c}"},
            {"click": f"#add-{a}"},
            {"click": f"#add-{b}"},
            {"expect": "texts", "sel": "#cart li .name", "equals": [an, bn, cn]},  # not added, nor id order
        ),
    ]
    broken = [
        breaking(
            gold,
            "distinct-count",
            ["qty", "total"],
            (
                "const count = Object.values(cart).reduce((a, b) => a + b, 0);",
                "const count = Object.keys(cart).length;",
            ),
        ),
        breaking(
            gold,
            "total-ignores-qty",
            ["total", "remove_total"],
            ("sum + (cart[p.id] || 0) * p.price", "sum + (cart[p.id] ? p.price : 0)"),
        ),
        breaking(gold, "removes-last", ["remove"], ("delete next[id];", "delete next[Object.keys(next).pop()];")),
        breaking(
            gold,
            "lines-in-adding-order",
            ["order"],
            (
                "{PRODUCTS.filter((p) => cart[p.id]).map((p) => (",
                "{Object.keys(cart).map((id) => PRODUCTS.find((p) => p.id === id)).map((p) => (",
            ),
        ),
        breaking(
            gold,
            "count-not-lowered-on-remove",
            ["remove", "remove_total"],
            (
                "const add = (id) => setCart((c) => ({ ...c, [id]: (c[id] || 0) + 1 }));",
                "const add = (id) => { setCount((k) => k + 1); setCart((c) => ({ ...c, [id]: (c[id] || 0) + 1 })); };",
            ),
            ("const count = Object.values(cart).reduce((a, b) => a + b, 0);", "const [count, setCount] = useState(0);"),
        ),
        breaking(
            gold,
            "qty-shows-unit-count",
            ["total"],
            ('<span className="qty">{cart[p.id]}</span>', '<span className="qty">{count}</span>'),
        ),
        breaking(
            gold,
            "remove-hides-line-keeps-qty",
            ["remove"],
            (
                "const [cart, setCart] = useState({});",
                "const [cart, setCart] = useState({});\n  const [gone, setGone] = useState({});",
            ),
            (
                "const add = (id) => setCart((c) => ({ ...c, [id]: (c[id] || 0) + 1 }));",
                "const add = (id) => { setGone((g) => ({ ...g, [id]: false })); "
                "setCart((c) => ({ ...c, [id]: (c[id] || 0) + 1 })); };",
            ),
            (
                "const remove = (id) => setCart((c) => { const next = { ...c }; delete next[id]; return next; });",
                "const remove = (id) => setGone((g) => ({ ...g, [id]: true }));",
            ),
            (
                "const count = Object.values(cart).reduce((a, b) => a + b, 0);",
                "const count = PRODUCTS.reduce((s, p) => s + (gone[p.id] ? 0 : cart[p.id] || 0), 0);",
            ),
            ("sum + (cart[p.id] || 0) * p.price", "sum + (gone[p.id] ? 0 : cart[p.id] || 0) * p.price"),
            (
                "{PRODUCTS.filter((p) => cart[p.id]).map((p) => (",
                "{PRODUCTS.filter((p) => cart[p.id] && !gone[p.id]).map((p) => (",
            ),
        ),
        breaking(
            gold,
            "remove-by-catalogue-index",
            ["remove"],
            ("{PRODUCTS.filter((p) => cart[p.id]).map((p) => (", "{PRODUCTS.filter((p) => cart[p.id]).map((p, i) => ("),
            ("onClick={() => remove(p.id)}", "onClick={() => remove(PRODUCTS[i].id)}"),
        ),
        breaking(
            gold,
            "lines-sorted-by-id",
            ["order"],
            (
                "{PRODUCTS.filter((p) => cart[p.id]).map((p) => (",
                "{Object.keys(cart).sort().map((id) => PRODUCTS.find((p) => p.id === id)).map((p) => (",
            ),
        ),
        breaking(
            gold,
            "count-is-last-qty",
            ["total", "remove"],
            (
                "const add = (id) => setCart((c) => ({ ...c, [id]: (c[id] || 0) + 1 }));",
                "const add = (id) => { setCount((cart[id] || 0) + 1); setCart((c) => ({ ...c, [id]: (c[id] || 0) + 1 })); };",
            ),
            ("const remove = (id) => setCart((c) => {", "const remove = (id) => { setCount(0); setCart((c) => {"),
            ("delete next[id]; return next; });", "delete next[id]; return next; }); };"),
            ("const count = Object.values(cart).reduce((a, b) => a + b, 0);", "const [count, setCount] = useState(0);"),
        ),
        breaking(
            gold,
            "total-skips-last-product",
            ["total"],
            (
                "const total = PRODUCTS.reduce((sum, p) => sum + (cart[p.id] || 0) * p.price, 0);",
                "let total = 0;\n  for (let i = 0; i < PRODUCTS.length - 1; i++) "
                "total += (cart[PRODUCTS[i].id] || 0) * PRODUCTS[i].price;",
            ),
        ),
    ]
    request = (
        f"A React shopping cart for a {shop.lower()} shop selling "
        + ", ".join(f"{n} (id '{k}', ${p:.2f})" for k, n, p in products)
        + ". Each product has an 'Add to cart' button "
        '#add-<id>. The cart <ul id="cart"> has one <li> per product in it, in the product order, with '
        "<span class=\"name\">, <span class=\"qty\"> and a 'Remove' button (class 'remove') that takes the "
        "whole line out. .qty shows the line's quantity and #cart-count the number of units, both as bare numbers; "
        "#total shows 'Total: $X.YZ'."
    )
    return task(
        f"react-cart-{i + 1:02d}",
        "react-cart",
        request,
        rubric,
        gold,
        [broken[i % 3], *broken[3:5], broken[5 + i], broken[8 + i]],  # each later mutant in one shop
        difficulty="medium",
        kind="react",
        split="test" if i == 2 else "train",
    )


FAMILIES = [rating, cart]
