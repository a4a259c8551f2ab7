"""TextToCAD-v0: gold, ranking, scale modes, hostile code, multi-turn, token rewards, contract."""

from __future__ import annotations

import io
import os
import signal
import sysconfig
import threading
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from codegym.envs.cad import TextToCADEnv
from codegym.envs.cad.families import LEVELS, build_parts
from codegym.envs.cad.steps import split_steps
from codegym.envs.cad.targets import target_key
from gymnasium.utils.env_checker import check_env
from PIL import Image

import codegym  # noqa: F401 - registers the env ids

SAMPLE = [
    "plate-00",
    "bracket-01",
    "flange-02",
    "shaft-03",
    "enclosure-04",
    "gear-05",
    "revolved-06",
    "loft-07",
    "standoff-00",
    "tube-01",
]


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


# Envs with the same limits share one warm worker, so most tests pay one cadquery import.
LIMITS = {"timeout_s": 20, "memory_mb": 600}


@pytest.fixture(scope="module")
def env():
    e = TextToCADEnv(**LIMITS)
    yield e
    e.close()


def attempt(env: TextToCADEnv, task_id: str, action: str, **options):
    env.reset(options={"task_id": task_id, **options})
    return env.step(action)


def gold(env: TextToCADEnv, task_id: str) -> str:
    return env.tasks.get(task_id)["gold"]


# ---------------------------------------------------------------------- tasks
def test_the_bundled_set_has_over_100_distinct_parts_with_four_levels_of_description():
    parts = build_parts()
    assert len(parts) >= 100
    assert len({p["gold"] for p in parts}) == len(parts)
    assert len({p["family"] for p in parts}) >= 8
    for p in parts:
        assert set(p["descriptions"]) == set(LEVELS)
        assert len({p["descriptions"][lv] for lv in LEVELS}) == 4
    bundled = TextToCADEnv(pool="cold").tasks
    assert [t.id for t in bundled] == [p["id"] for p in parts], "assets/cad/parts.jsonl is stale: regenerate it"


def test_target_cache_key_follows_the_script_content():
    assert target_key("a", 1e-3) == target_key("a", 1e-3)
    assert target_key("a", 1e-3) != target_key("b", 1e-3) != target_key("a", 2e-3)


# ---------------------------------------------------------------------- gold and ranking
@pytest.mark.parametrize("task_id", SAMPLE)
def test_gold_earns_full_reward_on_a_sample_of_parts(env, task_id):
    _, reward, terminated, _, info = attempt(env, task_id, fenced(gold(env, task_id)))
    comps = info["reward_components"]
    # Distances go to the nearest of a few candidate triangles (geometry.Surface): on the
    # surface itself a point may read a few 1e-5 of the part size, never more than rho.
    assert comps["f1"] == 1.0 and comps["chamfer"] < 1e-4 and comps["hausdorff"] < 1e-6, info["feedback"]
    assert reward >= 0.99 and terminated
    assert info["audit"]["flags"] == []


def test_gold_action_earns_full_reward(env):
    env.reset(options={"task_id": "flange-00"})
    _, reward, terminated, _, _ = env.step(env.gold_action())
    assert reward >= 0.99 and terminated


def test_three_attempts_rank_gold_above_missing_holes_above_a_sphere(env):
    full = gold(env, "flange-00")
    no_bolts = full.split('result = result.faces("<Z")')[0]
    sphere = "import cadquery as cq\nresult = cq.Workplane().sphere(40)"
    rewards = [attempt(env, "flange-00", fenced(c))[1] for c in (full, no_bolts, sphere)]
    assert rewards[0] > rewards[1] > rewards[2] > 0.0, rewards


def test_translated_and_scaled_gold_score_full_in_unit_cube_mode(env):
    base = gold(env, "bracket-00")
    for tail in ("result = result.translate((13, -7, 5))", "result = result.val().scale(1.7)"):
        _, reward, _, _, info = attempt(env, "bracket-00", fenced(base + tail), scale_mode="unit_cube")
        assert info["reward_components"]["f1"] >= 0.99 and reward >= 0.98, (tail, info["feedback"])


def test_translated_and_scaled_gold_score_lower_in_true_scale_mode(env):
    base = gold(env, "bracket-00")
    for tail in ("result = result.translate((13, -7, 5))", "result = result.val().scale(1.7)"):
        _, reward, _, _, info = attempt(env, "bracket-00", fenced(base + tail), scale_mode="true")
        assert reward < 0.5, (tail, info["feedback"])


