r"""Test runner copied into the sandbox: runs every test of one attempt in one sandboxed run.

This file is a standalone script (standard library only); the host writes it into the
sandbox as ``.cg_runner.py`` and starts it once per attempt:

    python3 -I .cg_runner.py      (stdin: "<spec length>\\n<spec JSON><nonce>\\n")

Trust layout (why it is built this way):

* The runner process itself never executes the attempt. It forks one *worker* that loads
  the attempt once and runs the tests one after another in that process, reporting each
  result on a private pipe. The runner enforces the per-test timeout on its own monotonic
  clock (so an attempt that patches ``time`` cannot stretch it); when a worker hangs or dies
  the runner records that test as ``timeout`` / ``error`` and forks a fresh worker for the
  remaining tests. Compiled languages (C++, Rust) and JavaScript are built once and their
  program runs per test as a child of the runner.
* Expected outputs of bundled tasks never enter the sandbox: the worker reports what the
  attempt returned or printed (``got``) and the host compares. Only HumanEval-style
  ``test_code`` (asserts) is judged inside, and the audit watches that path.
* The runner is made non-dumpable before forking, so no child can open its ``/proc``
  entries (its stdout, its memory). Workers replace fds 0/1/2 before running the attempt.
  The nonce is read from stdin only after every test has finished, so nothing the attempt
  ran could have seen it, and the result is printed on the runner's own stdout framed by
  that nonce: the attempt's prints cannot forge it.
"""

import ctypes
import io
import json
import os
import select
import signal
import subprocess
import sys
import time
import traceback

SOLUTION_NAME = "<solution>"
MAX_OUT = 1 << 20  # bytes of a test's stdout kept
MAX_LINE_EVENTS = 300_000  # line-trace events per test before tracing stops (keeps it cheap)


def read_exact(fd, n):
    """Read exactly ``n`` bytes from ``fd`` without buffering past them (the nonce follows)."""
    chunks, left = [], n
    while left:
        b = os.read(fd, min(left, 1 << 16))
        if not b:
            break
        chunks.append(b)
        left -= len(b)
    return b"".join(chunks)


def read_line(fd):
    """One line from ``fd``, byte by byte, so nothing after it is consumed."""
    out = bytearray()
    while True:
        b = os.read(fd, 1)
        if not b or b == b"\n":
            return out.decode()
        out += b


