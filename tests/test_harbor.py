"""Harbor and Terminal-Bench task folders, written here in their real layouts, run unchanged in Terminal-v0.

Each folder is what a user brings: ``task.toml``, ``instruction.md``, an
``environment/Dockerfile`` with ``WORKDIR /app``, ``COPY``, ``ENV`` and ``RUN``, a
``tests/test.sh`` that writes ``/logs/verifier/reward.txt`` (or ``reward.json``) and a
``solution/solve.sh``; the older Terminal-Bench layout has ``task.yaml``, ``run-tests.sh``
and ``solution.sh``. Gold earns 1.0 and a no-op 0 on both backends; what the harness cannot
run says so clearly; the agent can neither read the verifier nor forge its reward.
"""

from __future__ import annotations

import textwrap
import tomllib
from pathlib import Path

import pytest
from codegym.envs.agentic import TerminalEnv
from codegym.envs.agentic.dockerfile import BaseImageError, parse
from codegym.envs.agentic.harbor import parse_pytest_summary, read_reward
from conftest import BACKENDS

BASE = "python:3.13-slim-bookworm"

DOCKERFILE = f"""\
# A Terminal-Bench 2 style environment
FROM {BASE}
ARG GREETING=hello
WORKDIR /app
COPY data/ /app/data/
COPY notes.txt ./
ENV REPORT_NAME=report.txt \\
    MODE="strict mode"
RUN mkdir -p /app/build && echo "$GREETING from $(pwd)" > /app/build/origin.txt \\
    && printf '%s\\n' 3 4 5 > /app/data/extra.csv
"""

TEST_SH = """\
#!/bin/bash
# The verifier: pytest over /tests/test_outputs.py, reward 1 when every check passes.
cd /app
python -m pytest -q -p no:cacheprovider /tests/test_outputs.py
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
"""

TEST_OUTPUTS = """\
from pathlib import Path


def test_total_is_written():
    assert Path("/app/report.txt").read_text() == "15\\n"


def test_environment_was_applied():
    assert Path("/app/build/origin.txt").read_text() == "hello from /app\\n"
    assert Path("/app/notes.txt").read_text() == "sum every number\\n"
"""

SOLVE = """\
#!/bin/bash
# Sums every number of data/*.csv into $REPORT_NAME (an ENV of the Dockerfile).
awk '{ s += $1 } END { print s }' data/*.csv > "$REPORT_NAME"
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if not name.endswith("Dockerfile") else text)
    return root


def harbor_task(root: Path, **overrides: str) -> Path:
    """A Harbor task folder: sum numbers from CSV files copied in by the Dockerfile."""
    files = {
        "task.toml": """\
            version = "1.0"

            [metadata]
            difficulty = "easy"
            category = "data-wrangling"

            [verifier]
            timeout_sec = 60.0

            [agent]
            timeout_sec = 120.0

            [environment]
            build_timeout_sec = 120.0
            memory_mb = 1024
            storage_mb = 512
            """,
        "instruction.md": "Write the sum of every number in /app/data/*.csv to /app/report.txt.\n",
        "environment/Dockerfile": DOCKERFILE,
        "environment/data/a.csv": "1\n2\n",
        "environment/notes.txt": "sum every number\n",
        "tests/test.sh": TEST_SH,
        "tests/test_outputs.py": TEST_OUTPUTS,
        "solution/solve.sh": SOLVE,
    }
    files.update(overrides)
    return write(root, files)


@pytest.fixture
def mapped(monkeypatch):
    """The base image mapped to the sandbox's own system through the documented setting."""
    monkeypatch.setenv("CODEGYM_BASE_IMAGES", f"{BASE}=sandbox")


def run(env: TerminalEnv, action: str | None = None) -> tuple[float, dict]:
    env.reset(options={"task_id": env.tasks.ids[0]})
    _, reward, terminated, truncated, info = env.step(env.gold_action() if action is None else action)
    assert terminated or truncated
    return reward, info


