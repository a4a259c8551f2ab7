r"""Test runner copied into the sandbox: runs every test of one attempt in one sandboxed run.

This file is a standalone script (standard library only); the host writes it into the
sandbox as ``.cg_runner.py`` and starts it once per attempt:

    python3 -I .cg_runner.py      (stdin: "<spec length> <secret length>\\n<spec JSON><secret>")

The *secret* is bytes no process the attempt controls may ever read: the 32-byte nonce that
frames the report, and in a timing run the references' code and the timed calls' arguments.

Trust layout (why it is built this way):

* The runner reads ALL of stdin, up to end of file, before it forks anything: the secret
  straight into one preallocated ``bytearray`` (``os.readv``; no other Python copy of it
  exists). The stdin pipe is reachable by the attempt (its ancestors hold it as fd 0: the
  docker backend's wrapper shell, bwrap's pid 1, readable through ``/proc/<pid>/fd/0`` or
  ``pidfd_getfd``), so it must be empty by the time attempt code runs. Every forked child
  zeroes the secret (its memory is a copy of the runner's) before it loads any code, and
  the runner itself is made non-dumpable first, so no child can open its ``/proc`` entries
  (its fds, its memory).
* The runner process itself never executes the attempt. It forks one *worker* that loads
  the attempt once and runs the tests one after another in that process, reporting each
  result on a private pipe. The runner enforces the per-test timeout on its own monotonic
  clock (so an attempt that patches ``time`` cannot stretch it); when a worker hangs or dies
  the runner records that test as ``timeout`` / ``error`` and forks a fresh worker for the
  remaining tests. Compiled languages (C++, Rust) and JavaScript are built once and their
  program runs per test as a child of the runner.
* Expected outputs of bundled tasks never enter the sandbox: the worker reports what the
  attempt returned or printed (``got``) and the host compares. Only HumanEval-style
  ``test_code`` (asserts) is judged inside; there ``check()`` gets a wrapper of the
  attempt's function that turns each return value into plain data (exact builtin types,
  rebuilt; anything else becomes a value that equals nothing and is not true or false),
  so no object of the attempt's ever reaches ``==``, ``bool()`` or arithmetic in the tests.
* Before it reports, the runner kills every process left in the sandbox but itself and its
  ancestors (daemons the attempt left could otherwise read the report out of the stdout
  pipe and learn the nonce). The result is written once, on the runner's own stdout,
  framed by the nonce; the host accepts exactly one frame and flags any other output on
  that stdout (only someone writing into the harness's pipe can put it there).
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
TESTS_NAME = "<tests>"
PRELUDE_NAME = "<prompt>"
MAX_OUT = 1 << 20  # bytes of a test's stdout kept
MAX_LINE_EVENTS = 300_000  # line-trace events per test before tracing stops (keeps it cheap)


def read_exact(fd, n):
    """Read exactly ``n`` bytes from ``fd`` without buffering past them (the secret follows)."""
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


NONCE_BYTES = 32  # the secret starts with the nonce
#: The bytes no process the attempt controls may read (see the module doc). Filled in place by
#: ``read_input``; every forked child zeroes it before it loads any code.
SECRET = bytearray()


def read_input(fd=0):
    """Read stdin to its end before anything is forked: the spec (parsed) and the secret.

    The secret goes straight into ``SECRET`` with ``os.readv``: no other Python object ever
    holds a copy of it. Whatever follows it is read and dropped, so the pipe is empty (end of
    file) by the time any attempt code runs.
    """
    spec_len, secret_len = (int(x) for x in read_line(fd).split())
    spec = json.loads(read_exact(fd, spec_len).decode())
    SECRET[:] = bytes(secret_len)
    view = memoryview(SECRET)
    got = 0
    while got < secret_len:
        n = os.readv(fd, [view[got:]])
        if n == 0:
            break
        got += n
    view.release()
    while os.read(fd, 1 << 16):
        pass
    if got < secret_len:
        raise SystemExit(f"stdin ended {secret_len - got} bytes into the secret")
    return spec


def wipe_secret():
    """Zero this process's copy of the secret (call first thing in every forked child)."""
    memoryview(SECRET)[:] = bytes(len(SECRET))


