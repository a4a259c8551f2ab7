"""Per-task environments: a repository's own venv, built once per (repository, version, install spec).

A repository task must run its tests with the repository's code and dependencies, never
with codegym's venv: there, a library that codegym also has installed is imported from
codegym's copy, so an edit to the README "resolves" an issue, and a repository whose
dependencies codegym lacks cannot run at all.

So each task gets a venv of its own, made by pip from PyPI on the host and cached under
``CODEGYM_CACHE`` (``agentic/env-<key>``), keyed by the repository, its version and its
install spec: SWE-bench keeps ``python`` / ``pre_install`` / ``packages`` / ``pip_packages``
/ ``install`` per repository and version (``swebench/harness/constants``); an instance may
carry them itself (top level, under ``specs`` or SWE-rebench's ``install_config``). The
repository is installed from a copy of the task's base tree; every path of that copy that
the install wrote into the venv (editable ``.pth`` files, setuptools' editable finders,
``egg-link`` files) is then rewritten to the sandbox's work dir, and the sandbox puts the work
dir's import roots first on ``PYTHONPATH``, so the code under test is always the attempt's.

The sandbox sees the venv read-only at :data:`ENV_PATH` (``local``: a bind; ``docker``: an
image layer built from it). A prebuilt image already on the machine (``sweb.eval.*``,
SWE-smith's ``image_name``, R2E-Gym's ``docker_image``) is used as it is on ``docker``.
The build runs the repository's own setup code on the host (as SWE-bench's image build
runs it): tasks are data the user chose, not the attempt; no attempt's code runs here.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from codegym.errors import InfraError
from codegym.sandbox import WORKDIR, Runtime

from .repo import cache_root

#: Where commands see a task's venv.
ENV_PATH = "/opt/codegym-env"
#: Bump when the way environments are built changes: old cached ones are then not reused.
BUILD_VERSION = "1"
#: Seconds one build step may take.
STEP_TIMEOUT = 1200
#: Characters of each step's output kept in the build log.
LOG_TAIL = 2000
#: pre_install commands that change the machine itself (SWE-bench runs them in its image):
#: never run on the host; the docker backend with a prebuilt image has them done already.
_SYSTEM_COMMANDS = re.compile(r"^\s*(sudo\s+)?(apt(-get)?|dpkg|yum|dnf|apk|conda|locale-gen|update-locale)\b")
#: Files of site-packages where an install records the path of the tree it installed from.
_PATH_FILES = re.compile(r"(\.pth|\.egg-link|_finder\.py|direct_url\.json|RECORD)$")


class EnvBuildError(InfraError):
    """A per-task environment could not be built: names the failing step, with its log."""

    def __init__(self, step: str, detail: str, log: list[dict[str, Any]]) -> None:
        super().__init__(f"the task's environment could not be built: step {step!r} failed: {detail}")
        self.step, self.log = step, log


def _as_list(value: Any) -> tuple[str, ...]:
    """A list field that may come as one space-separated string."""
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        return tuple(shlex.split(value))
    return tuple(str(v) for v in value)


@dataclass(frozen=True)
class InstallSpec:
    """How a repository is installed (SWE-bench's spec fields, one shape for every format).

    Attributes:
        repo: ``owner/name``.
        version: the repository version the spec is for (``base_commit`` when none is given).
        python: the Python version asked for (the host's is used when it lacks that one; the
            verdict says so).
        pre_install: shell commands run in the repository before the install.
        packages: ``requirements.txt`` / ``environment.yml`` (SWE-bench's markers), or package specs.
        reqs_path: requirement files for ``packages="requirements.txt"``.
        pip_packages: packages pip installs before the repository (test dependencies).
        install: the command installing the repository (default: an editable install).
        images: prebuilt images that hold the whole environment, used on ``docker`` when present.

    """

    repo: str
    version: str
    python: str = ""
    pre_install: tuple[str, ...] = ()
    packages: tuple[str, ...] = ()
    reqs_path: tuple[str, ...] = ()
    pip_packages: tuple[str, ...] = ()
    install: str = ""
    images: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> InstallSpec:
        """The spec of a SWE-bench / SWE-Gym / SWE-smith / R2E-Gym / SWE-rebench instance."""
        spec: dict[str, Any] = {}
        for nested in ("specs", "install_config", "environment_setup"):
            if isinstance(data.get(nested), Mapping):
                spec.update(data[nested])
        for name in ("python", "pre_install", "packages", "reqs_path", "pip_packages", "install"):
            if name in data and data[name] not in (None, ""):
                spec[name] = data[name]
        instance = str(data.get("instance_id", ""))
        images = [str(data[k]) for k in ("image", "image_name", "docker_image") if data.get(k)]
        if instance:  # the harness's own name for an instance's image (swebench.task.checks)
            key = f"sweb.eval.x86_64.{instance}:latest".lower()
            images += [key, key.replace("__", "_1776_"), "swebench/" + key.replace("__", "_1776_")]
        packages = spec.get("packages", ())
        return cls(
            repo=str(data.get("repo", "")),
            version=str(data.get("version") or data.get("base_commit") or ""),
            python=str(spec.get("python", "")),
            pre_install=tuple(spec.get("pre_install") or ()),
            packages=(packages,) if isinstance(packages, str) and packages else tuple(packages or ()),
            reqs_path=_as_list(spec.get("reqs_path")),
            pip_packages=_as_list(spec.get("pip_packages")),
            install=str(spec.get("install", "") or ""),
            images=tuple(dict.fromkeys(images)),
        )

    def key(self) -> str:
        """The cache key: repository, version and install spec (not the images)."""
        fields = {k: v for k, v in asdict(self).items() if k != "images"}
        raw = json.dumps([BUILD_VERSION, fields, sys.version_info[:2]], sort_keys=True)
        name = re.sub(r"[^A-Za-z0-9]+", "_", self.repo)[-40:] or "repo"
        return f"{name}-{hashlib.sha256(raw.encode()).hexdigest()[:16]}"


@dataclass
class TaskEnv:
    """A built environment: what the sandbox mounts, and the record for the verdict.

    Attributes:
        runtime: the sandbox's :class:`~codegym.sandbox.Runtime`.
        record: JSON-serialisable facts: key, build log and seconds, Python, source.

    """

    runtime: Runtime
    record: dict[str, Any]


def _local_image(names: tuple[str, ...]) -> str | None:
    """The first of ``names`` that the docker engine has (no registry is asked)."""
    if not names:
        return None
    try:
        from codegym.sandbox.docker import _client

        client = _client()
        return next((n for n in names if client.images.list(name=n)), None)
    except Exception:  # noqa: BLE001 - no engine: no prebuilt image to use
        return None


def ensure_env(spec: InstallSpec, tree: Path, backend: str) -> TaskEnv:
    """The task's environment: a prebuilt image (docker), else the cached venv, built now if new.

    Raises:
        EnvBuildError: a build step failed (an infrastructure failure, not the attempt's).

    """
    if backend == "docker":
        image = _local_image(spec.images)
        if image is not None:
            # SWE-bench's images keep the repository's env at /opt/miniconda3/envs/testbed.
            runtime = Runtime(None, "/opt/miniconda3/envs/testbed", image=image, env=_roots_env(tree, []))
            return TaskEnv(runtime, {"key": spec.key(), "source": "prebuilt image", "image": image})
    folder = cache_root() / f"env-{spec.key()}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    record_file = folder / "build.json"
    built = False
    if not record_file.exists():
        with open(folder.parent / f".env-{spec.key()}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one build per key, even across processes
            if not record_file.exists():
                _build(spec, tree, folder)
                built = True
    record = json.loads(record_file.read_text())
    record["cached"] = not built
    runtime = Runtime(str(folder / "venv"), ENV_PATH, env=_roots_env(tree, record["roots"]))
    return TaskEnv(runtime, record)


def _roots_env(tree: Path, roots: list[str]) -> tuple[tuple[str, str], ...]:
    """``PYTHONPATH`` with the work dir's import roots: its code wins over any installed copy."""
    if not roots:
        roots = [f"{WORKDIR}/src"] if _has_package(tree / "src") else [WORKDIR]
    return (("PYTHONPATH", ":".join(roots)),)


def _has_package(folder: Path) -> bool:
    return folder.is_dir() and any((c / "__init__.py").is_file() or c.suffix == ".py" for c in folder.iterdir())


def _interpreter(asked: str) -> tuple[str, str]:
    """(interpreter, note): the asked ``pythonX.Y`` where the host has it, else the host's own.

    Only interpreters under ``/usr`` or codegym's base prefix: the sandbox binds those.
    """
    base = os.path.join(sys.base_prefix, "bin", f"python{sys.version_info[0]}.{sys.version_info[1]}")
    if asked and asked != f"{sys.version_info[0]}.{sys.version_info[1]}":
        for candidate in (f"/usr/bin/python{asked}", f"/usr/local/bin/python{asked}"):
            if os.access(candidate, os.X_OK):
                return candidate, ""
        return base, f"python {asked} is not on this machine; built with {sys.version.split()[0]}"
    return base, ""


def _build(spec: InstallSpec, tree: Path, folder: Path) -> None:
    """Build the venv into ``folder`` (removed again when a step fails)."""
    started = time.monotonic()
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    venv, src = folder / "venv", folder / "repo"
    log: list[dict[str, Any]] = []
    python, note = _interpreter(spec.python)
    path = f"{venv}/bin:/usr/local/bin:/usr/bin:/bin"
    env = {
        **{k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL")},
        "PATH": path,
        "VIRTUAL_ENV": str(venv),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_INPUT": "1",
    }

    def step(name: str, cmd: str, cwd: Path = folder) -> None:
        t0 = time.monotonic()
        try:
            proc = subprocess.run(
                ["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT
            )
            rc, out = proc.returncode, (proc.stdout + proc.stderr)
        except subprocess.TimeoutExpired as exc:
            rc, out = -1, f"timed out after {STEP_TIMEOUT} s: {exc}"
        log.append({"step": name, "command": cmd, "exit_code": rc, "seconds": round(time.monotonic() - t0, 2)})
        log[-1]["output"] = out[-LOG_TAIL:]
        if rc != 0:
            shutil.rmtree(folder, ignore_errors=True)
            raise EnvBuildError(name, f"`{cmd}` exited {rc}: {out.strip()[-600:]}", log)

    skipped = []
    step("venv", f"{shlex.quote(python)} -m venv {shlex.quote(str(venv))}")
    shutil.copytree(tree, src, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    for i, cmd in enumerate(spec.pre_install):
        if _SYSTEM_COMMANDS.match(cmd):
            skipped.append(cmd)  # changes the machine, not the venv: see the module docstring
            continue
        step(f"pre_install[{i}]", cmd, src)
    for i, package in enumerate(spec.packages):
        if package == "requirements.txt":
            for reqs in spec.reqs_path or ("requirements.txt",):
                step(f"packages[{i}]", f"python -m pip install -r {shlex.quote(reqs)}", src)
        elif package.endswith((".yml", ".yaml")):
            skipped.append(f"packages: {package} (a conda environment)")
        else:
            step(f"packages[{i}]", "python -m pip install " + " ".join(map(shlex.quote, package.split())), src)
    if spec.pip_packages:
        step("pip_packages", "python -m pip install " + " ".join(map(shlex.quote, spec.pip_packages)), src)
    install = spec.install or _default_install(src)
    if install:
        step("install", install, src)
    step("pytest", "python -m pytest --version || python -m pip install pytest", src)
    roots = _relocate(venv, src)
    shutil.rmtree(src, ignore_errors=True)
    record = {
        "key": spec.key(),
        "source": "venv",
        "repo": spec.repo,
        "version": spec.version,
        "python": sys.version.split()[0],
        "python_note": note,
        "skipped": skipped,
        "roots": roots,
        "build_s": round(time.monotonic() - started, 2),
        "log": log,
    }
    (folder / "build.json").write_text(json.dumps(record))


def _default_install(src: Path) -> str:
    """An editable install where the tree is a Python project (SWE-bench's most common spec)."""
    if any((src / name).is_file() for name in ("pyproject.toml", "setup.py", "setup.cfg")):
        return "python -m pip install -e ."
    return ""


def _relocate(venv: Path, src: Path) -> list[str]:
    """Point what the install recorded about ``src`` at the work dir; the work dir's import roots.

    ``setup.py develop`` leaves the metadata (``*.egg-info``) in the tree: it moves into
    site-packages, where ``importlib.metadata`` still finds it.
    """
    site = next(venv.glob("lib/python*/site-packages"))
    old = str(src)
    roots: list[str] = []
    for egg in list(src.glob("*.egg-info")) + list(src.glob("src/*.egg-info")):
        if not (site / egg.name).exists():
            shutil.move(str(egg), site / egg.name)
    for file in site.rglob("*"):
        if not file.is_file() or not _PATH_FILES.search(file.name):
            continue
        text = file.read_text(errors="replace")
        if old not in text:
            continue
        text = text.replace(old, WORKDIR)
        file.write_text(text)
        if file.suffix == ".pth":
            roots += [line for line in text.splitlines() if line.startswith(WORKDIR)]
        elif file.name.endswith("_finder.py"):
            mapped = re.findall(r"'(" + re.escape(WORKDIR) + r"[^']*)'", text)
            roots += [os.path.dirname(p) for p in mapped]
    return sorted(dict.fromkeys(r.rstrip("/") for r in roots if r))
