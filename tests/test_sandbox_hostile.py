"""The attack catalogue against the sandbox itself, on every backend.

Each test is an escape or a host failure that a command (or the files it leaves) caused on
an earlier main: argument injection into the launcher, processes that outlive their run,
link and FIFO races against the host's file operations, descriptor theft, and trees too
deep for the host to remove. After each, the sandbox must still work, and nothing leaks.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import docker_available
from leaks import containers, mounts, sandbox_processes, work_dirs

from codegym.errors import SandboxError
from codegym.sandbox import Sandbox, create, workspace


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
    with create(backend, timeout_s=20, memory_mb=256, max_processes=64, disk_mb=64) as box:
        yield box
        after = box.run("echo still-works")
        assert after.ok and after.stdout == "still-works\n", f"the sandbox broke: {after}"


# ---------------------------------------------------------------------------- arguments
def test_a_nul_byte_in_a_command_cannot_add_launcher_options(sb: Sandbox) -> None:
    # On main the local launcher joined bwrap's options with NUL: this bound the host's /.
    res = sb.run("ls /hostroot/etc/hostname; echo ran\0--bind\0/\0/hostroot")
    assert res.exit_code == 126 and not res.ok, res
    assert "NUL" in res.stderr and "ran" not in res.stdout


@pytest.mark.parametrize(
    "where",
    ["argv", "env value", "env name", "cwd"],
)
def test_a_nul_byte_in_any_field_fails_the_command_not_the_sandbox(sb: Sandbox, where: str) -> None:
    evil = "x\0--share-net\0--bind\0/\0/hostroot"
    kwargs: dict = {}
    cmd: str | list[str] = "ls /hostroot && echo escaped"
    if where == "argv":
        cmd = ["sh", "-c", "ls /hostroot && echo escaped", evil]
    elif where == "env value":
        kwargs["env"] = {"V": evil}
    elif where == "env name":
        kwargs["env"] = {evil: "1"}
    else:
        kwargs["cwd"] = evil
    res = sb.run(cmd, **kwargs)
    assert res.exit_code == 126 and "escaped" not in res.stdout, res
    assert "NUL" in res.stderr


def test_an_env_name_with_an_equals_sign_fails_the_command_not_the_sandbox(sb: Sandbox) -> None:
    res = sb.run("echo ran", env={"A=B": "1"})
    assert res.exit_code == 126 and "ran" not in res.stdout and "A=B" in res.stderr, res


def test_a_command_over_the_kernels_argument_limit_fails_the_command_not_the_sandbox(sb: Sandbox) -> None:
    res = sb.run("echo " + "a" * 200_000)
    assert res.exit_code == 126 and "too long" in res.stderr, res
    many = sb.run(["true", *(["b" * 100_000] * 40)])  # 4 MB in all: over ARG_MAX
    assert many.exit_code == 126 and "too long" in many.stderr, many


def test_a_lone_surrogate_in_a_command_fails_the_command_not_the_sandbox(sb: Sandbox) -> None:
    res = sb.run("echo \ud800")
    assert res.exit_code == 126 and "UTF-8" in res.stderr, res


# ---------------------------------------------------------------------------- processes
def test_a_daemon_that_kills_the_commands_parent_does_not_outlive_the_run(sb: Sandbox) -> None:
    # On main, docker's wrapper shell did the clean-up, so killing it left the daemon.
    sb.write_file("beatloop", "while :; do date +%s%N >> /sandbox/beat; sleep 0.02; done\n")
    sb.run("setsid sh beatloop >/dev/null 2>&1 < /dev/null & sleep 0.2; kill -9 $PPID; kill -9 $$")
    size = len(sb.read_file("beat"))
    time.sleep(0.5)
    assert len(sb.read_file("beat")) == size, "a process of the last run still writes to the work dir"
    ps = sb.run("ls /proc | grep -c '^[0-9]' ; cat /proc/[0-9]*/cmdline | tr '\\0' ' '")
    assert "beatloop" not in ps.stdout, ps.stdout


# ---------------------------------------------------------------------------- host files
def _flip(path: Path, outside: Path, stop: threading.Event) -> None:
    """What a racing sandbox process does: swap a regular file and a link out, as fast as it can."""
    link, plain = path.with_name(".l"), path.with_name(".p")
    while not stop.is_set():
        try:
            os.symlink(outside, link)
            os.rename(link, path)
            plain.write_bytes(b"inside")
            os.rename(plain, path)
        except OSError:
            pass


@pytest.mark.parametrize("op", ["write_file", "read_file"])
def test_a_link_swapped_in_while_the_host_works_never_leads_it_out(sb: Sandbox, tmp_path: Path, op: str) -> None:
    # On main, write_file checked for a link and then wrote through the path.
    outside = tmp_path / "secret"
    outside.write_bytes(b"host secret")
    os.chmod(outside, 0o600)
    host_dir = sb.host_path  # type: ignore[attr-defined]
    target = host_dir / "f"
    target.write_bytes(b"inside")
    stop = threading.Event()
    racer = threading.Thread(target=_flip, args=(target, outside, stop), daemon=True)
    racer.start()
    try:
        for _ in range(3000):
            try:
                if op == "write_file":
                    sb.write_file("f", b"from the host", mode=0o666)
                else:
                    assert sb.read_file("f") != b"host secret", "the host read a file outside the work dir"
            except SandboxError:
                pass
    finally:
        stop.set()
        racer.join()
    assert outside.read_bytes() == b"host secret", "the host wrote a file outside the work dir"
    assert outside.stat().st_mode & 0o777 == 0o600, "the host chmod-ed a file outside the work dir"


def _within(seconds: float, fn, *args):  # noqa: ANN001, ANN202 - a test helper
    box: dict = {}

    def call() -> None:
        try:
            box["value"] = fn(*args)
        except Exception as exc:  # noqa: BLE001
            box["error"] = exc

    t = threading.Thread(target=call, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{fn.__name__} hung on a FIFO"
    return box


def test_a_fifo_where_the_host_reads_or_writes_does_not_hang_it(sb: Sandbox, tmp_path: Path) -> None:
    sb.run("mkfifo pipe && mkdir -p d && mkfifo d/t")
    assert isinstance(_within(10, sb.read_file, "pipe").get("error"), SandboxError)
    wrote = _within(10, sb.write_file, "pipe", "data")
    assert "error" not in wrote or isinstance(wrote["error"], SandboxError)
    src = tmp_path / "t"
    src.write_text("tests")
    copied = _within(10, sb.copy_in, str(src), "d/t")
    assert "error" not in copied, copied
    assert sb.read_file("d/t") == b"tests"


def test_a_link_planted_at_a_copy_in_target_is_replaced_not_followed(sb: Sandbox, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    sb.run(f"ln -s {outside} tests")
    src = tmp_path / "src"
    src.mkdir()
    (src / "test_x.py").write_text("hidden test")
    sb.copy_in(str(src), "tests")
    assert list(outside.iterdir()) == []
    assert sb.read_file("tests/test_x.py") == b"hidden test"


# ---------------------------------------------------------------------------- descriptors
STEAL = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
got = []
for pid in sorted(int(p) for p in os.listdir('/proc') if p.isdigit()):
    if pid == os.getpid():
        continue
    pidfd = libc.syscall(434, pid, 0)          # pidfd_open
    if pidfd >= 0:
        for n in range(3):
            fd = libc.syscall(438, pidfd, n, 0)  # pidfd_getfd
            if fd >= 0:
                got.append(f"getfd {pid}/{n}")
    if libc.ptrace(16, pid, 0, 0) == 0:          # PTRACE_ATTACH
        got.append(f"ptrace {pid}")
        os.waitpid(pid, 0x40000000)              # __WALL: until it is stopped, then
        libc.ptrace(17, pid, 0, 0)               # PTRACE_DETACH
print("STOLEN" if got else "none", got)
"""