def non_dumpable():
    """Make this process's /proc entries (fds, memory) unreachable from its children."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except Exception:  # noqa: BLE001 - best effort on odd libcs
        pass


# ---------------------------------------------------------------------------- encoding
def encode(value, depth=0):
    """JSON form of a returned value; anything not plain data becomes a tagged repr.

    Exact type checks (not isinstance) so an object whose class overrides ``__eq__`` is
    reported as what it is, never as the plain value it imitates (the always-equal exploit).
    """
    t = type(value)
    if value is None or t is bool or t is str:
        return value
    if t is int:
        return value if abs(value) < 1 << 53 else {"__int__": str(value)}
    if t is float:
        if value != value:
            return {"__float__": "nan"}
        if value in (float("inf"), float("-inf")):
            return {"__float__": "inf" if value > 0 else "-inf"}
        return value
    if depth > 50:
        return {"__repr__": "<too deep>", "__type__": t.__name__}
    if t is list or t is tuple:
        return [encode(v, depth + 1) for v in value]
    if t is dict:
        if all(type(k) is str for k in value):
            return {"__dict__": {k: encode(v, depth + 1) for k, v in value.items()}}
        return {"__dict_items__": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if t is set or t is frozenset:
        try:
            items = sorted(value)
        except TypeError:
            items = list(value)
        return {"__set__": [encode(v, depth + 1) for v in items]}
    try:
        text = object.__repr__(value) if t.__repr__ is object.__repr__ else repr(value)
    except Exception:  # noqa: BLE001
        text = "<unrepresentable>"
    return {"__repr__": text[:300], "__type__": t.__name__}


# ---------------------------------------------------------------------------- tracing
class LineTracer:
    """Records which lines of the attempt run (for spectrum-based fault localisation)."""

    def __init__(self):
        self.lines = set()
        self.events = 0

    def global_trace(self, frame, event, arg):
        if frame.f_code.co_filename != SOLUTION_NAME or self.events > MAX_LINE_EVENTS:
            return None
        self.lines.add(frame.f_lineno)
        return self.local_trace

    def local_trace(self, frame, event, arg):
        if event == "line":
            self.events += 1
            if self.events > MAX_LINE_EVENTS:
                return None
            self.lines.add(frame.f_lineno)
        return self.local_trace

    def take(self):
        lines, self.lines, self.events = sorted(self.lines), set(), 0
        return lines


def short_trace(exc):
    """The traceback of an attempt's exception, cut to the attempt's own frames."""
    tb = traceback.TracebackException.from_exception(exc)
    tb.stack = traceback.StackSummary.from_list([f for f in tb.stack if f.filename == SOLUTION_NAME])
    text = "".join(tb.format())
    return text[-2000:]


# ---------------------------------------------------------------------------- worker
def worker(spec, start, wfd):
    """Run tests ``start..`` of a Python attempt in this process, one message per test."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    sys.stdin = io.TextIOWrapper(io.BytesIO(b""))

    def send(msg):
        data = (json.dumps(msg) + "\n").encode()
        os.write(wfd, data)

    out_fd = os.memfd_create("out")
    tracer = LineTracer() if spec.get("trace") else None
    source = spec["code"]
    try:
        code = compile(source, SOLUTION_NAME, "exec")
    except SyntaxError as exc:
        send(
            {
                "load_error": "SyntaxError",
                "line": exc.lineno or 0,
                "trace": "".join(traceback.format_exception_only(exc)),
            }
        )
        return
    kind = spec["kind"]
    namespace = {"__name__": "__main__" if kind == "stdio" else "solution"}
    load_lines = []
    if kind == "function":
        capture = io.StringIO()
        sys.stdout = sys.stderr = capture
        if tracer:
            sys.settrace(tracer.global_trace)
        try:
            exec(code, namespace)
        except BaseException as exc:  # noqa: BLE001 - the attempt's failure, reported
            sys.settrace(None)
            send({"load_error": type(exc).__name__, "line": _line_of(exc), "trace": short_trace(exc)})
            return
        sys.settrace(None)
        load_lines = tracer.take() if tracer else []
        if spec.get("test_code"):
            entry = spec.get("entry_point")
            try:
                exec(compile(spec["test_code"], "<tests>", "exec"), namespace)
            except BaseException as exc:  # noqa: BLE001
                send({"load_error": "TestSetupError", "line": 0, "trace": short_trace(exc)})
                return
        else:
            entry = spec["entry_point"]
        fn = namespace.get(entry)
        if not callable(fn):
            send({"load_error": "NameError", "line": 0, "trace": f"the attempt defines no function {entry!r}"})
            return
    send({"loaded": True, "load_lines": load_lines})
    tests = spec["tests"]
    for i in range(start, len(tests)):
        test = tests[i]
        msg = {"i": i}
        capture = io.StringIO()
        if kind == "stdio":
            data = test["input"].encode()
            in_fd = os.memfd_create("in")
            os.write(in_fd, data)
            os.lseek(in_fd, 0, 0)
            if in_fd != 0:  # fd 0 may be free if the attempt closed it (open(0) closes on GC)
                os.dup2(in_fd, 0)
                os.close(in_fd)
            os.ftruncate(out_fd, 0)
            os.lseek(out_fd, 0, 0)
            os.dup2(out_fd, 1)
            sys.stdin = io.TextIOWrapper(open(0, "rb", closefd=False))
            sys.stdout = io.TextIOWrapper(open(1, "wb", closefd=False), write_through=True)
            sys.stderr = capture
            ns = {"__name__": "__main__", "__builtins__": __builtins__}
        else:
            sys.stdout = sys.stderr = capture
        if tracer:
            sys.settrace(tracer.global_trace)
        try:
            if kind == "stdio":
                try:
                    exec(code, ns)
                except SystemExit as exc:
                    if exc.code not in (None, 0):
                        raise
                msg["status"] = "ran"
            elif spec.get("test_code"):
                namespace["check"](namespace[spec["entry_point"]])
                msg["status"] = "pass"
            else:
                result = fn(*json.loads(json.dumps(test["args"])))
                msg["status"] = "ran"
                msg["got"] = encode(result)
        except AssertionError as exc:
            sys.settrace(None)
            # a failed assert of the tests is a wrong answer; one of the attempt's own is an error
            msg["status"] = "fail" if spec.get("test_code") else "error"
            msg["error"] = "AssertionError"
            msg["trace"] = short_trace(exc)
            msg["line"] = _line_of(exc)
        except BaseException as exc:  # noqa: BLE001 - the attempt's error, reported
            sys.settrace(None)
            msg["status"] = "error"
            msg["error"] = type(exc).__name__
            msg["trace"] = short_trace(exc)
            msg["line"] = _line_of(exc)
        sys.settrace(None)
        if tracer:
            msg["lines"] = tracer.take()
        if kind == "stdio":
            try:
                sys.stdout.flush()
            except Exception:  # noqa: BLE001
                pass
            os.lseek(out_fd, 0, 0)
            msg["got"] = os.read(out_fd, MAX_OUT).decode("utf-8", "replace")
        msg["stderr"] = capture.getvalue()[-1000:]
        send(msg)


