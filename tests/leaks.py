"""Counting what a sandbox could leak: processes of the sandbox uid, work dirs, containers."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from codegym.sandbox.local import SANDBOX_UID
from codegym.sandbox.workspace import ROOT


def sandbox_processes(marker: str | None = None) -> list[int]:
    """Live host processes of the sandbox uid that escaped their run.

    Other sandboxes may be running beside the tests, so a process counts as escaped when it
    was orphaned to the host's pid 1 (a live run's processes hang below its bwrap), or when
    its command line holds ``marker``.
    """
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != SANDBOX_UID:
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (FileNotFoundError, ProcessLookupError):
            continue
        state, ppid = fields[0], int(fields[1])
        if state != "Z" and (ppid == 1 or (marker is not None and marker in cmdline)):
            pids.append(int(entry.name))
    return pids


def _spares() -> list[tuple[str, Path]]:
    """The docker backend's idle spare containers and their workspaces: kept on purpose."""
    docker_backend = sys.modules.get("codegym.sandbox.docker")
    return docker_backend.spares() if docker_backend else []


def work_dirs() -> set[str]:
    """Work dirs of this process that are not shared layers or spares."""
    mine = ROOT / str(os.getpid())
    spare = {folder.name for _, folder in _spares()}
    return (
        {p.name for p in mine.iterdir() if p.name.startswith("W") and p.name not in spare} if mine.is_dir() else set()
    )


def containers() -> set[str]:
    """Live containers this process started, spares aside (empty when no engine)."""
    try:
        import docker

        client = docker.from_env(timeout=5)
        owned = {"label": f"codegym.owner={os.getpid()}"}
        live = {c.id for c in client.containers.list(all=True, filters=owned)}
    except Exception:  # noqa: BLE001
        return set()
    return live - {container for container, _ in _spares()}


def mounts() -> int:
    """Mounts under this process's part of codegym's work root, spares aside."""
    mine = f"{ROOT}/{os.getpid()}/"
    spare = [f"{folder}/" for _, folder in _spares()]
    lines = Path("/proc/self/mounts").read_text().splitlines()
    return sum(1 for line in lines if mine in line and not any(s in line for s in spare))


def cgroups() -> list[str]:
    """Cgroups this process made for its runs (a live sandbox keeps one; none once closed)."""
    from codegym.sandbox.cgroups import CGROUP_ROOT, GROUP

    mine = f"{os.getpid()}-"
    found = []
    for parent in (CGROUP_ROOT / GROUP, CGROUP_ROOT / "memory" / GROUP, CGROUP_ROOT / "pids" / GROUP):
        try:
            found += [str(d) for d in parent.iterdir() if d.name.startswith(mine) and d.is_dir()]
        except OSError:
            continue
    return found


def temp_folders() -> list[str]:
    """This process's folders in the system temp dir (codegym names them with its pid)."""
    import tempfile

    pid = str(os.getpid())
    return [p.name for p in Path(tempfile.gettempdir()).iterdir() if "codegym" in p.name and pid in p.name.split("-")]
