"""Image-to-code: the pure parts (similarity, splitting, screening, grading, tasks); no renderer."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from codegym.envs.image2code import generate
from codegym.envs.image2code.grading import grade_render
from codegym.envs.image2code.render import RenderResult
from codegym.envs.image2code.similarity import SimilarityTracker, similarity, ssim_reference
from codegym.envs.image2code.svgsplit import annotate, screen_svg, split_svg
from codegym.envs.image2code.tasks import complete_task_data, image_folder_tasks, is_image_folder, load_image
from codegym.envs.image2code.tikz import parse_picture, screen_tikz, split_tikz
from PIL import Image

ASSETS = Path(__file__).resolve().parents[1] / "assets"


# --------------------------------------------------------------------------- similarity
def test_incremental_ssim_equals_scikit_image_on_every_frame():
    rng = np.random.default_rng(0)
    target = rng.integers(0, 256, (64, 80, 3), dtype=np.uint8)
    frame = np.full_like(target, 255)
    tracker = SimilarityTracker(target)
    for step in range(25):
        r, c = rng.integers(0, 60), rng.integers(0, 76)
        frame[r : r + rng.integers(1, 30), c : c + rng.integers(1, 30)] = rng.integers(0, 256, 3)
        if step % 7 == 0:  # an unchanged frame must score the same
            pass
        got = tracker.score(frame)
        assert got.ssim == pytest.approx(ssim_reference(frame, target), abs=1e-12)
        assert got.value == pytest.approx(similarity(frame, target).value, abs=1e-12)


def test_identical_images_have_similarity_one_and_blank_is_lower():
    target = np.full((32, 32, 3), 255, np.uint8)
    target[8:24, 8:24] = (200, 30, 30)
    assert similarity(target, target).value == pytest.approx(1.0)
    assert similarity(np.full_like(target, 255), target).value < 0.95


# --------------------------------------------------------------------------- SVG splitting
def test_svg_split_finds_drawable_leaves_and_skips_defs():
    code = (
        '<svg xmlns="http://www.w3.org/2000/svg"><defs><circle id="a" r="2"/></defs>'
        '<g fill="red"><rect width="2" height="2"/><circle r="2"></circle></g><use href="#a"/></svg>'
    )
    els = split_svg(code)
    assert [e.tag for e in els] == ["rect", "circle", "use"]
    assert [code[e.start : e.end] for e in els] == [
        '<rect width="2" height="2"/>',
        '<circle r="2"></circle>',
        '<use href="#a"/>',
    ]
    assert [e.closers for e in els] == ["</g></svg>", "</g></svg>", "</svg>"]
    doc, spans = annotate(code, els)
    assert [doc[s:e] for s, e, _ in spans] == [
        '<rect data-codegym-k="0" width="2" height="2"/>',
        '<circle data-codegym-k="1" r="2"></circle>',
        '<use data-codegym-k="2" href="#a"/>',
    ]


def test_svg_split_closes_unclosed_elements_in_their_prefix():
    code = '<svg><rect width="5" height="5"><circle r="3"/>'
    (rect,) = split_svg(code)
    assert (rect.start, rect.end, rect.closers) == (5, len(code), "</rect></svg>")


def test_svg_attribute_with_angle_bracket_does_not_cut_the_tag():
    code = '<svg><text x="1" data-x="a>b">hi</text><rect/></svg>'
    assert [e.tag for e in split_svg(code)] == ["text", "rect"]


@pytest.mark.parametrize(
    "code,flag",
    [
        (
            '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><svg>&lol2;</svg>',
            "xml_entities",
        ),
        ('<svg><image href="file:///etc/passwd" width="9" height="9"/></svg>', "external_reference"),
        ('<svg><image xlink:href="http://example.com/x.png"/></svg>', "external_reference"),
        ("<svg><style>@import url(x.css);</style></svg>", "external_reference"),
        ('<svg><rect fill="url(http://evil/p#x)"/></svg>', "external_reference"),
        ('<svg><use id="u" href="#u"/></svg>', "recursive_reference"),
        (
            '<svg><defs><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></defs><use href="#a"/></svg>',
            "recursive_reference",
        ),
    ],
)
def test_hostile_svg_is_flagged_by_the_screen(code, flag):
    assert flag in [f for f, _ in screen_svg(code)]


def test_internal_references_and_data_urls_pass_the_screen():
    code = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><defs>'
        '<linearGradient id="g"/><circle id="c" r="3"/></defs><use xlink:href="#c"/><use href="#c"/>'
        '<rect fill="url(#g)"/><image href="data:image/png;base64,AAAA"/></svg>'
    )
    assert screen_svg(code) == []


# --------------------------------------------------------------------------- TikZ splitting
def test_tikz_split_respects_braces_foreach_scopes_and_comments():
    code = (
        r"\begin{tikzpicture}[scale=1]"
        "\n"
        r"\fill[fill={rgb,255:red,1;green,2;blue,3}] (0,0) rectangle (1,1); % a ; comment"
        "\n"
        r"\begin{scope}[shift={(1,1)}]"
        "\n"
        r"\foreach \i in {1,2} {\draw (\i,0) -- (\i,1); \fill (0,\i) circle (1pt);}"
        "\n"
        r"\end{scope}"
        "\n"
        r"\node at (4,4) {a;b};"
        "\n"
        r"\end{tikzpicture}"
    )
    pic = parse_picture(code)
    assert pic.options == "scale=1"
    cmds = split_tikz(code)
    texts = [code[c.start : c.end] for c in cmds]
    assert texts == [
        r"\fill[fill={rgb,255:red,1;green,2;blue,3}] (0,0) rectangle (1,1);",
        r"\foreach \i in {1,2} {\draw (\i,0) -- (\i,1); \fill (0,\i) circle (1pt);}",
        r"\node at (4,4) {a;b};",
    ]
    assert [c.scopes for c in cmds] == ["", r"\end{scope}", ""]


def test_tikz_command_cut_off_gets_its_braces_and_semicolon_closed():
    code = "\\draw (0,0) -- (1,1);\n\\node at (1,1) {unfinished"
    cmds = split_tikz(code)
    assert len(cmds) == 2 and cmds[1].closers == "};" and cmds[1].end == len(code)


@pytest.mark.parametrize(
    "body,flag",
    [
        (r"\immediate\write18{touch /sandbox/pwned}", "shell_escape"),
        (r"\input{/etc/passwd}", "external_reference"),
        (r"\openin5=/etc/passwd", "external_reference"),
        (r"\def\a{\a}\a", "macro_definition"),
        (r"\newcommand\x{\x}\x", "macro_definition"),
        (r"^^5cinput{/etc/passwd}", "caret_escape"),
        (r"\end{document}", "document_structure"),
        (r"\tikzset{a/.code={\input{/etc/passwd}}}", "macro_definition"),
    ],
)
def test_hostile_tikz_is_flagged_by_the_screen(body, flag):
    code = "\\begin{tikzpicture}\n\\draw (0,0) -- (1,1);\n" + body + "\n\\end{tikzpicture}"
    assert flag in [f for f, _ in screen_tikz(code)]


def test_tikz_preamble_outside_the_picture_is_not_screened():
    code = (
        "\\documentclass{standalone}\\usepackage{tikz}\\begin{document}"
        "\\begin{tikzpicture}\\draw (0,0)--(1,1);\\end{tikzpicture}\\end{document}"
    )
    assert screen_tikz(code) == []


# --------------------------------------------------------------------------- tasks
@pytest.mark.parametrize("language", ["svg", "tikz"])
def test_bundled_index_has_200_plus_tasks_over_three_difficulties(language):
    rows = [json.loads(line) for line in (ASSETS / language / "tasks.jsonl").read_text().splitlines()]
    assert len(rows) >= 200 and len({r["id"] for r in rows}) == len(rows)
    assert {r["difficulty"] for r in rows} == set(generate.DIFFICULTIES)
    assert {r["split"] for r in rows} == {"train", "test"}
    assert rows == generate.index(language)  # the index is what the generator says


@pytest.mark.parametrize("language", ["svg", "tikz"])
def test_every_bundled_gold_program_passes_the_screen(language):
    screen = screen_svg if language == "svg" else screen_tikz
    for row in generate.index(language):
        code = generate.gold_code(language, row["seed"], row["difficulty"])
        assert screen(code) == [], row["id"]
        split = split_svg(code) if language == "svg" else split_tikz(code)
        assert len(split) == len(generate.scene(row["seed"], row["difficulty"])), row["id"]


def test_generator_is_deterministic_and_seeds_differ():
    assert generate.gold_code("svg", 3, "hard") == generate.gold_code("svg", 3, "hard")
    assert len({generate.gold_code("tikz", s, "medium") for s in range(20)}) >= 18


def test_image_folder_loader_pairs_images_with_reference_code(tmp_path):
    Image.new("RGB", (40, 20), (255, 0, 0)).save(tmp_path / "red.png")
    Image.new("RGB", (30, 30), (0, 0, 255)).save(tmp_path / "blue.jpg")
    (tmp_path / "red.svg").write_text("<svg/>")
    assert is_image_folder(tmp_path)
    tasks = image_folder_tasks(tmp_path, "svg")
    assert [t["id"] for t in tasks] == ["blue", "red"]
    assert "code" not in tasks[0] and tasks[1]["code"] == "<svg/>"
    img = load_image(tmp_path / "red.png", (64, 64))
    assert img.shape == (64, 64, 3)
    assert tuple(img[32, 32]) == (255, 0, 0) and tuple(img[2, 32]) == (255, 255, 255)  # letterboxed


def test_task_without_code_image_or_seed_is_rejected_with_the_field_named():
    with pytest.raises(ValueError, match="field 'code'"):
        complete_task_data({"id": "x"}, "svg", "tasks.jsonl:1", "x")


# --------------------------------------------------------------------------- grading
def _frames(target, n, rng):
    out, img = [], np.full_like(target, 255)
    for _ in range(n):
        img = img.copy()
        r, c = rng.integers(0, 24, 2)
        img[r : r + 8, c : c + 8] = rng.integers(0, 256, 3)
        out.append(img)
    return out


def test_token_spans_telescope_to_final_progress():
    rng = np.random.default_rng(1)
    target = rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)
    frames = _frames(target, 6, rng)
    code = "abcdefghijklmnopqrstuvwxyz"
    spans = [(i * 4, i * 4 + 3) for i in range(6)]
    render = RenderResult(spans, list(frames), frames[-1])
    outcome, _ = grade_render(render, target, code, 10)
    total = sum(v for _, _, v in outcome.token_rewards)
    assert total == pytest.approx(outcome.components["progress"], abs=1e-9)
    assert [(s, e) for s, e, _ in outcome.token_rewards] == [(s + 10, e + 10) for s, e in spans]


def test_failed_element_gets_a_negative_span_and_later_elements_still_count():
    rng = np.random.default_rng(2)
    target = np.full((32, 32, 3), 255, np.uint8)
    target[0:16, 0:16] = (10, 10, 10)
    target[16:32, 16:32] = (10, 10, 10)
    a = np.full_like(target, 255)
    a[0:16, 0:16] = (10, 10, 10)
    b = a.copy()
    b[16:32, 16:32] = (10, 10, 10)
    render = RenderResult([(0, 5), (5, 10), (10, 15)], [a, None, b], b, error="line 1: boom", failed={1: "boom"})
    outcome, _ = grade_render(render, target, "x" * 15, 0, fail_penalty=0.05)
    values = [v for _, _, v in outcome.token_rewards]
    assert values[0] > 0.2 and values[1] == pytest.approx(-0.05) and values[2] > 0.2
    assert outcome.reward == 0.0 and "boom" in outcome.feedback  # the program as written fails
    assert sum(values) == pytest.approx(1.0 - 0.05, abs=1e-9)  # progress of what rendered, minus penalty
    del rng


def test_length_term_lowers_the_reward_of_long_programs():
    target = np.full((16, 16, 3), 255, np.uint8)
    target[4:12, 4:12] = 0
    render = RenderResult([(0, 4)], [target], target)
    short, _ = grade_render(render, target, "x" * 100, 0, reference_length=100, length_weight=0.2)
    long, _ = grade_render(render, target, "x" * 300, 0, reference_length=100, length_weight=0.2)
    assert short.reward == pytest.approx(1.0) and long.reward == pytest.approx(0.8)