def test_sandboxed_code_cannot_take_other_processes_descriptors(sb: Sandbox) -> None:
    # On main, pidfd_getfd on bwrap's pid 1 took the launcher's pipes (local backend).
    sb.write_file("steal.py", STEAL)
    res = sb.run("sleep 5 & python3 steal.py")
    assert res.ok, res
    if sb.backend == "docker":  # Docker's default profile lets a process trace its own uid's others
        assert "getfd" not in res.stdout, res
    else:
        assert res.stdout.startswith("none"), res


def test_sandboxed_code_cannot_make_user_namespaces(backend: str) -> None:
    with create(backend) as box:
        res = box.run("unshare -Ur id -u && echo made-one")
        assert "made-one" not in res.stdout, res


# ---------------------------------------------------------------------------- trees
DEEP = "import os\nfor _ in range(1200):\n    os.mkdir('d'); os.chdir('d')\nopen('leaf', 'w').write('x')\n"


def test_a_1200_level_tree_is_snapshotted_forked_and_removed(backend: str) -> None:
    # On main the layer could not be removed (shutil.rmtree recursed past Python's limit).
    with create(backend) as box:
        assert box.run(["python3", "-c", DEEP]).ok
        snap = box.snapshot()
        with box.fork() as other:
            assert other.run("find . -name leaf | wc -l").stdout.strip() == "1"
        layer_dirs = [layer.path for layer in snap]
        box.restore(snap)
    del snap, box, other
    gc.collect()
    assert not [p for p in layer_dirs if p.exists() and "d" in {c.name for c in p.iterdir()}], layer_dirs