def test_auto_scale_mode_is_true_scale_at_expert_detail_and_unit_cube_otherwise(env):
    moved = fenced(gold(env, "tube-00") + "result = result.translate((50, 0, 0))")
    assert attempt(env, "tube-00", moved, detail="expert")[1] < 0.5
    obs, _ = env.reset(options={"task_id": "tube-00", "detail": "abstract"})
    assert "A short tube." in obs["text"]
    assert env.step(moved)[1] >= 0.98


# ---------------------------------------------------------------------- broken attempts
@pytest.mark.parametrize(
    ("action", "needle"),
    [
        ("", "no code found"),
        (fenced("result = cq.Workplane(.box(1"), "SyntaxError"),
        (fenced("import cadquery as cq\nresult = cq.Workplane().box(1, 1, 1).fillet(5)"), "line 2"),
        (fenced("import cadquery as cq\npart = cq.Workplane().box(1, 1, 1)"), "no variable named 'result'"),
        (fenced("import cadquery as cq\nresult = cq.Workplane().rect(3, 3)"), "no solid"),
        (fenced("result = 42"), "expected a cadquery"),
    ],
)
def test_broken_code_scores_the_floor_with_the_error_as_feedback(env, action, needle):
    _, reward, terminated, _, info = attempt(env, "plate-00", action)
    assert reward == 0.0 and terminated
    assert needle in info["feedback"]
    assert "infra_error" not in info


# ---------------------------------------------------------------------- hostile code
def test_os_system_is_blocked_and_flagged(env, tmp_path):
    marker = tmp_path / "ran"
    code = f"import os\nos.system('touch {marker}')\nimport cadquery as cq\nresult = cq.Workplane().box(60, 40, 5)"
    _, reward, _, _, info = attempt(env, "plate-00", fenced(code))
    assert reward == 0.0 and "process_spawn" in info["audit"]["flags"]
    assert not marker.exists()


def test_subprocess_through_the_low_level_module_is_contained(env, tmp_path):
    marker = tmp_path / "ran"
    code = f"import _posixsubprocess, os\nos.execv('/bin/touch', ['touch', '{marker}'])\n"
    _, reward, _, _, info = attempt(env, "plate-00", fenced(code))
    assert reward == 0.0 and {"process_spawn", "filesystem_or_process"} & set(info["audit"]["flags"])
    assert not marker.exists()


def test_writing_outside_the_work_dir_is_blocked_and_flagged(env):
    target = Path("/etc/codegym-cad-pwned.txt")  # outside the work dir and /tmp wherever the repo is
    code = f"import os\nfd = os.open({str(target)!r}, os.O_CREAT | os.O_WRONLY)\nos.write(fd, b'x')"
    _, reward, _, _, info = attempt(env, "plate-00", fenced(code))
    assert reward == 0.0 and "write_outside_workdir" in info["audit"]["flags"]
    assert not target.exists()


def test_reading_the_gold_scripts_is_blocked_and_flagged(env, monkeypatch):
    # With codegym installed inside the venv the sandbox could see the bundled parts; stand
    # in a folder it does see for them.
    from codegym.envs.cad import worker

    seen = str(Path(sysconfig.get_paths()["purelib"]) / "gymnasium")
    monkeypatch.setattr(worker, "HIDDEN_PATHS", [seen])
    code = (
        f"text = open({seen + '/__init__.py'!r}).read()\nimport cadquery as cq\nresult = cq.Workplane().box(60, 40, 5)"
    )
    _, reward, _, _, info = attempt(env, "plate-00", fenced(code))
    assert reward == 0.0 and "read_hidden_files" in info["audit"]["flags"], info["feedback"]


def test_a_boolean_that_explodes_memory_is_stopped_and_flagged():
    bomb = (
        "import cadquery as cq\nb = cq.Workplane().box(1, 1, 1).union(cq.Workplane().sphere(0.7)).val()\n"
        "keep = [b.fuse(b.translate((0.5 * i, 0, 0))) for i in range(10**6)]\nresult = b"
    )
    with TextToCADEnv(timeout_s=30, memory_mb=100) as e:
        _, reward, _, _, info = attempt(e, "plate-00", fenced(bomb))
        assert reward == 0.0
        assert {"memory_limit", "timeout", "worker_killed"} & set(info["audit"]["flags"]), info["feedback"]
        assert attempt(e, "plate-00", fenced(gold(e, "plate-00")))[1] >= 0.99


