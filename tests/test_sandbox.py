"""The sandbox contract on both backends: attacks are contained, reported, and leave nothing.

Each attack is followed by a normal command in the same sandbox, which must still work, and
the module checks that no process, container, work dir or mount outlives the sandboxes.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from leaks import containers, mounts, sandbox_processes, work_dirs

from codegym.errors import SandboxError
from codegym.sandbox import Sandbox, create


@pytest.fixture(scope="module", autouse=True)
def nothing_leaks() -> Iterator[None]:
    before = (set(sandbox_processes()), work_dirs(), containers(), mounts())
    yield
    time.sleep(0.2)
    assert set(sandbox_processes()) <= before[0], "a sandboxed process outlived its run"
    assert work_dirs() <= before[1], "a work dir outlived its sandbox"
    assert containers() <= before[2], "a container outlived its sandbox"
    assert mounts() <= before[3], "a mount outlived its sandbox"


@pytest.fixture
def sb(backend: str) -> Iterator[Sandbox]:
    with create(
        backend, timeout_s=20, memory_mb=256, max_processes=64, disk_mb=64, max_file_mb=32, max_output_bytes=100_000
    ) as box:
        yield box
        after = box.run("echo still-works")
        assert after.ok and after.stdout == "still-works\n", f"the sandbox broke: {after}"


def test_commands_run_unprivileged_in_the_work_dir(sb: Sandbox) -> None:
    res = sb.run("id -u; pwd; python3 -c 'import pytest; print(1)'")
    assert res.ok, res
    uid, cwd, one = res.stdout.split()
    assert uid != "0" and cwd == "/sandbox" and one == "1"


def test_stdin_env_and_cwd_reach_the_command(sb: Sandbox) -> None:
    sb.write_file("sub/marker", "m")
    res = sb.run("cat; echo $GREETING; ls", stdin="piped\n", env={"GREETING": "hi"}, cwd="sub")
    assert res.stdout == "piped\nhi\nmarker\n"


def test_every_argument_reaches_the_command_unchanged(sb: Sandbox) -> None:
    args = ["a b", "$HOME", "x\ny", "'q'", '"dq"', "-n", "", "\\back", "*", "é"]
    res = sb.run(["python3", "-c", "import sys, json; print(json.dumps(sys.argv[1:]))", *args])
    assert res.ok, res
    assert json.loads(res.stdout) == args


def test_a_command_sees_only_its_own_environment(sb: Sandbox) -> None:
    res = sb.run(["env"], env={"ONLY": "this"})
    names = {line.split("=", 1)[0] for line in res.stdout.splitlines()}
    assert "ONLY" in names and not any(n.startswith("CODEGYM") for n in names), names


def test_a_missing_program_is_the_commands_failure_not_the_sandboxes(sb: Sandbox) -> None:
    res = sb.run(["no-such-program", "arg"])
    assert res.exit_code in (126, 127) and "no-such-program" in res.stdout + res.stderr


def test_runs_after_the_thread_that_prepared_them_ended(backend: str) -> None:
    with create(backend) as box:
        worker = threading.Thread(target=lambda: box.run("true"))
        worker.start()
        worker.join()
        time.sleep(0.1)
        res = box.run("echo next")
        assert res.ok and res.stdout == "next\n", res


def test_fork_bomb_is_contained(sb: Sandbox) -> None:
    res = sb.run("bomb() { bomb | bomb & }; bomb; sleep 2", timeout=8)
    assert res.duration_s < 15


def test_memory_bomb_is_oom_killed(sb: Sandbox) -> None:
    res = sb.run(["python3", "-c", "x = bytearray(2 * 1024**3); print('allocated')"])
    assert "allocated" not in res.stdout
    assert res.oom_killed or res.exit_code != 0


def test_files_left_in_the_work_dir_do_not_eat_the_next_runs_memory(backend: str) -> None:
    # Work-dir files live on a tmpfs charged to the memory cgroup that wrote them.
    with create(backend, memory_mb=256, disk_mb=512) as box:
        assert box.run("head -c 200M /dev/zero > blob").ok
        res = box.run(["python3", "-c", "x = bytearray(200 * 1024**2); print('allocated')"])
        assert res.stdout == "allocated\n" and not res.oom_killed, res
        assert box.run(["python3", "-c", "x = bytearray(400 * 1024**2)"]).exit_code != 0


def test_infinite_loop_hits_the_wall_clock(sb: Sandbox) -> None:
    res = sb.run("while :; do :; done", timeout=1.5)
    assert res.timed_out and res.duration_s < 5


def test_sleeping_loop_past_the_wall_limit_is_killed(sb: Sandbox) -> None:
    res = sb.run("while :; do sleep 0.1; done", timeout=1)
    assert res.timed_out and res.duration_s < 5


def test_loopback_server_on_the_host_is_unreachable(sb: Sandbox) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    accepted: list[object] = []
    server.settimeout(3)
    thread = threading.Thread(target=lambda: _accept(server, accepted), daemon=True)
    thread.start()
    probe = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('connected')"
    res = sb.run(["python3", "-c", probe])
    thread.join()
    server.close()
    assert "connected" not in res.stdout and res.exit_code != 0
    assert not accepted


def _accept(server: socket.socket, accepted: list[object]) -> None:
    try:
        accepted.append(server.accept())
    except OSError:
        pass


def test_outside_address_is_unreachable(sb: Sandbox) -> None:
    # 192.0.2.1 is TEST-NET-1 (RFC 5737); with no network namespace route nothing is sent.
    probe = "import socket; socket.create_connection(('192.0.2.1', 80), timeout=2); print('connected')"
    res = sb.run(["python3", "-c", probe])
    assert "connected" not in res.stdout and res.exit_code != 0


def test_writes_outside_the_work_dir_fail(sb: Sandbox, tmp_path: Path) -> None:
    res = sb.run("echo x > /usr/evil; echo x > /etc/evil; echo x > /evil; echo done")
    assert res.stdout == "done\n"
    assert not Path("/usr/evil").exists() and not Path("/etc/evil").exists() and not Path("/evil").exists()


def test_hidden_verifier_folder_is_not_visible(sb: Sandbox, tmp_path: Path) -> None:
    hidden = tmp_path / "tests"
    hidden.mkdir()
    (hidden / "secret_test.py").write_text("SECRET = 42\n")
    res = sb.run(f"cat {hidden}/secret_test.py; ls {tmp_path}; ls /root /home 2>&1; echo end")
    assert "SECRET" not in res.stdout and res.stdout.endswith("end\n")


def test_links_out_of_the_work_dir_are_not_followed_by_the_host(sb: Sandbox) -> None:
    assert sb.run("ln -s /etc/hostname leak; ln -s / root; ln -s /tmp/x dangling").ok
    with pytest.raises(SandboxError):
        sb.read_file("leak")
    with pytest.raises(SandboxError):
        sb.write_file("root/etc/codegym-escape", "x")
    assert not Path("/etc/codegym-escape").exists()


def test_gigabytes_of_stdout_are_capped(sb: Sandbox) -> None:
    res = sb.run("head -c 1500000000 /dev/zero | tr '\\0' a; echo", timeout=60)
    assert res.output_truncated
    assert len(res.stdout) <= 100_000


def test_daemonised_child_does_not_outlive_the_run(sb: Sandbox) -> None:
    assert sb.run("setsid sh -c 'sleep 313.7' >/dev/null 2>&1 < /dev/null & nohup sleep 317.3 >/dev/null 2>&1 &").ok
    time.sleep(0.2)
    res = sb.run("cat /proc/[0-9]*/cmdline | tr '\\0' ' '")
    assert "313.7" not in res.stdout and "317.3" not in res.stdout
    assert not sandbox_processes("313.7") and not sandbox_processes("317.3")


def test_disk_filling_write_is_stopped(sb: Sandbox) -> None:
    res = sb.run("dd if=/dev/zero of=big bs=1M count=4096 2>&1; echo rc=$?")
    assert "rc=0" not in res.stdout
    sb.run("rm -f big")


def test_killing_the_parent_process_is_survived(sb: Sandbox) -> None:
    sb.run("kill -9 $PPID; kill -9 1; echo after")
    assert sb.run("echo ok").stdout == "ok\n"


def test_non_utf8_output_is_reported(sb: Sandbox) -> None:
    res = sb.run(r"printf '\377\376 abc'")
    assert res.ok and "abc" in res.stdout and "\ufffd" in res.stdout


def test_bad_paths_raise_clear_errors(sb: Sandbox) -> None:
    with pytest.raises(SandboxError, match="outside the work dir"):
        sb.write_file("/etc/passwd", "x")
    with pytest.raises(SandboxError, match="leaves the work dir|outside the work dir"):
        sb.read_file("../../etc/passwd")


# ---------------------------------------------------------------------- snapshots and forks
def _tree(sb: Sandbox) -> str:
    return sb.run("find . -type f | sort | xargs -r md5sum").stdout


def test_restore_brings_back_deleted_renamed_and_changed_files(sb: Sandbox) -> None:
    sb.write_file("keep.txt", "keep")
    sb.write_file("dir/delete.txt", "delete me")
    sb.write_file("rename.txt", "rename me")
    before = _tree(sb)
    snap = sb.snapshot()
    assert sb.run("rm -r dir; mv rename.txt renamed.txt; echo changed > keep.txt; echo new > new.txt").ok
    assert _tree(sb) != before
    sb.restore(snap)
    assert _tree(sb) == before
    assert sb.read_file("dir/delete.txt") == b"delete me"


def test_nothing_in_tmp_survives_a_restore(sb: Sandbox) -> None:
    snap = sb.snapshot()
    assert sb.run("echo secret > /tmp/left-behind").ok
    sb.restore(snap)
    assert "left-behind" not in sb.run("ls -A /tmp").stdout.split()


def test_forks_made_in_a_row_are_independent_sandboxes(sb: Sandbox) -> None:
    sb.write_file("n.txt", "0")
    children = [sb.fork() for _ in range(4)]  # the docker backend serves some from spares
    try:
        for i, child in enumerate(children):
            assert child.run(f"cat n.txt; echo {i} > n.txt").stdout == "0"
        assert [c.read_file("n.txt") for c in children] == [f"{i}\n".encode() for i in range(4)]
        assert sb.read_file("n.txt") == b"0"
    finally:
        for child in children:
            child.close()


def test_fork_diverges_from_its_parent(sb: Sandbox) -> None:
    sb.write_file("shared.txt", "v1")
    child = sb.fork()
    try:
        child.run("echo child > shared.txt; rm -f gone.txt; touch only-child")
        sb.run("touch only-parent")
        assert sb.read_file("shared.txt") == b"v1"
        assert child.read_file("shared.txt") == b"child\n"
        assert "only-child" not in sb.run("ls").stdout
        assert "only-parent" not in child.run("ls").stdout
        grandchild = child.fork()
        grandchild.run("echo gc > shared.txt")
        assert child.read_file("shared.txt") == b"child\n"
        grandchild.close()
    finally:
        child.close()


def test_snapshots_survive_many_steps(sb: Sandbox) -> None:
    snaps = []
    for i in range(8):
        sb.run(f"echo {i} > step.txt; echo {i} >> log.txt")
        snaps.append(sb.snapshot())
    sb.restore(snaps[2])
    assert sb.read_file("log.txt") == b"0\n1\n2\n"
    sb.restore(snaps[7])
    assert sb.read_file("step.txt") == b"7\n"


def test_workdir_from_a_host_folder_and_copy_in(backend: str, tmp_path: Path) -> None:
    (tmp_path / "repo" / "pkg").mkdir(parents=True)
    (tmp_path / "repo" / "pkg" / "mod.py").write_text("X = 1\n")
    (tmp_path / "hidden").mkdir()
    (tmp_path / "hidden" / "test_x.py").write_text("from pkg.mod import X\ndef test_x():\n    assert X == 1\n")
    with create(backend, workdir_from=tmp_path / "repo") as box:
        assert box.read_file("pkg/mod.py") == b"X = 1\n"
        assert "test_x" not in box.run("ls -R").stdout
        box.copy_in(str(tmp_path / "hidden"), "tests")
        res = box.run("python3 -m pytest -q tests")
        assert res.ok, res.stdout + res.stderr


def test_closed_sandbox_refuses_work(backend: str) -> None:
    box = create(backend)
    box.close()
    box.close()
    with pytest.raises(SandboxError, match="closed"):
        box.run("true")


def test_unknown_backend_and_limit_names_are_explained() -> None:
    with pytest.raises(ValueError, match="Did you mean 'docker'"):
        create("dokcer")
    with pytest.raises(TypeError, match="unknown sandbox limits"):
        create("local", memory=5)


# ---------------------------------------------------------------------- long-lived workers
def test_spawned_worker_serves_requests_within_limits_and_dies_on_close() -> None:
    from codegym.sandbox.local import LocalSandbox

    with create("local", memory_mb=256) as box:
        assert isinstance(box, LocalSandbox)
        worker = box.spawn(
            [
                "python3",
                "-u",
                "-c",
                "import sys\nfor line in sys.stdin:\n"
                "    if line.startswith('eat'): bytearray(2 * 1024**3)\n"
                "    print(line.upper(), end='', flush=True)\n",
                "worker-marker-41.7",
            ]
        )
        assert worker.proc.stdin and worker.proc.stdout
        worker.proc.stdin.write(b"hello\n")
        worker.proc.stdin.flush()
        assert worker.proc.stdout.readline() == b"HELLO\n"
        worker.proc.stdin.write(b"eat\n")
        worker.proc.stdin.flush()
        assert worker.proc.stdout.readline() == b""  # killed for memory
        assert worker.oom_kills() >= 1
        worker.close()
        worker.close()
        assert not sandbox_processes("worker-marker-41.7")


def test_codegym_package_and_assets_are_hidden_inside_a_bound_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    # As with a wheel install in the venv: the package (gold solutions, hidden tests in
    # assets) lies under a path the sandbox binds read-only, and must not be readable.
    import os
    import sys

    import codegym
    import codegym.sandbox.local as local

    root = os.path.dirname(os.path.dirname(os.path.realpath(codegym.__file__)))
    monkeypatch.setattr(local, "_system_paths", lambda: ["/usr", "/etc", sys.prefix, root])
    monkeypatch.setattr(local, "_state", {})
    with create("local") as box:
        res = box.run(f"ls -A {root}/codegym | wc -l; ls -A {root}/assets | wc -l; ls {root}/envs | wc -l")
    hidden_pkg, hidden_assets, visible = (int(n) for n in res.stdout.split())
    assert hidden_pkg == 0 and hidden_assets == 0 and visible > 0


def test_a_bound_prefix_under_tmp_is_not_hidden_by_the_private_tmp(monkeypatch: pytest.MonkeyPatch) -> None:
    # A venv under /tmp (a clone in /tmp, CI runners) is bound read-only like any prefix:
    # the sandbox's own /tmp must not cover it.
    import os
    import shutil
    import sys
    import tempfile

    import codegym.sandbox.local as local

    prefix = tempfile.mkdtemp(dir="/tmp")
    try:
        os.chmod(prefix, 0o755)
        Path(prefix, "marker").write_text("visible")
        os.chmod(Path(prefix, "marker"), 0o644)
        monkeypatch.setattr(local, "_system_paths", lambda: ["/usr", "/etc", sys.prefix, prefix])
        monkeypatch.setattr(local, "_state", {})
        with create("local") as box:
            res = box.run(f"cat {prefix}/marker; touch /tmp/scratch && echo tmp-writable")
        assert res.stdout == "visibletmp-writable\n", res
    finally:
        shutil.rmtree(prefix)
