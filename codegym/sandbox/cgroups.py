"""Per-run control groups: memory and process limits for a whole process tree.

rlimits are per process (a fork bomb or ten 500 MB children pass them), so where the
kernel lets us we put every ``run`` in a cgroup with ``memory`` and ``pids`` limits, kill
it whole at the end, and read its OOM count. Both cgroup v2 and the v1 hierarchies are
handled.

A sandbox keeps its group from one run to the next: making and deleting a memory cgroup
per run costs about 14 ms (the kernel's offlining of the deleted group), more than the
bubblewrap start itself. Files a run leaves in the work dir stay charged to the group
(tmpfs pages), so before each run :meth:`RunCgroup.rearm` sets the memory limit to the
run's budget *plus* what is charged already: each run gets its full limit.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
GROUP = "codegym"


class RunCgroup:
    """One cgroup (v2) or a pair (v1 memory + pids) holding one run's processes."""

    def __init__(self, dirs: list[Path], v2: bool) -> None:
        self.dirs, self.v2 = dirs, v2

    @classmethod
    def create(cls, memory_bytes: int, max_pids: int) -> RunCgroup | None:
        """A new cgroup with these limits, or None where cgroups cannot be written."""
        name = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"  # the owner's pid: see sweep_stale
        try:
            if _v2_ready():
                d = CGROUP_ROOT / GROUP / name
                d.mkdir()
                (d / "memory.max").write_text(str(memory_bytes))
                (d / "memory.swap.max").write_text("0") if (d / "memory.swap.max").exists() else None
                (d / "pids.max").write_text(str(max_pids))
                return cls([d], True)
            mem, pids = CGROUP_ROOT / "memory", CGROUP_ROOT / "pids"
            if not (os.access(mem, os.W_OK) and os.access(pids, os.W_OK)):
                return None
            dm, dp = mem / GROUP / name, pids / GROUP / name
            dm.mkdir(parents=True)
            dp.mkdir(parents=True)
            (dm / "memory.limit_in_bytes").write_text(str(memory_bytes))
            if (dm / "memory.memsw.limit_in_bytes").exists():
                (dm / "memory.memsw.limit_in_bytes").write_text(str(memory_bytes))
            (dp / "pids.max").write_text(str(max_pids))
            return cls([dm, dp], False)
        except OSError:
            return None

    @property
    def procs_files(self) -> list[str]:
        """Files a pid is written to, to join the group."""
        return [str(d / "cgroup.procs") for d in self.dirs]

    def add(self, pid: int) -> None:
        """Move a process into the group (its later children follow it)."""
        for name in self.procs_files:
            try:
                with open(name, "w") as f:
                    f.write(str(pid))
            except ProcessLookupError:
                pass

    def pids(self) -> list[int]:
        """Processes in the group now."""
        found: set[int] = set()
        for d in self.dirs:
            try:
                found.update(int(p) for p in (d / "cgroup.procs").read_text().split())
            except OSError:
                pass
        return sorted(found)

    def kill_all(self) -> None:
        """SIGKILL every process in the group until it is empty (forks included)."""
        for _ in range(100):
            pids = self.pids()
            if not pids:
                return
            if self.v2 and (self.dirs[0] / "cgroup.kill").exists():
                (self.dirs[0] / "cgroup.kill").write_text("1")
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.0005)

    def oom_kills(self) -> int:
        """How many processes the kernel killed for memory in this group."""
        path = self.dirs[0] / ("memory.events" if self.v2 else "memory.oom_control")
        try:
            for line in path.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except OSError:
            pass
        return 0

    def rearm(self, memory_bytes: int) -> None:
        """Give the next run ``memory_bytes`` on top of what the group holds already."""
        d = self.dirs[0]
        if self.v2:
            used = int((d / "memory.current").read_text())
            (d / "memory.max").write_text(str(memory_bytes + used))
            return
        used = int((d / "memory.usage_in_bytes").read_text())
        limit, memsw = d / "memory.limit_in_bytes", d / "memory.memsw.limit_in_bytes"
        # v1 wants memory <= memory+swap at every moment: raise memsw first, lower it last.
        files = [memsw, limit] if memsw.exists() else [limit]
        if int(limit.read_text()) > memory_bytes + used:
            files.reverse()
        for f in files:
            f.write_text(str(memory_bytes + used))

    def remove(self) -> None:
        """Kill what is left and delete the group."""
        self.kill_all()
        for d in self.dirs:
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # busy: its last processes are still exiting
                    self.kill_all()
                    time.sleep(0.001)


def _v2_ready() -> bool:
    controllers = CGROUP_ROOT / "cgroup.controllers"
    if not controllers.exists() or not {"memory", "pids"} <= set(controllers.read_text().split()):
        return False
    group = CGROUP_ROOT / GROUP
    if not group.exists():
        group.mkdir()
        (CGROUP_ROOT / "cgroup.subtree_control").write_text("+memory +pids")
        (group / "cgroup.subtree_control").write_text("+memory +pids")
    return True


def sweep_stale() -> None:
    """Delete the groups of codegym processes that died without removing them."""
    for parent in (CGROUP_ROOT / GROUP, CGROUP_ROOT / "memory" / GROUP, CGROUP_ROOT / "pids" / GROUP):
        try:
            children = list(parent.iterdir())
        except OSError:
            continue
        for d in children:
            owner = d.name.split("-", 1)[0]
            if d.is_dir() and owner.isdigit() and not Path(f"/proc/{owner}").exists():
                try:
                    d.rmdir()
                except OSError:
                    pass
