"""The Sandbox protocol, its result and limit types (docs/contract.md, Sandbox contract)."""

from __future__ import annotations

import abc
import dataclasses
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: The path at which commands see their work dir, in every backend.
WORKDIR = "/sandbox"

#: Top-level names an alias may not take: the system, the work dir and the kernel's folders.
RESERVED_ALIASES = frozenset(
    {"", ".", "..", "sandbox", "usr", "etc", "tmp", "proc", "dev", "sys", "bin", "lib", "lib32", "lib64", "sbin", "run"}
)


def check_aliases(aliases: Sequence[str], taken: Sequence[str] = ()) -> tuple[str, ...]:
    """Check ``aliases`` (``create(aliases=...)``): absolute top-level paths such as ``/app``.

    Each alias ``/NAME`` is a link to ``/sandbox/NAME``, so a task's own absolute paths
    (Harbor's ``/app``, ``/tests``, ``/logs``) live in the work dir, where snapshots, forks and
    the host's descriptor-walked file access already cover them. ``taken`` are host paths
    bound into the sandbox, whose top folders cannot be aliases either.
    """
    reserved = RESERVED_ALIASES | {p.strip("/").split("/")[0] for p in taken}
    out = []
    for alias in aliases:
        name = alias[1:] if isinstance(alias, str) and alias.startswith("/") else None
        if name is None or "/" in name or "\0" in name or name in reserved:
            raise ValueError(
                f"sandbox alias {alias!r} must be a top-level absolute path such as '/app', "
                f"not one of the sandbox's own folders {sorted(n for n in reserved if n.strip('.'))}"
            )
        out.append(alias)
    return tuple(sorted(set(out)))


@dataclass(frozen=True)
class Limits:
    """Resource limits of a sandbox. Every field is a hard cap enforced by the backend.

    Attributes:
        timeout_s: wall-clock seconds per ``run`` (``run(timeout=...)`` overrides); the whole
            process tree is killed at the limit.
        cpu_s: CPU seconds per process.
        memory_mb: memory of all processes of one ``run`` together (cgroup), in MiB.
        max_processes: processes and threads alive at once in one ``run``.
        max_file_mb: largest file a command may write, in MiB.
        disk_mb: total size of what the work dir may gain, in MiB.
        max_output_bytes: bytes of stdout and of stderr kept per ``run``; the rest is read
            and dropped, and ``ExecResult.output_truncated`` says so.

    """

    timeout_s: float = 30.0
    cpu_s: int = 60
    memory_mb: int = 1024
    max_processes: int = 128
    max_file_mb: int = 256
    disk_mb: int = 1024
    max_output_bytes: int = 1_000_000

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            check_limit(f.name, getattr(self, f.name))

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> Limits:
        """Limits from keyword arguments, with a clear error for unknown names and bad values."""
        known = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(kwargs) - set(known))
        if unknown:
            from codegym.errors import did_you_mean

            raise TypeError(
                f"unknown sandbox limits {unknown}; known limits: {sorted(known)}.{did_you_mean(unknown[0], known)}"
            )
        return cls(**kwargs)


#: Units of each limit, for error messages.
_UNITS = {"timeout_s": "seconds", "cpu_s": "CPU seconds", "max_output_bytes": "bytes", "max_processes": "processes"}


def check_limit(name: str, value: Any) -> None:
    """Raise TypeError / ValueError, naming the limit, the value and the fix, unless ``value`` fits ``name``.

    ``timeout_s`` is a number of seconds; every other limit a whole number (``memory_mb=512``);
    all are finite and > 0. Bools are not numbers here (``memory_mb=True`` is refused).
    """
    default = {f.name: f.default for f in dataclasses.fields(Limits)}[name]
    unit = _UNITS.get(name, "MiB" if name.endswith("_mb") else "")
    wanted = f"{'a number' if isinstance(default, float) else 'a whole number'} of {unit} > 0"
    ok_type = numbers.Real if isinstance(default, float) else numbers.Integral
    if isinstance(value, bool) or not isinstance(value, ok_type):
        fix = f"e.g. {name}={default!r}"
        if isinstance(value, str):
            try:
                fix = f"pass {name}={type(default)(value.strip())!r} (a number, not a str)"
            except ValueError:
                pass
        raise TypeError(f"sandbox limit {name} must be {wanted}, got {value!r} ({type(value).__name__}); {fix}.")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"sandbox limit {name} must be {wanted}, got {value!r}; e.g. {name}={default!r}.")


