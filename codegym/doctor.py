"""``codegym doctor``: check every real part a family relies on, and say how to fix it."""

from __future__ import annotations

import importlib
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from codegym.envs.webapp.pool import HEADLESS_SHELL

SETUP = "bash scripts/setup.sh"


@dataclass(frozen=True)
class Check:
    """One part: whether it works, what was seen, and the command that fixes it."""

    name: str
    ok: bool
    detail: str
    fix: str
    required: bool = False


def _version(cmd: list[str]) -> str:
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    text = (out.stdout or out.stderr).strip().splitlines()
    if out.returncode != 0 or not text:
        raise RuntimeError(text[-1] if text else f"exit {out.returncode}")
    return text[0][:80]


def _tool(name: str, cmd: list[str], fix: str, required: bool = False) -> Check:
    if shutil.which(cmd[0]) is None:
        return Check(name, False, "", fix, required)
    try:
        return Check(name, True, _version(cmd), fix, required)
    except Exception as exc:  # noqa: BLE001 - any failure is "not working"
        return Check(name, False, str(exc), fix, required)


def _probe(name: str, probe: Callable[[], str], fix: str, required: bool = False) -> Check:
    try:
        return Check(name, True, probe(), fix, required)
    except Exception as exc:  # noqa: BLE001
        return Check(name, False, f"{type(exc).__name__}: {exc}"[:200], f"{fix}  ({exc})"[:300], required)


def _local_sandbox() -> str:
    from codegym.sandbox import create

    with create("local") as sb:
        res = sb.run("id -u")
    if not res.ok:
        raise RuntimeError(res.stderr.strip())
    return f"runs as uid {res.stdout.strip()} in bubblewrap"


def _docker_sandbox() -> str:
    from codegym.sandbox import create

    with create("docker") as sb:
        res = sb.run("echo ok")
    if not res.ok:
        raise RuntimeError(res.stderr.strip())
    return "engine reachable, container exec works"


def _module(name: str) -> Callable[[], str]:
    def probe() -> str:
        mod = importlib.import_module(name)
        return f"{name} {getattr(mod, '__version__', '')}".strip()

    return probe


def run_checks() -> Iterator[Check]:
    """Yield one Check per part."""
    yield _tool("bubblewrap", ["bwrap", "--version"], f"{SETUP}  (or: apt-get install bubblewrap)", required=True)
    yield _probe("local sandbox", _local_sandbox, SETUP, required=True)
    yield _probe("docker sandbox", _docker_sandbox, f"{SETUP}  (installs docker.io and starts dockerd)")
    yield _tool("g++", ["g++", "--version"], "apt-get install g++")
    yield _tool("node", ["node", "--version"], "apt-get install nodejs")
    yield _tool("rustc", ["/usr/bin/rustc", "--version"], "apt-get install rustc")
    yield _tool("chromium", ["chromium", "--version"], "apt-get install chromium")
    yield _tool(
        "chromium headless shell",
        [HEADLESS_SHELL, "--version"],
        "apt-get install chromium-headless-shell  (WebApp-v0 grades about twice as fast with it)",
    )
    yield _probe("playwright", _module("playwright"), "pip install 'codegym[web]'")
    yield _tool("pdflatex", ["pdflatex", "--version"], "apt-get install texlive-latex-extra texlive-pictures")
    yield _tool("pdftoppm", ["pdftoppm", "-v"], "apt-get install poppler-utils")
    yield _probe("cairosvg", _module("cairosvg"), "pip install 'codegym[render]'")
    yield _probe("cadquery", _module("cadquery"), "pip install 'codegym[cad]'")
    yield _probe(
        "torch + transformers",
        lambda: _module("torch")() + ", " + _module("transformers")(),
        "pip install 'codegym[learner]'",
    )
    yield _tool("nvcc", ["nvcc", "--version"], "install the CUDA toolkit (kernels family)")
    yield _tool("GPU", ["nvidia-smi", "-L"], "no NVIDIA GPU here: GPU kernels are compiled but not run")
