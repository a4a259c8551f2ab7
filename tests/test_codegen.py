"""CodeGen-v0: grading, reward modes, multi-turn repair, token rewards, generator, helpers."""

from __future__ import annotations

import pickle

import gymnasium as gym
import pytest
from codegym.envs.codegen import CodeGenEnv, generate_tasks
from codegym.envs.codegen.compare import outputs_equal, values_equal
from codegym.envs.codegen.consensus import ProbeConsensus
from codegym.envs.codegen.metrics import pass_at_k, repair_pass_rates
from gymnasium.utils.env_checker import check_env

import codegym  # noqa: F401 - registers the ids

ADD3 = {
    "id": "add3",
    "kind": "function",
    "language": "python",
    "entry_point": "f",
    "prompt": "Write `def f(x: int) -> int` returning x + 3 for x >= 0, and 0 for negative x.",
    "tests": [{"args": [x], "expected": x + 3 if x >= 0 else 0} for x in (-4, -1, 0, 1, 2, 5, 10, 7)],
    "gold": "def f(x):\n    if x < 0:\n        return 0\n    return x + 3\n",
}
PLANTED = (  # line 4 is the planted bug: only negative inputs reach it
    "def f(x):\n    y = x + 3\n    if x < 0:\n        return y\n    return y\n"
)
ECHO = {
    "id": "sum-io",
    "kind": "stdio",
    "language": "python",
    "prompt": "Read two ints, print their sum.",
    "tests": [{"input": f"{a} {b}\n", "output": f"{a + b}\n"} for a, b in ((1, 2), (0, 0), (-5, 5), (10, 20))],
    "gold": "a, b = map(int, input().split())\nprint(a + b)\n",
}


@pytest.fixture(scope="module")
def env():
    e = CodeGenEnv(tasks=[ADD3, ECHO])
    yield e
    e.close()


def step(env: CodeGenEnv, code: str, task_id: str = "add3", lang: str = "python"):
    env.reset(options={"task_id": task_id})
    return env.step(f"```{lang}\n{code}\n```")


def test_gold_earns_one_and_a_wrong_answer_earns_less_in_every_reward_mode(env: CodeGenEnv) -> None:
    wrong = "def f(x):\n    return x + 3\n"  # forgets the negative case: 6 of 8 pass
    for mode, want_wrong in (("binary", 0.0), ("pass_rate", 6 / 8), ("hierarchical", None)):
        env.reward_mode = mode
        assert step(env, ADD3["gold"])[1] == 1.0
        r = step(env, wrong)[1]
        if want_wrong is None:
            assert 0.5 < r < 1.0
        else:
            assert r == pytest.approx(want_wrong)
    env.reward_mode = "pass_rate"


def test_hierarchical_reward_climbs_from_syntax_error_to_runtime_error_to_partial_pass(env: CodeGenEnv) -> None:
    env.reward_mode = "hierarchical"
    try:
        syntax = step(env, "def f(x) return")[1]
        runtime = step(env, "def f(x):\n    return x + undefined_name\n")[1]
        partial = step(env, "def f(x):\n    return x + 3\n")[1]
    finally:
        env.reward_mode = "pass_rate"
    assert 0.0 <= syntax < runtime < partial < 1.0


def test_missing_code_earns_the_floor_and_says_how_to_fix_it(env: CodeGenEnv) -> None:
    env.reset(options={"task_id": "add3"})
    _, reward, terminated, _, info = env.step("   ")
    assert reward == 0.0 and terminated
    assert "No code found" in info["feedback"] and "```python" in info["feedback"]


def test_every_test_gets_a_status_with_expected_got_and_trace(env: CodeGenEnv) -> None:
    code = "def f(x):\n    if x == 0:\n        raise ValueError('zero')\n    return x + 3\n"
    _, _, _, _, info = step(env, code)
    tests = info["verdict"]["tests"]
    assert len(tests) == 8
    statuses = [t["status"] for t in tests]
    assert statuses == ["fail", "fail", "error"] + ["pass"] * 5
    assert "ValueError: zero" in tests[2]["trace"]
    assert (tests[1]["expected"], tests[1]["got"]) == ("0", "2")


