"""Host side of CAD execution: a warm sandboxed worker, and the cold one-process baseline.

Why not ``Sandbox.run`` per attempt: importing cadquery costs seconds, and ``run`` kills
everything when it returns. :class:`WarmWorker` therefore starts one long-lived server
with ``Sandbox.spawn`` (the same isolation as ``run``: namespaces, read-only system, one
writable work dir, unprivileged uid, a cgroup for memory and processes), and inside it
``server.py`` forks a fresh child per attempt.

:class:`ColdRunner` runs each attempt as ``sandbox.run(["python", "-c", server, "--once"])``
in any backend: a fresh interpreter that imports cadquery every time (the benchmark's
baseline, and the fallback for backends other than ``local``).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym.errors import InfraError, SandboxError
from codegym.sandbox import WORKDIR, Sandbox, create
from codegym.sandbox.local import SandboxProcess

from .targets import cache_dir

SERVER_SOURCE = (Path(__file__).parent / "server.py").read_text(encoding="utf-8")
SERVER_ARGV = [sys.executable, "-c", f"exec(compile({SERVER_SOURCE!r}, '<cad-server>', 'exec'))"]
# Where gold scripts live on the host: unreadable to attempts should the sandbox see them.
HIDDEN_PATHS = sorted(
    {str(Path(__file__).resolve().parents[2] / "assets" / "cad"), str(Path(__file__).resolve().parent / "families.py")}
)
START_TIMEOUT_S = float(
    os.environ.get("CODEGYM_CAD_START_TIMEOUT", "300")
)  # importing cadquery takes seconds, minutes on an overloaded host


@dataclass
class RawAttempt:
    """What the worker reports about one attempt, before any grading.

    Attributes:
        meta: the child's ``meta.json`` (untrusted: only counts and errors are read from it).
        arrays: the child's ``mesh.npz`` arrays (untrusted: validated by the grader).
        output: what the code printed (first 2000 characters).
        timed_out: killed at the wall-clock limit.
        memory: killed for memory (address-space rlimit or cgroup OOM).
        killed: the worker died or was killed by the attempt (signal number or reason).
        seconds: wall-clock seconds in the worker.
    """

    meta: dict[str, Any] = field(default_factory=dict)
    arrays: dict[str, Any] = field(default_factory=dict)
    output: str = ""
    timed_out: bool = False
    memory: bool = False
    killed: str | None = None
    seconds: float = 0.0


class _Base:
    def __init__(self, sandbox_spec: dict[str, Any], timeout_s: float, memory_mb: int) -> None:
        self.sandbox_spec = dict(sandbox_spec)
        self.timeout_s, self.memory_mb = timeout_s, memory_mb
        self._count = 0
        self._lock = threading.Lock()
        self.refs = 1

    def _request(self, steps: list[dict[str, Any]], source: str, final: str, tol: float) -> dict[str, Any]:
        self._count += 1
        return {
            "id": self._count,
            "dir": f"a{self._count}",
            "steps": steps,
            "source": source,
            "final": final,
            "timeout": self.timeout_s,
            "cpu": max(1, int(self.timeout_s) + 1),
            "mem_mb": self.memory_mb,
            "tol": tol,
            "hidden": [*HIDDEN_PATHS, str(cache_dir())],
        }

    @staticmethod
    def _collect(sandbox: Sandbox, folder: str, raw: RawAttempt) -> RawAttempt:
        import io

        import numpy as np

        try:
            raw.meta = json.loads(sandbox.read_file(f"{folder}/meta.json"))
            if not isinstance(raw.meta, dict):
                raise ValueError("meta.json is not an object")
        except Exception:  # noqa: BLE001 - no or forged summary: the child did not finish
            raw.meta = {}
        try:
            with np.load(io.BytesIO(sandbox.read_file(f"{folder}/mesh.npz")), allow_pickle=False) as z:
                raw.arrays = {k: z[k] for k in z.files}
        except Exception:  # noqa: BLE001
            raw.arrays = {}
        try:
            raw.output = sandbox.read_file(f"{folder}/output.log")[:2000].decode("utf-8", "replace")
        except Exception:  # noqa: BLE001
            raw.output = ""
        remove = getattr(sandbox, "remove", None)
        if remove is not None:  # walks by descriptors: a folder swapped for a link out is removed as a link
            try:
                remove(folder)
            except SandboxError:
                pass
        return raw


class WarmWorker(_Base):
    """A long-lived sandboxed cadquery process that forks one child per attempt.

    Args:
        sandbox_spec: arguments of :func:`codegym.sandbox.create` (backend must be local).
        timeout_s: wall-clock seconds per attempt.
        memory_mb: memory an attempt may use beyond the warm worker (cgroup; rlimit without one).
    """

    def __init__(self, sandbox_spec: dict[str, Any], timeout_s: float = 30.0, memory_mb: int = 2048) -> None:
        super().__init__(sandbox_spec, timeout_s, memory_mb)
        self._sandbox: Sandbox | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._handle: SandboxProcess | None = None
        self._finalizer: weakref.finalize | None = None
        self._key: tuple[Any, ...] | None = None

    def start(self) -> None:
        """Start the worker (imports cadquery: seconds); raises InfraError when it cannot."""
        spec = {k: v for k, v in self.sandbox_spec.items() if k != "backend"}
        # The cgroup holds the warm server (about 300 MB resident) and one attempt at a time.
        spec.setdefault("memory_mb", self.memory_mb + 700)
        spec.setdefault("max_processes", 64)
        spec["cpu_s"] = 10**7  # the server lives long; each child gets its own CPU rlimit
        sandbox = create("local", **spec)
        try:
            handle = sandbox.spawn(SERVER_ARGV, env={"OMP_NUM_THREADS": "1", "CAD_WORK": WORKDIR})
        except Exception:
            sandbox.close()
            raise
        self._sandbox, self._handle, self._proc = sandbox, handle, handle.proc
        self._finalizer = weakref.finalize(self, _shutdown, handle, sandbox)
        started = time.monotonic()
        line = self._readline(START_TIMEOUT_S)
        if line != "ready":
            alive = self.alive
            code = self._proc.returncode
            err = _read_available(self._proc.stderr)
            self.stop()
            raise InfraError(
                f"the CAD worker did not start in {time.monotonic() - started:.0f} s (expected 'ready', got "
                f"{line!r}, process {'still running' if alive else f'exited with {code}'}; stderr: {err!r}); "
                f"check that cadquery imports in {sys.executable} (pip install cadquery) and that bubblewrap works"
            )

    def _readline(self, timeout: float) -> str | None:
        assert self._proc and self._proc.stdout
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        buf = b""
        while not buf.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1)
            if not chunk:
                return None
            buf += chunk
        return buf.decode("utf-8", "replace").strip()

    @property
    def alive(self) -> bool:
        """The worker process is running."""
        return self._proc is not None and self._proc.poll() is None

    def execute(self, steps: list[dict[str, Any]], source: str, final: str = "result", tol: float = 1e-3) -> RawAttempt:
        """Run one attempt in a fresh forked child; restarts the worker when it died before.

        When the worker dies (not hangs) during an attempt, the attempt runs once more on a
        fresh worker: its child can kill the worker (same uid), but so can the machine (an
        OOM kill elsewhere, an operator). Dying twice is the attempt's doing; a second run
        that finishes shows the first death came from outside, and its result stands.
        """
        with self._lock:
            raw, died = self._execute_once(steps, source, final, tol)
            if died:
                raw, died = self._execute_once(steps, source, final, tol)
            return raw

    def _execute_once(
        self, steps: list[dict[str, Any]], source: str, final: str, tol: float
    ) -> tuple[RawAttempt, bool]:
        """One attempt, and whether the worker died (not hung) during it."""
        if not self.alive:
            self.stop()
            self.start()
        assert self._proc and self._proc.stdin and self._sandbox
        req = self._request(steps, source, final, tol)
        oom_before = self._handle.oom_kills() if self._handle else 0
        started = time.monotonic()
        try:
            self._proc.stdin.write((json.dumps(req) + "\n").encode())
            self._proc.stdin.flush()
            line = self._readline(self.timeout_s + 15.0)
        except OSError:
            line = None
        raw = RawAttempt(seconds=time.monotonic() - started)
        oom = bool(self._handle and self._handle.oom_kills() > oom_before)
        reply: dict[str, Any] = {}
        try:
            reply = json.loads(line) if line else {}
        except ValueError:
            reply = {}
        if not isinstance(reply, dict) or reply.get("id") != req["id"]:
            # The worker died, hung or answered out of turn. Start a clean worker next time.
            raw.killed = "worker killed or hung during the attempt"
            raw.timed_out = raw.seconds >= self.timeout_s
            raw.memory = oom
            try:  # EOF on its stdout comes a moment before the exit can be reaped
                self._proc.wait(0.5)
            except subprocess.TimeoutExpired:
                pass
            died = not self.alive and not raw.timed_out and not oom
            self.stop()
            return raw, died
        raw.timed_out = bool(reply.get("timed_out"))
        sig = reply.get("signal")
        raw.memory = oom or reply.get("exit") == 3 or (sig == 9 and not raw.timed_out)
        if sig is not None and not raw.timed_out:
            raw.killed = f"signal {sig}"
        return self._collect(self._sandbox, req["dir"], raw), False

    def release(self) -> None:
        """Drop one reference; the last one stops the worker."""
        self.refs -= 1
        if self.refs <= 0:
            if _shared.get(getattr(self, "_key", None)) is self:  # type: ignore[arg-type]
                del _shared[self._key]
            self.stop()

    def stop(self) -> None:
        """Kill the worker and release its sandbox and cgroup; idempotent."""
        if self._finalizer is not None:
            self._finalizer()
        self._finalizer = None
        self._proc = self._sandbox = self._handle = None

    close = stop


def _shutdown(handle: SandboxProcess, sandbox: Sandbox) -> None:
    handle.close()
    sandbox.close()


def _read_available(stream: Any) -> str:
    """What a start-up error printed to stderr, without blocking on a live process."""
    if stream is None or not select.select([stream], [], [], 0.5)[0]:
        return ""
    return os.read(stream.fileno(), 4000).decode("utf-8", "replace")


_shared: dict[tuple[Any, ...], WarmWorker] = {}


def shared_worker(sandbox_spec: dict[str, Any], timeout_s: float, memory_mb: int) -> WarmWorker:
    """The process-wide warm worker for these settings, with one more reference to it.

    Envs of one process with the same sandbox and limits share one worker (its lock
    serialises their attempts; each attempt is still its own forked child), so making an
    env, forking one or running a synchronous vector env costs no new cadquery import.
    ``close()`` on the last reference stops it. Processes (async vector envs) have their own.
    """
    key = (json.dumps(sandbox_spec, sort_keys=True, default=str), float(timeout_s), int(memory_mb))
    worker = _shared.get(key)
    if worker is not None and worker.refs > 0:
        worker.refs += 1
        return worker
    worker = WarmWorker(sandbox_spec, timeout_s, memory_mb)
    worker._key = key
    _shared[key] = worker
    return worker


class ColdRunner(_Base):
    """One fresh interpreter per attempt via ``Sandbox.run`` (any backend; imports cadquery each time)."""

    def __init__(self, sandbox_spec: dict[str, Any], timeout_s: float = 30.0, memory_mb: int = 2048) -> None:
        super().__init__(sandbox_spec, timeout_s, memory_mb)
        self._sandbox: Sandbox | None = None

    def execute(self, steps: list[dict[str, Any]], source: str, final: str = "result", tol: float = 1e-3) -> RawAttempt:
        """Run one attempt in a new sandboxed interpreter."""
        with self._lock:
            if self._sandbox is None:
                spec = dict(self.sandbox_spec)
                spec.setdefault("memory_mb", self.memory_mb + 1536)
                self._sandbox = create(**spec)
            req = self._request(steps, source, final, tol)
            # Importing cadquery is part of the cost being measured, and of the time allowed.
            res = self._sandbox.run(
                ["python3", "-c", SERVER_ARGV[2], "--once"],
                timeout=self.timeout_s + 20,
                stdin=json.dumps(req) + "\n",
                env={"CAD_WORK": "/sandbox", "OMP_NUM_THREADS": "1"},
            )
            raw = RawAttempt(seconds=res.duration_s, timed_out=res.timed_out, memory=res.oom_killed)
            if not res.ok and not res.timed_out:
                raw.killed = f"exit {res.exit_code}"
            return self._collect(self._sandbox, req["dir"], raw)

    def release(self) -> None:
        """Drop one reference; the last one releases the sandbox."""
        self.refs -= 1
        if self.refs <= 0:
            self.stop()

    def stop(self) -> None:
        """Release the sandbox; idempotent."""
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None

    close = stop