def _stat(pid):
    """(state, parent pid) of a process from /proc, or None when it is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2 :].split()
    return fields[0], int(fields[1])


def kill_strays(max_rounds=200):
    """SIGKILL every process in the sandbox but this one and its ancestors, until none is left.

    Run before the report is written: a process the attempt left behind (a daemon in a
    session of its own) could otherwise read the report out of the stdout pipe, which its
    ancestors hold, and so learn the nonce.
    """
    keep, pid = {1, os.getpid()}, os.getpid()
    while pid > 1:
        st = _stat(pid)
        if st is None:
            break
        pid = st[1]
        keep.add(pid)
    for _ in range(max_rounds):
        hit = False
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) in keep:
                continue
            st = _stat(name)
            if st is None or st[0] in (b"Z", b"X"):
                continue
            try:
                os.kill(int(name), signal.SIGKILL)
                hit = True
            except OSError:  # gone, or not ours to signal
                pass
        while True:  # reap our own
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        if not hit:
            return
        time.sleep(0.001)


def report(results, meta):
    """Write the one framed report on stdout, once every other process is gone."""
    kill_strays()
    nonce = bytes(SECRET[:NONCE_BYTES])
    payload = json.dumps({"results": results, "meta": meta}).encode()
    view = memoryview(b"\n" + nonce + b" " + payload + b" " + nonce + b"\n")
    while view:
        view = view[os.write(1, view) :]


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


class NotPlain:
    """What a returned value that is not plain data becomes inside ``check()``.

    It equals nothing (and is unequal to everything), and it is neither true nor false:
    ``bool()`` of it raises, as does arithmetic or ordering with it.
    """

    __slots__ = ("what",)

    def __init__(self, what):
        self.what = what

    def __eq__(self, other):
        return False

    def __ne__(self, other):
        return True

    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError(f"the function returned a {self.what}, not plain data")

    def __repr__(self):
        return f"<not plain data: {self.what}>"


def plain_candidate(
    fn,
    notes,
    _type=type,
    _list=list,
    _tuple=tuple,
    _dict=dict,
    _set=set,
    _frozenset=frozenset,
    _scalars=(type(None), bool, int, float, complex, str, bytes),  # noqa: B008 - bound once, on purpose
    _not_plain=NotPlain,
):
    """``fn`` as ``check()`` gets it: each return value rebuilt as plain data.

    Exact builtin types only (``type(v) is int``, never isinstance), containers rebuilt
    recursively; anything else (a class of the attempt's, a subclass of ``str`` or ``int``,
    a generator) becomes a :class:`NotPlain`, and its type name goes to ``notes``. So the
    test code's ``==``, ``bool()`` and arithmetic only ever see builtins' own methods. The
    builtins (and :class:`NotPlain`) are bound as defaults, at the runner's import, before
    any attempt code runs: rebinding names in ``builtins`` or in this module changes nothing.
    """

    def to_plain(value, depth):
        t = _type(value)
        for s in _scalars:
            if t is s:
                return value
        if depth > 100:
            notes.append("too deeply nested value")
            return _not_plain("too deeply nested value")
        if t is _list:
            return [to_plain(v, depth + 1) for v in value]
        if t is _tuple:
            return _tuple([to_plain(v, depth + 1) for v in value])
        if t is _dict:
            return {to_plain(k, depth + 1): to_plain(v, depth + 1) for k, v in _dict.items(value)}
        if t is _set or t is _frozenset:
            return t([to_plain(v, depth + 1) for v in value])
        try:
            what = _type.__dict__["__name__"].__get__(t)
        except Exception:  # noqa: BLE001
            what = "object"
        notes.append(what)
        return _not_plain(what)

    def candidate(*args, **kwargs):
        return to_plain(fn(*args, **kwargs), 0)

    return candidate


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


def failed_assertion(exc, test_code):
    """The assert of the tests (``check``) that failed, as written, for the feedback.

    HumanEval's ``check(candidate)`` holds no expected values apart from its asserts, so the
    failing assert's own text is what tells the model what went wrong.
    """
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames or frames[-1].filename != TESTS_NAME:
        return ""  # an assert of the attempt's own: its traceback says more
    frame = frames[-1]
    lines = test_code.splitlines()
    end = max(frame.lineno or 0, getattr(frame, "end_lineno", None) or 0)
    text = "\n".join(lines[(frame.lineno or 1) - 1 : end]).strip()[:1000]
    note = str(exc).strip()[:300]
    return f"failed assertion (line {frame.lineno} of the tests): {text}" + (
        f"\n{note}" if note and note not in text else ""
    )


# ---------------------------------------------------------------------------- worker
def worker(spec, start, wfd):
    """Run tests ``start..`` of a Python attempt in this process, one message per test."""
    wipe_secret()
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
        if spec.get("prelude"):
            # HumanEval runs prompt + completion: the prompt's imports and helpers come first.
            try:
                exec(compile(spec["prelude"], PRELUDE_NAME, "exec"), namespace)
            except BaseException as exc:  # noqa: BLE001 - the task's own code: a setup error
                send({"load_error": "TestSetupError", "line": 0, "trace": f"{type(exc).__name__}: {exc}"[:500]})
                return
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
                exec(compile(spec["test_code"], TESTS_NAME, "exec"), namespace)
            except BaseException as exc:  # noqa: BLE001
                send({"load_error": "TestSetupError", "line": 0, "trace": short_trace(exc)})
                return
        else:
            entry = spec["entry_point"]
        fn = namespace.get(entry)
        if not callable(fn):
            send({"load_error": "NameError", "line": 0, "trace": f"the attempt defines no function {entry!r}"})
            return
        notes = []
        candidate = plain_candidate(fn, notes)
        check = namespace.get("check") if spec.get("test_code") else None
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
                del notes[:]
                check(candidate)
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
            if spec.get("test_code"):
                msg["trace"] = failed_assertion(exc, spec["test_code"]) or msg["trace"]
            msg["line"] = _line_of(exc)
        except BaseException as exc:  # noqa: BLE001 - the attempt's error, reported
            sys.settrace(None)
            msg["status"] = "error"
            msg["error"] = type(exc).__name__
            msg["trace"] = short_trace(exc)
            msg["line"] = _line_of(exc)
        sys.settrace(None)
        if kind == "function" and spec.get("test_code") and notes:
            msg["not_plain"] = sorted(set(notes))[:10]
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


def bench_worker(code_text, entry, cmd_fd, wfd):
    """Serve timing calls for one code: each command carries the call's arguments.

    A command is ``c`` and the arguments' JSON length in ten digits and a newline, then that
    JSON; the worker parses it, calls, and replies with the sha256 of the result's JSON form.
    The arguments reach the worker only inside the timed window, so nothing it runs can work
    on them (or look them up in a cache) before the clock starts.
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
    del code_text
    os.write(wfd, b"ready\n")
    while True:
        head = read_exact(cmd_fd, 12)
        if len(head) < 12 or head[:1] != b"c":
            return
        args = json.loads(read_exact(cmd_fd, int(head[1:11])))
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