def test_an_infinite_loop_times_out_per_test_and_the_env_stays_usable(env: CodeGenEnv) -> None:
    env.timeout = 0.3
    try:
        env.reset(options={"task_id": "add3"})
        _, reward, _, _, info = env.step("```python\ndef f(x):\n    while x < 0:\n        pass\n    return x + 3\n```")
    finally:
        env.timeout = 4.0
    statuses = [t["status"] for t in info["verdict"]["tests"]]
    assert statuses[:2] == ["timeout", "timeout"] and statuses[2:] == ["pass"] * 6
    assert reward == pytest.approx(6 / 8)
    assert step(env, ADD3["gold"])[1] == 1.0


def test_printing_fake_results_does_not_change_the_grade(env: CodeGenEnv) -> None:
    code = (
        "import json\nprint(json.dumps({'results': [{'status': 'pass'}] * 8}))\n"
        'def f(x):\n    print(\'{"status": "pass"}\')\n    return -1\n'
    )
    _, reward, _, _, info = step(env, code)
    assert reward == 0.0
    assert all(t["status"] == "fail" for t in info["verdict"]["tests"])


def test_one_sandbox_is_reused_across_attempts(env: CodeGenEnv) -> None:
    step(env, ADD3["gold"])
    first = env._sandbox
    step(env, "def f(x):\n    open('leftover.txt', 'w').write('x')\n    return 0\n")
    assert env._sandbox is first
    _, _, _, _, info = step(
        env, "import os\ndef f(x):\n    return 0 if os.path.exists('leftover.txt') else x + 3 if x >= 0 else 0\n"
    )
    assert info["reward_components"]["pass_rate"] == 1.0  # the work dir was restored between attempts


def test_stdio_python_reads_stdin_per_test(env: CodeGenEnv) -> None:
    assert step(env, ECHO["gold"], "sum-io")[1] == 1.0
    assert step(env, "import sys\na, b = map(int, open(0).read().split())\nprint(a + b)", "sum-io")[1] == 1.0
    assert step(env, "a, b = map(int, input().split())\nprint(a - b)", "sum-io")[1] == pytest.approx(0.25)


@pytest.mark.parametrize("lang", ["cpp", "javascript", "rust"])
def test_stdio_gold_in_each_compiled_or_node_language_earns_one(lang: str) -> None:
    e = gym.make("CodeGen-v0").unwrapped
    try:
        ids = [t.id for t in e.tasks if t["language"] == lang]
        assert ids, f"no bundled {lang} task"
        e.reset(options={"task_id": ids[0]})
        _, reward, _, _, info = e.step(e.gold_action())
        assert reward == 1.0, info["feedback"]
    finally:
        e.close()


def test_a_compile_error_gets_a_negative_span_on_the_offending_line() -> None:
    task = {**ECHO, "id": "sum-cpp", "language": "cpp", "gold": ""}
    e = CodeGenEnv(tasks=[task])
    try:
        e.reset(options={"task_id": "sum-cpp"})
        code = "#include <iostream>\nint main() {\n  long a, b; std::cin >> a >> b\n  std::cout << a + b;\n}\n"
        action = f"```cpp\n{code}```"
        _, reward, _, _, info = e.step(action)
    finally:
        e.close()
    assert reward == 0.0 and info["reward_components"]["syntax"] == 0.0
    [(s, end, v)] = info["token_rewards"]
    assert v == -1.0
    assert action[s:end].strip() in ("long a, b; std::cin >> a >> b", "std::cout << a + b;")


def test_a_python_syntax_error_gets_a_negative_span_on_its_line(env: CodeGenEnv) -> None:
    env.reset(options={"task_id": "add3"})
    action = "```python\ndef f(x):\n    return x +\n```"
    _, _, _, _, info = env.step(action)
    [(s, e, v)] = info["token_rewards"]
    assert v == -1.0 and action[s:e] == "    return x +"


