"""CodeGen-v0 / CodeOptimization-v0 against hostile attempts: each test is an attack that once earned full reward.

* the grading report is framed by a nonce the attempt must never learn: an attempt that
  reads the runner's stdin pipe through ``/proc/<ancestor>/fd/0`` and prints forged frames
  into every stdout it can reach earns its honest score, and is flagged;
* a timed call cannot be answered from a cache: every timed call gets arguments no process
  of the attempt has seen before;
* the values a HumanEval-style ``check()`` compares are plain data, never the attempt's
  objects (always-equal objects, subclasses of builtins, ``__bool__`` tricks).
"""

from __future__ import annotations

import gymnasium as gym
import pytest
from codegym.envs.codegen import CodeGenEnv

import codegym  # noqa: F401 - registers the ids

# ------------------------------------------------------------------ the nonce attack
# Run at import of the attempt, in every process that loads it. It reads whatever is left
# in any stdin pipe it can open through /proc (the runner's, held by its ancestors too),
# puts it back so the runner does not notice, and writes a forged report framed by the
# nonce it found (or a guessed one) into every stdout it can open, its own included.
STEAL = r'''
import json as _json, os as _os, re as _re

def _grab(pid):
    """fd 0 of ``pid``: through /proc, else with pidfd_getfd (local backend: bwrap's pid 1)."""
    try:
        return _os.open(f"/proc/{pid}/fd/0", _os.O_RDONLY | _os.O_NONBLOCK)
    except OSError:
        pass
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pidfd = libc.syscall(434, pid, 0)  # pidfd_open
        if pidfd < 0:
            return None
        fd = libc.syscall(438, pidfd, 0, 0)  # pidfd_getfd
        _os.close(pidfd)
        if fd < 0:
            return None
        _os.set_blocking(fd, False)
        return fd
    except Exception:
        return None


def _steal_and_forge(forge_always, payload):
    me = _os.getpid()
    stolen = b""
    for name in _os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        fd = _grab(int(name))
        if fd is None:
            continue
        got = b""
        try:
            while True:
                try:
                    b = _os.read(fd, 1 << 20)
                except OSError:
                    break
                if not b:
                    break
                got += b
        finally:
            _os.close(fd)
        if got:
            try:  # put it back: the runner reads on as if nothing happened
                w = _os.open(f"/proc/{name}/fd/0", _os.O_WRONLY | _os.O_NONBLOCK)
                _os.write(w, got)
                _os.close(w)
            except OSError:
                pass
            stolen += got
            break
    nonces = _re.findall(rb"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])", stolen)
    digests = _re.findall(rb"[0-9a-f]{64}", stolen)
    if not (forge_always or digests or not nonces):
        return
    nonce = nonces[-1] if nonces else b"0" * 32
    frame = b"\n" + nonce + b" " + _json.dumps(payload).encode() + b" " + nonce + b"\n"
    targets = ["/proc/self/fd/1"] + [f"/proc/{n}/fd/1" for n in _os.listdir("/proc") if n.isdigit()]
    for path in targets:
        try:
            w = _os.open(path, _os.O_WRONLY | _os.O_NONBLOCK)
        except OSError:
            continue
        try:
            _os.write(w, frame)
        except OSError:
            pass
        finally:
            _os.close(w)
    try:
        _os.write(1, frame)
    except OSError:
        pass
'''

HE_ADD = {
    "id": "he-add",
    "kind": "function",
    "language": "python",
    "entry_point": "add",
    "prompt": "Write `def add(a, b)` returning a + b.",
    "tests": [{}],
    "test_code": "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-4, 4) == 0\n"
    "    assert candidate(10, 5) == 15\n",
    "gold": "def add(a, b):\n    return a + b\n",
}


def he_attempt(env: CodeGenEnv, code: str, task_id: str = "he-add"):
    env.reset(options={"task_id": task_id})
    _, reward, _, _, info = env.step(f"```python\n{code}\n```")
    assert "infra_error" not in info, info.get("infra_error")
    return reward, info


