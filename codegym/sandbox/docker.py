"""The ``docker`` backend: one long-lived container per sandbox, ``exec`` per command.

There is no image registry on our machines, so the base image is made here from local
files: ``docker import`` of a tiny root skeleton, tagged by its content hash; the host's
``/usr``, ``/etc`` and Python are bound read-only at run time, as in the local backend. A
work dir started from a host folder becomes a cached image layer (keyed by the folder's
stat data), so a reset starts a container on it instead of copying the folder again.

Limits are the container's cgroup (``mem_limit``, ``pids_limit``), ulimits (CPU seconds,
file size), ``network_mode="none"``, all capabilities dropped and ``no-new-privileges``.
Commands run as uid 1000 while the container's pid 1 is root, so ``kill -9 -1`` from the
command's own shell removes every process it left behind without stopping the container.

Snapshots are ``docker commit`` images (the container's copy-on-write upper layer only);
``fork`` and ``restore`` start a container on one. Containers and images are removed on
``close()``, on garbage collection and at interpreter exit.
"""

from __future__ import annotations

import hashlib
import io
import os
import posixpath
import sys
import tarfile
import threading
import time
import uuid
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from codegym.errors import InfraError, SandboxError, SandboxSetupError

from .base import WORKDIR, Command, ExecResult, Limits, Sandbox, decode, sandbox_env

USER = "1000:1000"
LABEL = "codegym.owner"
# /sbin stays a real folder: docker bind-mounts its init (tini) at /sbin/docker-init.
_SKELETON_LINKS = {"bin": "usr/bin", "lib": "usr/lib", "lib64": "usr/lib64"}
# Kills every process of the command's uid except this shell once the command is done.
_WRAPPER = '"$@"; rc=$?; kill -9 -1 2>/dev/null; exit $rc'

_client_state: dict[str, Any] = {}
_client_lock = threading.Lock()
_work_images: dict[tuple[Any, ...], str] = {}


def _client() -> Any:
    with _client_lock:  # sandboxes start from worker threads: connect and sweep once
        if "client" not in _client_state:
            _connect()
    return _client_state["client"]


def _connect() -> None:
    try:
        import docker

        client = docker.from_env(timeout=120)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure here means "no engine"
        raise SandboxSetupError(
            f"the docker sandbox needs a running Docker engine ({exc}); start it with "
            "scripts/setup.sh (or 'dockerd &'), or use sandbox='local'"
        ) from exc
    _client_state["client"] = client
    _sweep_stale(client)


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


class DockerSnapshot:
    """A committed image of a sandbox's container; removed when no longer referenced."""

    def __init__(self, image: str, parent: DockerSnapshot | None = None) -> None:
        self.image = image
        self._parent = parent  # keeps the images this one was started from alive
        self._finalizer = weakref.finalize(self, _remove_image, image)


