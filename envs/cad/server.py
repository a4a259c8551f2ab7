"""The CAD worker that runs *inside* the sandbox (standalone: it imports no codegym code).

Started once per env as ``python -c <this source>``; it imports cadquery (seconds), warms
the kernel up, makes itself non-dumpable (so the attempts it forks cannot ptrace it or
read its memory and pipes through ``/proc``), prints ``ready`` and then serves one JSON
request per line on stdin:

``{"id", "dir", "steps": [{"code", "snap", "line"}], "final", "timeout", "cpu", "mem_mb", "tol"}``
(``line``: where the step's code starts in the attempt, for its tracebacks; default 1)

For each request it forks a child (cadquery already imported: the fork is warm), and the
child, in a new session, with CPU and address-space rlimits, stdout/stderr sent to a file
and an audit hook that blocks process spawning, sockets, signals and writes outside the
attempt's folder, executes the steps in order. After each step with a ``snap`` name it
tessellates the named value if its geometry changed, and it always exports ``final``.
Meshes go to ``<dir>/mesh.npz`` and a summary to ``<dir>/meta.json``; the host grades them.
After the child ends (or is killed at ``timeout``) every other process of the sandbox is
killed, so nothing an attempt starts can touch the next one. The reply line says how the
child ended. ``--once`` serves a single request in-process (the cold baseline).
"""

import ast
import ctypes
import json
import linecache
import os
import resource
import signal
import sys
import time
import traceback

import cadquery as cq
import numpy as np
from OCP.BRepMesh import BRepMesh_IncrementalMesh
from OCP.BRepTools import BRepTools

WORK = os.environ.get("CAD_WORK", "/sandbox")
BLOCKED_EVENTS = {
    "os.system": "process_spawn",
    "subprocess.Popen": "process_spawn",
    "os.exec": "process_spawn",
    "os.posix_spawn": "process_spawn",
    "os.spawn": "process_spawn",
    "os.fork": "process_spawn",
    "os.forkpty": "process_spawn",
    "pty.spawn": "process_spawn",
    "os.startfile": "process_spawn",
    "socket.__new__": "network",
    "socket.connect": "network",
    "socket.bind": "network",
    "os.kill": "signal",
    "os.killpg": "signal",
    "signal.pthread_kill": "signal",
    "ctypes.dlopen": "native_code",
    "ctypes.dlsym": "native_code",
    "ctypes.call_function": "native_code",
}
PATH_EVENTS = (
    "os.remove",
    "os.rename",
    "os.rmdir",
    "os.mkdir",
    "os.chmod",
    "os.chown",
    "os.symlink",
    "os.link",
    "os.truncate",
    "os.utime",
    "shutil.rmtree",
    "shutil.copyfile",
    "shutil.move",
)
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _install_audit(allowed, hidden, events):
    """Block dangerous runtime events; record each (kind, event) in ``events``.

    ``allowed``: folders writes may go to; ``hidden``: folders nothing may be read from
    (the bundled parts with their gold scripts, when codegym is installed where the sandbox
    can see it).
    """

    def real(path):
        try:
            return os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return "/"

    def under(p, roots):
        return any(p == a or p.startswith(a.rstrip("/") + "/") for a in roots)

    def outside(path):
        return not isinstance(path, int) and not under(real(path), allowed)

    def hook(event, args):
        kind = BLOCKED_EVENTS.get(event)
        if kind is None and event == "open" and len(args) >= 3:
            path, mode, flags = args[0], args[1] or "", args[2] or 0
            if (any(c in str(mode) for c in "wax+") or flags & WRITE_FLAGS) and outside(path):
                kind = "write_outside_workdir"
            elif hidden and not isinstance(path, int) and under(real(path), hidden):
                kind = "read_hidden_files"
        elif (
            kind is None
            and event in ("os.listdir", "os.scandir", "glob.glob")
            and hidden
            and args
            and not isinstance(args[0], int)
            and under(real(args[0] or "."), hidden)
        ):
            kind = "read_hidden_files"
        elif kind is None and event in PATH_EVENTS and args and outside(args[0]):
            kind = "write_outside_workdir"
        if kind is not None:
            events.append([kind, event])
            raise PermissionError(f"{event} is not allowed in CAD code (sandbox policy: {kind})")

    sys.addaudithook(hook)


