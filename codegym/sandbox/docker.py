"""The ``docker`` backend: one long-lived container per sandbox, ``exec`` per command.

There is no image registry on our machines, so the image is made here from local files:
``docker import`` of a tiny root skeleton, tagged by its content hash; the host's ``/usr``,
``/etc`` and Python are bound read-only at run time, as in the local backend.

The work dir is the same host workspace as the local backend's (copy-on-write layers, an
upper dir on a size-limited tmpfs), bind-mounted at ``/sandbox``. Its mount point is a
shared mount bound with ``rslave`` propagation, so the container sees each overlay mounted
there later: a snapshot freezes the upper dir on the host and a restore mounts a new
overlay, both in milliseconds and in the same container. Files are read and written on the
host. A fork needs a container of its own; once sandboxes of some limits are made more
than once, a few idle *spare* containers of those limits are started in the background,
and a fork or a new sandbox takes one instead of waiting for ``docker run``.

Limits are the container's cgroup (``mem_limit``, ``pids_limit``), ulimits (CPU seconds,
file size), ``network_mode="none"``, all capabilities dropped and ``no-new-privileges``.
Commands run as the sandbox uid while the container's pid 1 is root, so ``kill -9 -1`` from
the command's own shell removes every process it left behind without stopping the container.
Containers are removed on ``close()``, on garbage collection and at interpreter exit.
"""

from __future__ import annotations

import atexit
import hashlib
import io
import os
import posixpath
import signal
import sys
import tarfile
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from codegym.errors import InfraError, SandboxSetupError

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
from .hostfs import HostWorkdir
from .local import SANDBOX_UID
from .workspace import CopyWorkspace, Layer, OverlayWorkspace, base_layer, can_mount, sweep_stale

LABEL = "codegym.owner"
# /sbin stays a real folder: docker bind-mounts its init (tini) at /sbin/docker-init.
_SKELETON_LINKS = {"bin": "usr/bin", "lib": "usr/lib", "lib64": "usr/lib64"}
# Kills every process of the command's uid except this shell once the command is done.
_WRAPPER = '"$@"; rc=$?; kill -9 -1 2>/dev/null; exit $rc'
# Before the first command after a restore: /tmp is the container's, not the workspace's.
_CLEAN_TMP = "find /tmp -xdev -mindepth 1 -delete 2>/dev/null; "  # -xdev: not into a venv bound under /tmp

#: Seconds any one call into the Docker engine may take (the client's HTTP time-out).
_API_TIMEOUT_S = 60

_client_state: dict[str, Any] = {}
_client_lock = threading.Lock()
_build_lock = threading.Lock()  # one runtime layer built at a time


def _client() -> Any:
    with _client_lock:  # sandboxes start from worker threads: connect and sweep once
        if "client" not in _client_state:
            _connect()
    return _client_state["client"]


def _connect() -> None:
    try:
        import docker

        client = docker.from_env(timeout=_API_TIMEOUT_S)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure here means "no engine"
        raise SandboxSetupError(
            f"the docker sandbox needs a running Docker engine ({exc}); start it with "
            "scripts/setup.sh (or 'dockerd &'), or use sandbox='local'"
        ) from exc
    _client_state["client"] = client
    _sweep_stale(client)
    if os.geteuid() == 0:
        sweep_stale()  # the workspaces of those containers


def _ro_paths() -> list[str]:
    from .local import _system_paths

    return _system_paths()


def masked_paths() -> list[str]:
    """Folders hidden inside the read-only binds (codegym's own package and assets)."""
    from .local import masked_paths as local_masked

    return local_masked()


def base_image() -> str:
    """The skeleton image, built once per content hash with ``docker import``."""
    client = _client()
    if "base" in _client_state:
        return _client_state["base"]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, mode, uid in (
            (WORKDIR.strip("/"), 0o755, 1000),
            ("tmp", 0o1777, 0),
            ("etc", 0o755, 0),
            ("sbin", 0o755, 0),
        ):
            info = tarfile.TarInfo(name)
            info.type, info.mode, info.uid, info.gid = tarfile.DIRTYPE, mode, uid, uid
            tar.addfile(info)
        for link, target in _SKELETON_LINKS.items():
            info = tarfile.TarInfo(link)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
    data = buf.getvalue()
    tag = hashlib.sha256(data).hexdigest()[:16]
    ref = f"codegym-base:{tag}"
    if not client.images.list(name=ref):
        client.api.import_image_from_data(data, repository="codegym-base", tag=tag)
    _client_state["base"] = ref
    return ref


