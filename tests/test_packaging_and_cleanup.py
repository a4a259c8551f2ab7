"""Packaging (editable and wheel, assets included) and clean-up at GC and interpreter exit."""

from __future__ import annotations

import gc
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import BACKENDS
from leaks import containers, mounts, work_dirs

ROOT = Path(__file__).resolve().parents[1]


def test_built_wheel_maps_every_top_level_folder_and_ships_the_assets(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("codegym-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in (
        "codegym/__init__.py",
        "codegym/envs/__init__.py",
        "codegym/learner/__init__.py",
        "codegym/wrappers/__init__.py",
        "codegym/sandbox/local.py",
    ):
        assert module in names
    shipped_assets = {n for n in names if n.startswith("codegym/assets/") and not n.endswith(".py")}
    on_disk = {
        p for p in (ROOT / "assets").rglob("*") if p.is_file() and p.suffix != ".py" and "__pycache__" not in p.parts
    }
    assert len(shipped_assets) == len(on_disk)
    assert not any(n.startswith(("tests/", "bench/", "examples/")) for n in names)

    # Installed from the wheel alone (no editable mapping), the envs find their bundled tasks.
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)], check=True
    )
    probe = (
        "import codegym, gymnasium as gym; env = gym.make('CodeGen-v0'); "
        "print(codegym.__file__); print(len(env.unwrapped.tasks))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out[0].startswith(str(site)) and int(out[1]) > 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_dropped_sandbox_is_cleaned_up_by_garbage_collection(backend: str) -> None:
    from codegym.sandbox import create

    before = (work_dirs(), containers(), mounts())
    box = create(backend)
    box.run("echo x > f")
    del box
    gc.collect()
    assert (work_dirs(), containers(), mounts()) == before


@pytest.mark.parametrize("backend", BACKENDS)
def test_sandboxes_left_open_are_removed_at_interpreter_exit(backend: str) -> None:
    script = (
        "import os, codegym.sandbox as s\n"
        f"keep = [s.create({backend!r}), s.create({backend!r})]\n"
        "keep[0].run('echo x > f'); keep[1].fork()\n"
        "print(os.getpid())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    pid = out.stdout.strip()
    from codegym.sandbox.workspace import ROOT as WORK_ROOT

    assert not (WORK_ROOT / pid).exists() or not any((WORK_ROOT / pid).iterdir())
    assert pid not in Path("/proc/self/mounts").read_text()
    if backend == "docker":
        import docker

        client = docker.from_env()
        assert not client.containers.list(all=True, filters={"label": f"codegym.owner={pid}"})