def test_killing_the_worker_is_flagged_and_the_next_attempt_gets_a_fresh_worker(env):
    code = "import ctypes\nctypes.CDLL(None).kill(1, 9)"
    _, reward, _, _, info = attempt(env, "plate-00", fenced(code))
    assert reward == 0.0 and {"native_code", "worker_killed"} & set(info["audit"]["flags"])
    assert attempt(env, "plate-00", fenced(gold(env, "plate-00")))[1] >= 0.99


def test_a_worker_killed_from_outside_mid_attempt_is_not_blamed_on_the_attempt(env):
    # On main the attempt earned 0, flagged worker_killed, for what the machine did.
    env.reset(options={"task_id": "plate-00"})
    env.step(fenced(gold(env, "plate-00")))  # the worker is warm
    slow_gold = fenced("import time\ntime.sleep(2)\n" + gold(env, "plate-00"))
    env.reset(options={"task_id": "plate-00"})
    victim = env._worker._proc.pid
    killer = threading.Timer(1.0, lambda: os.killpg(victim, signal.SIGKILL))
    killer.start()
    _, reward, _, _, info = env.step(slow_gold)
    killer.join()
    assert "worker_killed" not in info["audit"]["flags"], info
    assert "infra_error" in info or reward >= 0.99, info
    assert not os.path.exists(f"/proc/{victim}"), "the worker was not killed mid-attempt: the test proves nothing"


def test_an_endless_loop_is_stopped_and_flagged_and_close_leaves_nothing_behind():
    e = TextToCADEnv(timeout_s=3)  # limits of its own: a worker no other test holds
    _, reward, _, _, info = attempt(e, "plate-00", fenced("while True:\n    pass"))
    assert reward == 0.0 and "timeout" in info["audit"]["flags"]
    assert attempt(e, "plate-00", fenced(gold(e, "plate-00")))[1] >= 0.99  # the env still works
    # Other sandboxes share the sandbox uid on this host, so follow this worker's own processes.
    worker = e._worker
    proc, cgroup, work = worker._proc, worker._handle._cgroup, worker._sandbox.host_path
    assert proc.poll() is None and work.exists()
    e.close()
    assert proc.poll() is not None
    if cgroup is not None:  # as root: every process of the worker was in it, and it is gone
        assert [d for d in cgroup.dirs if d.exists()] == []
    assert not work.exists()


# ---------------------------------------------------------------------- determinism and contract
def test_three_runs_give_the_same_reward_and_info(env):
    action = fenced("import cadquery as cq\nresult = cq.Workplane().box(60, 40, 5).faces('>Z').workplane().hole(8)")
    runs = [attempt(env, "plate-00", action) for _ in range(3)]
    assert len({r[1] for r in runs}) == 1
    assert runs[0][4]["token_rewards"] == runs[1][4]["token_rewards"] == runs[2][4]["token_rewards"]
    assert runs[0][4]["views_png"] == runs[2][4]["views_png"]
    assert np.array_equal(runs[0][0]["image"], runs[2][0]["image"])


def test_check_env_passes():
    with TextToCADEnv(**LIMITS) as e:
        check_env(e, skip_render_check=True)


def test_gym_make_builds_the_env_and_renders_three_views():
    e = gym.make("TextToCAD-v0", render_mode="rgb_array", **LIMITS)
    try:
        e.reset(options={"task_id": "standoff-00"})
        obs, _, _, _, info = e.step(e.unwrapped.gold_action())
        frame = e.render()
        assert frame.shape == (128, 384, 3) and frame.dtype == np.uint8 and frame.std() > 5
        assert np.array_equal(frame, obs["image"])
        assert sorted(info["views_png"]) == ["front", "iso", "top"]
        assert Image.open(io.BytesIO(info["views_png"]["iso"])).size == (128, 128)
    finally:
        e.close()


def test_tasks_given_as_dicts_with_one_description_work():
    part = {
        "id": "cube",
        "gold": "import cadquery as cq\nresult = cq.Workplane().box(10, 10, 10)\n",
        "description": "A 10 mm cube centred on the origin.",
    }
    with TextToCADEnv(tasks=[part], **LIMITS) as e:
        obs, _ = e.reset(seed=0)
        assert "10 mm cube" in obs["text"]
        assert e.step(e.gold_action())[1] >= 0.99


# ---------------------------------------------------------------------- token-level reward
def test_each_chain_call_is_a_step_and_spans_sum_to_the_final_f1(env):
    code = gold(env, "plate-00")
    steps = split_steps(code)
    assert [code[s.start : s.end].strip() for s in steps if s.end > s.start][-4:] == [
        '.faces(">Z")',
        ".workplane()",
        ".rarray(22, 24, 3, 2)",
        ".hole(5)",
    ]
    action = "Here it is:\n" + fenced(code)
    _, _, _, _, info = attempt(env, "plate-00", action)
    spans = info["token_rewards"]
    assert any(action[s:e] == ".hole(5)" and v > 0 for s, e, v in spans), spans
    assert sum(v for _, _, v in spans) == pytest.approx(info["reward_components"]["f1"], abs=1e-4)