def _send(fd, chunks, timeout):
    """Write ``chunks`` to a non-blocking pipe within ``timeout``; False if the reader stalls."""
    deadline = time.monotonic() + timeout
    chunks = [memoryview(c) for c in chunks if len(c)]
    while chunks:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([], [fd], [], left)[1]:
            return False
        try:
            n = os.writev(fd, chunks)
        except BlockingIOError:
            continue
        except OSError:
            return False
        while n and chunks:
            k = min(n, len(chunks[0]))
            n -= k
            chunks[0] = chunks[0][k:]
            if not len(chunks[0]):
                chunks.pop(0)
    return True


def run_bench(bench, meta):
    """CPU cost of each code on each test, measured from outside the code's process.

    Everything a code must not see lives in ``SECRET`` after the nonce: the codes (each
    ``code_bytes`` long), then per test the arguments of its calls (``variant_bytes``: a
    warm-up call's first, empty for none, then one per timed call). Each worker copies out its
    own code and zeroes the rest before loading it, so an attempt never holds the references'
    code, nor any call's arguments before that call is timed.

    Every code loads in its own worker first (``replicas`` workers per code: a process's
    memory layout can make all of its calls a few percent slower, so samples of several
    processes are pooled). Calls are interleaved (repeat -> test -> worker, the workers'
    order rotated each repeat) so that drift of the machine and the previous call's traces in
    the caches hit every code alike. Round ``k``'s call by replica ``j`` of every code gets
    timed arguments number ``1 + k * replicas + j``: no two timed calls of one code share
    arguments, so a cache of earlier results (in memory, in a file, in another replica)
    never answers a timed call. A call's cost is the worker process's CPU clock difference
    around it, read by the runner, never reported by the worker; the clock starts before the
    arguments are sent. Each code's result digests are checked at the end against those of
    the reference code (``reference``, the expert) on the same arguments.
    """
    timeout = float(bench.get("timeout", 30))
    view = memoryview(SECRET)
    pos = NONCE_BYTES
    code_at = []
    for n in bench["code_bytes"]:
        code_at.append((pos, pos + n))
        pos += n
    calls = []  # per test: [(start, end) of the warm-up's args (maybe empty), then each timed call's]
    for lengths in bench["variant_bytes"]:
        calls.append([])
        for n in lengths:
            calls[-1].append((pos, pos + n))
            pos += n
    replicas = int(bench.get("replicas", 1))
    n_codes = len(code_at)
    workers = []
    inherited = []  # fds of earlier workers: a later child must not hold them
    for replica in range(replicas):
        for code_index in range(n_codes):
            r, w = os.pipe()
            cr, cw = os.pipe()
            pid = os.fork()
            if pid == 0:
                try:
                    for fd in [r, cw, *inherited]:
                        os.close(fd)
                    os.setsid()
                    a, b = code_at[code_index]
                    code_text = bytes(view[a:b]).decode()
                    view.release()
                    wipe_secret()
                    bench_worker(code_text, bench["entry_point"], cr, w)
                finally:
                    os._exit(0)
            os.close(w)
            os.close(cr)
            os.set_blocking(cw, False)
            inherited += [r, cw]
            ok = _reply(r, float(bench.get("load_timeout", 10))) == "ready"
            workers.append(
                {
                    "code": code_index,
                    "replica": replica,
                    "pid": pid,
                    "r": r,
                    "cw": cw,
                    "alive": ok,
                    "switches": -1,
                    "ns": [[] for _ in calls],
                    "wall": [[] for _ in calls],
                    "digests": [{} for _ in calls],  # test -> {call number: digest}
                    "last": [None for _ in calls],  # test -> the args of its previous timed call
                }
            )

    def call(wk, span):
        a, b = span
        return _send(wk["cw"], [b"c%010d\n" % (b - a), view[a:b]], timeout) and _reply(wk["r"], timeout)

    repeats = int(bench["repeats"])
    max_repeats = int(bench.get("max_repeats", repeats))
    max_repeats = min([max_repeats] + [(len(c) - 1) // replicas for c in calls])  # never reuse arguments
    repeats = min(repeats, max_repeats)
    rounds = 0
    while rounds < repeats or (rounds < max_repeats and not _settled(workers, float(bench.get("settle", 0.01)))):
        turn = rounds % len(workers)  # each round starts at the next worker: no code always follows the same one
        for i in range(len(calls)):
            for wk in workers[turn:] + workers[:turn]:
                if not wk["alive"]:
                    continue
                number = 1 + rounds * replicas + wk["replica"]
                if not wk["ns"][i] or min(wk["ns"][i]) < WARM_BELOW_NS:
                    warm = wk["last"][i] or calls[i][0]  # an untimed call first: see WARM_BELOW_NS
                    if warm[1] > warm[0] and not call(wk, warm):
                        wk["alive"] = False
                        continue
                clk = _cpu_clock(wk["pid"])
                _asleep(wk)
                c0, w0 = time.clock_gettime_ns(clk), time.monotonic_ns()
                got = call(wk, calls[i][number])
                w1 = time.monotonic_ns()
                _asleep(wk)
                c1 = time.clock_gettime_ns(clk)
                if not got:
                    wk["alive"] = False
                    continue
                wk["digests"][i][number] = got
                wk["last"][i] = calls[i][number]
                wk["ns"][i].append(c1 - c0)
                wk["wall"][i].append(w1 - w0)
        rounds += 1
    for wk in workers:
        _kill(wk["pid"])
        os.close(wk["r"])
        os.close(wk["cw"])
    view.release()
    ref = int(bench.get("reference", 1))
    for i in range(len(calls)):
        want = {}
        for wk in workers:
            if wk["code"] == ref:
                want.update(wk["digests"][i])
        for wk in workers:
            if wk["alive"] and any(want.get(n) != d for n, d in wk["digests"][i].items()):
                wk["alive"] = False
                meta.setdefault("bench_wrong", []).append(wk["code"])
    meta["rounds"] = rounds
    for key, out in (("ns", "costs"), ("wall", "walls")):
        meta[out] = []
        for c in range(n_codes):
            mine = [wk for wk in workers if wk["code"] == c]
            alive = all(wk["alive"] for wk in mine)
            meta[out].append([sum((wk[key][i] for wk in mine), []) for i in range(len(calls))] if alive else None)


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
    spec = read_input(0)  # all of stdin, before anything is forked
    non_dumpable()
    results = [None] * len(spec["tests"])
    meta = {}
    if spec.get("bench"):
        run_bench(spec["bench"], meta)
    elif spec.get("run"):
        run_program(spec, results, meta)
    else:
        run_python(spec, results, meta)
    report(results, meta)


if __name__ == "__main__":
    main()
