"""ImageToSVG-v0: gold, blank and wrong drawings, progress spans, hostile SVG, check_env."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from codegym.envs.image2code.render import MAX_FRAMES, install_worker, render_svg, render_svg_naive
from gymnasium.utils.env_checker import check_env

import codegym  # noqa: F401 - registers the env ids
from codegym.sandbox import create

HEAD = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 256 256">'


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    e = gym.make("ImageToSVG-v0", cache_dir=tmp_path_factory.mktemp("svgcache"), render_mode="rgb_array")
    yield e
    e.close()


def step(env, text, task_id="svg-hard-002"):
    env.reset(seed=0, options={"task_id": task_id})
    return env.step(text)


def fenced(svg: str) -> str:
    return f"Here is my drawing:\n```svg\n{svg}\n```\n"


@pytest.mark.parametrize("task_id", ["svg-easy-000", "svg-medium-001", "svg-hard-002"])
def test_gold_svg_earns_full_similarity_and_reward(env, task_id):
    env.reset(seed=0, options={"task_id": task_id})
    _, reward, terminated, truncated, info = env.step(env.unwrapped.gold_action())
    assert info["reward_components"]["render_similarity"] >= 0.99
    assert reward >= 0.99 and terminated and not truncated
    assert info["audit"]["flags"] == [] and "infra_error" not in info


def test_blank_svg_earns_nothing(env):
    _, reward, _, _, info = step(env, fenced(HEAD + "</svg>"))
    assert info["reward_components"]["compile"] == 1.0
    assert reward <= 0.02


def test_wrong_drawing_earns_little(env):
    wrong = HEAD + '<circle cx="200" cy="40" r="30" fill="rgb(155,89,182)"/></svg>'
    _, reward, _, _, _ = step(env, fenced(wrong))
    assert reward < 0.2


def test_progress_spans_telescope_and_credit_each_element(env):
    env.reset(seed=0, options={"task_id": "svg-hard-002"})
    gold = env.unwrapped.gold_action()
    lines = gold.splitlines()
    half = "\n".join(lines[: len(lines) // 2] + ["</svg>", "```"])  # a correct but unfinished drawing
    _, reward, _, _, info = env.step(half)
    spans = info["token_rewards"]
    assert 0.05 < reward < 0.95
    assert sum(v for _, _, v in spans) == pytest.approx(info["reward_components"]["progress"], abs=1e-9)
    assert all(half[s:e].lstrip().startswith("<") for s, e, _ in spans)
    assert max(v for _, _, v in spans) > 0


def test_render_shows_the_current_render_beside_the_target(env):
    env.reset(seed=0, options={"task_id": "svg-easy-000"})
    before = env.render()
    env.step(env.unwrapped.gold_action())
    after = env.render()
    h, w = 256, 256
    assert before.shape == after.shape == (h, 2 * w + 4, 3) and before.dtype == np.uint8
    assert (before[:, :w] == 255).all()  # blank before any attempt
    assert np.array_equal(after[:, :w], after[:, w + 4 :])  # gold render equals the target


def test_unclosed_tags_fail_with_line_and_message_and_env_stays_usable(env):
    _, reward, _, _, info = step(env, fenced(HEAD + '\n<rect width="10" height="10">\n<circle r="5"/>'))
    assert reward == 0.0 and info["reward_components"]["compile"] == 0.0
    assert "line" in info["feedback"] and "does not render" in info["feedback"]
    assert info["token_rewards"]  # prefixes (each closed) still render and carry progress
    env.reset(seed=0, options={"task_id": "svg-easy-000"})
    assert env.step(env.unwrapped.gold_action())[1] >= 0.99


def test_failing_element_gets_negative_span_and_later_elements_still_render(env):
    env.reset(seed=0, options={"task_id": "svg-easy-000"})
    gold = env.unwrapped.gold_action()
    body = gold.index(">", gold.index("<svg")) + 1
    bad = gold[:body] + '\n<rect width="10" height="10" opacity="x"/>' + gold[body:]  # cairosvg raises on it
    _, reward, _, _, info = env.step(bad)
    values = [v for _, _, v in info["token_rewards"]]
    assert reward == 0.0 and "could not convert" in info["feedback"] and "line 2" in info["feedback"]
    assert values[0] < 0 and sum(values[1:]) > 0.9
    assert info["verdict"]["failed_elements"][0]["index"] == 0


def test_huge_canvas_is_scaled_to_the_output_size_and_contained(env):
    huge = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="1000000" height="1000000">'
        '<rect width="1000000" height="1000000" fill="red" stroke="blue" stroke-width="99999"/></svg>'
    )
    _, reward, _, _, info = step(env, fenced(huge))
    assert "infra_error" not in info and 0.0 <= reward <= 1.0
    assert env.unwrapped.render().shape == (256, 516, 3)


def test_recursive_use_is_blocked_flagged_and_contained_by_the_renderer(env):
    svg = HEAD + '<g id="g"><rect width="9" height="9"/><use xlink:href="#g" x="5"/></g></svg>'
    _, reward, _, _, info = step(env, fenced(svg))
    assert reward == 0.0 and info["audit"]["flags"] == ["recursive_reference"]
    # Past the screen the renderer still contains it: the element fails, nothing hangs.
    with create(timeout_s=60) as sb:
        install_worker(sb)
        res = render_svg(sb, svg, (64, 64))
    assert res.failed and not res.timed_out


def test_billion_laughs_is_blocked_flagged_and_refused_by_the_parser(env):
    lol = (
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa">'
        + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8))
        + ']><svg xmlns="http://www.w3.org/2000/svg"><text y="20">&i;</text></svg>'
    )
    _, reward, _, _, info = step(env, fenced(lol))
    assert reward == 0.0 and "xml_entities" in info["audit"]["flags"]
    with create(timeout_s=60, memory_mb=512) as sb:
        install_worker(sb)
        res = render_svg(sb, lol, (64, 64))
    assert res.final is None and "Entit" in res.error


def test_file_reference_is_blocked_flagged_and_denied_inside_the_worker(env):
    svg = HEAD + '<image href="file:///etc/passwd" width="99" height="99"/></svg>'
    _, reward, _, _, info = step(env, fenced(svg))
    assert reward == 0.0 and info["audit"]["flags"] == ["external_reference"]
    with create(timeout_s=60) as sb:
        install_worker(sb)
        res = render_svg(sb, svg, (64, 64))
    assert "external reference blocked" in res.failed[0]


def test_one_pass_prefixes_match_rendering_each_prefix_from_scratch():
    svg = (
        HEAD + '<defs><circle id="c" r="20" fill="green"/></defs>'
        '<g fill="red" transform="translate(10,10)"><rect width="50" height="50"/><circle cx="120" cy="60" r="30"/></g>'
        '<g opacity="0.5"><rect x="100" y="100" width="90" height="90" fill="blue"/>'
        '<ellipse cx="60" cy="200" rx="40" ry="20"/></g>'
        '<use href="#c" x="200" y="40"/><path d="M10 250 L250 120" stroke="black" stroke-width="5"/>'
        '<text x="20" y="240" font-size="20">hi</text></svg>'
    )
    with create(timeout_s=120) as sb:
        install_worker(sb)
        fast = render_svg(sb, svg, (96, 96))
        slow = render_svg_naive(sb, svg, (96, 96))
    assert fast.mode == "incremental" and len(fast.frames) == len(slow) == 7
    for k, (a, b) in enumerate(zip(fast.frames, slow, strict=True)):
        assert a is not None and b is not None and np.array_equal(a, b), k
    assert np.array_equal(fast.final, slow[-1])


def test_no_code_gets_the_floor_with_feedback(env):
    _, reward, _, _, info = step(env, "   ")
    assert reward == 0.0 and "No code" in info["feedback"]


def test_check_env_passes(tmp_path):
    e = gym.make("ImageToSVG-v0", cache_dir=tmp_path, image_size=64)
    try:
        check_env(e.unwrapped, skip_render_check=True)
    finally:
        e.close()


def test_folder_of_images_with_reference_code_loads_as_tasks(tmp_path):
    from PIL import Image

    folder = tmp_path / "mine"
    folder.mkdir()
    img = np.full((64, 64, 3), 255, np.uint8)
    img[16:48, 16:48] = (231, 76, 60)
    Image.fromarray(img).save(folder / "square.png")
    (folder / "square.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">'
        '<rect x="16" y="16" width="32" height="32" fill="rgb(231,76,60)"/></svg>'
    )
    Image.fromarray(img).save(folder / "photo.jpg", quality=95)
    e = gym.make("ImageToSVG-v0", tasks=str(folder), cache_dir=tmp_path / "c", image_size=64)
    try:
        assert e.unwrapped.tasks.ids == ["photo", "square"]
        obs, _ = e.reset(seed=0, options={"task_id": "square"})
        assert obs["image"].shape == (64, 64, 3) and tuple(obs["image"][32, 32]) == (231, 76, 60)
        _, reward, _, _, _ = e.step(e.unwrapped.gold_action())
        assert reward >= 0.99
        e.reset(seed=0, options={"task_id": "photo"})
        with pytest.raises(ValueError, match="only an image"):
            e.unwrapped.gold_action()
    finally:
        e.close()


def test_multi_turn_feedback_then_gold_terminates(tmp_path):
    e = gym.make("ImageToSVG-v0", cache_dir=tmp_path, max_turns=2)
    try:
        e.reset(seed=0, options={"task_id": "svg-easy-000"})
        obs, reward, terminated, truncated, _ = e.step(fenced(HEAD + "</svg>"))
        assert not terminated and not truncated and "Similarity" in obs["text"] and obs["image"].shape == (256, 256, 3)
        _, reward, terminated, _, _ = e.step(e.unwrapped.gold_action())
        assert terminated and reward >= 0.99
    finally:
        e.close()


def test_fork_and_pickle_give_working_independent_envs(env):
    import pickle

    env.reset(seed=0, options={"task_id": "svg-easy-000"})
    clone = env.unwrapped.fork()
    revived = pickle.loads(pickle.dumps(env.unwrapped))
    try:
        assert clone.step(clone.gold_action())[1] >= 0.99
        assert env.step(env.unwrapped.gold_action())[1] >= 0.99
        revived.reset(seed=0, options={"task_id": "svg-easy-000"})
        assert revived.step(revived.gold_action())[1] >= 0.99
    finally:
        clone.close()
        revived.close()


def test_thousands_of_elements_keep_a_bounded_number_of_progress_frames():
    # Each progress frame is the whole canvas: one per element of 4,000 distinct rects took
    # 4,000 x 256 KiB inside the worker and on the host. Past MAX_FRAMES, every k-th element
    # gets a frame and the last one is always exact.
    rects = "".join(f'<rect x="{i % 256}" y="{i // 256}" width="1" height="1" fill="#{i:06x}"/>' for i in range(4000))
    svg = HEAD + rects + "</svg>"
    with create(timeout_s=120, memory_mb=512) as sb:
        install_worker(sb)
        res = render_svg(sb, svg, (256, 256))
        raw = len(sb.read_file("frames.raw"))
    assert res.final is not None and not res.failed and len(res.frames) == 4000
    assert raw <= (MAX_FRAMES + 2) * 256 * 256 * 4, raw
    assert res.frames[-1] is not None and np.array_equal(res.frames[-1], res.final)