def runtime_image(runtime: Runtime | None) -> str:
    """The image a sandbox with ``runtime`` starts from: its own, or a layer over the skeleton.

    The layer copies ``runtime.host_dir`` to ``runtime.path`` (``docker build`` from local
    files, no registry), tagged by the folder and its build stamp, so it is built once.
    """
    if runtime is None:
        return base_image()
    client = _client()
    if runtime.image:
        if not client.images.list(name=runtime.image):
            raise SandboxSetupError(f"the image {runtime.image!r} is not on this machine (no registry is used)")
        return runtime.image
    if not runtime.host_dir:
        raise SandboxSetupError("a Runtime needs host_dir or image")
    base = base_image()
    stamp = "".join(f"{e.name}:{e.stat().st_mtime_ns}" for e in sorted(os.scandir(runtime.host_dir), key=str))
    tag = hashlib.sha256(f"{runtime.host_dir}|{runtime.path}|{stamp}|{base}".encode()).hexdigest()[:16]
    ref = f"codegym-env:{tag}"
    with _build_lock:
        if not client.images.list(name=ref):
            import tempfile

            with tempfile.TemporaryDirectory() as tmp:
                dockerfile = Path(tmp, "Dockerfile")
                dockerfile.write_text(f"FROM {base}\nCOPY . {runtime.path}\n")
                try:
                    client.images.build(path=runtime.host_dir, dockerfile=str(dockerfile), tag=ref, rm=True)
                except Exception as exc:  # noqa: BLE001 - the engine failed, not the attempt
                    raise InfraError(f"docker could not build the runtime layer {ref}: {exc}") from exc
    return ref


def _user() -> str:
    """The uid:gid commands run as: the local backend's sandbox uid as root, else the caller's."""
    uid = SANDBOX_UID if os.geteuid() == 0 else os.getuid()
    return f"{uid}:{uid}"


def _new_workspace(limits: Limits) -> OverlayWorkspace | CopyWorkspace:
    """A workspace with nothing mounted yet (see :meth:`DockerSandbox._bind`)."""
    disk = limits.disk_mb * 2**20
    if can_mount():
        return OverlayWorkspace((), disk, SANDBOX_UID, shared=True, mount=False)
    return CopyWorkspace((), disk, None)


def _start_container(
    limits: Limits, fs: OverlayWorkspace | CopyWorkspace, image: str | None = None, own_system: bool = False
) -> Any:
    """``docker run`` an idle container of ``image`` (default: the skeleton) binding ``fs`` at the work dir.

    The host's system is bound read-only over the image unless ``own_system`` (a task's built
    image, whose ``/usr`` holds what its Dockerfile installed).
    """
    from docker.types import Mount, Ulimit

    fsize = limits.max_file_mb * 2**20
    propagation = "rslave" if isinstance(fs, OverlayWorkspace) else None
    work = Mount(WORKDIR, str(fs.path), type="bind", propagation=propagation)
    container = None
    with _starting_lock:
        _starting[0] += 1
    try:
        container = _client().containers.create(
            image or base_image(),
            ["sleep" if own_system else "/usr/bin/sleep", "infinity"],
            detach=True,
            init=True,
            network_mode="none",
            hostname="sandbox",
            working_dir=WORKDIR,
            mem_limit=limits.memory_mb * 2**20,
            memswap_limit=limits.memory_mb * 2**20,
            pids_limit=limits.max_processes,
            ulimits=[
                Ulimit(name="cpu", soft=limits.cpu_s, hard=limits.cpu_s + 1),
                Ulimit(name="fsize", soft=fsize, hard=fsize),
                Ulimit(name="core", soft=0, hard=0),
            ],
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            tmpfs={
                "/tmp": f"size={limits.disk_mb}m,mode=1777",
                **{p: "size=4k,ro" for p in ([] if own_system else masked_paths())},
            },
            volumes={p: {"bind": p, "mode": "ro"} for p in ([] if own_system else _ro_paths())},
            mounts=[work],
            labels={LABEL: str(os.getpid())},
        )
        container.start()
        return container
    except Exception as exc:  # noqa: BLE001 - the engine failed, not the attempt
        if container is not None:  # created, not started (the daemon went away between the two)
            _remove_container(container.id)
        raise InfraError(f"docker could not start a container: {exc}") from exc
    finally:
        with _starting_lock:
            _starting[0] -= 1