@pytest.mark.parametrize("backend", BACKENDS)
def test_harbor_folder_gold_earns_full_reward_and_noop_zero(tmp_path, mapped, backend):
    env = TerminalEnv(tasks=harbor_task(tmp_path / "sum-csv"), sandbox=backend)
    gold, info = run(env)
    assert gold == 1.0 and info.get("infra_error") is None, info["feedback"]
    assert info["verdict"]["source"] == "reward.txt"
    noop, info = run(env, "submit")
    env.close()
    assert noop == 0.0 and info.get("infra_error") is None, info["feedback"]


def test_agent_starts_in_workdir_with_the_dockerfile_env_and_files(tmp_path, mapped):
    env = TerminalEnv(tasks=harbor_task(tmp_path / "sum-csv"), sandbox="local")
    obs, _ = env.reset()
    assert "Your working directory is /app." in obs
    out, *_ = env.step("pwd; echo $MODE; cat build/origin.txt; ls data; cat notes.txt")
    assert out.splitlines()[:6] == ["/app", "strict mode", "hello from /app", "a.csv", "extra.csv", "sum every number"]
    out, *_ = env.step("ls -d /tests/* /solution/* /logs/verifier/* 2>&1 | head; ls /sandbox")
    env.close()
    assert "test_outputs.py" not in out and "solve.sh" not in out and "test.sh" not in out


def test_editor_harness_takes_the_task_paths(tmp_path, mapped):
    env = TerminalEnv(tasks=harbor_task(tmp_path / "sum-csv"), sandbox="local", harness="editor")
    env.reset()
    out, *_ = env.step('{"tool": "create", "path": "/app/report.txt", "file_text": "15\\n"}')
    assert "created /sandbox/app/report.txt" in out
    out, *_ = env.step('{"tool": "view", "path": "/app/notes.txt"}')
    assert "sum every number" in out
    out, *_ = env.step('{"tool": "view", "path": "/etc/passwd"}')
    assert "outside the repository" in out
    _, reward, terminated, _, info = env.step('{"tool": "submit"}')
    env.close()
    assert terminated and reward == 1.0, info["feedback"]


def test_fork_and_restore_carry_the_task_folders(tmp_path, mapped):
    env = TerminalEnv(tasks=harbor_task(tmp_path / "sum-csv"), sandbox="local")
    env.reset()
    env.step("echo 15 > report.txt")
    snap = env.snapshot()
    clone = env.fork()
    env.step("rm report.txt")
    env.restore(snap)
    _, reward, *_ = env.step("submit")
    _, cloned, *_ = clone.step("cat /app/report.txt\nsubmit")
    env.close()
    clone.close()
    assert (reward, cloned) == (1.0, 1.0)


def test_reward_json_multi_metric_form(tmp_path, mapped):
    test_sh = """\
        #!/bin/bash
        cd /app
        total=$(cat report.txt 2>/dev/null)
        if [ "$total" = "15" ]; then ok=1; else ok=0; fi
        if [ -f report.txt ]; then exists=1; else exists=0; fi
        printf '{"reward": %s, "exists": %s, "notes": "not a number"}' $ok $exists > /logs/verifier/reward.json
        """
    env = TerminalEnv(tasks=harbor_task(tmp_path / "sum-json", **{"tests/test.sh": test_sh}), sandbox="local")
    gold, info = run(env)
    assert gold == 1.0 and info["verdict"]["metrics"] == {"reward": 1.0, "exists": 1.0}
    assert info["verdict"]["source"] == "reward.json" and info["reward_components"]["metric_exists"] == 1.0
    wrong, info = run(env, "echo 14 > /app/report.txt\nsubmit")
    env.close()
    assert wrong == 0.0 and info["verdict"]["metrics"] == {"reward": 0.0, "exists": 1.0}