def to_shape(value):
    """The geometry a value stands for: a cq.Shape, or None."""
    if isinstance(value, cq.Assembly):
        return value.toCompound()
    if isinstance(value, cq.Shape):
        return value
    if isinstance(value, cq.Workplane):
        shapes = [v for v in value.vals() if isinstance(v, cq.Shape)]
        solids = [s for s in shapes if s.Solids()]
        if solids:
            return solids[0] if len(solids) == 1 else cq.Compound.makeCompound(solids)
        try:
            return value.findSolid()
        except Exception:  # noqa: BLE001 - no solid on the chain: maybe faces only
            faces = [s for s in shapes if s.Faces()]
            return cq.Compound.makeCompound(faces) if faces else None
    return None


def export(shape, tol_rel):
    """(vertices, triangles, stats) of a shape, tessellated with a size-relative tolerance."""
    started = time.perf_counter()
    bb = shape.BoundingBox()
    tol = max(bb.DiagonalLength * tol_rel, 1e-6)
    # An absolute deflection: ``shape.tessellate`` meshes with a *relative* one (times each
    # edge's size), which left the angular limit in charge and put lofted B-spline faces
    # 2-3% of the volume off their solid. Any mesh the attempt made is dropped first.
    BRepTools.Clean_s(shape.wrapped)
    BRepMesh_IncrementalMesh(shape.wrapped, tol, False, 0.2, False)
    verts, tris = shape.tessellate(tol, 0.2)
    v = np.array([(p.x, p.y, p.z) for p in verts], dtype=np.float64).reshape(-1, 3)
    t = np.array(tris, dtype=np.int64).reshape(-1, 3)
    stats = {
        "faces": len(shape.Faces()),
        "edges": len(shape.Edges()),
        "solids": len(shape.Solids()),
        "valid": bool(shape.isValid()),
        "tess_s": time.perf_counter() - started,
    }
    return v, t, stats


def run_attempt(req):
    """Execute the request's steps in this process; write mesh.npz and meta.json."""
    out_dir = os.path.join(WORK, req["dir"])
    events, snaps, arrays = [], [], {}
    meta = {"snaps": snaps, "final": None, "error": None, "error_step": None, "events": events}
    source = req.get("source")
    if source:
        linecache.cache["<attempt>"] = (len(source), None, source.splitlines(True), "<attempt>")
    _install_audit([out_dir, "/tmp"], req.get("hidden", []), events)
    ns = {"__name__": "__main__", "cq": cq}
    prev = None
    for i, step in enumerate(req["steps"]):
        try:
            exec(_compiled(step), ns)  # noqa: S102 - this is the sandbox
        except BaseException as exc:  # noqa: BLE001 - the attempt's error is the feedback
            meta["error"] = _trace(exc)
            meta["error_step"] = i
            break
        if step.get("snap") and step["snap"] in ns:
            try:
                shape = to_shape(ns[step["snap"]])
                if shape is not None and not (prev is not None and shape.isSame(prev)):
                    key = f"s{len(snaps)}"
                    arrays["v" + key], arrays["t" + key], stats = export(shape, req["tol"])
                    snaps.append(dict(stats, step=i, key=key))
                    prev = shape
            except Exception:  # noqa: BLE001 - a step that cannot be tessellated scores no change
                pass
    if meta["error"] is None:
        if req["final"] not in ns:
            meta["error"] = (
                f"NameError: the code ran but left no variable named {req['final']!r}; put the part in `result`"
            )
        else:
            try:
                shape = to_shape(ns[req["final"]])
                if shape is None and isinstance(ns[req["final"]], (cq.Workplane, cq.Sketch)):
                    meta["error"] = (
                        "ValueError: `result` holds no solid (only wires, sketches or points): "
                        "extrude, revolve or loft it"
                    )
                elif shape is None:
                    kind = type(ns[req["final"]]).__name__
                    meta["error"] = f"TypeError: `result` is a {kind}, expected a cadquery Workplane, Shape or Assembly"
                else:
                    arrays["vfinal"], arrays["tfinal"], stats = export(shape, req["tol"])
                    meta["final"] = dict(stats, key="final")
            except BaseException as exc:  # noqa: BLE001
                meta["error"] = _trace(exc)
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit > 0:  # near the cap, failures are the memory limit's (OCCT may return null shapes)
        meta["vm_peak_frac"] = _vm_bytes("VmPeak:") / limit
    np.savez(os.path.join(out_dir, "mesh.npz"), **arrays)
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f)


