"""The bundled parts: parametric families of reference cadquery scripts.

Each family is a function ``(params) -> (gold script, descriptions)``; the bundled set is
every family applied to its parameter sets, so each part is a distinct script with its own
dimensions. Descriptions come at four levels of detail, as Text2CAD's levels:
``abstract`` (shape words only), ``beginner`` (the features), ``intermediate`` (features,
counts and proportions), ``expert`` (every dimension, in millimetres).

``python -m codegym.envs.cad.families`` rewrites ``assets/cad/parts.jsonl`` from here.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

LEVELS = ("abstract", "beginner", "intermediate", "expert")
HEADER = "import cadquery as cq\n\n"
Family = Callable[..., tuple[str, dict[str, str]]]


def _n(x: float) -> str:
    """A dimension as written in scripts and text: no trailing zeros."""
    return f"{x:g}"


def plate(L: float, W: float, T: float, rows: int, cols: int, d: float, margin: float) -> tuple[str, dict[str, str]]:
    """A rectangular plate with a grid of through-holes. Returns (gold script, descriptions by level)."""
    sx = (L - 2 * margin) / max(cols - 1, 1)
    sy = (W - 2 * margin) / max(rows - 1, 1)
    code = HEADER + (
        f'result = (\n    cq.Workplane("XY").box({_n(L)}, {_n(W)}, {_n(T)})\n'
        f'    .faces(">Z").workplane()\n'
        f"    .rarray({_n(sx)}, {_n(sy)}, {cols}, {rows})\n"
        f"    .hole({_n(d)})\n)\n"
    )
    n = rows * cols
    return code, {
        "abstract": "A flat rectangular plate with holes through it.",
        "beginner": f"A thin rectangular plate with a regular grid of {n} round through-holes.",
        "intermediate": f"A rectangular plate about {L / W:.1f} times as long as wide with a {rows} by {cols} grid of "
        f"equal through-holes, evenly spaced and inset from the edges.",
        "expert": f"A {_n(L)} x {_n(W)} x {_n(T)} mm plate centred on the origin (thickness along Z) with a grid of "
        f"{rows} rows (along Y) x {cols} columns (along X) of {_n(d)} mm through-holes, "
        f"hole centres {_n(margin)} mm from the plate edges (pitch {_n(sx)} mm in X, {_n(sy)} mm in Y).",
    }


def bracket(w: float, a: float, b: float, t: float, d: float, fillet: float) -> tuple[str, dict[str, str]]:
    """An L bracket with a hole in each leg and a filleted tip. Returns (gold script, descriptions by level)."""
    code = HEADER + (
        f"profile = [(0, 0), ({_n(a)}, 0), ({_n(a)}, {_n(t)}), ({_n(t)}, {_n(t)}), ({_n(t)}, {_n(b)}), (0, {_n(b)})]\n"
        f'result = cq.Workplane("XZ").polyline(profile).close().extrude({_n(w / 2)}, both=True)\n'
        f'hole_h = cq.Workplane("XY").center({_n((a + t) / 2)}, 0).circle({_n(d / 2)}).extrude({_n(t)})\n'
        f'hole_v = cq.Workplane("YZ").center(0, {_n((b + t) / 2)}).circle({_n(d / 2)}).extrude({_n(t)})\n'
        f"result = result.cut(hole_h).cut(hole_v)\n"
        f'result = result.edges("|Y").edges(">X").edges(">Z").fillet({_n(fillet)})\n'
    )
    return code, {
        "abstract": "An L-shaped angle bracket.",
        "beginner": "An L-shaped bracket made of two flat legs at a right angle, each leg with one mounting hole.",
        "intermediate": f"A right-angle bracket: a horizontal leg and a vertical leg of equal thickness, "
        f"{'longer than' if a > b else 'shorter than' if a < b else 'as long as'} the vertical one, "
        f"one round hole through the middle of each leg, and the tip of the horizontal leg rounded.",
        "expert": f"An L bracket {_n(w)} mm wide (along Y, centred): horizontal leg {_n(a)} mm long along X, "
        "vertical leg "
        f"{_n(b)} mm tall along Z, both {_n(t)} mm thick, outer corner at the origin. A {_n(d)} mm hole "
        f"through each leg, centred on the leg's free length; the top outer edge of the horizontal leg's "
        f"tip filleted with radius {_n(fillet)} mm.",
    }


def flange(
    D: float, t: float, hub_d: float, hub_h: float, bore: float, n: int, bolt_d: float, pcd: float
) -> tuple[str, dict[str, str]]:
    """A flange disc with a hub, a bore and a bolt circle. Returns (gold script, descriptions by level)."""
    code = HEADER + (
        f'disc = cq.Workplane("XY").circle({_n(D / 2)}).extrude({_n(t)})\n'
        f'hub = cq.Workplane("XY").workplane(offset={_n(t)}).circle({_n(hub_d / 2)}).extrude({_n(hub_h)})\n'
        f"result = disc.union(hub)\n"
        f'result = result.faces(">Z").workplane().hole({_n(bore)})\n'
        f'result = result.faces("<Z").workplane().polarArray({_n(pcd / 2)}, 0, 360, {n}).hole({_n(bolt_d)})\n'
    )
    return code, {
        "abstract": "A round flange.",
        "beginner": "A round flange: a disc with a raised hub, a central bore and a ring of bolt holes.",
        "intermediate": f"A circular flange with a raised cylindrical hub on one face, a bore through the centre and "
        f"{n} equally spaced bolt holes on a circle between the hub and the rim.",
        "expert": f"A flange disc {_n(D)} mm in diameter and {_n(t)} mm thick sitting on the XY plane (Z from 0), "
        "with a "
        f"hub {_n(hub_d)} mm in diameter rising {_n(hub_h)} mm above it; a {_n(bore)} mm bore through the "
        f"centre; {n} bolt holes of {_n(bolt_d)} mm equally spaced on a {_n(pcd)} mm pitch circle, "
        f"the first on the +X axis.",
    }


def shaft(
    D: float, L: float, key_w: float, key_d: float, key_l: float, step_d: float, step_l: float
) -> tuple[str, dict[str, str]]:
    """A stepped shaft with a rounded-end keyway. Returns (gold script, descriptions by level)."""
    code = HEADER + (
        f'body = cq.Workplane("XY").circle({_n(D / 2)}).extrude({_n(L)})\n'
        f'step = cq.Workplane("XY").workplane(offset={_n(L)}).circle({_n(step_d / 2)}).extrude({_n(step_l)})\n'
        f"result = body.union(step)\n"
        f'slot = (cq.Workplane("YZ").workplane(offset={_n(D / 2 - key_d)})\n'
        f"        .center(0, {_n(L / 2)}).slot2D({_n(key_l)}, {_n(key_w)}, 90).extrude({_n(key_d + 1)}))\n"
        f"result = result.cut(slot)\n"
    )
    return code, {
        "abstract": "A shaft with a keyway.",
        "beginner": "A round stepped shaft with a keyway slot cut into its side.",
        "intermediate": "A cylindrical shaft with a narrower step at one end and a rounded-end keyway slot cut along "
        "the middle of the main diameter, parallel to the axis.",
        "expert": f"A shaft along Z: main diameter {_n(D)} mm for {_n(L)} mm (Z from 0), "
        f"then a step of {_n(step_d)} mm "
        f"diameter and {_n(step_l)} mm length. A keyway on the +X side, centred at Z = {_n(L / 2)} mm: "
        f"{_n(key_l)} mm long with rounded ends, {_n(key_w)} mm wide, {_n(key_d)} mm deep.",
    }


def enclosure(L: float, W: float, H: float, wall: float, r: float) -> tuple[str, dict[str, str]]:
    """An open-top shelled box with filleted vertical edges. Returns (gold script, descriptions by level)."""
    code = HEADER + (
        f'result = (\n    cq.Workplane("XY").box({_n(L)}, {_n(W)}, {_n(H)})\n'
        f'    .edges("|Z").fillet({_n(r)})\n'
        f'    .faces(">Z").shell(-{_n(wall)})\n)\n'
    )
    return code, {
        "abstract": "An open box.",
        "beginner": "A hollow rectangular enclosure with rounded vertical corners and an open top.",
        "intermediate": f"A thin-walled rectangular box, open at the top, about {L / W:.1f} times as long as wide, "
        f"with its four vertical corner edges rounded.",
        "expert": f"A box {_n(L)} x {_n(W)} x {_n(H)} mm centred on the origin, vertical edges filleted with radius "
        f"{_n(r)} mm, then shelled inwards to {_n(wall)} mm walls with the top face removed (open top).",
    }


def gear(n: int, m: float, thick: float, bore: float) -> tuple[str, dict[str, str]]:
    """A spur gear approximated with trapezoidal teeth. Returns (gold script, descriptions by level)."""
    ro, rr = m * (n + 2) / 2, m * (n - 2.5) / 2
    code = HEADER + (
        "import math\n\n"
        f"teeth, r_tip, r_root = {n}, {_n(round(ro, 4))}, {_n(round(rr, 4))}\n"
        "pts = []\n"
        "for i in range(teeth):\n"
        "    a = 2 * math.pi * i / teeth\n"
        "    for da, r in ((-0.32, r_root), (-0.14, r_tip), (0.14, r_tip), (0.32, r_root)):\n"
        "        ang = a + da * 2 * math.pi / teeth\n"
        "        pts.append((r * math.cos(ang), r * math.sin(ang)))\n"
        f'result = cq.Workplane("XY").polyline(pts).close().extrude({_n(thick)})\n'
        f'result = result.faces(">Z").workplane().hole({_n(bore)})\n'
    )
    return code, {
        "abstract": "A gear.",
        "beginner": "A flat spur gear with straight-sided teeth and a centre hole.",
        "intermediate": f"A spur gear with {n} trapezoidal teeth (a polygonal approximation of involute teeth) "
        f"and a round bore, thin compared with its diameter.",
        "expert": f"A spur gear of {n} teeth, module {_n(m)} mm: tip radius {_n(round(ro, 4))} mm, root radius "
        f"{_n(round(rr, 4))} mm, {_n(thick)} mm thick (Z from 0), with a {_n(bore)} mm bore. Each tooth is a "
        f"trapezoid: root corners at +-0.32 and tip corners at +-0.14 of the tooth pitch angle from the "
        f"tooth centre, the first tooth centred on +X.",
    }


def revolved(kind: str, R: float, H: float, r2: float, h2: float) -> tuple[str, dict[str, str]]:
    """A revolved part: a V-groove pulley or a turned knob. Returns (gold script, descriptions by level)."""
    if kind == "pulley":
        prof = [(r2, 0), (R, 0), (R, h2), (R - (R - r2) / 3, H / 2), (R, H - h2), (R, H), (r2, H)]
        words = (
            "A pulley.",
            "A grooved pulley wheel with a centre bore, made by revolving a profile.",
            "A V-groove pulley: a wheel with a V-shaped groove around its rim and a through bore.",
        )
    else:  # knob / stepped spacer
        prof = [(r2, 0), (R, 0), (R, h2), (R * 0.6, h2), (R * 0.6, H), (r2, H)]
        words = (
            "A round knob.",
            "A turned knob: a wide base with a narrower neck and a hole along the axis.",
            "A revolved part with a wide collar at the bottom, a narrower cylindrical neck above it and an "
            "axial through hole.",
        )
    pts = ", ".join(f"({_n(round(x, 4))}, {_n(round(y, 4))})" for x, y in prof)
    code = HEADER + (
        f'profile = [{pts}]\nresult = cq.Workplane("XZ").polyline(profile).close().revolve(360, (0, 0, 0), (0, 1, 0))\n'
    )
    return code, {
        "abstract": words[0],
        "beginner": words[1],
        "intermediate": words[2],
        "expert": f"{words[2]} The profile in the XZ plane (X = radius, Z = height, mm) is the closed polygon "
        f"{pts}, revolved 360 degrees about the Z axis. Outer radius {_n(R)} mm, height {_n(H)} mm, "
        f"bore radius {_n(r2)} mm.",
    }


def lofted(kind: str, a: float, b: float, h: float, r: float) -> tuple[str, dict[str, str]]:
    """A lofted part: rectangle-to-circle transition or a drilled square frustum.

    Returns (gold script, descriptions by level).
    """
    if kind == "transition":
        code = HEADER + (
            f'result = (\n    cq.Workplane("XY").rect({_n(a)}, {_n(b)})\n'
            f"    .workplane(offset={_n(h)}).circle({_n(r)})\n    .loft(combine=True)\n)\n"
        )
        words = (
            "A transition piece.",
            "A solid that morphs from a rectangle at the bottom to a circle at the top.",
            "A lofted solid from a rectangular base to a circular top face.",
        )
        exp = (
            f"A loft from a {_n(a)} x {_n(b)} mm rectangle on the XY plane (centred) "
            f"to a circle of radius {_n(r)} mm at Z = {_n(h)} mm."
        )
    else:
        code = HEADER + (
            f'result = (\n    cq.Workplane("XY").rect({_n(a)}, {_n(a)})\n'
            f"    .workplane(offset={_n(h)}).rect({_n(b)}, {_n(b)})\n    .loft(combine=True)\n"
            f'    .faces(">Z").workplane().hole({_n(r)})\n)\n'
        )
        words = (
            "A tapered block.",
            "A square frustum (a pyramid with its top cut off) with a hole down the middle.",
            "A lofted square frustum, wider at the bottom, with a round hole along its vertical axis.",
        )
        exp = (
            f"A loft from a {_n(a)} mm square on the XY plane (centred) to a {_n(b)} mm square at Z = {_n(h)} mm, "
            f"with a {_n(r)} mm diameter hole through it along Z."
        )
    return code, {"abstract": words[0], "beginner": words[1], "intermediate": words[2], "expert": exp}


def standoff(af: float, h: float, d: float, chamfer: float) -> tuple[str, dict[str, str]]:
    """A hexagonal standoff with chamfered ends and a through hole. Returns (gold script, descriptions by level)."""
    code = HEADER + (
        f'result = (\n    cq.Workplane("XY").polygon(6, {_n(round(af * 2 / math.sqrt(3), 4))})\n'
        f'    .extrude({_n(h)})\n    .faces(">Z or <Z").edges().chamfer({_n(chamfer)})\n'
        f'    .faces(">Z").workplane().hole({_n(d)})\n)\n'
    )
    return code, {
        "abstract": "A hexagonal spacer.",
        "beginner": "A hexagonal standoff with a hole through its length and chamfered ends.",
        "intermediate": "A hexagonal prism, taller than it is wide, with a round axial through hole and small chamfers "
        "on all edges of both end faces.",
        "expert": f"A hexagonal standoff {_n(round(af * 2 / math.sqrt(3), 4))} mm across corners (corners on the X "
        f"axis), {_n(h)} mm tall (Z from 0), every edge of both end faces chamfered {_n(chamfer)} mm, and a "
        f"{_n(d)} mm through hole along Z.",
    }


def tube(D: float, d: float, L: float, cb_d: float, cb_depth: float) -> tuple[str, dict[str, str]]:
    """A bushing with a counterbore. Returns (gold script, descriptions by level)."""
    code = HEADER + (
        f'result = (\n    cq.Workplane("XY").circle({_n(D / 2)}).circle({_n(d / 2)}).extrude({_n(L)})\n'
        f'    .faces(">Z").workplane().hole({_n(cb_d)}, {_n(cb_depth)})\n)\n'
    )
    return code, {
        "abstract": "A short tube.",
        "beginner": "A round bushing (a thick tube) with a wider counterbore at the top.",
        "intermediate": "A cylindrical bushing with a concentric through bore and a larger, shallow counterbore at "
        "the top end.",
        "expert": f"A bushing along Z (Z from 0 to {_n(L)} mm): outer diameter {_n(D)} mm, bore {_n(d)} mm, and a "
        f"{_n(cb_d)} mm counterbore {_n(cb_depth)} mm deep from the top face.",
    }


FAMILIES: dict[str, tuple[Family, str, list[tuple[Any, ...]]]] = {
    "plate": (
        plate,
        "easy",
        [
            (60, 40, 5, 2, 3, 5, 8),
            (80, 50, 6, 2, 2, 6, 10),
            (100, 60, 8, 3, 4, 6, 10),
            (50, 50, 4, 3, 3, 4, 8),
            (120, 40, 5, 1, 5, 5, 10),
            (70, 30, 3, 1, 3, 4, 6),
            (90, 90, 10, 4, 4, 6, 12),
            (40, 25, 3, 2, 2, 3, 5),
            (150, 80, 12, 3, 5, 8, 15),
            (64, 48, 4, 2, 4, 4, 8),
            (110, 70, 6, 2, 3, 8, 14),
            (30, 30, 2, 2, 2, 3, 6),
        ],
    ),
    "bracket": (
        bracket,
        "medium",
        [
            (30, 40, 30, 4, 5, 3),
            (40, 50, 40, 5, 6, 4),
            (25, 35, 50, 3, 4, 2),
            (50, 60, 45, 6, 8, 5),
            (20, 30, 30, 3, 4, 2),
            (35, 45, 25, 4, 5, 3),
            (60, 80, 60, 8, 10, 6),
            (45, 40, 55, 5, 6, 4),
            (28, 32, 40, 3, 5, 2),
            (38, 55, 35, 6, 6, 4),
            (32, 50, 50, 4, 6, 3),
        ],
    ),
    "flange": (
        flange,
        "medium",
        [
            (80, 10, 40, 15, 20, 4, 8, 60),
            (100, 12, 50, 20, 25, 6, 10, 76),
            (60, 8, 30, 12, 15, 4, 6, 45),
            (120, 15, 60, 25, 30, 8, 12, 92),
            (90, 10, 45, 10, 22, 5, 8, 68),
            (70, 6, 35, 15, 18, 3, 8, 54),
            (140, 14, 70, 20, 40, 8, 12, 108),
            (50, 6, 24, 10, 10, 3, 5, 38),
            (110, 12, 56, 18, 28, 6, 10, 84),
            (76, 9, 38, 14, 19, 4, 7, 58),
            (130, 16, 64, 22, 32, 10, 10, 100),
        ],
    ),
    "shaft": (
        shaft,
        "medium",
        [
            (20, 80, 6, 3, 30, 14, 20),
            (25, 100, 8, 4, 40, 18, 25),
            (16, 60, 5, 3, 20, 10, 15),
            (30, 120, 8, 4, 50, 20, 30),
            (12, 50, 4, 2, 18, 8, 12),
            (22, 90, 6, 3.5, 35, 16, 20),
            (35, 140, 10, 5, 60, 25, 35),
            (18, 70, 6, 3, 25, 12, 18),
            (28, 110, 8, 4, 45, 20, 25),
            (40, 160, 12, 5, 70, 30, 40),
            (24, 64, 8, 4, 28, 16, 16),
        ],
    ),
    "enclosure": (
        enclosure,
        "medium",
        [
            (80, 50, 30, 2, 5),
            (100, 60, 40, 2.5, 8),
            (60, 40, 25, 2, 4),
            (120, 80, 50, 3, 10),
            (70, 70, 30, 2, 6),
            (90, 45, 35, 2, 5),
            (150, 100, 60, 3, 12),
            (50, 30, 20, 1.5, 3),
            (110, 65, 45, 2.5, 7),
            (85, 55, 28, 2, 9),
            (130, 90, 40, 3, 8),
        ],
    ),
    "gear": (
        gear,
        "hard",
        [
            (12, 2, 8, 6),
            (16, 2, 10, 8),
            (20, 1.5, 6, 8),
            (24, 2, 10, 10),
            (10, 3, 12, 8),
            (30, 1, 5, 6),
            (18, 2.5, 12, 10),
            (14, 2, 8, 6),
            (36, 1.25, 6, 10),
            (22, 2, 9, 8),
            (40, 1, 4, 8),
        ],
    ),
    "revolved": (
        revolved,
        "hard",
        [
            ("pulley", 30, 20, 6, 3),
            ("pulley", 40, 24, 8, 4),
            ("pulley", 25, 16, 5, 2),
            ("pulley", 50, 30, 10, 5),
            ("pulley", 35, 22, 7, 3),
            ("knob", 20, 30, 3, 8),
            ("knob", 25, 40, 4, 10),
            ("knob", 15, 25, 2.5, 6),
            ("knob", 30, 45, 5, 12),
            ("knob", 22, 28, 3, 9),
            ("knob", 18, 36, 3, 7),
        ],
    ),
    "loft": (
        lofted,
        "hard",
        [
            ("transition", 40, 30, 50, 10),
            ("transition", 60, 40, 60, 15),
            ("transition", 30, 30, 40, 8),
            ("transition", 50, 25, 45, 12),
            ("transition", 80, 60, 70, 20),
            ("frustum", 40, 20, 30, 8),
            ("frustum", 60, 30, 40, 12),
            ("frustum", 30, 20, 25, 6),
            ("frustum", 50, 35, 20, 10),
            ("frustum", 70, 30, 50, 14),
            ("frustum", 45, 15, 35, 6),
        ],
    ),
    "standoff": (
        standoff,
        "easy",
        [
            (8, 20, 3.2, 0.5),
            (10, 25, 4.2, 0.8),
            (6, 15, 2.5, 0.4),
            (12, 30, 5.2, 1),
            (14, 40, 6.4, 1),
            (9, 12, 3.2, 0.6),
            (11, 35, 4.5, 0.8),
            (16, 20, 8.4, 1.2),
        ],
    ),
    "tube": (
        tube,
        "easy",
        [
            (30, 16, 40, 22, 5),
            (40, 20, 50, 28, 6),
            (24, 12, 30, 18, 4),
            (50, 30, 60, 38, 8),
            (20, 10, 25, 14, 3),
            (36, 18, 20, 26, 5),
            (44, 24, 70, 32, 10),
        ],
    ),
}


def build_parts() -> list[dict[str, Any]]:
    """Every bundled part as a task dict (id, family, params, gold, descriptions, split, difficulty)."""
    parts = []
    for name, (fn, difficulty, param_sets) in FAMILIES.items():
        for i, params in enumerate(param_sets):
            gold, desc = fn(*params)
            parts.append(
                {
                    "id": f"{name}-{i:02d}",
                    "family": name,
                    "params": list(params),
                    "difficulty": difficulty,
                    # every fourth part of each family is held out
                    "split": "test" if i % 4 == 3 else "train",
                    "gold": gold,
                    "descriptions": desc,
                }
            )
    return parts


if __name__ == "__main__":
    out = Path(__file__).resolve().parents[2] / "assets" / "cad" / "parts.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    parts = build_parts()
    out.write_text("".join(json.dumps(p) + "\n" for p in parts), encoding="utf-8")
    print(f"wrote {len(parts)} parts to {out}")