class DockerSandbox(Sandbox):
    """A Docker container sandbox; see the module docstring.

    Args:
        limits: resource limits.
        workdir_from: host folder whose contents the work dir starts with (None: empty).

    """

    backend = "docker"

    def __init__(
        self, limits: Limits, workdir_from: str | Path | None = None, *, _from: DockerSnapshot | None = None
    ) -> None:
        self.limits = limits
        self._client = _client()
        self._origin = _from or DockerSnapshot(_work_image(workdir_from), None)
        if _from is None:
            self._origin._finalizer.detach()  # cached work images outlive one sandbox
        self._container = self._start(self._origin.image)
        self._finalizer = weakref.finalize(self, _remove_container, self._container.id)

    def _start(self, image: str) -> Any:
        from docker.types import Ulimit

        fsize = self.limits.max_file_mb * 2**20
        try:
            return self._client.containers.run(
                image,
                ["/usr/bin/sleep", "infinity"],
                detach=True,
                init=True,
                network_mode="none",
                hostname="sandbox",
                working_dir=WORKDIR,
                mem_limit=self.limits.memory_mb * 2**20,
                memswap_limit=self.limits.memory_mb * 2**20,
                pids_limit=self.limits.max_processes,
                ulimits=[
                    Ulimit(name="cpu", soft=self.limits.cpu_s, hard=self.limits.cpu_s + 1),
                    Ulimit(name="fsize", soft=fsize, hard=fsize),
                    Ulimit(name="core", soft=0, hard=0),
                ],
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
                tmpfs={"/tmp": f"size={self.limits.disk_mb}m,mode=1777", **{p: "size=4k,ro" for p in masked_paths()}},
                volumes={p: {"bind": p, "mode": "ro"} for p in _ro_paths()},
                labels={LABEL: str(os.getpid())},
            )
        except Exception as exc:  # noqa: BLE001 - the engine failed, not the attempt
            raise InfraError(f"docker could not start a container: {exc}") from exc

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
        timeout = self.limits.timeout_s if timeout is None else timeout
        argv = ["/bin/sh", "-c", cmd] if isinstance(cmd, str) else list(cmd)
        api = self._client.api
        path = f"{sys.prefix}/bin:/usr/local/bin:/usr/bin:/bin"
        oom_before = self._oom_kills()
        started = time.monotonic()
        try:
            exec_id = api.exec_create(
                self._container.id,
                ["/bin/sh", "-c", _WRAPPER, "sh", *argv],
                stdin=stdin is not None,
                user=USER,
                environment=sandbox_env(env, path),
                workdir=posixpath.join(WORKDIR, cwd) if cwd else WORKDIR,
            )["Id"]
            sock = api.exec_start(exec_id, socket=True)
        except Exception as exc:  # noqa: BLE001
            raise InfraError(f"docker exec failed: {exc}") from exc
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
        if timed_out:
            self._kill_all()
            reader.thread.join(5)
        sock.close()
        duration = time.monotonic() - started
        exit_code = api.exec_inspect(exec_id).get("ExitCode")
        if exit_code is None:
            exit_code = 137
        oom = self._oom_kills() > oom_before
        out, err = reader.buffers[1], reader.buffers[2]
        return ExecResult(exit_code, decode(bytes(out)), decode(bytes(err)), timed_out, oom, reader.truncated, duration)

    def _kill_all(self) -> None:
        self._client.api.exec_start(
            self._client.api.exec_create(self._container.id, ["kill", "-9", "-1"], user=USER)["Id"]
        )

    def _oom_kills(self) -> int:
        for root in ("/sys/fs/cgroup/memory/docker", "/sys/fs/cgroup/system.slice", "/sys/fs/cgroup/docker"):
            for name in (self._container.id, f"docker-{self._container.id}.scope"):
                for events in ("memory.oom_control", "memory.events"):
                    p = Path(root, name, events)
                    if p.exists():
                        for line in p.read_text().splitlines():
                            if line.startswith("oom_kill "):
                                return int(line.split()[1])
        return 0

    # ------------------------------------------------------------------ files
    def write_file(self, path: str, data: str | bytes, mode: int = 0o644) -> None:
        """Create or replace a file in the work dir, making parent folders."""
        self._check_open()
        target = self._resolve(path)
        payload = data.encode() if isinstance(data, str) else data
        self._put(posixpath.dirname(target), [(posixpath.basename(target), payload, mode)])

    def read_file(self, path: str) -> bytes:
        """The bytes of a file in the work dir (a link is refused, not followed)."""
        self._check_open()
        target = _container_path(path)
        try:
            stream, _ = self._container.get_archive(target)
        except Exception as exc:  # noqa: BLE001 - docker.errors.NotFound and friends
            raise SandboxError(f"no file {path!r} in the work dir") from exc
        with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
            member = tar.next()
            if member is None or not member.isfile():
                raise SandboxError(f"{path!r} is not a regular file in the work dir")
            fobj = tar.extractfile(member)
            return fobj.read() if fobj else b""

    def copy_in(self, host_path: str, dest: str) -> None:
        """Copy a host file or folder into the work dir at ``dest``, replacing what is there."""
        self._check_open()
        target = self._resolve(dest)
        self._root_exec(["rm", "-rf", target])
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            tar.add(host_path, arcname=posixpath.basename(target), filter=_as_sandbox_user)
        self._mkdirs(posixpath.dirname(target))
        self._container.put_archive(posixpath.dirname(target), buf.getvalue())

    def _put(self, folder: str, files: list[tuple[str, bytes, int]]) -> None:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            for name, payload, mode in files:
                info = tarfile.TarInfo(name)
                info.size, info.mode, info.uid, info.gid = len(payload), mode, 1000, 1000
                tar.addfile(info, io.BytesIO(payload))
        self._mkdirs(folder)
        try:
            self._container.put_archive(folder, buf.getvalue())
        except Exception as exc:  # noqa: BLE001 - docker.errors.APIError: read-only, not a folder
            raise SandboxError(f"could not write into {folder}: {exc}") from exc

    def _resolve(self, path: str) -> str:
        """The container path of ``path`` with links resolved in the container; must stay in the work dir."""
        target = _container_path(path)
        parent = self._client.api.exec_start(
            self._client.api.exec_create(
                self._container.id, ["realpath", "-m", "--", posixpath.dirname(target)], user=USER
            )["Id"]
        )
        resolved = posixpath.join(decode(parent).strip(), posixpath.basename(target))
        _container_path(resolved)  # a link in a parent folder led out of the work dir
        return resolved

    def _mkdirs(self, folder: str) -> None:
        res = self._client.api.exec_start(
            self._client.api.exec_create(self._container.id, ["mkdir", "-p", folder], user=USER)["Id"]
        )
        if res:
            raise SandboxError(f"cannot make folder {folder}: {decode(res).strip()}")

    def _root_exec(self, argv: list[str]) -> None:
        self._client.api.exec_start(self._client.api.exec_create(self._container.id, argv, user="0:0")["Id"])

    # ------------------------------------------------------------------ snapshots
    def snapshot(self) -> DockerSnapshot:
        """A ``docker commit`` of the container: its upper layer only, copy-on-write."""
        self._check_open()
        tag = uuid.uuid4().hex[:12]
        try:
            self._container.commit(repository="codegym-snap", tag=tag)
        except Exception as exc:  # noqa: BLE001
            raise InfraError(f"docker commit failed: {exc}") from exc
        return DockerSnapshot(f"codegym-snap:{tag}", self._origin)

    def restore(self, snap: DockerSnapshot) -> None:
        """Replace the container by one started on ``snap``."""
        self._check_open()
        self._finalizer()
        self._origin = snap
        self._container = self._start(snap.image)
        self._finalizer = weakref.finalize(self, _remove_container, self._container.id)

    def fork(self) -> DockerSandbox:
        """A new container started on a snapshot of this one."""
        return DockerSandbox(self.limits, _from=self.snapshot())


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