def bench_worker(code_text, entry, tests, cmd_fd, wfd):
    """Serve timing commands for one code: ``p i`` prepares test i's args, ``g`` calls.

    The reply to ``g`` is the sha256 of the result's JSON form; the runner checks it against
    digests it reads only after every worker has started, so a reply cannot be forged before
    the real call has finished.
    """
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    sys.stdout = sys.stderr = io.StringIO()
    import hashlib

    ns = {"__name__": "solution"}
    try:
        exec(compile(code_text, SOLUTION_NAME, "exec"), ns)
        fn = ns[entry]
    except BaseException:  # noqa: BLE001 - reported as a failed measurement
        return
    os.write(wfd, b"ready\n")
    cmds = os.fdopen(cmd_fd, "rb", buffering=0)
    args = None
    while True:
        line = cmds.readline().strip()
        if not line:
            return
        if line.startswith(b"p "):
            args = json.loads(tests[int(line[2:])])
            os.write(wfd, b"ok\n")
        else:
            result = fn(*args)
            digest = hashlib.sha256(json.dumps(encode(result), sort_keys=True).encode()).hexdigest()
            os.write(wfd, (digest + "\n").encode())


def _cpu_clock(pid):
    """Clock id of a process's CPU time (Linux MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED))."""
    return ctypes.c_int32(((~pid) << 3) | 2).value


def _reply(r, timeout):
    buf = b""
    deadline = time.monotonic() + timeout
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([r], [], [], left)[0]:
            return None
        chunk = os.read(r, 4096)
        if not chunk:
            return None
        buf += chunk
    return buf.strip().split(b"\n")[-1].decode("ascii", "replace")