def test_reward_json_without_a_reward_key_is_the_mean_of_its_numbers():
    assert read_reward(b'{"a": 1, "b": 0.5, "c": "x"}', None) == (0.75, {"a": 1.0, "b": 0.5})
    assert read_reward(b'{"a": 1, "b": 0}', b"0.25\n") == (0.25, {"a": 1.0, "b": 0.0})
    assert read_reward(None, b" 0.5\n") == (0.5, {"reward": 0.5})
    for bad in ((None, None), (None, b""), (None, b"yes"), (b"[1]", None), (None, b"nan")):
        with pytest.raises(ValueError):
            read_reward(*bad)


def test_a_verifier_that_writes_no_reward_is_an_infra_error(tmp_path, mapped):
    silent = "#!/bin/bash\ncd /app && python -m pytest -q /tests/test_outputs.py\n"
    env = TerminalEnv(tasks=harbor_task(tmp_path / "silent", **{"tests/test.sh": silent}), sandbox="local")
    reward, info = run(env)
    env.close()
    assert reward == 0.0
    assert "wrote neither /logs/verifier/reward.txt nor /logs/verifier/reward.json" in info["infra_error"]


def test_a_verifier_that_downloads_its_tools_is_an_infra_error_offline(tmp_path, mapped):
    # Terminal-Bench 2's usual verifier: fetch uv, then run pytest through uvx (no network here).
    fetching = """\
        #!/bin/bash
        curl -LsSf https://astral.sh/uv/0.9.5/install.sh | sh
        source $HOME/.local/bin/env
        uvx -p 3.13 -w pytest==8.4.1 pytest /tests/test_outputs.py -rA
        if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
        """
    env = TerminalEnv(tasks=harbor_task(tmp_path / "fetching", **{"tests/test.sh": fetching}), sandbox="local")
    reward, info = run(env)
    env.close()
    assert reward == 0.0 and "needs the network (no network in the sandbox)" in info["infra_error"]


def test_a_missing_base_image_names_it_and_the_two_ways_out(tmp_path, monkeypatch):
    monkeypatch.delenv("CODEGYM_BASE_IMAGES", raising=False)
    env = TerminalEnv(tasks=harbor_task(tmp_path / "sum-csv"), sandbox="local")
    with pytest.raises(BaseImageError) as err:
        env.reset()
    env.close()
    message = str(err.value)
    assert f"base image {BASE!r} is not on this machine" in message
    assert "docker load" in message and f"CODEGYM_BASE_IMAGES='{BASE}=sandbox'" in message
    assert "base_images=" in message


def test_base_images_argument_maps_a_from_pattern(tmp_path, monkeypatch):
    monkeypatch.delenv("CODEGYM_BASE_IMAGES", raising=False)
    env = TerminalEnv(tasks=harbor_task(tmp_path / "sum-csv"), sandbox="local", base_images={"python:*": "sandbox"})
    gold, info = run(env)
    env.close()
    assert gold == 1.0, info["feedback"]


def test_a_failing_run_step_is_an_infra_error_with_its_output(tmp_path, mapped):
    broken = DOCKERFILE + "RUN echo building the thing && ls /app/missing-folder\n"
    env = TerminalEnv(tasks=harbor_task(tmp_path / "broken", **{"environment/Dockerfile": broken}), sandbox="local")
    obs, info = env.reset()
    env.close()
    assert "Dockerfile step failed (exit 2)" in info["infra_error"]
    assert "building the thing" in info["infra_error"] and "missing-folder" in info["infra_error"]


def test_verifier_timeout_from_task_toml_applies(tmp_path, mapped):
    slow = "#!/bin/bash\nsleep 30\necho 1 > /logs/verifier/reward.txt\n"
    toml = '[verifier]\ntimeout_sec = 2.0\n[metadata]\ndifficulty = "hard"\n'
    env = TerminalEnv(
        tasks=harbor_task(tmp_path / "slow", **{"tests/test.sh": slow, "task.toml": toml}), sandbox="local"
    )
    assert env.tasks[0].difficulty == "hard"
    reward, info = run(env)
    env.close()
    assert reward == 0.0 and info["verdict"]["verifier_timed_out"] and info.get("infra_error") is None