@dataclass(frozen=True)
class Runtime:
    """A read-only folder of programs a task's commands run with (a repository's own venv).

    Repository tasks must run their tests with the repository's dependencies, never with
    codegym's own venv. The ``local`` backend binds ``host_dir`` read-only at ``path``; the
    ``docker`` backend starts its containers from ``image`` when given (a prebuilt image,
    used as it is), else from an image layer that holds a copy of ``host_dir`` at ``path``
    (built once). Either way ``path/bin`` comes first on ``PATH`` and codegym's venv is not
    on it.

    Attributes:
        host_dir: host folder of the venv (None: ``image`` alone holds it).
        path: where commands see it.
        image: docker only: an image to start containers from instead of the layer.
        env: variables every command gets (the caller's ``env`` overrides them), e.g. a
            ``PYTHONPATH`` that puts the work dir's code before any installed copy.

    """

    host_dir: str | None
    path: str = "/opt/codegym-env"
    image: str | None = None
    env: tuple[tuple[str, str], ...] = ()

    def search_path(self) -> str:
        """``PATH`` of a command run with this runtime."""
        return f"{self.path}/bin:/usr/local/bin:/usr/bin:/bin"

    def variables(self, env: Mapping[str, str] | None) -> dict[str, str]:
        """The runtime's variables with the caller's ``env`` on top."""
        return {**dict(self.env), **(env or {})}


@dataclass(frozen=True)
class ExecResult:
    """What one command did.

    Attributes:
        exit_code: the command's exit status (128+N when killed by signal N).
        stdout: standard output, decoded as UTF-8 with undecodable bytes replaced.
        stderr: standard error, likewise.
        timed_out: the wall-clock limit was hit and the process tree killed.
        oom_killed: the memory limit was hit and a process killed.
        output_truncated: more output came than ``Limits.max_output_bytes`` kept.
        duration_s: wall-clock seconds the command took.

    """

    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    oom_killed: bool = False
    output_truncated: bool = False
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the command exited 0 within its limits."""
        return self.exit_code == 0 and not self.timed_out and not self.oom_killed


Command = str | Sequence[str]


class Sandbox(abc.ABC):
    """An isolated place to run untrusted commands over one writable work dir.

    Commands see the work dir at :data:`WORKDIR`. File methods take paths relative to it
    (or absolute under it) and never follow links out of it. Nothing a command starts
    outlives its ``run``; a sandbox is a context manager and ``close()`` is idempotent.
    """

    backend: str = ""
    limits: Limits

    @abc.abstractmethod
    def run(
        self,
        cmd: Command,
        timeout: float | None = None,
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> ExecResult:
        """Run ``cmd`` (a shell string, or an argv list) in the work dir and wait for it."""

    def spawn(self, cmd: Command, env: Mapping[str, str] | None = None, cwd: str | None = None) -> Any:
        """Start a long-lived process (a warm worker pool); backends that can override this."""
        from codegym.errors import SandboxError

        raise SandboxError(f"the {self.backend!r} backend cannot spawn long-lived processes; use the local backend")

    @abc.abstractmethod
    def write_file(self, path: str, data: str | bytes, mode: int = 0o644) -> None:
        """Create or replace a file in the work dir, making parent folders."""

    @abc.abstractmethod
    def read_file(self, path: str) -> bytes:
        """The bytes of a file in the work dir."""

    @abc.abstractmethod
    def copy_in(self, host_path: str, dest: str) -> None:
        """Copy a host file or folder into the work dir at ``dest`` (graders bring hidden tests in)."""

    @abc.abstractmethod
    def snapshot(self) -> Any:
        """An opaque, cheap (copy-on-write) snapshot of the work dir."""

    @abc.abstractmethod
    def restore(self, snap: Any) -> None:
        """Make the work dir what it was at ``snap`` (from this sandbox or a relative)."""

    @abc.abstractmethod
    def fork(self) -> Sandbox:
        """A new, independent sandbox whose work dir starts as this one's is now."""

    #: Set by each backend: releases what the sandbox holds (also run at GC and at exit).
    _finalizer: Any
    _closed: bool = False

    def close(self) -> None:
        """Kill what runs, release the work dir and every resource; idempotent."""
        if not self._closed:
            self._closed = True
            self._finalizer()

    def _check_open(self) -> None:
        if self._closed:
            from codegym.errors import SandboxError

            raise SandboxError("this sandbox is closed")

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: The kernel's limit on one argument or environment entry (MAX_ARG_STRLEN), less room for
#: the variable name the local launcher carries each argument in.
MAX_ARG_BYTES = 131_072 - 64
#: What argv and the environment may hold together: execve's limit is a quarter of the
#: stack rlimit (2 MiB by default), pointers included.
MAX_EXEC_BYTES = 1 << 20