#: Containers being created and started by this process's threads right now.
_starting = [0]
_starting_lock = threading.Lock()


#: Spares are kept per limits and image.
_Key = tuple[Limits, str]


class _Spares:
    """Idle containers started ahead of need, per limits; see the module docstring.

    ``CODEGYM_DOCKER_SPARES`` (default 2) is how many are kept per limits; 0 turns it off.
    Spares are made only for limits used more than once, in one background thread.
    """

    def __init__(self) -> None:
        self.target = int(os.environ.get("CODEGYM_DOCKER_SPARES", "2"))
        self._ready: dict[_Key, list[tuple[Any, OverlayWorkspace | CopyWorkspace]]] = {}
        self._pending: dict[_Key, int] = {}
        self._uses: dict[_Key, int] = {}
        self._lock = threading.Lock()
        self._worker: ThreadPoolExecutor | None = None
        self._owner = os.getpid()

    def take(self, limits: _Key) -> tuple[Any, OverlayWorkspace | CopyWorkspace] | None:
        """A spare of these limits and image, or None; counts the use and starts refilling."""
        with self._lock:
            if self._owner != os.getpid():  # a forked child: the spares are its parent's
                self._ready, self._pending, self._uses, self._worker = {}, {}, {}, None
                self._owner = os.getpid()
            self._uses[limits] = self._uses.get(limits, 0) + 1
            ready = self._ready.get(limits)
            spare = ready.pop() if ready else None
            if self._uses[limits] > 1:
                missing = self.target - len(self._ready.get(limits, ())) - self._pending.get(limits, 0)
                for _ in range(max(0, missing)):
                    self._pending[limits] = self._pending.get(limits, 0) + 1
                    if self._worker is None:
                        self._worker = ThreadPoolExecutor(1, thread_name_prefix="codegym-spares")
                    self._worker.submit(self._make, limits)
        return spare

    def _make(self, key: _Key) -> None:
        limits, image = key
        fs = None
        try:
            fs = _new_workspace(limits)
            container = _start_container(limits, fs, image)
        except Exception:  # noqa: BLE001 - a spare is an optimisation: the next sandbox starts its own
            if fs is not None:
                fs.close()
            container = None
        with self._lock:
            self._pending[key] -= 1
            if container is not None:
                self._ready.setdefault(key, []).append((container, fs))

    def settle(self) -> list[tuple[str, Path]]:
        """Wait for spares being started; the (container id, workspace folder) of each spare."""
        while True:
            with self._lock:
                if not any(self._pending.values()):
                    return [(c.id, fs.dir) for ready in self._ready.values() for c, fs in ready]
            time.sleep(0.05)

    def clear(self) -> None:
        """Remove every spare (at interpreter exit)."""
        if self._worker is not None:
            self._worker.shutdown(wait=True, cancel_futures=True)
        with self._lock:
            spares = [spare for ready in self._ready.values() for spare in ready]
            self._ready.clear()
        for container, fs in spares:
            _release(container.id, fs)


_spares = _Spares()
atexit.register(_spares.clear)


def spares() -> list[tuple[str, Path]]:
    """The idle spare containers of this process and their workspace folders (not leaks)."""
    return _spares.settle()


def _release(container_id: str, fs: OverlayWorkspace | CopyWorkspace) -> None:
    _remove_container(container_id)
    fs.close()