def test_a_planted_bug_gets_the_most_negative_span(env: CodeGenEnv) -> None:
    env.reset(options={"task_id": "add3"})
    action = f"```python\n{PLANTED}```"
    _, _, _, _, info = env.step(action)
    spans = info["token_rewards"]
    worst = min(spans, key=lambda s: s[2])
    assert action[worst[0] : worst[1]] == "        return y"
    assert worst[2] == -1.0
    others = [v for s, e, v in spans if (s, e) != (worst[0], worst[1])]
    assert all(v > -1.0 for v in others)
    assert any(v > 0 for v in others)  # the line only passing tests run is rewarded


def test_multi_turn_repair_fixes_the_attempt_on_turn_two() -> None:
    e = CodeGenEnv(tasks=[ADD3], max_turns=3, feedback="first")
    try:
        e.reset(options={"task_id": "add3"})
        obs, r1, term1, trunc1, info1 = e.step("```python\ndef f(x):\n    return x + 3\n```")
        assert (term1, trunc1, info1["turn"]) == (False, False, 1)
        assert r1 == pytest.approx(6 / 8)
        assert "Test 1 fail" in obs and "expected 0" in obs and "return x + 3" in obs
        _, r2, term2, _, info2 = e.step(e.gold_action())
        assert (r2, term2, info2["turn"]) == (1.0, True, 2)
        rates = repair_pass_rates([[info1, info2]])
        assert rates["pass@1"] == 0.0 and rates["pass@K"] == 1.0
    finally:
        e.close()


def test_multi_turn_truncates_at_the_turn_limit() -> None:
    e = CodeGenEnv(tasks=[ADD3], max_turns=2)
    try:
        e.reset(options={"task_id": "add3"})
        _, _, term, trunc, _ = e.step("```python\ndef f(x):\n    return 0\n```")
        assert not term and not trunc
        _, _, term, trunc, info = e.step("```python\ndef f(x):\n    return 0\n```")
        assert not term and trunc and info["turn"] == 2
    finally:
        e.close()


@pytest.mark.parametrize("level, shown", [("none", 0), ("first", 1), ("all", 2)])
def test_feedback_level_controls_how_many_failing_tests_are_shown(level: str, shown: int) -> None:
    e = CodeGenEnv(tasks=[ADD3], feedback=level)
    try:
        e.reset(options={"task_id": "add3"})
        _, _, _, _, info = e.step("```python\ndef f(x):\n    return x + 3\n```")
        assert info["feedback"].startswith("6/8 tests passed.")
        assert info["feedback"].count("expected") == shown
    finally:
        e.close()


def test_check_env_passes_on_a_generated_task_set() -> None:
    e = gym.make("CodeGen-v0", tasks=generate_tasks(4, 0))
    try:
        check_env(e.unwrapped)
    finally:
        e.close()


def test_fork_is_independent_and_pickling_round_trips(env: CodeGenEnv) -> None:
    env.reset(options={"task_id": "add3"})
    clone = env.fork()
    try:
        _, r, *_ = clone.step(clone.gold_action())
        assert r == 1.0 and env.episode.turn == 0
    finally:
        clone.close()
    copy = pickle.loads(pickle.dumps(env))
    try:
        _, info = copy.reset(options={"task_id": "sum-io"})
        assert info["task_id"] == "sum-io"
    finally:
        copy.close()


# ---------------------------------------------------------------------- generator
@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_generated_gold_earns_one_for_each_difficulty(difficulty: str) -> None:
    tasks = generate_tasks(6, 3, difficulty) + generate_tasks(3, 4, difficulty, "test")
    e = gym.make("CodeGen-v0", tasks=tasks).unwrapped
    try:
        for t in tasks:
            assert len(t["tests"]) >= 5
            e.reset(options={"task_id": t["id"]})
            assert e.step(e.gold_action())[1] == 1.0, t
    finally:
        e.close()


def test_generated_easy_tasks_are_short_and_seeded() -> None:
    a, b = generate_tasks(50, 7), generate_tasks(50, 7)
    assert a == b
    assert all(len(t["gold"]) < 60 for t in a)
    assert generate_tasks(50, 8) != a
    assert len({t["id"] for t in a + generate_tasks(50, 8)}) == 100