def test_token_spans_use_character_offsets_with_non_ascii_text(env):
    code = "import cadquery as cq\n# pièce: plaque\nresult = cq.Workplane().box(60, 40, 5).edges('|Z').fillet(2)"
    action = "Voilà — " + fenced(code)
    _, _, _, _, info = attempt(env, "plate-00", action)
    assert any(action[s:e] == ".box(60, 40, 5)" for s, e, _ in info["token_rewards"]), info["token_rewards"]


# ---------------------------------------------------------------------- multi-turn
def test_multi_turn_credits_the_final_score_at_the_done_critique():
    with TextToCADEnv(max_turns=4, **LIMITS) as e:
        e.reset(options={"task_id": "tube-00"})
        wrong = fenced("import cadquery as cq\nresult = cq.Workplane().circle(15).extrude(40)")
        obs, r1, t1, tr1, info1 = e.step(wrong)
        assert (r1, t1, tr1) == (0.0, False, False) and "bbox size" in obs["text"]
        assert info1["reward_components"]["score"] > 0
        obs, r2, t2, _, _ = e.step("The bore and the counterbore are missing.\nVERDICT: revise: add them")
        assert (r2, t2) == (0.0, False)
        _, r3, t3, _, _ = e.step(fenced(gold(e, "tube-00")))
        assert (r3, t3) == (0.0, False)
        _, r4, t4, tr4, info4 = e.step("Matches the target.\nVERDICT: done")
        assert t4 and not tr4 and r4 >= 0.99 and info4["verdict"]["verdict"] == "done"


def test_multi_turn_truncates_at_the_turn_limit_with_the_last_score():
    with TextToCADEnv(max_turns=2, **LIMITS) as e:
        e.reset(options={"task_id": "tube-00"})
        e.step("Let me think.\nVERDICT: revise: start")
        _, reward, terminated, truncated, _ = e.step(fenced(gold(e, "tube-00")))
        assert truncated and not terminated and reward >= 0.99


def test_fork_shares_the_warm_worker_and_both_envs_stay_usable(env):
    env.reset(options={"task_id": "plate-00"})
    clone = env.fork()
    assert clone._worker is env._worker
    assert clone.step(clone.gold_action())[1] >= 0.99
    clone.close()
    assert env.step(env.gold_action())[1] >= 0.99


def test_unknown_options_fail_at_make_with_the_fix():
    with pytest.raises(ValueError, match="scale_mode must be one of"):
        TextToCADEnv(scale_mode="metric")
    with pytest.raises(ValueError, match="pool='cold'"):
        TextToCADEnv(sandbox="docker", pool="warm")
    assert TextToCADEnv(sandbox="docker").pool == "cold"


def test_targets_are_cached_on_disk_by_content_hash(env, monkeypatch, tmp_path):
    from codegym.envs.cad import targets

    monkeypatch.setenv("CODEGYM_CAD_CACHE", str(tmp_path))
    monkeypatch.setattr(targets, "_memory", {})
    part = {
        "id": "slab",
        "gold": "import cadquery as cq\nresult = cq.Workplane().box(7, 5, 3)\n",
        "description": "A slab.",
    }
    with TextToCADEnv(tasks=[part], **LIMITS) as e:
        e.reset(seed=0)
        entry = tmp_path / f"{targets.target_key(part['gold'], 1e-3)}.npz"
        assert [p.name for p in tmp_path.iterdir()] == [entry.name]
        entry.write_bytes(b"corrupt")  # a broken entry is recomputed, not trusted
        monkeypatch.setattr(targets, "_memory", {})
        e.reset(seed=0)
        assert e.step(e.gold_action())[1] >= 0.99
        assert entry.read_bytes() != b"corrupt"


@pytest.mark.skipif(
    os.environ.get("CODEGYM_CAD_COLD") != "1", reason="cold pool: a fresh interpreter per attempt (slow)"
)
def test_cold_pool_gives_the_same_reward_as_the_warm_one(env):
    warm = attempt(env, "gear-00", fenced(gold(env, "gear-00")))[1]
    with TextToCADEnv(pool="cold") as e:
        assert attempt(e, "gear-00", fenced(gold(e, "gear-00")))[1] == warm