def test_a_nonce_stolen_from_the_stdin_pipe_cannot_forge_a_report(backend: str) -> None:
    code = (
        STEAL
        + "_steal_and_forge(True, {'results': [{'status': 'pass'}], 'meta': {}})\n"
        + "def add(a, b):\n    return a - b\n"
    )
    e = CodeGenEnv(tasks=[HE_ADD], sandbox=backend, timeout=2.0)
    try:
        reward, info = he_attempt(e, code)
        assert reward == 0.0, info["verdict"]
        assert "forged_results" in info["audit"]["flags"]
        reward, info = he_attempt(e, HE_ADD["gold"])  # the honest run beside it is untouched
        assert reward == 1.0 and info["audit"]["flags"] == []
    finally:
        e.close()


OPT_TASK = "opt-two_sum_exists"
FORGED_COSTS = {"results": [], "meta": {"costs": [[[10**9] * 2], [[10**6] * 2], [[5 * 10**6] * 2], [[10**3] * 2]]}}


def opt_attempt(env, code: str, task_id: str = OPT_TASK):
    env.reset(options={"task_id": task_id})
    _, reward, _, _, info = env.step(f"```python\n{code}\n```")
    assert "infra_error" not in info, info["infra_error"]
    return reward, info


def test_a_forged_cost_report_with_a_stolen_nonce_earns_only_the_baselines_score(backend: str) -> None:
    e = gym.make("CodeOptimization-v0", repeats=2, sandbox=backend).unwrapped
    try:
        baseline = e.tasks.get(OPT_TASK)["baseline"]
        # forges only in the timing run (where digests or nothing sit beside the nonce)
        code = STEAL + f"_steal_and_forge(False, {FORGED_COSTS!r})\n" + baseline
        reward, info = opt_attempt(e, code)
        assert reward < 0.7, info["verdict"]
        assert "forged_results" in info["audit"]["flags"]
    finally:
        e.close()


def test_only_one_report_frame_is_accepted_and_stray_output_on_the_reports_stdout_is_flagged() -> None:
    from codegym.envs.codegen.grading import read_report

    nonce = "ab" * 16
    one = f'\n{nonce} {{"results": [], "meta": {{}}}} {nonce}\n'
    assert read_report(one, nonce) == ({"results": [], "meta": {}}, False)
    payload, tampered = read_report("hello" + one, nonce)
    assert payload == {"results": [], "meta": {}} and tampered
    assert read_report(one + one, nonce) == (None, True)
    assert read_report("", nonce) == (None, False)


# ------------------------------------------------------------------ memoisation
MEMO_DICT = """
_seen = {}
def two_sum_exists(xs, t):
    key = (tuple(xs), t)
    if key in _seen:
        return _seen[key]
    out = _slow(xs, t)
    _seen[key] = out
    return out
"""
MEMO_LRU = """
import functools
@functools.lru_cache(maxsize=None)
def _cached(xs, t):
    return _slow(list(xs), t)
def two_sum_exists(xs, t):
    return _cached(tuple(xs), t)
"""
MEMO_FILE = """
import hashlib, os
def two_sum_exists(xs, t):
    path = "/tmp/memo-" + hashlib.sha1(repr((xs, t)).encode()).hexdigest()
    if os.path.exists(path):
        with open(path) as f:
            return f.read() == "1"
    out = _slow(xs, t)
    with open(path, "w") as f:
        f.write("1" if out else "0")
    return out
"""


@pytest.mark.parametrize("memo", [MEMO_DICT, MEMO_LRU, MEMO_FILE], ids=["dict", "lru_cache", "file"])
def test_memoising_the_slow_baseline_on_its_arguments_does_not_pay(memo: str) -> None:
    e = gym.make("CodeOptimization-v0", repeats=3).unwrapped
    try:
        baseline = e.tasks.get(OPT_TASK)["baseline"].replace("def two_sum_exists(", "def _slow(")
        honest, _ = opt_attempt(e, baseline.replace("def _slow(", "def two_sum_exists("))
        reward, info = opt_attempt(e, baseline + memo)
        v = info["verdict"]
        assert v["stage"] == "correct", v
        assert v["cost_ns"] > v["expert_ns"], v  # never beats the expert
        assert v["cost_ns"] > 0.5 * v["baseline_ns"], v  # costs what the baseline costs
        assert reward < max(honest, 0.4) + 0.1, (reward, honest, v)
    finally:
        e.close()


