"""Seeded generator of drawing tasks: a scene of shapes, written as SVG or as TikZ.

``scene(seed, difficulty)`` draws a scene with ``random.Random(seed)`` (the same seed gives
the same scene on every machine); ``to_svg`` and ``to_tikz`` write it as source, which is
the task's gold program. Scenes live on a 256 x 256 canvas with y pointing down (SVG's
user units); TikZ gets it in centimetres with y up (``CANVAS_CM`` = 8: 32 units per cm).

Difficulty levels:

* ``easy``: 1-3 plain shapes (rectangles, circles, ellipses, lines, triangles).
* ``medium``: an icon-like composition (house, sun, face, tree, flag, target, traffic
  light, envelope), 4-12 elements.
* ``hard``: a simple chart or diagram (bar chart, line chart, pie chart, flow diagram),
  10-30 elements, with text labels.
"""

from __future__ import annotations

import math
import random
from typing import Any

SIZE = 256
UNITS_PER_CM = 32.0
DIFFICULTIES = ("easy", "medium", "hard")

PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (231, 76, 60),
    "blue": (52, 152, 219),
    "green": (46, 204, 113),
    "orange": (230, 126, 34),
    "purple": (155, 89, 182),
    "yellow": (241, 196, 15),
    "teal": (26, 188, 156),
    "navy": (44, 62, 80),
    "gray": (149, 165, 166),
    "brown": (141, 85, 36),
    "pink": (253, 121, 168),
    "black": (20, 20, 20),
}
LIGHT: dict[str, tuple[int, int, int]] = {"sky": (214, 234, 248), "sand": (250, 240, 215), "mint": (225, 245, 234)}

Shape = dict[str, Any]


def _color(rng: random.Random, exclude: tuple[str, ...] = ()) -> str:
    return rng.choice([c for c in PALETTE if c not in exclude])


# --------------------------------------------------------------------------- scenes
def scene(seed: int, difficulty: str) -> list[Shape]:
    """The shapes of the scene for ``seed`` at ``difficulty`` (module docstring)."""
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {DIFFICULTIES}, got {difficulty!r}")
    rng = random.Random(f"{difficulty}:{seed}")
    if difficulty == "easy":
        return [_random_shape(rng) for _ in range(rng.randint(1, 3))]
    if difficulty == "medium":
        return rng.choice(_ICONS)(rng)
    return rng.choice(_CHARTS)(rng)


def _random_shape(rng: random.Random) -> Shape:
    kind = rng.choice(["rect", "circle", "ellipse", "line", "polygon"])
    fill = _color(rng)
    if kind == "rect":
        x, y = rng.randint(16, 150), rng.randint(16, 150)
        return {
            "kind": "rect",
            "x": x,
            "y": y,
            "w": rng.randint(30, 240 - x),
            "h": rng.randint(30, 240 - y),
            "fill": fill,
        }
    if kind == "circle":
        r = rng.randint(16, 70)
        return {
            "kind": "circle",
            "cx": rng.randint(r + 8, 248 - r),
            "cy": rng.randint(r + 8, 248 - r),
            "r": r,
            "fill": fill,
        }
    if kind == "ellipse":
        rx, ry = rng.randint(20, 90), rng.randint(12, 60)
        return {
            "kind": "ellipse",
            "cx": rng.randint(rx + 8, 248 - rx),
            "cy": rng.randint(ry + 8, 248 - ry),
            "rx": rx,
            "ry": ry,
            "fill": fill,
        }
    if kind == "line":
        return {
            "kind": "line",
            "x1": rng.randint(10, 120),
            "y1": rng.randint(10, 246),
            "x2": rng.randint(136, 246),
            "y2": rng.randint(10, 246),
            "stroke": fill,
            "sw": rng.choice([4, 6, 8, 10]),
        }
    pts = [(rng.randint(16, 240), rng.randint(16, 240)) for _ in range(3)]
    if (
        abs((pts[1][0] - pts[0][0]) * (pts[2][1] - pts[0][1]) - (pts[2][0] - pts[0][0]) * (pts[1][1] - pts[0][1]))
        < 2000
    ):
        pts = [(40, 216), (128, 40), (216, 216)]
    return {"kind": "polygon", "points": pts, "fill": fill}