def _compiled(step):
    """The step's code object, its line numbers those of the attempt (no blank-line padding)."""
    line = step.get("line", 1)
    if not isinstance(line, int) or line <= 1:
        return compile(step["code"], "<attempt>", "exec")
    tree = ast.parse(step["code"], "<attempt>")
    ast.increment_lineno(tree, line - 1)
    return compile(tree, "<attempt>", "exec")


def _trace(exc):
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    kept = [ln for ln in lines if "<cad-server>" not in ln]  # our frames are noise to the model
    return "".join(kept)[-4000:]


def _vm_bytes(field="VmSize:"):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1]) * 1024
    return 0


def _child(req, proto_fds):
    os.setsid()
    out_dir = os.path.join(WORK, req["dir"])
    log = os.open(os.path.join(out_dir, "output.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    for fd in (*proto_fds, log, null):
        os.close(fd)
    os.chdir(out_dir)
    cpu = int(req["cpu"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    try:  # be the OOM killer's first choice in the sandbox's cgroup, never the server
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass
    # The address-space cap fails big allocations at once (MemoryError); the sandbox's cgroup
    # is only the backstop, because near its limit the kernel thrashes before it OOM-kills.
    mem = _vm_bytes() + int(req["mem_mb"]) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    try:
        run_attempt(req)
    except MemoryError:
        os._exit(3)
    except BaseException:  # noqa: BLE001
        os._exit(2)
    os._exit(0)


def _sweep(keep):
    """SIGKILL every process of the sandbox but ``keep`` (what an attempt left behind)."""
    for _ in range(50):
        others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in keep]
        if not others:
            return
        for pid in others:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.002)
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass


def serve():
    """Answer requests from stdin until it closes (see the module docstring)."""
    proto_in = os.fdopen(os.dup(0), "r")
    proto_out = os.fdopen(os.dup(1), "w")
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    # Warm up without booleans: they start OCCT's thread pool, whose threads a fork would
    # not copy (the children would deadlock on it).
    cq.Workplane().box(1, 1, 1).faces(">Z").workplane().rect(0.5, 0.5).val()
    cq.Workplane().box(1, 1, 1).val().tessellate(0.01, 0.2)
    # Non-dumpable: attempts (same uid) cannot ptrace us or open /proc/<us>/fd or mem.
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    keep = {1, os.getpid(), os.getppid()}
    proto_out.write("ready\n")
    proto_out.flush()
    for line in proto_in:
        req = json.loads(line)
        os.makedirs(os.path.join(WORK, req["dir"]), exist_ok=True)
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            _child(req, (proto_in.fileno(), proto_out.fileno()))
        status, timed_out = None, False
        deadline = started + float(req["timeout"])
        while status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
            elif time.monotonic() > deadline:
                timed_out = True
                os.killpg(pid, signal.SIGKILL)
                status = os.waitpid(pid, 0)[1]
            else:
                time.sleep(0.002)
        _sweep(keep)
        reply = {"id": req["id"], "timed_out": timed_out, "seconds": time.monotonic() - started}
        if os.WIFSIGNALED(status):
            reply["signal"] = os.WTERMSIG(status)
        else:
            reply["exit"] = os.WEXITSTATUS(status)
        proto_out.write(json.dumps(reply) + "\n")
        proto_out.flush()


def once():
    """Serve one request in this process (the fresh-interpreter baseline)."""
    req = json.loads(sys.stdin.readline())
    os.makedirs(os.path.join(WORK, req["dir"]), exist_ok=True)
    started = time.monotonic()
    run_attempt(req)
    print(json.dumps({"id": req["id"], "timed_out": False, "exit": 0, "seconds": time.monotonic() - started}))


if __name__ == "__main__":
    if "--once" in sys.argv:
        once()
    else:
        serve()
