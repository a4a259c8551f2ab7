"""The ``local`` backend: bubblewrap namespaces over a copy-on-write work dir.

Each ``run`` starts ``bwrap`` with new user, pid, net, ipc, uts and cgroup namespaces: no
network (only its own loopback), the host's ``/usr``, ``/etc`` and Python read-only, the
work dir at ``/work`` the only writable place besides a private ``/tmp``. As root we first
drop to an unprivileged host uid (``CODEGYM_SANDBOX_UID``, default 60999), so the code is
non-root outside its namespace too, and put the run in a cgroup of its own (memory, pids;
one kept per sandbox from run to run, see :mod:`~codegym.sandbox.cgroups`).
rlimits cap CPU seconds, file size and core dumps per process.

When the command exits, bubblewrap's pid 1 exits and the kernel kills whatever is left in
the pid namespace (daemons included); on timeout the process group and the cgroup are
killed whole. So nothing a command starts outlives ``run``.

Joining a cgroup costs an RCU grace period (about 9 ms per hierarchy on an idle machine),
more than the rest of the start-up together. So the sandbox starts the next run's launcher
ahead, while the current command runs, in a second group (after the first run: a sandbox
used once never pays for it): it joins the group, drops the uid and exec's bwrap, which
then waits for its options (``--args``) on a pipe. ``run`` writes the options and the
command through that pipe, and only the namespace set-up is left on its path. The two
groups take turns.
"""

from __future__ import annotations

import os
import select
import selectors
import shutil
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegym.errors import InfraError, SandboxSetupError

from . import seccomp
from .base import (
    WORKDIR,
    Command,
    ExecResult,
    Limits,
    Runtime,
    Sandbox,
    check_aliases,
    command_problem,
    decode,
    refused,
    sandbox_env,
)
from .cgroups import RunCgroup
from .cgroups import sweep_stale as sweep_stale_cgroups
from .hostfs import HostWorkdir
from .workspace import CopyWorkspace, Layer, OverlayWorkspace, base_layer, can_mount, sweep_stale

SANDBOX_UID = int(os.environ.get("CODEGYM_SANDBOX_UID", "60999"))
_INNER_UID = 1000  # the uid commands see inside their user namespace

_state: dict[str, Any] = {}
_JOIN_FAILED = "codegym: could not join the run's cgroup or set its rlimits"


# bwrap's command: sh rebuilds the real argv from variables (bwrap takes options, not the
# command, through --args) and exec's it. Each argument is a variable of its own, so the
# per-argument size limit stays the kernel's, as with a plain argv.
_ARGV_PREFIX = "CODEGYM_ARGV_"
_EXEC_ARGV = (
    f"i=0; n=${_ARGV_PREFIX}N; unset {_ARGV_PREFIX}N; set --; while [ $i -lt $n ]; do "
    f'eval "set -- \\"\\$@\\" \\"\\${_ARGV_PREFIX}$i\\""; unset {_ARGV_PREFIX}$i; i=$((i+1)); done; exec "$@"'
)


@dataclass
class _Launch:
    """The launcher chain up to bwrap, started: bwrap waits to read its options from ``options``."""

    proc: subprocess.Popen[bytes]
    cgroup: RunCgroup | None
    options: int  # write end of bwrap's --args pipe; -1 once sent
    ro_fds: dict[str, int]  # read-only binds: host path -> fd number bwrap inherited
    seccomp: int  # fd number of the seccomp filter bwrap inherited (-1: none)
    oom_before: int = 0
    at: float = 0.0

    def discard(self) -> None:
        """Kill it (whatever it got to) and release its cgroup."""
        if self.options >= 0:
            os.close(self.options)
            self.options = -1
        _end_process(self.proc, self.cgroup)


class SandboxProcess:
    """A long-lived process started by :meth:`LocalSandbox.spawn`.

    Attributes:
        proc: the ``subprocess.Popen`` of bwrap; use its ``stdin``, ``stdout``, ``stderr``.
    """

    def __init__(self, proc: subprocess.Popen[bytes], cgroup: RunCgroup | None) -> None:
        self.proc, self._cgroup = proc, cgroup
        self._finalizer = weakref.finalize(self, _end_process, proc, cgroup)

    @property
    def pid(self) -> int:
        """Host pid of the process's bwrap."""
        return self.proc.pid

    def poll(self) -> int | None:
        """The exit code, or None while it runs."""
        return self.proc.poll()

    def oom_kills(self) -> int:
        """How many processes of this tree the kernel killed for memory so far."""
        return self._cgroup.oom_kills() if self._cgroup else 0

    def close(self) -> None:
        """Kill the process tree and release its cgroup; idempotent."""
        self._finalizer()