class DockerSandbox(HostWorkdir, Sandbox):
    """A Docker container sandbox; see the module docstring.

    Args:
        limits: resource limits.
        workdir_from: host folder whose contents the work dir starts with (None: empty).
        runtime: a venv the commands run with, first on ``PATH`` (see :func:`runtime_image`).
        aliases: top-level paths (``/app``) made links to the work dir's folders of the same name.
        system_image: a local image with a system of its own to run on (no host binds, no spares).

    """

    backend = "docker"
    _stale_tmp = False
    _cgroup_dir: Path | None = None
    _oom_before = 0

    def __init__(
        self,
        limits: Limits,
        workdir_from: str | Path | None = None,
        *,
        runtime: Runtime | None = None,
        aliases: Sequence[str] = (),
        system_image: str | None = None,
        _layers: tuple[Layer, ...] | None = None,
    ) -> None:
        self.limits = limits
        self.runtime = runtime
        self.system_image = system_image
        self.aliases = check_aliases(aliases, () if system_image else _ro_paths())
        self._client = _client()
        self._image = system_image or runtime_image(runtime)
        self._uid = SANDBOX_UID if os.geteuid() == 0 else None
        self._user = _user()
        if _layers is None:
            _layers = (base_layer(workdir_from, self._uid),)
        spare = None if system_image else _spares.take((limits, self._image))
        if spare is None:
            fs = _new_workspace(limits)
            try:
                container = _start_container(limits, fs, self._image, own_system=system_image is not None)
            except InfraError:
                fs.close()
                raise
        else:
            container, fs = spare
        self._container, self._fs = container, fs
        self._armed = limits.memory_mb * 2**20
        self._finalizer = weakref.finalize(self, _release, container.id, fs)
        self._make_links()
        # Mounted only now: the container must bind the empty shared mount point, not an
        # overlay on it, to see the overlays mounted there later (see the module docstring).
        fs.reset_to(_layers)

    # ------------------------------------------------------------------ running
    def run(
        self,
        cmd: Command,
        timeout: float | None = None,
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> ExecResult:
        """Run ``cmd`` with ``docker exec`` in the container; see :meth:`Sandbox.run`."""
        self._check_open()
        problem = command_problem(cmd, env, cwd)
        if problem is not None:
            return refused(problem)
        timeout = self.limits.timeout_s if timeout is None else timeout
        argv = ["/bin/sh", "-c", cmd] if isinstance(cmd, str) else list(cmd)
        api = self._client.api
        path = f"{sys.prefix}/bin:/usr/local/bin:/usr/bin:/bin"
        if self.runtime is not None:
            path, env = self.runtime.search_path(), self.runtime.variables(env)
        try:
            exec_id, sock = self._start_exec(argv, stdin is not None, sandbox_env(env, path), cwd)
        except Exception:  # noqa: BLE001 - a dead container (dockerd restarted): start it again, once
            self._revive()
            try:
                exec_id, sock = self._start_exec(argv, stdin is not None, sandbox_env(env, path), cwd)
            except Exception as exc:  # noqa: BLE001 - the engine failed, not the attempt
                raise InfraError(f"docker exec failed: {exc}") from exc
        oom_before, started = self._oom_before, time.monotonic()
        self._stale_tmp = False
        reader = _FrameReader(sock, self.limits.max_output_bytes)
        if stdin is not None:
            raw = sock._sock
            try:
                raw.sendall(stdin.encode() if isinstance(stdin, str) else stdin)
            except OSError:
                pass
            raw.shutdown(1)  # SHUT_WR: end of input
        reader.thread.join(timeout)
        timed_out = reader.thread.is_alive()
        self._end_leftovers()  # on time-out, and after every run: what the command left running
        if timed_out:
            reader.thread.join(5)
        sock.close()
        duration = time.monotonic() - started
        try:
            exit_code = api.exec_inspect(exec_id).get("ExitCode")
        except Exception as exc:  # noqa: BLE001 - the engine failed, not the attempt
            raise InfraError(f"docker could not say how the command ended: {exc}") from exc
        if exit_code is None:
            exit_code = 137
        oom = self._oom_kills() > oom_before
        out, err = reader.buffers[1], reader.buffers[2]
        return ExecResult(exit_code, decode(bytes(out)), decode(bytes(err)), timed_out, oom, reader.truncated, duration)

    def _make_links(self) -> None:
        """Make each alias a link to the work dir's folder, as the container's root (once per container).

        Links, not binds: binds are fixed when the container starts, and a restore mounts a
        new overlay under them; a link is resolved inside the container at each use.
        """
        if not self.aliases:
            return
        script = " && ".join(f"rm -rf {a} && ln -s {WORKDIR}{a} {a}" for a in self.aliases)
        try:
            api = self._client.api
            exec_id = api.exec_create(self._container.id, ["/bin/sh", "-c", script], user="0")["Id"]
            output = api.exec_start(exec_id)
            code = api.exec_inspect(exec_id).get("ExitCode")
        except Exception as exc:  # noqa: BLE001 - the engine failed, not the attempt
            raise InfraError(f"docker could not link {list(self.aliases)} to the work dir: {exc}") from exc
        if code != 0:
            raise InfraError(f"docker could not link {list(self.aliases)} to the work dir: {decode(output)[-500:]}")

    def _start_exec(self, argv: list[str], with_stdin: bool, env: dict[str, str], cwd: str | None) -> tuple[str, Any]:
        api = self._client.api
        self._rearm()
        self._oom_before = self._oom_kills()
        exec_id = api.exec_create(
            self._container.id,
            ["/bin/sh", "-c", _CLEAN_TMP + _WRAPPER if self._stale_tmp else _WRAPPER, "sh", *argv],
            stdin=with_stdin,
            user=self._user,
            environment=env,
            workdir=posixpath.join(WORKDIR, cwd) if cwd else WORKDIR,
        )["Id"]
        return exec_id, api.exec_start(exec_id, socket=True)

    def _revive(self) -> None:
        """Start the container again (dockerd restarted, or it was stopped), or a new one on the same work dir.

        The work dir's changes are frozen into a layer and its overlay taken off first: a
        container must bind the empty shared mount point to see the overlays mounted later.
        """
        try:
            layers = self._fs.freeze()
            if isinstance(self._fs, OverlayWorkspace):
                self._fs._unmount()
            try:
                self._container.reload()
                self._container.start()
            except Exception:  # noqa: BLE001 - gone for good: a new container on the same workspace
                old = self._container.id
                self._container = _start_container(
                    self.limits, self._fs, self._image, own_system=self.system_image is not None
                )
                self._make_links()
                self._finalizer.detach()
                self._finalizer = weakref.finalize(self, _release, self._container.id, self._fs)
                _remove_container(old)
            self._cgroup_dir, self._armed, self._stale_tmp = None, 0, True
            self._fs.reset_to(layers)
            _remove_unstarted()
        except InfraError:
            raise
        except Exception as exc:  # noqa: BLE001 - the engine failed, not the attempt
            raise InfraError(f"the sandbox's container died and could not be started again: {exc}") from exc

    def _end_leftovers(self) -> None:
        """Kill every process of the command's uid in the container, from the host.

        The container's cgroup lists every process in it, whatever the command did to its
        parents (a command that killed the wrapper shell once left a daemon that rewrote
        the verifier's tests before the next run). No call into Docker is needed, so this
        also works when ``runc exec`` is wedged.
        """
        procs = self._cgroup_file("cgroup.procs")
        uid = int(self._user.split(":")[0])
        if procs is None:  # no readable cgroup: from inside, as the command's uid
            api = self._client.api
            api.exec_start(api.exec_create(self._container.id, ["kill", "-9", "-1"], user=self._user)["Id"])
            return
        for _ in range(200):  # a fork loop refills between reads; the pids limit bounds it
            left = [pid for pid in _pids(procs) if _live_uid(pid) == uid]
            if not left:
                return
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.002)

    def _cgroup_file(self, *names: str) -> Path | None:
        """The first of ``names`` in the container's memory cgroup (v1 or v2 layout), if readable."""
        if self._cgroup_dir is None:  # looked up once per container: run() reads it three times
            for root in ("/sys/fs/cgroup/memory/docker", "/sys/fs/cgroup/system.slice", "/sys/fs/cgroup/docker"):
                for folder in (self._container.id, f"docker-{self._container.id}.scope"):
                    if self._cgroup_dir is None and Path(root, folder).is_dir():
                        self._cgroup_dir = Path(root, folder)
        for name in names:
            if self._cgroup_dir is not None and (self._cgroup_dir / name).exists():
                return self._cgroup_dir / name
        return None

    def _oom_kills(self) -> int:
        p = self._cgroup_file("memory.oom_control", "memory.events")
        for line in p.read_text().splitlines() if p else []:
            if line.startswith("oom_kill "):
                return int(line.split()[1])
        return 0

    def _rearm(self) -> None:
        """Give the next command its whole memory limit on top of what files already hold.

        Work-dir and /tmp files are tmpfs pages charged to the container: without this, a
        run that left 200 MB of files would shrink every later run's memory by 200 MB.
        """
        usage = self._cgroup_file("memory.usage_in_bytes", "memory.current")
        if usage is None:
            return
        limit = self.limits.memory_mb * 2**20 + int(usage.read_text())
        if abs(limit - self._armed) > 8 * 2**20:  # an API call only when files grew or shrank
            try:
                self._container.update(mem_limit=limit, memswap_limit=limit)
            except Exception as exc:  # noqa: BLE001 - the engine failed, not the attempt
                raise InfraError(f"docker could not update the container's memory limit: {exc}") from exc
            self._armed = limit

    # ------------------------------------------------------------------ snapshots
    def restore(self, snap: tuple[Layer, ...]) -> None:
        """Make the work dir what it was at ``snap``, in the same container."""
        self._check_open()
        self._fs.reset_to(snap)
        self._stale_tmp = True  # no process is left between runs: only /tmp keeps old state

    def fork(self) -> DockerSandbox:
        """A container of its own on the same layers (a spare when one is ready)."""
        return DockerSandbox(
            self.limits,
            runtime=self.runtime,
            aliases=self.aliases,
            system_image=self.system_image,
            _layers=self.snapshot(),
        )