def command_problem(cmd: Command, env: Mapping[str, str] | None, cwd: str | None) -> str | None:
    """Why ``cmd`` cannot be run as given, or None.

    These are limits of ``execve`` itself (no program can receive a NUL byte in an argument,
    an argument over 128 KiB, or a variable named with ``=``), so a command that breaks one
    fails as it would in a shell, with exit status 126, instead of reaching the launcher:
    a NUL once split the local launcher's options, and a long one wedged ``runc exec``.
    """
    argv = ["/bin/sh", "-c", cmd] if isinstance(cmd, str) else list(cmd)
    fields = [(f"argument {i}", a) for i, a in enumerate(argv)]
    for name, value in (env or {}).items():
        if not isinstance(name, str) or not name or "=" in name or "\0" in name:
            return f"environment variable name {name!r} is invalid (empty, or with '=' or a NUL byte)"
        fields.append((f"environment variable {name[:40]!r}", f"{name}={value}"))
    if cwd is not None:
        fields.append(("the working folder", cwd))
    total = 0
    for what, value in fields:
        if not isinstance(value, str):
            return f"{what} is a {type(value).__name__}, not text"
        if "\0" in value:
            return f"{what} contains a NUL byte (at character {value.index(chr(0))}); no program can receive one"
        try:
            size = len(value.encode())
        except UnicodeEncodeError as exc:
            return f"{what} is not valid UTF-8 text (a lone surrogate at character {exc.start})"
        if size > MAX_ARG_BYTES:
            return f"{what} is too long: {size:,} bytes; one argument may hold {MAX_ARG_BYTES:,} (E2BIG)"
        total += size + 1
    if total > MAX_EXEC_BYTES:
        return f"the command and its environment are too long: {total:,} bytes; at most {MAX_EXEC_BYTES:,} (E2BIG)"
    return None


def refused(problem: str) -> ExecResult:
    """The result of a command that could not be started for ``problem`` (as a shell's 126)."""
    return ExecResult(126, "", f"codegym: cannot run the command: {problem}\n")


def sandbox_env(env: Mapping[str, str] | None, path: str) -> dict[str, str]:
    """The environment of a sandboxed command: a clean base plus the caller's variables."""
    base = {
        "PATH": path,
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "TMPDIR": "/tmp",
    }
    base.update(env or {})
    return base


def decode(data: bytes) -> str:
    """Bytes a command printed, as text: UTF-8 with undecodable bytes replaced."""
    return data.decode("utf-8", errors="replace")
