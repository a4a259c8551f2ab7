"""The editor harness under hostile paths: every tool call a model writes stays in the work dir.

A model controls each call's ``path`` and can prepare the work dir with ``bash`` first:
links out of it, FIFOs, NUL bytes, paths that climb out. The host must neither read nor
write a file outside the work dir, nor hang, nor report the attempt's doing as an
``infra_error``; the episode goes on and the gold fix still earns 1.0.
"""

from __future__ import annotations

import json
import os

import pytest
from codegym.envs.agentic import CodeRepairEnv
from conftest import docker_available

EDIT_TASK = "textkit.case.camel_to_snake.drop_condition.0"
TOOLS = (("view", {}), ("create", {"file_text": "x"}), ("insert", {"insert_line": 0, "new_str": "x"}))
BACKENDS = ["local", pytest.param("docker", marks=pytest.mark.docker)]


@pytest.fixture(params=BACKENDS)
def env(request, tmp_path):
    if request.param == "docker" and os.environ.get("CI") != "true" and not docker_available():
        pytest.skip("no Docker engine")
    e = CodeRepairEnv(sandbox=request.param, harness="editor", max_turns=40)
    e.reset(options={"task_id": EDIT_TASK})
    yield e
    e.close()


def call(env, **args):
    obs, reward, terminated, truncated, info = env.step(json.dumps(args))
    assert "infra_error" not in info, info["infra_error"]
    assert not terminated, obs
    return obs


@pytest.fixture()
def host_secret(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret 7f3a\n")
    os.chmod(tmp_path, 0o755)
    return secret


def test_a_path_outside_the_work_dir_or_with_a_nul_byte_is_refused_as_the_attempts_error(env):
    for path in ("../../../../etc/passwd", "/etc/passwd", "a\x00b", "textkit/\x00/case.py", ""):
        for tool, extra in (
            ("view", {}),
            ("create", {"file_text": "x"}),
            ("insert", {"insert_line": 0, "new_str": "x"}),
        ):
            assert "root:" not in call(env, tool=tool, path=path, **extra)
    assert env.step(env.gold_action())[1] == 1.0


def test_links_out_of_the_work_dir_are_neither_read_nor_written_through(env, host_secret):
    call(env, tool="bash", command=f"ln -s {host_secret} out.txt && ln -s {host_secret.parent} outdir")
    for path in ("out.txt", "outdir/secret.txt"):
        assert "host secret" not in call(env, tool="view", path=path)
        call(env, tool="create", path=path, file_text="written by the model\n")
        call(env, tool="str_replace", path=path, old_str="host", new_str="model")
        call(env, tool="insert", path=path, insert_line=0, new_str="model line")
        call(env, tool="undo_edit", path=path)
    assert host_secret.read_text() == "host secret 7f3a\n"
    assert sorted(p.name for p in host_secret.parent.iterdir()) == ["secret.txt"]
    assert env.step(env.gold_action())[1] == 1.0


def test_a_fifo_at_an_edited_path_does_not_hang_the_step(env):
    call(env, tool="bash", command="mkfifo pipe && mkfifo textkit/pipe.py")
    for path in ("pipe", "textkit/pipe.py"):
        call(env, tool="view", path=path)
        call(env, tool="create", path=path, file_text="x")
        call(env, tool="str_replace", path=path, old_str="x", new_str="y")
    assert env.step(env.gold_action())[1] == 1.0