def _pids(procs: Path) -> list[int]:
    try:
        return [int(x) for x in procs.read_text().split()]
    except OSError:
        return []


def _live_uid(pid: int) -> int | None:
    """The real uid of a live (not zombie) host process, or None."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    if fields.get("State", "").strip().startswith("Z"):
        return None
    return int(fields.get("Uid", "-1").split()[0])


class _FrameReader:
    """Reads docker's multiplexed exec stream in a thread, keeping ``cap`` bytes per stream."""

    def __init__(self, sock: Any, cap: int) -> None:
        self.buffers = {1: bytearray(), 2: bytearray()}
        self.cap, self.truncated = cap, False
        self.thread = threading.Thread(target=self._read, args=(sock,), daemon=True)
        self.thread.start()

    def _read(self, sock: Any) -> None:
        from docker.utils.socket import frames_iter

        try:
            for stream, data in frames_iter(sock, tty=False):
                buf = self.buffers.get(stream)
                if buf is None:
                    continue
                room = self.cap - len(buf)
                if room > 0:
                    buf += data[:room]
                if len(data) > room:
                    self.truncated = True
        except (OSError, ValueError):
            pass


def _remove_container(container_id: str) -> None:
    client = _client_state.get("client")
    if client is not None:
        try:
            client.api.remove_container(container_id, force=True)
        except Exception:  # noqa: BLE001 - already gone, or the engine is shutting down
            pass