def test_task_toml_resources_set_the_sandbox_limits_unless_the_user_names_them(tmp_path, mapped):
    toml = "[environment]\nmemory_mb = 256\nstorage_mb = 300\n"
    task = harbor_task(tmp_path / "small", **{"task.toml": toml})
    env = TerminalEnv(tasks=task, sandbox="local")
    env.reset()
    assert (env.sandbox.limits.memory_mb, env.sandbox.limits.disk_mb) == (256, 300)
    env.close()
    env = TerminalEnv(tasks=task, sandbox={"backend": "local", "memory_mb": 512})
    env.reset()
    assert (env.sandbox.limits.memory_mb, env.sandbox.limits.disk_mb) == (512, 300)
    env.close()


def test_agent_timeout_from_task_toml_ends_the_episode(tmp_path, mapped):
    toml = "[agent]\ntimeout_sec = 1.5\n"
    env = TerminalEnv(tasks=harbor_task(tmp_path / "quick", **{"task.toml": toml}), sandbox="local")
    env.reset()
    _, _, terminated, _, info = env.step("sleep 5")
    env.close()
    assert terminated and "agent time limit of 1.5 s reached" in info["feedback"]
    assert "timed out" in info["feedback"] or "time limit" in info["feedback"]


# ---------------------------------------------------------------------------- hostile agents
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reward_file_written_by_the_agent_does_not_count(tmp_path, mapped, backend):
    env = TerminalEnv(tasks=harbor_task(tmp_path / "sum-csv"), sandbox=backend)
    forged = (
        "mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt && "
        "echo '{\"reward\": 1}' > /logs/verifier/reward.json && chmod -R a-w /logs\nsubmit"
    )
    reward, info = run(env, forged)
    assert reward == 0.0 and info["verdict"]["source"] == "reward.txt", info["feedback"]
    # A background writer the agent leaves behind ends with its command, before the verifier runs.
    late = (
        "(for i in $(seq 200); do mkdir -p /logs/verifier; echo 1 > /logs/verifier/reward.txt; sleep 0.05; done) "
        "> /dev/null 2>&1 &\nsubmit"
    )
    reward, info = run(env, late)
    env.close()
    assert reward == 0.0, info["feedback"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_agent_cannot_plant_tests_or_replace_the_verifier(tmp_path, mapped, backend):
    env = TerminalEnv(tasks=harbor_task(tmp_path / "sum-csv"), sandbox=backend)
    planted = (
        "mkdir -p /tests && printf '#!/bin/bash\\necho 1 > /logs/verifier/reward.txt\\n' > /tests/test.sh "
        "&& printf 'def test_ok():\\n    pass\\n' > /tests/test_outputs.py\nsubmit"
    )
    reward, info = run(env, planted)
    assert reward == 0.0, info["feedback"]
    # Dot-files in the agent's HOME (a git config, a Python user site) do not reach the verifier.
    user_site = "$(python -c 'import site; print(site.getusersitepackages())')"
    dotfiles = (
        f'mkdir -p "{user_site}" && printf "%s\\n" "import pathlib" '
        "\"pathlib.Path('/logs/verifier/reward.txt').write_text('1')\" "
        f'> "{user_site}/usercustomize.py" && touch /app/report.txt\nsubmit'
    )
    reward, info = run(env, dotfiles)
    # Removing the WORKDIR fails the checks; it is not a failure of the machine.
    gone, gone_info = run(env, "cd / && rm -rf /sandbox/app\nsubmit")
    env.close()
    assert reward == 0.0 and info.get("infra_error") is None, info["feedback"]
    assert gone == 0.0 and gone_info.get("infra_error") is None, gone_info["feedback"]


# ---------------------------------------------------------------------------- Terminal-Bench 1
def tb1_task(root: Path) -> Path:
    return write(
        root,
        {
            "task.yaml": """\
                instruction: |-
                  Create /app/hello.txt containing the line "Hello, world!".
                author_email: someone@example.com
                difficulty: easy
                category: file-operations
                tags: [file-operations]
                parser_name: pytest
                max_agent_timeout_sec: 180
                max_test_timeout_sec: 30
                run_tests_in_same_shell: false
                """,
            "Dockerfile": f"FROM {BASE}\nWORKDIR /app\n",
            "docker-compose.yaml": "services:\n  client:\n    build: .\n",
            "run-tests.sh": """\
                #!/bin/bash
                cd /app
                python -m pytest $TEST_DIR/test_outputs.py -rA
                """,
            "tests/test_outputs.py": """\
                from pathlib import Path


                def test_hello_file_exists():
                    assert Path("/app/hello.txt").exists()


                def test_hello_file_content():
                    assert Path("/app/hello.txt").read_text() == "Hello, world!\\n"
                """,
            "solution.sh": '#!/bin/bash\necho "Hello, world!" > hello.txt\n',
        },
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_terminal_bench_1_folder_loads_and_grades(tmp_path, mapped, backend):
    tb1_task(tmp_path / "tasks" / "hello-world")
    env = TerminalEnv(tasks=tmp_path / "tasks", sandbox=backend)
    assert env.tasks.ids == ["hello-world"] and env.tasks[0].difficulty == "easy"
    gold, info = run(env)
    assert gold == 1.0 and info["verdict"]["tests"] == {"test_hello_file_exists": True, "test_hello_file_content": True}
    half, info = run(env, "touch hello.txt\nsubmit")
    env.close()
    assert half == 0.0 and info["verdict"]["passed"] == 1 and info["verdict"]["total"] == 2


def test_terminal_bench_pytest_summary_parser():
    out = (
        "===== short test summary info =====\n"
        "PASSED ../tests/test_outputs.py::test_a\n"
        "FAILED ../tests/test_outputs.py::test_b - assert 1 == 2\n"
        "SKIPPED [1] ../tests/test_outputs.py:3: nope\n"
        "==== 1 failed, 1 passed in 0.01s ====\n"
    )
    assert parse_pytest_summary(out) == {"test_a": True, "test_b": False, "[1] ../tests/test_outputs.py:3: nope": True}
    assert parse_pytest_summary("1 passed") is None


# ---------------------------------------------------------------------------- the parser
def test_dockerfile_parser_reads_continuations_heredocs_and_args():
    parsed = parse(
        "# syntax=docker/dockerfile:1\nARG BASE=debian:bookworm-slim\nFROM ${BASE} AS app\n"
        "RUN <<EOF\necho one\necho two\nEOF\n"
        "COPY --chmod=755 a b /dst/\nRUN echo a \\\n  # a comment in a continuation\n  && echo b\n",
        "Dockerfile",
    )
    assert parsed.base == "debian:bookworm-slim"
    assert [s.keyword for s in parsed.steps] == ["RUN", "COPY", "RUN"]
    assert parsed.steps[0].heredoc == "echo one\necho two\n"
    assert parsed.steps[1].flags == {"chmod": "755"} and parsed.steps[1].value == "a b /dst/"
    assert parsed.steps[2].value == "echo a   && echo b"  # Docker keeps the next line's indent


def test_bundled_tasks_use_the_harbor_layout():
    assets = Path(__file__).resolve().parents[1] / "assets" / "terminal"
    folders = sorted(p for p in assets.iterdir() if p.is_dir())
    assert len(folders) == 22
    for folder in folders:
        for part in ("task.toml", "instruction.md", "environment/Dockerfile", "tests/test.sh", "solution/solve.sh"):
            assert (folder / part).is_file(), (folder.name, part)
        assert "WORKDIR /app" in (folder / "environment" / "Dockerfile").read_text()
        config = tomllib.loads((folder / "task.toml").read_text())
        assert config["verifier"]["timeout_sec"] > 0 and config["metadata"]["difficulty"] in ("easy", "medium", "hard")
        texts = [p.read_text() for sub in ("tests", "solution") for p in (folder / sub).rglob("*") if p.is_file()]
        texts.append((folder / "instruction.md").read_text())
        assert not any("/sandbox" in t for t in texts), folder.name  # nothing points at codegym's own work dir


# ---------------------------------------------------------------------------- docker build
TINY_TOOLS = (
    "bash dash cat ls mkdir cp rm ln sleep kill find chmod mv grep mawk base64 tar gzip printf echo env "
    "dirname tee true wc head sort"
).split()


@pytest.fixture(scope="module")
def tiny_base_image():
    """A small base image with its own system (bash and core tools copied from this machine), loaded locally.

    It stands in for an image a user has loaded (``docker load``): no registry is used.
    """
    import hashlib
    import io
    import os
    import shutil
    import subprocess
    import tarfile

    docker = pytest.importorskip("docker")
    try:
        client = docker.from_env()
        client.ping()
    except Exception:  # noqa: BLE001
        pytest.skip("no Docker engine")
    files: dict[str, str] = {}
    for tool in TINY_TOOLS:
        exe = shutil.which(tool)
        assert exe, tool
        files[f"usr/bin/{tool}"] = os.path.realpath(exe)
        for line in subprocess.run(["ldd", exe], capture_output=True, text=True).stdout.splitlines():
            lib = line.split("=>")[-1].split("(")[0].strip()
            if lib.startswith("/"):
                files["usr" + lib if not lib.startswith("/usr/") else lib[1:]] = os.path.realpath(lib)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name in ("tmp", "usr/local/bin", "etc"):
            info = tarfile.TarInfo(name)
            info.type, info.mode = tarfile.DIRTYPE, 0o1777 if name == "tmp" else 0o755
            tar.addfile(info)
        for link, target in {"bin": "usr/bin", "lib": "usr/lib", "lib64": "usr/lib64", "usr/bin/sh": "dash"}.items():
            info = tarfile.TarInfo(link)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
        info = tarfile.TarInfo("usr/bin/awk")
        info.type, info.linkname = tarfile.SYMTYPE, "mawk"
        tar.addfile(info)
        for name, src in sorted(files.items()):
            tar.add(src, arcname=name)
    data = buf.getvalue()
    tag = f"codegym-test-tinybase:{hashlib.sha256(data).hexdigest()[:12]}"
    if not client.images.list(name=tag):
        client.api.import_image_from_data(data, repository=tag.split(":")[0], tag=tag.split(":")[1])
    return tag


def test_a_loaded_base_image_is_used_by_docker_build(tmp_path, tiny_base_image, monkeypatch):
    monkeypatch.delenv("CODEGYM_BASE_IMAGES", raising=False)
    dockerfile = (
        f"FROM {tiny_base_image}\nWORKDIR /app\nCOPY data/ /app/data/\nENV REPORT_NAME=report.txt\n"
        # Outside /app and as root: only a real build on the image can do this.
        "RUN mkdir -p /opt/tool && echo built > /opt/tool/version && echo 3 > /app/data/b.csv\n"
    )
    test_sh = (
        "#!/bin/bash\n"
        'if [ "$(cat /app/report.txt 2>/dev/null)" = "6" ] && [ "$(cat /opt/tool/version)" = built ]; '
        "then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n"
    )
    solve = "#!/bin/bash\ncat data/*.csv | mawk '{ s += $1 } END { print s }' > \"$REPORT_NAME\"\n"
    task = harbor_task(
        tmp_path / "built",
        **{"environment/Dockerfile": dockerfile, "tests/test.sh": test_sh, "solution/solve.sh": solve},
    )
    env = TerminalEnv(tasks=task, sandbox="docker")
    gold, info = run(env)
    assert gold == 1.0 and info.get("infra_error") is None, info["feedback"]
    env.reset()
    out, *_ = env.step("pwd; cat /opt/tool/version; ls /usr/bin | wc -l")
    assert out.splitlines()[:2] == ["/app", "built"] and int(out.splitlines()[2]) < 60  # the image's system
    noop, info = run(env, "submit")
    env.close()
    assert noop == 0.0 and info.get("infra_error") is None, info["feedback"]
    with pytest.raises(BaseImageError, match="a loaded image is used with sandbox='docker' only"):
        TerminalEnv(tasks=task, sandbox="local").reset()