def _switches(pid):
    """The worker's voluntary context switches; None where /proc does not say (no wait then)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"voluntary_ctxt_switches:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _asleep(wk, limit_s=0.05):
    """Wait until the worker, having replied, went to sleep waiting for the next command.

    Read from another process, a process's CPU clock is what the scheduler last accounted
    to it: at a tick (every 4 ms here) or when it leaves the CPU. Read as soon as the reply
    arrives, it can miss the whole call (an expert's 0.1 ms call once measured 0 ns). A new
    voluntary context switch means the worker left the CPU and was accounted in full. (A
    call that itself sleeps switches early; the wait then ends at the first of them.)
    """
    deadline = time.monotonic() + limit_s
    while True:
        n = _switches(wk["pid"])
        if n is None:
            return
        if n > wk["switches"] or time.monotonic() > deadline:
            wk["switches"] = n
            return
        os.sched_yield()


def _settled(workers, tol):
    """True when every live code's two fastest calls on every test agree within ``tol``.

    Contention only adds time, so the minimum is the estimate; when the two smallest
    samples still differ, another round (all codes, interleaved) is likely to lower it.
    """
    for wk in workers:
        if not wk["alive"]:
            continue
        for ns in wk["ns"]:
            if len(ns) >= 2:
                a, b = sorted(ns)[:2]
                if a <= 0 or (b - a) / a > tol:
                    return False
    return True


# A short call right after another worker's long one pays for the caches that call evicted:
# the expert's code on opt-two_sum_exists (~0.1 ms a call, after the baseline's ~30 ms) cost
# 10-16% more than the same code timed after a short call, every time. Calls shorter than
# this (and every code's first) are made once untimed just before the timed one.
WARM_BELOW_NS = 2_000_000


def run_bench(bench, meta):
    """CPU cost of each code on each test, measured from outside the code's process.

    Every code loads in its own worker first (``replicas`` workers per code: a process's
    memory layout can make all of its calls a few percent slower, so samples of several
    processes are pooled); the expected digests are read from stdin only then. Calls are
    interleaved (repeat -> test -> worker, the workers' order rotated each repeat) so that
    drift of the machine and the previous call's traces in the caches hit every code alike.
    A call's cost is the worker process's CPU clock difference around it, read by the
    runner, never reported by the worker.
    """
    tests = [json.dumps(a) for a in bench["tests"]]
    timeout = float(bench.get("timeout", 30))
    codes = bench["codes"]
    workers = []
    for code_index in [c for _ in range(int(bench.get("replicas", 1))) for c in range(len(codes))]:
        code_text = codes[code_index]
        r, w = os.pipe()
        cr, cw = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            os.close(cw)
            os.setsid()
            try:
                bench_worker(code_text, bench["entry_point"], tests, cr, w)
            finally:
                os._exit(0)
        os.close(w)
        os.close(cr)
        ok = _reply(r, float(bench.get("load_timeout", 10))) == "ready"
        workers.append(
            {
                "code": code_index,
                "pid": pid,
                "r": r,
                "cw": cw,
                "alive": ok,
                "switches": -1,
                "ns": [[] for _ in tests],
                "wall": [[] for _ in tests],
            }
        )
    digests = read_line(0).split()
    repeats = int(bench["repeats"])
    max_repeats = int(bench.get("max_repeats", repeats))
    rounds = 0
    while rounds < repeats or (rounds < max_repeats and not _settled(workers, float(bench.get("settle", 0.01)))):
        rounds += 1
        turn = rounds % len(workers)  # each round starts at the next worker: no code always follows the same one
        for i in range(len(tests)):
            for wk in workers[turn:] + workers[:turn]:
                if not wk["alive"]:
                    continue
                os.write(wk["cw"], f"p {i}\n".encode())
                if _reply(wk["r"], timeout) != "ok":
                    wk["alive"] = False
                    continue
                if not wk["ns"][i] or min(wk["ns"][i]) < WARM_BELOW_NS:
                    os.write(wk["cw"], b"g\n")  # an untimed call first: see WARM_BELOW_NS
                    if _reply(wk["r"], timeout) is None:
                        wk["alive"] = False
                        continue
                clk = _cpu_clock(wk["pid"])
                _asleep(wk)
                c0, w0 = time.clock_gettime_ns(clk), time.monotonic_ns()
                os.write(wk["cw"], b"g\n")
                got = _reply(wk["r"], timeout)
                w1 = time.monotonic_ns()
                _asleep(wk)
                c1 = time.clock_gettime_ns(clk)
                if got is None or got != digests[i]:
                    wk["alive"] = False
                    meta.setdefault("bench_wrong", []).append(wk["code"])
                    continue
                wk["ns"][i].append(c1 - c0)
                wk["wall"][i].append(w1 - w0)
    for wk in workers:
        _kill(wk["pid"])
        os.close(wk["r"])
        os.close(wk["cw"])
    for key, out in (("ns", "costs"), ("wall", "walls")):
        meta[out] = []
        for c in range(len(codes)):
            mine = [wk for wk in workers if wk["code"] == c]
            alive = all(wk["alive"] for wk in mine)
            meta[out].append([sum((wk[key][i] for wk in mine), []) for i in range(len(tests))] if alive else None)


def _line_of(exc):
    tb = exc.__traceback__
    line = getattr(exc, "lineno", None) if isinstance(exc, SyntaxError) else None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == SOLUTION_NAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line or 0


# ---------------------------------------------------------------------------- runner
def run_python(spec, results, meta):
    """Fork workers until every test has a result; enforce timeouts on our own clock."""
    tests, timeout = spec["tests"], float(spec["timeout"])
    i = 0
    while i < len(tests):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # worker
            os.close(r)
            os.setsid()
            try:
                worker(spec, i, w)
            finally:
                os._exit(0)
        os.close(w)
        buf = b""
        loaded = False
        deadline = time.monotonic() + timeout + float(spec.get("load_timeout", 5.0))
        ended = None
        while ended is None:
            left = deadline - time.monotonic()
            ready = select.select([r], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                ended = "timeout"
                break
            chunk = os.read(r, 1 << 20)
            if not chunk:
                ended = "exit"
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    meta["garbled"] = True
                    continue
                if "load_error" in msg:
                    meta["load_error"] = msg
                    for j in range(i, len(tests)):
                        results[j] = {"status": "error", "error": msg["load_error"], "trace": msg.get("trace", "")}
                    i = len(tests)
                    ended = "load_error"
                    break
                if msg.get("loaded"):
                    loaded = True
                    meta.setdefault("load_lines", msg.get("load_lines", []))
                    deadline = time.monotonic() + timeout
                    continue
                if msg.get("i") != i or not loaded:
                    meta["out_of_order"] = True  # the attempt wrote to the pipe itself
                    continue
                results[i] = msg
                i += 1
                deadline = time.monotonic() + timeout
                if i >= len(tests):
                    ended = "done"
                    break
        status = _reap(pid) if ended == "exit" else None
        _kill(pid)
        os.close(r)
        if ended in ("timeout", "exit") and i < len(tests):
            if ended == "timeout":
                results[i] = {"status": "timeout", "trace": f"test took longer than {timeout:g}s"}
            elif status is not None and os.WIFSIGNALED(status):
                # killed by a signal: a crash (segfault) or the memory limit (OOM kill)
                sig = os.WTERMSIG(status)
                results[i] = {
                    "status": "error",
                    "error": "Crash",
                    "trace": f"the process was killed by signal {sig} (memory limit or crash)",
                }
            else:
                # it exited on its own (os._exit, sys.exit from a thread) or shut its result pipe
                results[i] = {
                    "status": "error",
                    "error": "WorkerExit",
                    "trace": "the process exited before the test finished (os._exit or a closed harness pipe)",
                }
                meta["harness_exit"] = True
            i += 1


def _reap(pid, wait=0.5):
    """Exit status of a worker that closed its pipe, or None if it is still running."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if done:
            return status
        time.sleep(0.005)
    return None


def _kill(pid):
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def run_program(spec, results, meta):
    """Build once, then run the program per test as a child of the runner."""
    timeout = float(spec["timeout"])
    if spec.get("build"):
        try:
            b = subprocess.run(
                spec["build"],
                capture_output=True,
                timeout=float(spec.get("build_timeout", 60)),
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            meta["load_error"] = {"load_error": "CompileTimeout", "line": 0, "trace": "compilation timed out"}
        else:
            if b.returncode != 0:
                text = (b.stderr + b.stdout).decode("utf-8", "replace")[-4000:]
                meta["load_error"] = {"load_error": "CompileError", "line": 0, "trace": text}
        if "load_error" in meta:
            for j in range(len(spec["tests"])):
                results[j] = {
                    "status": "error",
                    "error": meta["load_error"]["load_error"],
                    "trace": meta["load_error"]["trace"],
                }
            return
    for i, test in enumerate(spec["tests"]):
        try:
            p = subprocess.run(
                spec["run"], input=test["input"].encode(), capture_output=True, timeout=timeout, start_new_session=True
            )
        except subprocess.TimeoutExpired:
            results[i] = {"status": "timeout", "trace": f"test took longer than {timeout:g}s"}
            continue
        msg = {
            "i": i,
            "got": p.stdout[:MAX_OUT].decode("utf-8", "replace"),
            "stderr": p.stderr[-1000:].decode("utf-8", "replace"),
        }
        if p.returncode != 0:
            msg.update(status="error", error=f"exit code {p.returncode}", trace=msg["stderr"])
        else:
            msg["status"] = "ran"
        results[i] = msg


def main():
    n = int(read_line(0))
    spec = json.loads(read_exact(0, n).decode())
    non_dumpable()
    results = [None] * len(spec["tests"])
    meta = {}
    if spec.get("bench"):
        run_bench(spec["bench"], meta)
    elif spec.get("run"):
        run_program(spec, results, meta)
    else:
        run_python(spec, results, meta)
    nonce = read_line(0)  # read only now: no attempt code is running any more
    payload = json.dumps({"results": results, "meta": meta})
    sys.stdout.write(f"\n{nonce} {payload} {nonce}\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