def _release(fs: OverlayWorkspace | CopyWorkspace, idle: list[RunCgroup], ready: list[_Launch]) -> None:
    while ready:
        ready.pop().discard()
    while idle:
        idle.pop().remove()
    fs.close()


def _end_process(proc: subprocess.Popen[bytes], cgroup: RunCgroup | None) -> None:
    _kill(proc, cgroup)
    proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None and not pipe.closed:
            pipe.close()
    if cgroup:
        cgroup.remove()


def _host_setup() -> dict[str, Any]:
    """What every local sandbox of this process shares; checked once."""
    if not _state:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise SandboxSetupError(
                "the local sandbox needs bubblewrap: run scripts/setup.sh or 'apt-get install bubblewrap'"
            )
        as_root = os.geteuid() == 0
        if as_root:
            sweep_stale()
            sweep_stale_cgroups()
        _state.update(
            bwrap=bwrap,
            as_root=as_root,
            mounts=can_mount(),
            ro_paths=_system_paths(),
            masked=masked_paths(),
            seccomp=seccomp.memfd(),
        )
    return _state


def _system_paths() -> list[str]:
    """Host paths bound read-only: the OS and the Python running codegym (with its venv)."""
    paths = ["/usr", "/etc"]
    if os.path.isdir("/var/lib/texmf"):  # Debian's TeX formats and font maps (pdflatex needs them)
        paths.append("/var/lib/texmf")
    for prefix in (sys.prefix, sys.base_prefix, os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)):
        if not any(prefix == p or prefix.startswith(p + "/") for p in paths):
            paths.append(prefix)
    if os.geteuid() == 0:
        blocked = [p for p in paths if not _reachable_by_others(p)]
        if blocked:
            raise SandboxSetupError(
                f"the sandbox user cannot enter {blocked} (a parent folder is private); run codegym "
                "from a venv made from a system Python, as scripts/setup.sh does (.venv)"
            )
    return paths


def masked_paths() -> list[str]:
    """Folders hidden (an empty tmpfs on top) inside the read-only binds.

    When codegym is installed as a wheel, its package, with ``assets`` (gold solutions,
    hidden tests), sits in the venv's site-packages, which the sandbox binds read-only.
    """
    import codegym

    package = os.path.dirname(os.path.realpath(codegym.__file__))
    binds = _system_paths()
    hidden = {package}
    try:
        from importlib import resources

        hidden.add(os.path.realpath(str(resources.files("codegym.assets"))))
    except (ModuleNotFoundError, TypeError):
        pass
    return sorted(p for p in hidden if any(p == b or p.startswith(b + "/") for b in binds))


def _reachable_by_others(path: str) -> bool:
    p = Path(path)
    return all(os.stat(a).st_mode & 0o001 for a in [p, *p.parents])