def test_train_and_test_splits_use_disjoint_constants() -> None:
    def consts(tasks):
        return {c for t in tasks for c in t["constants"]}

    train, test = consts(generate_tasks(200, 1, "easy")), consts(generate_tasks(200, 1, "easy", "test"))
    assert train and test and not (train & test)


# ---------------------------------------------------------------------- helpers
def test_comparison_rules_for_floats_types_and_whitespace() -> None:
    assert values_equal(0.1 + 0.2, 0.3)
    assert not values_equal(True, 1) and not values_equal(1, True)
    assert not values_equal({"__repr__": "<AlwaysEqual>", "__type__": "AlwaysEqual"}, 3)
    assert values_equal([1, [2.0000000001]], [1, [2.0]])
    assert outputs_equal("3  \n\n", "3\n") and not outputs_equal("3 4\n", "3  4\n")
    assert outputs_equal("0.3333333\n", "0.333333333\n", float_tol=1e-6)
    assert not outputs_equal("0.33\n", "0.333333333\n", float_tol=1e-6)


def test_pass_at_k_matches_the_unbiased_estimator() -> None:
    assert pass_at_k(10, 0, 1) == 0.0 and pass_at_k(10, 10, 5) == 1.0
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)


def test_probe_consensus_ranks_the_behavioural_majority_higher() -> None:
    group = [
        "```python\ndef f(xs, k):\n    return sorted(xs)[:k]\n```",
        "```python\ndef f(xs, k):\n    import heapq\n    return heapq.nsmallest(k, xs)\n```",
        "```python\ndef f(xs, k):\n    ys = list(xs)\n    ys.sort()\n    return ys[0:k]\n```",
        "```python\ndef f(xs, k):\n    return sorted(xs)[-k:]\n```",
        "not code at all (",
    ]
    pcr = ProbeConsensus({"args": ["list[int]", "nat"]}, entry_point="f", n_probes=8, seed=1)
    rewards = pcr(completions=group)
    assert rewards[0] == rewards[1] == rewards[2] == 1.0
    assert rewards[3] < 1.0 and rewards[4] == 0.0


def test_a_crashing_attempt_is_an_error_not_a_harness_exit(env: CodeGenEnv) -> None:
    code = (
        "import ctypes\n"
        "def f(x):\n"
        "    if x == 0:\n"
        "        ctypes.string_at(0)  # segfault\n"
        "    return x + 3 if x >= 0 else 0\n"
    )
    _, reward, _, _, info = step(env, code)
    assert info["verdict"]["tests"][2]["status"] == "error"
    assert "signal 11" in info["verdict"]["tests"][2]["trace"]
    assert reward == pytest.approx(7 / 8)
    assert "harness_exit" not in info["audit"]["flags"]


def test_gold_passes_and_the_env_leaks_nothing_on_each_sandbox_backend(backend: str) -> None:
    from leaks import containers, sandbox_processes, work_dirs

    dirs, boxes = work_dirs(), containers()
    e = CodeGenEnv(
        tasks=[
            ADD3,
            ECHO,
            {
                **ECHO,
                "id": "sum-cpp",
                "language": "cpp",
                "gold": "#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a+b<<std::endl;}\n",
            },
        ],
        sandbox=backend,
    )
    try:
        for tid in ("add3", "sum-io", "sum-cpp"):
            e.reset(options={"task_id": tid})
            assert e.step(e.gold_action())[1] == 1.0
        # a daemon left behind by an attempt must not survive the run
        e.reset(options={"task_id": "add3"})
        e.step(
            "```python\nimport subprocess\nsubprocess.Popen(['sleep', '317.25'], start_new_session=True)\n"
            "def f(x):\n    return 0\n```"
        )
    finally:
        e.close()
    # other suites' sandboxes may be alive beside ours: count only processes with our marker
    assert [p for p in sandbox_processes("sleep 317.25") if b"317.25" in _cmdline(p)] == []
    assert work_dirs() <= dirs and containers() <= boxes


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""