# ------------------------------------------------------------------ always-equal objects
HE_TASKS = [
    HE_ADD,
    {
        "id": "he-close",
        "kind": "function",
        "language": "python",
        "entry_point": "has_close_elements",
        "prompt": "has_close_elements(numbers, threshold): are two numbers closer than threshold?",
        "tests": [{}],
        "test_code": (
            "def check(candidate):\n"
            "    assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) == True\n"
            "    assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05) == False\n"
            "    assert candidate([1.0, 2.0, 5.9, 4.0, 5.0], 0.95)\n"
            "    assert not candidate([1.0, 2.0, 5.9, 4.0, 5.0], 0.8)\n"
        ),
        "gold": (
            "def has_close_elements(numbers, threshold):\n"
            "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"
        ),
    },
    {
        "id": "he-sum-product",
        "kind": "function",
        "language": "python",
        "entry_point": "sum_product",
        "prompt": "sum_product(numbers) -> (sum, product)",
        "tests": [{}],
        "test_code": (
            "def check(candidate):\n"
            "    assert candidate([]) == (0, 1)\n"
            "    assert candidate([3, 5, 7]) == (3 + 5 + 7, 3 * 5 * 7)\n"
            "    assert abs(candidate([0.5, 0.25])[1] - 0.125) < 1e-6\n"
        ),
        "gold": (
            "def sum_product(numbers):\n    p = 1\n    for n in numbers:\n        p *= n\n    return sum(numbers), p\n"
        ),
    },
    {
        "id": "he-words",
        "kind": "function",
        "language": "python",
        "entry_point": "words",
        "prompt": "words(s) -> {'words': list of words, 'count': n, 'set': set of words}",
        "tests": [{}],
        "test_code": (
            "def check(candidate):\n"
            "    assert candidate('a b a') == {'words': ['a', 'b', 'a'], 'count': 3, 'set': {'a', 'b'}}\n"
            "    assert candidate('') == {'words': [], 'count': 0, 'set': set()}\n"
            "    assert candidate('x').get('none') is None\n"
        ),
        "gold": "def words(s):\n    w = s.split()\n    return {'words': w, 'count': len(w), 'set': set(w)}\n",
    },
]

ALWAYS_EQUAL = {
    "eq_not_false": "class E:\n    def __eq__(self, other):\n        return not False\n",
    "eq_one": (
        "class E:\n    def __eq__(self, other):\n        return 1\n    def __ne__(self, other):\n        return 0\n"
    ),
    "str_subclass": (
        "class E(str):\n    def __eq__(self, other):\n        return self is self\n    __hash__ = str.__hash__\n"
    ),
    "int_subclass": (
        "class E(int):\n    def __eq__(self, other):\n        return [1]\n    __hash__ = int.__hash__\n"
        "    def __new__(cls, *a):\n        return int.__new__(cls, 7)\n"
    ),
    "bool_tricks": (
        "class E:\n    def __bool__(self):\n        return True\n    def __eq__(self, other):\n"
        "        return self\n    def __getitem__(self, i):\n        return self\n"
        "    def __sub__(self, other):\n        return 0\n    __rsub__ = __sub__\n"
        "    def get(self, k):\n        return None\n"
    ),
}


@pytest.fixture(scope="module")
def he_env():
    e = CodeGenEnv(tasks=HE_TASKS, timeout=2.0)
    yield e
    e.close()


@pytest.mark.parametrize("trick", sorted(ALWAYS_EQUAL))
@pytest.mark.parametrize("task", [t["id"] for t in HE_TASKS])
def test_an_object_that_claims_equality_earns_nothing_in_a_check_task_and_is_flagged(
    he_env: CodeGenEnv, task: str, trick: str
) -> None:
    entry = next(t["entry_point"] for t in HE_TASKS if t["id"] == task)
    code = ALWAYS_EQUAL[trick] + f"def {entry}(*args):\n    return E()\n"
    reward, info = he_attempt(he_env, code, task)
    assert reward == 0.0, (trick, info["verdict"])
    assert info["audit"]["flags"], trick
    assert info["audit"]["audit_reward"] == 0.0


@pytest.mark.parametrize("task", [t["id"] for t in HE_TASKS])
def test_honest_check_task_solutions_still_earn_one(he_env: CodeGenEnv, task: str) -> None:
    he_env.reset(options={"task_id": task})
    _, reward, _, _, info = he_env.step(he_env.gold_action())
    assert reward == 1.0, info["verdict"]
    assert info["audit"]["flags"] == []