class LocalSandbox(HostWorkdir, Sandbox):
    """A bubblewrap sandbox; see the module docstring.

    Args:
        limits: resource limits.
        workdir_from: host folder whose contents the work dir starts with (None: empty).
        runtime: a venv bound read-only at ``runtime.path``, first on ``PATH`` (None: codegym's).
        aliases: top-level paths (``/app``) made links to the work dir's folders of the same name.

    """

    backend = "local"

    def __init__(
        self,
        limits: Limits,
        workdir_from: str | Path | None = None,
        *,
        runtime: Runtime | None = None,
        aliases: Sequence[str] = (),
        _layers: tuple[Layer, ...] | None = None,
    ) -> None:
        setup = _host_setup()
        self.limits = limits
        self.runtime = runtime
        # Links, resolved inside the sandbox: a bind of a work-dir folder would be resolved by
        # bwrap on the host, where a link a command planted in the work dir could lead anywhere.
        self.aliases = check_aliases(aliases, setup["ro_paths"])
        self._uid = SANDBOX_UID if setup["as_root"] else None
        if _layers is None:
            _layers = (base_layer(workdir_from, self._uid),)
        disk = limits.disk_mb * 2**20
        if setup["mounts"]:
            self._fs: OverlayWorkspace | CopyWorkspace = OverlayWorkspace(_layers, disk, SANDBOX_UID)
        else:
            self._fs = CopyWorkspace(_layers, disk, self._uid)
        # Between runs: an idle group, and the next run's launcher waiting in another group
        # (at most one of each; lists the finalizer shares).
        self._idle: list[RunCgroup] = []
        self._ready: list[_Launch] = []
        self._ran = False
        self._finalizer = weakref.finalize(self, _release, self._fs, self._idle, self._ready)

    # ------------------------------------------------------------------ running
    def run(
        self,
        cmd: Command,
        timeout: float | None = None,
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> ExecResult:
        """Run ``cmd`` in the sandbox; see :meth:`Sandbox.run`."""
        self._check_open()
        problem = command_problem(cmd, env, cwd)
        if problem is not None:
            return refused(problem)
        timeout = self.limits.timeout_s if timeout is None else timeout
        deadline = time.monotonic() + timeout
        started = self._take_ready()
        if started is None or not self._send(started, cmd, env, cwd, stdin is not None):
            if started is not None:  # died while it waited (its parent thread ended)
                started.discard()
            started = self._launch(self._cgroup_for_run(own=False))
            self._send(started, cmd, env, cwd, stdin is not None)
        first_run, self._ran = not self._ran, True
        if not first_run:  # while this command runs, in a second group (a one-run sandbox never needs it)
            self._prepare_next()
        proc, cgroup = started.proc, started.cgroup
        try:
            out, err, truncated, timed_out = _communicate(proc, stdin, deadline, self.limits.max_output_bytes, cgroup)
            duration = time.monotonic() - started.at
            oom = bool(cgroup and cgroup.oom_kills() > started.oom_before)
        finally:
            if cgroup:
                self._park(cgroup)
        if first_run:
            self._prepare_next()
        code = proc.returncode
        exit_code = 128 - code if code < 0 else code
        if exit_code == 1 and err.startswith(b"bwrap:") and not timed_out:
            raise InfraError(f"bubblewrap failed: {decode(err).strip()}")
        if exit_code == 125 and _JOIN_FAILED.encode() in err:
            raise InfraError(f"the run did not start: {decode(err).strip()}")
        return ExecResult(exit_code, decode(out), decode(err), timed_out, oom, truncated, duration)

    def spawn(self, cmd: Command, env: Mapping[str, str] | None = None, cwd: str | None = None) -> SandboxProcess:
        """Start a long-lived process (a warm worker) with the same isolation as :meth:`run`.

        Its stdin, stdout and stderr are pipes of the returned handle; the memory and
        process limits hold for it and everything it starts, for as long as it lives. The
        caller enforces time limits and must ``close()`` the handle, which kills the
        process tree.
        """
        self._check_open()
        problem = command_problem(cmd, env, cwd)
        if problem is not None:
            raise ValueError(f"cannot spawn the command: {problem}")
        started = self._launch(self._cgroup_for_run(own=True))
        self._send(started, cmd, env, cwd, True)
        return SandboxProcess(started.proc, started.cgroup)

    def _launch(self, cgroup: RunCgroup | None) -> _Launch:
        """Start the launcher chain in ``cgroup``; bwrap blocks reading its options until :meth:`_send`."""
        self._check_open()
        setup = _host_setup()
        ro_fds = {p: os.open(p, os.O_PATH) for p in setup["ro_paths"]}
        # The filter through a new open file of its own: bwrap reads it from the start.
        filter_fd = -1 if setup["seccomp"] is None else os.open(f"/proc/self/fd/{setup['seccomp']}", os.O_RDONLY)
        fds = [*ro_fds.values(), *([filter_fd] if filter_fd >= 0 else [])]
        options_r, options_w = os.pipe()
        try:
            bwrap = [setup["bwrap"], "--args", str(options_r), "--", "/bin/sh", "-c", _EXEC_ARGV, "sh"]
            # No preexec_fn and no user=: either would make Python fork() a possibly huge
            # process (a learner with a model loaded) instead of vfork(); see _launcher.
            proc = subprocess.Popen(
                [*self._launcher(cgroup), *bwrap],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={"PATH": "/usr/bin:/bin"},
                pass_fds=[options_r, *fds],
                start_new_session=True,
            )
        except OSError as exc:
            os.close(options_w)
            if cgroup:
                cgroup.remove()
            raise InfraError(f"could not start bubblewrap: {exc}") from exc
        finally:
            for fd in (options_r, *fds):
                os.close(fd)
        return _Launch(proc, cgroup, options_w, ro_fds, filter_fd)

    def _send(
        self, launch: _Launch, cmd: Command, env: Mapping[str, str] | None, cwd: str | None, stdin_pipe: bool
    ) -> bool:
        """Give the waiting bwrap its options and ``cmd``; False when it is already gone."""
        setup = _host_setup()
        argv = ["/bin/sh", "-c", cmd] if isinstance(cmd, str) else list(cmd)
        args = ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session"]
        args += ["--hostname", "sandbox"]
        if launch.seccomp >= 0:
            args += ["--seccomp", str(launch.seccomp)]
        args += ["--uid", str(_INNER_UID), "--gid", str(_INNER_UID)]
        # /tmp first: a venv (or anything bound) under /tmp must land on top of it, not under.
        args += ["--size", str(self.limits.disk_mb * 2**20), "--tmpfs", "/tmp"]
        for path, fd in launch.ro_fds.items():
            args += ["--ro-bind-fd", str(fd), path]
        for link in ("bin", "lib", "lib64", "sbin"):
            if os.path.islink(f"/{link}"):
                args += ["--symlink", os.readlink(f"/{link}"), f"/{link}"]
        for hidden in setup["masked"]:
            args += ["--tmpfs", hidden]
        if self.runtime is not None and self.runtime.host_dir:
            args += ["--ro-bind", self.runtime.host_dir, self.runtime.path]
        # By path, not by fd: a restore mounts a new overlay there after this launch started.
        args += ["--bind", str(self._fs.path), WORKDIR, "--proc", "/proc", "--dev", "/dev"]
        for alias in self.aliases:
            args += ["--symlink", WORKDIR + alias, alias]
        args += ["--chdir", os.path.join(WORKDIR, cwd) if cwd else WORKDIR, "--clearenv"]
        if self.runtime is None:
            variables = sandbox_env(env, f"{sys.prefix}/bin:/usr/local/bin:/usr/bin:/bin")
        else:
            variables = sandbox_env(self.runtime.variables(env), self.runtime.search_path())
        variables |= {f"{_ARGV_PREFIX}{i}": arg for i, arg in enumerate(argv)}
        variables[f"{_ARGV_PREFIX}N"] = str(len(argv))
        for name, value in variables.items():
            args += ["--setenv", name, value]
        launch.oom_before = launch.cgroup.oom_kills() if launch.cgroup else 0
        launch.at = time.monotonic()
        try:
            with open(launch.options, "wb", closefd=True) as pipe:
                launch.options = -1
                pipe.write(b"\0".join(a.encode() for a in args) + b"\0")
        except BrokenPipeError:
            return False
        if not stdin_pipe:
            assert launch.proc.stdin
            launch.proc.stdin.close()
        return True

    def _take_ready(self) -> _Launch | None:
        """The launcher started ahead for this run, its group re-armed; None when there is none."""
        if not self._ready:
            return None
        launch = self._ready.pop()
        try:
            if launch.cgroup:
                launch.cgroup.rearm(self.limits.memory_mb * 2**20)
        except OSError:
            launch.discard()
            return None
        return launch

    def _prepare_next(self) -> None:
        """Start the next run's launcher in the idle group (or a new one), so its join is off that run's path."""
        if self._closed or self._ready:
            return
        try:
            self._ready.append(self._launch(self._cgroup_for_run(own=False)))
        except InfraError:
            pass  # the next run starts its own launcher and reports what fails

    def _cgroup_for_run(self, own: bool) -> RunCgroup | None:
        """The sandbox's idle group, armed for one run; a new one when it is busy (or ``own``)."""
        if not _host_setup()["as_root"]:
            return None
        budget = self.limits.memory_mb * 2**20
        cgroup = None if own or not self._idle else self._idle.pop()
        if cgroup is not None:
            try:
                cgroup.rearm(budget)
                return cgroup
            except OSError:
                cgroup.remove()
        return RunCgroup.create(budget, self.limits.max_processes)

    def _park(self, cgroup: RunCgroup) -> None:
        """Keep the (now empty) group for a later run; one idle group is enough."""
        cgroup.kill_all()
        if self._closed or self._idle:
            cgroup.remove()
        else:
            self._idle.append(cgroup)

    def _launcher(self, cgroup: RunCgroup | None) -> list[str]:
        """What runs before bwrap: joins the cgroup, sets the rlimits, drops the uid; each exec's the next.

        As root with a cgroup, a shell puts itself in the run's cgroup and sets the rlimits
        with ``ulimit``, so everything it exec's (setpriv, bwrap, the command) and forks is
        inside the cgroup from its first instruction. Without a cgroup, prlimit(1) sets the
        rlimits, with per-process memory and process caps in place of the cgroup's.
        """
        lim = self.limits
        drop = (
            []
            if self._uid is None
            else ["setpriv", f"--reuid={self._uid}", f"--regid={self._uid}", "--clear-groups", "--"]
        )
        if cgroup is None:
            caps = [f"--cpu={lim.cpu_s}:{lim.cpu_s + 1}", f"--fsize={lim.max_file_mb * 2**20}", "--core=0"]
            caps += [f"--as={lim.memory_mb * 2**20}", f"--nproc={lim.max_processes}"]
            return [*drop, "prlimit", *caps, "--"]
        join = " && ".join(f"echo $$ > {f}" for f in cgroup.procs_files)
        # ulimit -f counts 512-byte blocks in dash and in bash's POSIX mode alike.
        rlimits = f"ulimit -S -t {lim.cpu_s} && ulimit -H -t {lim.cpu_s + 1} && ulimit -f {lim.max_file_mb * 2048}"
        rlimits += " && ulimit -c 0"
        script = f'{join} && {rlimits} || {{ echo "{_JOIN_FAILED}" >&2; exit 125; }}; exec "$@"'
        return ["/bin/sh", "-c", script, "launcher", *drop]

    def fork(self) -> LocalSandbox:
        """A new sandbox on the same layers: copy-on-write, nothing copied up front."""
        return LocalSandbox(self.limits, runtime=self.runtime, aliases=self.aliases, _layers=self.snapshot())


def _communicate(
    proc: subprocess.Popen[bytes], stdin: str | bytes | None, deadline: float, cap: int, cgroup: RunCgroup | None
) -> tuple[bytes, bytes, bool, bool]:
    """Feed stdin, read both streams up to ``cap`` each (draining the rest), enforce the deadline."""
    sel = selectors.DefaultSelector()
    assert proc.stdout and proc.stderr
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    buffers = {out_fd: bytearray(), err_fd: bytearray()}
    for stream in (proc.stdout, proc.stderr):
        os.set_blocking(stream.fileno(), False)
        sel.register(stream.fileno(), selectors.EVENT_READ)
    pending = memoryview(stdin.encode() if isinstance(stdin, str) else stdin) if stdin is not None else None
    in_fd = -1
    if pending is not None and proc.stdin:
        in_fd = proc.stdin.fileno()
        os.set_blocking(in_fd, False)
        sel.register(in_fd, selectors.EVENT_WRITE)
    truncated = timed_out = False
    open_streams = 2
    while open_streams:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        events = sel.select(min(remaining, 0.25))
        if not events and proc.poll() is not None:
            # bwrap is gone yet something still holds the pipes: the remains of a start
            # that failed half-way (a namespace child waiting for a parent that died).
            break
        for key, _ in events:
            fd = key.fd
            if fd == in_fd:
                assert pending is not None and proc.stdin
                try:
                    pending = pending[os.write(fd, pending[:65536]) :]
                except BrokenPipeError:
                    pending = pending[:0]
                if not pending:
                    sel.unregister(fd)
                    proc.stdin.close()
                    in_fd = -1
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                sel.unregister(fd)
                open_streams -= 1
                continue
            buf = buffers[fd]
            room = cap - len(buf)
            if room > 0:
                buf += chunk[:room]
            if len(chunk) > room:
                truncated = True
    if timed_out or open_streams:
        _kill(proc, cgroup)
    if not _exited(proc, max(0.1, deadline - time.monotonic())):
        timed_out = True
        _kill(proc, cgroup)
    proc.wait()
    sel.close()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None and not pipe.closed:
            pipe.close()
    return bytes(buffers[out_fd]), bytes(buffers[err_fd]), truncated, timed_out


def _exited(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait for ``proc`` to exit, at most ``timeout`` seconds.

    ``Popen.wait(timeout)`` polls with growing sleeps (up to 50 ms), which would add up to
    a sleep's length to every run; a pidfd wakes us the moment bwrap exits.
    """
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # no pidfd (old kernel) or already reaped
        try:
            proc.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False
    try:
        return bool(select.select([pidfd], [], [], timeout)[0])
    finally:
        os.close(pidfd)


def _kill(proc: subprocess.Popen[bytes], cgroup: RunCgroup | None) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if cgroup:
        cgroup.kill_all()