@pytest.mark.skipif(os.geteuid() != 0, reason="sweeping and mounts need root")
def test_sweeping_a_dead_process_left_overs_never_recurses_or_raises(tmp_path: Path) -> None:
    """A dead owner's deep tree and its self-bind mount are removed by a later process."""
    dead = _dead_pid()
    owner = workspace.ROOT / str(dead)
    merged = owner / "Wdead" / "merged"
    merged.mkdir(parents=True)
    subprocess.run(["mount", "--bind", str(merged), str(merged)], check=True)
    deep = owner / "Ldead"
    deep.mkdir()
    subprocess.run([sys.executable, "-c", DEEP], cwd=deep, check=True)
    try:
        out = subprocess.run(
            [sys.executable, "-c", "from codegym.sandbox import workspace; print(workspace.sweep_stale())"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        assert not owner.exists(), "the dead process's folder is still there"
        assert str(merged) not in Path("/proc/self/mounts").read_text()
    finally:
        subprocess.run(["umount", "-l", str(merged)], capture_output=True)
        subprocess.run(["rm", "-rf", str(owner)])


def _dead_pid() -> int:
    pid = 4_000_000
    while Path(f"/proc/{pid}").exists():
        pid += 1
    return pid


# ---------------------------------------------------------------------------- the engine
@pytest.mark.docker
@pytest.mark.skipif(os.environ.get("CI") != "true" and not docker_available(), reason="no Docker engine")
def test_a_docker_sandbox_whose_container_died_runs_again_with_its_files() -> None:
    # What a dockerd restart does to every container; on main every later run got 409 Conflict.
    import docker

    with create("docker") as box:
        box.write_file("kept.txt", "kept")
        docker.from_env().api.kill(box._container.id)  # type: ignore[attr-defined]
        res = box.run("cat kept.txt")
        assert res.ok and res.stdout == "kept", res
        docker.from_env().api.remove_container(box._container.id, force=True)  # type: ignore[attr-defined]
        res = box.run("cat kept.txt && echo more >> kept.txt && cat kept.txt")
        assert res.ok and res.stdout == "keptkeptmore\n", res