def _house(rng: random.Random) -> list[Shape]:
    x, w = rng.randint(40, 70), rng.randint(110, 150)
    top, bottom = rng.randint(100, 130), 220
    wall, roof = _color(rng, ("black",)), _color(rng, ("black",))
    out: list[Shape] = (
        [{"kind": "rect", "x": 0, "y": 0, "w": 256, "h": 256, "fill": "sky"}] if rng.random() < 0.5 else []
    )
    out += [
        {"kind": "rect", "x": x, "y": top, "w": w, "h": bottom - top, "fill": wall},
        {
            "kind": "polygon",
            "points": [(x - 12, top), (x + w // 2, top - rng.randint(50, 80)), (x + w + 12, top)],
            "fill": roof,
        },
        {"kind": "rect", "x": x + w // 2 - 14, "y": bottom - 50, "w": 28, "h": 50, "fill": "brown"},
        {"kind": "rect", "x": x + 12, "y": top + 18, "w": 26, "h": 26, "fill": "yellow"},
    ]
    if rng.random() < 0.6:
        out.append({"kind": "rect", "x": x + w - 38, "y": top + 18, "w": 26, "h": 26, "fill": "yellow"})
    return out


def _sun(rng: random.Random) -> list[Shape]:
    cx, cy, r = rng.randint(100, 156), rng.randint(100, 156), rng.randint(30, 45)
    n, col = rng.choice([6, 8, 10, 12]), rng.choice(["yellow", "orange"])
    out: list[Shape] = [{"kind": "circle", "cx": cx, "cy": cy, "r": r, "fill": col}]
    for i in range(n):
        a = 2 * math.pi * i / n
        out.append(
            {
                "kind": "line",
                "x1": round(cx + (r + 10) * math.cos(a)),
                "y1": round(cy + (r + 10) * math.sin(a)),
                "x2": round(cx + (r + 40) * math.cos(a)),
                "y2": round(cy + (r + 40) * math.sin(a)),
                "stroke": col,
                "sw": 6,
            }
        )
    return out


def _face(rng: random.Random) -> list[Shape]:
    cx, cy, r = 128 + rng.randint(-20, 20), 128 + rng.randint(-20, 20), rng.randint(70, 95)
    eye = rng.randint(8, 14)
    smile = [(cx - r // 2 + i * r // 8, cy + r // 3 + round(r / 5 * math.sin(math.pi * i / 8))) for i in range(9)]
    return [
        {"kind": "circle", "cx": cx, "cy": cy, "r": r, "fill": rng.choice(["yellow", "orange", "pink"])},
        {"kind": "circle", "cx": cx - r // 3, "cy": cy - r // 4, "r": eye, "fill": "navy"},
        {"kind": "circle", "cx": cx + r // 3, "cy": cy - r // 4, "r": eye, "fill": "navy"},
        {"kind": "polyline", "points": smile, "stroke": "navy", "sw": 6},
    ]


def _tree(rng: random.Random) -> list[Shape]:
    x = rng.randint(90, 150)
    out: list[Shape] = [{"kind": "rect", "x": 0, "y": 210, "w": 256, "h": 46, "fill": "green"}]
    out.append({"kind": "rect", "x": x - 12, "y": 140, "w": 24, "h": 75, "fill": "brown"})
    for dx, dy, r in [(0, -50, 45), (-35, -15, 35), (35, -15, 35)][: rng.randint(2, 3)] + [(0, 0, 32)]:
        out.append({"kind": "circle", "cx": x + dx, "cy": 120 + dy, "r": r, "fill": rng.choice(["green", "teal"])})
    return out


def _flag(rng: random.Random) -> list[Shape]:
    n = rng.choice([2, 3])
    cols = rng.sample(list(PALETTE), n)
    out: list[Shape] = [{"kind": "rect", "x": 40, "y": 30, "w": 8, "h": 200, "fill": "navy"}]
    vertical = rng.random() < 0.5
    for i, c in enumerate(cols):
        if vertical:
            out.append({"kind": "rect", "x": 48 + i * 168 // n, "y": 40, "w": 168 // n, "h": 110, "fill": c})
        else:
            out.append({"kind": "rect", "x": 48, "y": 40 + i * 110 // n, "w": 168, "h": 110 // n, "fill": c})
    if rng.random() < 0.5:
        out.append({"kind": "circle", "cx": 132, "cy": 95, "r": 22, "fill": _color(rng, tuple(cols))})
    return out


def _target(rng: random.Random) -> list[Shape]:
    cx, cy = 128 + rng.randint(-15, 15), 128 + rng.randint(-15, 15)
    a, b = rng.sample(list(PALETTE), 2)
    n = rng.randint(3, 5)
    return [
        {"kind": "circle", "cx": cx, "cy": cy, "r": 100 - i * (90 // n), "fill": a if i % 2 == 0 else b}
        for i in range(n)
    ]


def _traffic(rng: random.Random) -> list[Shape]:
    x = rng.randint(90, 130)
    out: list[Shape] = [
        {"kind": "rect", "x": x, "y": 30, "w": 60, "h": 180, "fill": "navy"},
        {"kind": "rect", "x": x + 24, "y": 210, "w": 12, "h": 40, "fill": "gray"},
    ]
    for i, c in enumerate(["red", "yellow", "green"]):
        out.append(
            {"kind": "circle", "cx": x + 30, "cy": 63 + 57 * i, "r": 22, "fill": c if rng.random() < 0.7 else "gray"}
        )
    return out


def _envelope(rng: random.Random) -> list[Shape]:
    x, y, w, h = rng.randint(30, 50), rng.randint(60, 90), rng.randint(150, 180), rng.randint(100, 120)
    body, line = rng.choice(["sand", "sky", "mint"]), _color(rng, ("yellow",))
    return [
        {"kind": "rect", "x": x, "y": y, "w": w, "h": h, "fill": body},
        {"kind": "polyline", "points": [(x, y), (x + w // 2, y + h // 2), (x + w, y)], "stroke": line, "sw": 6},
        {"kind": "line", "x1": x, "y1": y + h, "x2": x + w // 3, "y2": y + h // 3, "stroke": line, "sw": 4},
        {"kind": "line", "x1": x + w, "y1": y + h, "x2": x + 2 * w // 3, "y2": y + h // 3, "stroke": line, "sw": 4},
    ]


def _axes(out: list[Shape]) -> None:
    out.append({"kind": "line", "x1": 32, "y1": 224, "x2": 240, "y2": 224, "stroke": "black", "sw": 3})
    out.append({"kind": "line", "x1": 32, "y1": 224, "x2": 32, "y2": 16, "stroke": "black", "sw": 3})


def _bar_chart(rng: random.Random) -> list[Shape]:
    n = rng.randint(4, 8)
    out: list[Shape] = []
    for i in range(1, 4):
        out.append(
            {"kind": "line", "x1": 32, "y1": 224 - i * 50, "x2": 240, "y2": 224 - i * 50, "stroke": "gray", "sw": 1}
        )
    _axes(out)
    step = 200 // n
    col = _color(rng, ("gray", "black"))
    for i in range(n):
        h = rng.randint(20, 190)
        c = col if rng.random() < 0.7 else _color(rng, ("gray", "black"))
        out.append({"kind": "rect", "x": 40 + i * step, "y": 224 - h, "w": step - 8, "h": h, "fill": c})
        out.append(
            {
                "kind": "text",
                "x": 40 + i * step + (step - 8) // 2,
                "y": 244,
                "s": chr(65 + i),
                "size": 14,
                "fill": "black",
            }
        )
    return out


def _line_chart(rng: random.Random) -> list[Shape]:
    n = rng.randint(5, 9)
    out: list[Shape] = []
    _axes(out)
    for series in range(rng.randint(1, 2)):
        col = ["blue", "red"][series]
        pts = [(40 + i * 195 // (n - 1), rng.randint(30, 210)) for i in range(n)]
        out.append({"kind": "polyline", "points": pts, "stroke": col, "sw": 4})
        for x, y in pts:
            out.append({"kind": "circle", "cx": x, "cy": y, "r": 5, "fill": col})
    return out


def _pie_chart(rng: random.Random) -> list[Shape]:
    n = rng.randint(3, 6)
    weights = [rng.randint(1, 6) for _ in range(n)]
    total, start = sum(weights), 0.0
    cols = rng.sample([c for c in PALETTE if c not in ("black", "gray")], n)
    cx, cy, r = 110, 128, 90
    out: list[Shape] = []
    for i, w in enumerate(weights):
        sweep = 360.0 * w / total
        out.append(
            {
                "kind": "wedge",
                "cx": cx,
                "cy": cy,
                "r": r,
                "a0": round(start, 2),
                "a1": round(start + sweep, 2),
                "fill": cols[i],
            }
        )
        start += sweep
    for i in range(n):
        out.append({"kind": "rect", "x": 216, "y": 40 + i * 30, "w": 18, "h": 18, "fill": cols[i]})
    return out


def _flow(rng: random.Random) -> list[Shape]:
    n = rng.randint(3, 4)
    vertical = rng.random() < 0.5
    out: list[Shape] = []
    boxes = []
    for i in range(n):
        if vertical:
            x, y, w, h = 78, 14 + i * (232 // n), 100, 232 // n - 26
        else:
            x, y, w, h = 8 + i * (248 // n), 104, 248 // n - 22, 48
        boxes.append((x, y, w, h))
        out.append(
            {
                "kind": "rect",
                "x": x,
                "y": y,
                "w": w,
                "h": h,
                "fill": rng.choice(["sky", "sand", "mint"]),
                "stroke": "navy",
                "sw": 2,
            }
        )
        out.append({"kind": "text", "x": x + w // 2, "y": y + h // 2 + 5, "s": f"S{i + 1}", "size": 14, "fill": "navy"})
    for (x, y, w, h), (x2, y2, _w2, _h2) in zip(boxes, boxes[1:], strict=False):
        if vertical:
            a, b = (x + w // 2, y + h), (x + w // 2, y2)
            head = [(b[0] - 6, b[1] - 9), b, (b[0] + 6, b[1] - 9)]
        else:
            a, b = (x + w, y + h // 2), (x2, y + h // 2)
            head = [(b[0] - 9, b[1] - 6), b, (b[0] - 9, b[1] + 6)]
        out.append({"kind": "line", "x1": a[0], "y1": a[1], "x2": b[0], "y2": b[1], "stroke": "navy", "sw": 2})
        out.append({"kind": "polygon", "points": head, "fill": "navy"})
    return out


_ICONS = [_house, _sun, _face, _tree, _flag, _target, _traffic, _envelope]
_CHARTS = [_bar_chart, _line_chart, _pie_chart, _flow]


def rgb(name: str) -> tuple[int, int, int]:
    """The RGB value of a palette colour."""
    return PALETTE.get(name) or LIGHT[name]


# --------------------------------------------------------------------------- SVG
def _svg_paint(shape: Shape) -> str:
    out = []
    if "fill" in shape:
        out.append(f'fill="rgb{rgb(shape["fill"])}"'.replace(" ", ""))
    if "stroke" in shape:
        out.append(f'stroke="rgb{rgb(shape["stroke"])}"'.replace(" ", "") + f' stroke-width="{shape["sw"]}"')
    return " ".join(out)


def _svg_shape(s: Shape) -> str:
    k, paint = s["kind"], _svg_paint(s)
    if k == "rect":
        return f'<rect x="{s["x"]}" y="{s["y"]}" width="{s["w"]}" height="{s["h"]}" {paint}/>'
    if k == "circle":
        return f'<circle cx="{s["cx"]}" cy="{s["cy"]}" r="{s["r"]}" {paint}/>'
    if k == "ellipse":
        return f'<ellipse cx="{s["cx"]}" cy="{s["cy"]}" rx="{s["rx"]}" ry="{s["ry"]}" {paint}/>'
    if k == "line":
        return f'<line x1="{s["x1"]}" y1="{s["y1"]}" x2="{s["x2"]}" y2="{s["y2"]}" {paint} stroke-linecap="round"/>'
    if k in ("polygon", "polyline"):
        pts = " ".join(f"{x},{y}" for x, y in s["points"])
        extra = ' fill="none" stroke-linejoin="round"' if k == "polyline" else ""
        return f'<{k} points="{pts}" {paint}{extra}/>'
    if k == "wedge":
        cx, cy, r = s["cx"], s["cy"], s["r"]
        a0, a1 = math.radians(s["a0"]), math.radians(s["a1"])
        x0, y0 = cx + r * math.cos(a0), cy - r * math.sin(a0)
        x1, y1 = cx + r * math.cos(a1), cy - r * math.sin(a1)
        large = 1 if s["a1"] - s["a0"] > 180 else 0
        return f'<path d="M{cx},{cy} L{x0:.2f},{y0:.2f} A{r},{r} 0 {large},0 {x1:.2f},{y1:.2f} Z" {paint}/>'
    if k == "text":
        return (
            f'<text x="{s["x"]}" y="{s["y"]}" font-family="DejaVu Sans" font-size="{s["size"]}" '
            f'text-anchor="middle" {paint}>{s["s"]}</text>'
        )
    raise ValueError(f"unknown shape kind {k!r}")


def to_svg(shapes: list[Shape]) -> str:
    """The scene as an SVG document, one element per line."""
    body = "\n".join("  " + _svg_shape(s) for s in shapes)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{SIZE}" height="{SIZE}" viewBox="0 0 {SIZE} {SIZE}">\n'
        f"{body}\n</svg>\n"
    )


# --------------------------------------------------------------------------- TikZ
def _cm(v: float) -> str:
    return f"{v / UNITS_PER_CM:.3f}".rstrip("0").rstrip(".")


def _pt(x: float, y: float) -> str:
    return f"({_cm(x)},{_cm(SIZE - y)})"


def _tikz_color(name: str) -> str:
    r, g, b = rgb(name)
    return f"{{rgb,255:red,{r};green,{g};blue,{b}}}"


def _tikz_shape(s: Shape) -> str:
    k = s["kind"]
    opts = []
    if "fill" in s and k != "text":
        opts.append(f"fill={_tikz_color(s['fill'])}")
    if "stroke" in s:
        opts.append(f"draw={_tikz_color(s['stroke'])}, line width={_cm(s['sw'])}cm")
    cmd = "\\filldraw" if ("fill" in s and "stroke" in s) else "\\fill" if "fill" in s else "\\draw"
    o = f"[{', '.join(opts)}]"
    if k == "rect":
        return f"{cmd}{o} {_pt(s['x'], s['y'] + s['h'])} rectangle {_pt(s['x'] + s['w'], s['y'])};"
    if k == "circle":
        return f"{cmd}{o} {_pt(s['cx'], s['cy'])} circle ({_cm(s['r'])});"
    if k == "ellipse":
        return f"{cmd}{o} {_pt(s['cx'], s['cy'])} ellipse ({_cm(s['rx'])} and {_cm(s['ry'])});"
    if k == "line":
        return f"\\draw[{', '.join(opts)}, line cap=round] {_pt(s['x1'], s['y1'])} -- {_pt(s['x2'], s['y2'])};"
    if k == "polygon":
        return f"{cmd}{o} " + " -- ".join(_pt(x, y) for x, y in s["points"]) + " -- cycle;"
    if k == "polyline":
        return f"\\draw[{', '.join(opts)}, line join=round] " + " -- ".join(_pt(x, y) for x, y in s["points"]) + ";"
    if k == "wedge":
        return (
            f"{cmd}{o} {_pt(s['cx'], s['cy'])} -- ++({s['a0']}:{_cm(s['r'])}) "
            f"arc ({s['a0']}:{s['a1']}:{_cm(s['r'])}) -- cycle;"
        )
    if k == "text":
        size = "\\Large" if s["size"] <= 14 else "\\LARGE"
        return (
            f"\\node[text={_tikz_color(s['fill'])}, font=\\sffamily{size}, anchor=base] "
            f"at {_pt(s['x'], s['y'])} {{{s['s']}}};"
        )
    raise ValueError(f"unknown shape kind {k!r}")


def to_tikz(shapes: list[Shape]) -> str:
    """The scene as a ``tikzpicture`` on the fixed canvas, one command per line."""
    body = "\n".join("  " + _tikz_shape(s) for s in shapes)
    return f"\\begin{{tikzpicture}}\n{body}\n\\end{{tikzpicture}}\n"


def gold_code(language: str, seed: int, difficulty: str) -> str:
    """The gold program of a generated task."""
    shapes = scene(seed, difficulty)
    return to_svg(shapes) if language == "svg" else to_tikz(shapes)


def index(language: str, per_difficulty: int = 80, test_every: int = 5) -> list[dict[str, Any]]:
    """Task index entries of the bundled set: seeds, difficulty and split (every 5th is test)."""
    out = []
    for difficulty in DIFFICULTIES:
        for seed in range(per_difficulty):
            out.append(
                {
                    "id": f"{language}-{difficulty}-{seed:03d}",
                    "generator": "scene-v1",
                    "language": language,
                    "seed": seed,
                    "difficulty": difficulty,
                    "split": "test" if seed % test_every == test_every - 1 else "train",
                }
            )
    return out