def _container_path(path: str) -> str:
    full = posixpath.normpath(path if path.startswith("/") else posixpath.join(WORKDIR, path))
    if full != WORKDIR and not full.startswith(WORKDIR + "/"):
        raise SandboxError(f"path {path!r} is outside the work dir {WORKDIR}")
    return full


def _as_sandbox_user(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 1000
    info.uname = info.gname = ""
    return info


def _work_image(src: str | Path | None) -> str:
    """The image a fresh work dir starts from: the base, plus ``src`` as a cached layer."""
    base = base_image()
    if src is None:
        return base
    from .local import _tree_signature

    key = (str(src), _tree_signature(Path(src)))
    if key not in _work_images:
        client = _client()
        tag = hashlib.sha256(repr(key).encode()).hexdigest()[:16]
        ref = f"codegym-work:{tag}"
        if not client.images.list(name=ref):
            container = client.containers.create(
                base, ["/usr/bin/true"], volumes={p: {"bind": p, "mode": "ro"} for p in _ro_paths()}
            )
            try:
                buf = io.BytesIO()
                with tarfile.open(fileobj=buf, mode="w") as tar:
                    for child in sorted(Path(src).iterdir()):
                        tar.add(str(child), arcname=child.name, filter=_as_sandbox_user)
                container.put_archive(WORKDIR, buf.getvalue())
                container.commit(repository="codegym-work", tag=tag)
            finally:
                container.remove(force=True)
        _work_images[key] = ref
    return _work_images[key]


def _remove_container(container_id: str) -> None:
    client = _client_state.get("client")
    if client is not None:
        try:
            client.api.remove_container(container_id, force=True)
        except Exception:  # noqa: BLE001 - already gone, or the engine is shutting down
            pass


def _remove_image(image: str) -> None:
    client = _client_state.get("client")
    if client is not None:
        try:
            client.api.remove_image(image, force=True)
        except Exception:  # noqa: BLE001
            pass


def _sweep_stale(client: Any) -> None:
    """Remove containers of codegym processes that died without closing them."""
    for container in client.containers.list(all=True, filters={"label": LABEL}):
        owner = container.labels.get(LABEL, "")
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            try:
                container.remove(force=True)
            except Exception:  # noqa: BLE001 - another process is already removing it, or it is gone
                pass
