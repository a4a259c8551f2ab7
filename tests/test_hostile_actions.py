"""Hostile actions: too long, not valid Unicode, NUL bytes, host cost per action, raster SVG.

Host-cost tests measure the pure per-action functions at two sizes and assert that time and
memory grow about linearly (ratios, best of three runs, not absolute wall time on a loaded
machine), and step the real envs once with a big action within the action space limit.
"""

from __future__ import annotations

import base64
import io
import json
import time
import tracemalloc

import gymnasium as gym
import pytest
from codegym.envs.cad.steps import split_steps
from codegym.envs.image2code import tikz
from codegym.envs.image2code.svgsplit import annotate, reference_cycle, screen_raster, split_svg
from PIL import Image
from toy_env import ToyEnv

import codegym  # noqa: F401 - registers the env ids


class ShortToyEnv(ToyEnv):
    max_action_length = 200

    def _grade(self, action):
        self.graded = getattr(self, "graded", 0) + 1
        return super()._grade(action)


def gold_add(env) -> str:
    env.reset(options={"task_id": "add"})
    return env.gold_action()


# ---------------------------------------------------------------------- action size and text
def test_an_action_longer_than_the_action_space_earns_the_floor_with_feedback_and_no_grading():
    with ShortToyEnv() as env:
        action = gold_add(env) + "#" * 300
        assert not env.action_space.contains(action)
        _, reward, terminated, truncated, info = env.step(action)
    assert reward == env.floor_reward and terminated and not truncated
    assert info["feedback"] == f"the action is {len(action)} characters long; this env takes at most 200"
    assert info["verdict"] == {"error": "action too long", "length": len(action), "max_length": 200}
    assert "infra_error" not in info and info["token_rewards"] == []
    assert getattr(env, "graded", 0) == 0


def test_a_too_long_action_is_a_wasted_turn_in_a_multi_turn_episode():
    with ShortToyEnv(max_turns=2) as env:
        gold = gold_add(env)
        _, reward, terminated, truncated, info = env.step("x" * 201)
        assert (reward, terminated, truncated, info["turn"]) == (0.0, False, False, 1)
        assert "200" in info["feedback"]
        _, reward, terminated, truncated, info = env.step(gold)
    assert reward == 1.0 and (terminated or truncated) and info["turn"] == 2 and env.graded == 1


@pytest.mark.parametrize("where", ["alone", "in the code", "after the code"])
def test_a_lone_surrogate_earns_the_floor_with_feedback_and_is_never_an_infra_error(where):
    with ShortToyEnv() as env:
        gold = gold_add(env)
        action = {"alone": "\ud800", "in the code": gold.replace("return", "return \udfff")}.get(where, gold + "\udc80")
        _, reward, terminated, _, info = env.step(action)
    assert reward == 0.0 and terminated and "infra_error" not in info
    assert "lone surrogate" in info["feedback"] and info["verdict"]["error"] == "action is not valid Unicode"
    assert action[info["verdict"]["at"]] in "\ud800\udfff\udc80"
    assert getattr(env, "graded", 0) == 0