def _remove_unstarted() -> None:
    """Remove this process's containers that were created but never started.

    A daemon that died between a container's create and start (a spare being made in the
    background) leaves one behind, which could not be removed then; the sandbox that finds
    the daemon back (``_revive``) removes them. Every container of ours is started right
    after it is created: with no start under way, every ``created`` one is such a one.
    """
    try:
        found = _client().api.containers(all=True, filters={"label": f"{LABEL}={os.getpid()}", "status": "created"})
    except Exception:  # noqa: BLE001 - best effort: they go when this process's are swept
        return
    for c in found:
        if not _starting[0] or time.time() - c.get("Created", time.time()) > 30:
            _remove_container(c["Id"])


def _sweep_stale(client: Any) -> None:
    """Remove containers of codegym processes that died without closing them, in the background.

    One list call (``containers.list`` inspects every container, and one stuck in
    ``removing`` made it block for the client's whole time-out), and the removals in a
    thread of their own: a container that will not go never holds up this process.
    """
    try:
        listed = client.api.containers(all=True, filters={"label": LABEL})
    except Exception:  # noqa: BLE001 - sweeping is best effort
        return
    stale = [
        c["Id"]
        for c in listed
        if (owner := (c.get("Labels") or {}).get(LABEL, "")).isdigit() and not Path(f"/proc/{owner}").exists()
    ]
    if stale:
        threading.Thread(target=lambda: [_remove_container(c) for c in stale], daemon=True).start()