# ---------------------------------------------------------------------- TextToCAD host cost
def _best(fn, *args, runs=3):
    """(best seconds, traced peak bytes, result) of ``fn(*args)``."""
    best, peak, out = float("inf"), 0, None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t)
    tracemalloc.start()
    fn(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return best, peak, out


def _cad_lines(size: int) -> str:
    lines, n = [], 0
    while n < size:
        lines.append(f"a{len(lines)} = {len(lines)}\n")
        n += len(lines[-1])
    return "".join(lines)


def _cad_request(code: str) -> str:
    return json.dumps([{"code": s.code, "snap": s.snap, "line": s.line} for s in split_steps(code)])


def test_cad_steps_of_a_long_action_cost_host_time_and_memory_linear_in_its_length():
    small, big = _cad_lines(30_000), _cad_lines(90_000)
    t_small, m_small, r_small = _best(_cad_request, small)
    t_big, m_big, r_big = _best(_cad_request, big)
    # Padding each step with its line number's worth of newlines made this quadratic (9x).
    assert len(r_big) < 6 * len(big), len(r_big)
    assert m_big < 4.5 * m_small, (m_small, m_big)
    assert t_big < 5 * t_small + 0.05, (t_small, t_big)


def test_cad_steps_of_many_statements_on_one_long_line_are_linear_and_keep_character_spans():
    code = "".join(f"v{i} = 'é{i}'; " for i in range(4000)) + "result = cq.Workplane().box(1, 1, 1)"
    t_small, _, _ = _best(split_steps, code[: len(code) // 3].rsplit(";", 1)[0])
    t_big, _, steps = _best(split_steps, code)
    assert t_big < 5 * t_small + 0.05, (t_small, t_big)
    assert code[steps[1].start : steps[1].end] == "v1 = 'é1'"
    assert code[steps[-2].start : steps[-2].end] == ".box(1, 1, 1)"


@pytest.fixture(scope="module")
def cad_env():
    from codegym.envs.cad import TextToCADEnv

    e = TextToCADEnv(timeout_s=20, memory_mb=600)
    yield e
    e.close()


def _cad_step(env, code: str):
    env.reset(options={"task_id": "plate-00"})
    t = time.perf_counter()
    out = env.step(f"```python\nimport cadquery as cq\n{code}\nresult = cq.Workplane().box(60, 40, 5)\n```")
    return time.perf_counter() - t, out


def test_a_90000_character_cad_action_of_tiny_steps_finishes_in_bounded_time_with_line_numbers_kept(cad_env):
    _cad_step(cad_env, "x = 1")  # warm worker and target
    small_s, _ = _cad_step(cad_env, _cad_lines(9_000))
    big_s, (_, reward, _, _, info) = _cad_step(cad_env, _cad_lines(90_000))
    assert "infra_error" not in info and reward > 0.5, info["feedback"]
    assert big_s < 10 * small_s + 10, (small_s, big_s)
    # An error deep in the code still names its own line (no blank-line padding needed).
    _, (_, reward, _, _, info) = _cad_step(cad_env, _cad_lines(2_000) + "boom = 1 / 0")
    line = _cad_lines(2_000).count("\n") + 2
    assert reward == 0.0 and f"line {line}" in info["feedback"] and "ZeroDivisionError" in info["feedback"]


def test_a_method_chain_too_deep_for_python_earns_the_floor_and_is_not_an_infra_error(cad_env):
    _, (_, reward, _, _, info) = _cad_step(cad_env, "r = cq.Workplane()" + ".box(1, 1, 1)" * 5000)
    assert reward == 0.0 and "infra_error" not in info and "nested too deeply" in info["feedback"]


@pytest.mark.parametrize("depth", [5_000, 20_000], ids=["recursion-error", "memory-error"])
def test_an_expression_too_deep_for_the_parser_earns_the_floor_and_is_not_an_infra_error(cad_env, depth):
    _, (_, reward, _, _, info) = _cad_step(cad_env, "x = " + "-" * depth + "1")
    assert reward == 0.0 and "infra_error" not in info and "nested too deeply" in info["feedback"]


def test_a_nul_byte_in_cad_code_earns_the_floor_as_a_syntax_error(cad_env):
    _, (_, reward, _, _, info) = _cad_step(cad_env, "x = 1\x00")
    assert reward == 0.0 and "infra_error" not in info and "null bytes" in info["feedback"]


# ---------------------------------------------------------------------- ImageToSVG host cost
def _svg_job(code: str) -> str:
    elements = split_svg(code)
    doc, spans = annotate(code, elements)
    return json.dumps({"doc": doc, "spans": spans, "open_tags": elements[0].open_tags if elements else []})


def _svg_nested(size: int) -> str:
    return "<svg>" + "<g><rect/>" * (size // 10) + "</svg>"


def _svg_flat(size: int) -> str:
    return "<svg>" + '<rect width="1"/>' * (size // 17) + "</svg>"


@pytest.mark.parametrize("make", [_svg_flat, _svg_nested], ids=["flat", "nested"])
def test_svg_split_and_annotate_cost_host_time_and_memory_linear_in_the_action_length(make):
    small, big = make(30_000), make(90_000)
    t_small, m_small, _ = _best(_svg_job, small)
    t_big, m_big, job = _best(_svg_job, big)
    # Re-summing every earlier insertion per element, and writing every element's closers
    # out of the whole open-element stack, made both quadratic (9x).
    assert len(job) < 8 * len(big), len(job)
    assert m_big < 4.5 * m_small, (m_small, m_big)
    assert t_big < 5 * t_small + 0.05, (t_small, t_big)


def test_svg_closers_and_annotated_spans_are_unchanged_by_the_linear_split():
    code = '<svg><g fill="red"><rect/><g><circle r="1"></g><use href="#a"/></svg>'
    els = split_svg(code)
    assert [e.closers for e in els] == ["</g></svg>", "</circle></g></g></svg>", "</g></svg>"]
    doc, spans = annotate(code, els)
    assert [doc[s:e] for s, e, _ in spans] == [
        '<rect data-codegym-k="0"/>',
        '<circle data-codegym-k="1" r="1">',
        '<use data-codegym-k="2" href="#a"/>',
    ]


def test_svg_reference_screen_is_linear_and_survives_a_chain_of_thousands_of_uses():
    chain = "<svg>" + "".join(f'<use id="a{i}" href="#a{i + 1}"/>' for i in range(6000))
    assert reference_cycle(chain + "</svg>") == []
    assert reference_cycle(chain + '<use id="a6000" href="#a0"/></svg>')[:2] == ["a0", "a1"]
    nested = "<svg>" + '<g id="g{}"><use href="#x"/>' * 3000
    t_small, m_small, _ = _best(reference_cycle, nested[:30_000])
    t_big, m_big, _ = _best(reference_cycle, nested[:90_000])
    assert m_big < 4.5 * m_small and t_big < 5 * t_small + 0.05, (t_small, t_big, m_small, m_big)


@pytest.fixture(scope="module")
def svg_env(tmp_path_factory):
    e = gym.make("ImageToSVG-v0", cache_dir=tmp_path_factory.mktemp("svgcache"))
    yield e
    e.close()


def _svg_step(env, svg: str, task_id: str = "svg-hard-002"):
    obs, _ = env.reset(seed=0, options={"task_id": task_id})
    t = time.perf_counter()
    out = env.step(f"```svg\n{svg}\n```")
    return time.perf_counter() - t, obs, out


HEAD = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 256 256">'


def test_a_90000_character_svg_action_of_tiny_elements_finishes_in_bounded_time(svg_env):
    rect = '<rect width="9" height="9"/>'
    small_s, _, _ = _svg_step(svg_env, HEAD + rect * 300 + "</svg>")
    big_s, _, (_, reward, _, _, info) = _svg_step(svg_env, HEAD + rect * 3200 + "</svg>")
    assert "infra_error" not in info and 0.0 <= reward <= 1.0
    assert info["verdict"]["elements"] == 3200
    assert big_s < 15 * small_s + 10, (small_s, big_s)


# ---------------------------------------------------------------------- ImageToSVG rasters
def _png_data_url(image) -> str:
    buf = io.BytesIO()
    Image.fromarray(image).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


RASTER_FORMS = {
    "image href": '<image href="{url}" width="256" height="256"/>',
    "image xlink:href": '<image xlink:href="{url}" x="0" y="0" width="256" height="256"/>',
    "image in defs through use": '<defs><image id="t" href="{url}" width="256" height="256"/></defs><use href="#t"/>',
    "image in a pattern": (
        '<defs><pattern id="p" patternUnits="userSpaceOnUse" width="256" height="256">'
        '<image href="{url}" width="256" height="256"/></pattern></defs>'
        '<rect width="256" height="256" fill="url(#p)"/>'
    ),
    "feImage filter": (
        '<defs><filter id="f"><feImage href="{url}"/></filter></defs><rect width="256" height="256" filter="url(#f)"/>'
    ),
    "foreignObject": '<foreignObject width="256" height="256"><img src="{url}"/></foreignObject>',
    "use of a data document": '<use href="data:image/svg+xml;base64,{svg64}"/>',
    "css url": '<style>rect {{ fill: url("{url}") }}</style><rect width="256" height="256"/>',
}


@pytest.mark.parametrize("form", list(RASTER_FORMS))
def test_the_target_embedded_as_a_raster_earns_the_floor_and_is_flagged(svg_env, form):
    obs, _ = svg_env.reset(seed=0, options={"task_id": "svg-hard-002"})
    url = _png_data_url(obs["image"])
    inner = f'<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><image href="{url}"/></svg>'
    body = RASTER_FORMS[form].format(url=url, svg64=base64.b64encode(inner.encode()).decode())
    _, _, (_, reward, _, _, info) = _svg_step(svg_env, HEAD + body + "</svg>")
    assert reward == 0.0 and "raster_image" in info["audit"]["flags"], info["feedback"]
    assert "vector elements" in info["feedback"] and "infra_error" not in info


def test_gold_svg_still_earns_full_reward_and_vector_paint_servers_pass_the_raster_screen(svg_env):
    svg_env.reset(seed=0, options={"task_id": "svg-hard-002"})
    _, reward, _, _, info = svg_env.step(svg_env.unwrapped.gold_action())
    assert reward >= 0.99 and info["audit"]["flags"] == []
    vector = (
        '<svg><defs><pattern id="p" width="4" height="4"><rect width="2" height="2"/></pattern>'
        '<linearGradient id="g"><stop offset="0"/></linearGradient></defs>'
        '<rect fill="url(#p)" width="9" height="9"/><rect fill="url(#g)"/><use href="#p"/></svg>'
    )
    assert screen_raster(vector) == []


def test_a_nul_byte_in_svg_is_the_attempts_parse_error_not_an_infra_error(svg_env):
    _, _, (_, reward, _, _, info) = _svg_step(svg_env, HEAD + '<rect width="9"\x00 height="9"/></svg>')
    assert reward == 0.0 and "infra_error" not in info and "does not render" in info["feedback"]


# ---------------------------------------------------------------------- ImageToTikZ host cost
def _tikz_job(code: str) -> str:
    pic = tikz.parse_picture(code)
    cmds = split = tikz.split_tikz(code, pic)
    if hasattr(tikz, "progress_commands"):
        cmds = tikz.progress_commands(split, len(pic.body))
    doc = tikz._Doc(pic.libraries)
    for k in range(len(cmds)):
        doc.page(pic.options, tikz._prefix_parts(code, pic, cmds, k, {}))
    return doc.text()


def _tikz(size: int, command: str) -> str:
    return "\\begin{tikzpicture}\n" + command * (size // len(command)) + "\\end{tikzpicture}"


@pytest.mark.parametrize(
    "command", ["\\fill (0,0) circle (1);\n", "\\begin{scope}\\fill (0,0) circle (1);\n"], ids=["flat", "scopes"]
)
def test_tikz_prefix_pages_of_a_long_action_cost_host_time_and_memory_linear_in_its_length(command):
    small, big = _tikz(30_000, command), _tikz(90_000, command)
    t_small, m_small, _ = _best(_tikz_job, small)
    t_big, m_big, job = _best(_tikz_job, big)
    # A page per command, each repeating the picture up to it, made the job quadratic (9x).
    assert len(job) <= tikz.MAX_PREFIX_TEXT + 3 * len(big), len(job)
    assert m_big < 4.5 * m_small + 2**20 and t_big < 5 * t_small + 0.05, (t_small, t_big, m_small, m_big)


def test_tikz_progress_merges_commands_into_runs_that_cover_them_all():
    code = _tikz(300_000, "\\fill (0,0) circle (1);\n")
    pic = tikz.parse_picture(code)
    cmds = tikz.split_tikz(code, pic)
    runs = tikz.progress_commands(cmds, len(pic.body))
    assert 1 <= len(runs) <= tikz.MAX_PREFIX_TEXT // len(pic.body) < len(cmds)
    assert runs[0].start == cmds[0].start and runs[-1].end == cmds[-1].end
    assert all(a.end <= b.start for a, b in zip(runs, runs[1:], strict=False))
    few = tikz.split_tikz(_tikz(300, "\\fill (0,0) circle (1);\n"))
    assert tikz.progress_commands(few, 300) == few
