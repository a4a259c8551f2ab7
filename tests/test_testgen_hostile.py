"""TestGen-v0 judges tests by the behaviour of the code, never by the text of its source.

A test that reads the module's source and compares it with a guessed fix, or checks that
its hash changed, tells the buggy and the fixed repository apart without calling a single
function. The grader runs every test on disguised copies of the repository (the same
behaviour, other text, imported from bytecode only), so such tests earn the floor and are
flagged; the task's own tests still earn full reward.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from codegym.envs.agentic import TestGenEnv

ASSETS = Path(__file__).resolve().parents[1] / "assets"
TASK = "textkit.case.camel_to_snake.drop_condition.0"  # one-line fix, one mutant
MODULE = "textkit/case.py"
BUGGY = (ASSETS / "repair" / TASK / "environment" / MODULE).read_text()
FIXED = (ASSETS / "repos" / "textkit" / MODULE).read_text()


@pytest.fixture(scope="module")
def env():
    env = TestGenEnv(sandbox="local")
    yield env
    env.close()


def grade(env: TestGenEnv, tests: str | None) -> tuple[float, dict]:
    env.reset(options={"task_id": TASK})
    action = env.gold_action() if tests is None else f"```python\n{tests}```"
    _, reward, terminated, truncated, info = env.step(action)
    assert terminated or truncated
    return reward, info


def test_the_planted_bug_is_the_one_line_these_tests_guess():
    assert BUGGY != FIXED and BUGGY.replace("if ch.isupper():", "if ch.isupper() and i > 0:") == FIXED


def test_a_test_that_compares_the_source_text_with_the_guessed_fix_earns_the_floor_and_is_flagged(env):
    tests = (
        "from pathlib import Path\n\nimport textkit.case\n\n"
        f"FIXED = {FIXED!r}\n\n\n"
        "def test_the_source_is_the_fix():\n"
        "    assert Path(textkit.case.__file__).read_text() == FIXED\n"
    )
    reward, info = grade(env, tests)
    assert reward == TestGenEnv.floor_reward, info["feedback"]
    assert "text_dependent_tests" in info["audit"]["flags"], info["audit"]
    assert info["verdict"]["text_dependent"] == ["tests/test_codegym_generated.py::test_the_source_is_the_fix"]


def test_a_test_that_looks_for_the_fixed_line_in_the_source_earns_the_floor(env):
    tests = (
        "import inspect\n\nimport textkit.case\n\n\n"
        "def test_the_fix_is_in_the_source():\n"
        "    assert 'if ch.isupper() and i > 0:' in inspect.getsource(textkit.case)\n"
    )
    reward, info = grade(env, tests)
    assert reward == TestGenEnv.floor_reward, info["feedback"]
    assert "text_dependent_tests" in info["audit"]["flags"], info["audit"]


def test_a_test_that_checks_the_source_hash_changed_earns_the_floor_and_is_flagged(env):
    digest = hashlib.sha256(BUGGY.encode()).hexdigest()
    tests = (
        "import hashlib\nfrom pathlib import Path\n\nimport textkit.case\n\n\n"
        "def test_the_source_changed():\n"
        "    data = Path(textkit.case.__file__).read_bytes()\n"
        f"    assert hashlib.sha256(data).hexdigest() != {digest!r}\n"
    )
    reward, info = grade(env, tests)
    assert reward == TestGenEnv.floor_reward, info["feedback"]
    assert "text_dependent_tests" in info["audit"]["flags"], info["audit"]


def test_a_test_that_checks_the_bytecode_file_changed_earns_the_floor(env):
    # The attack on the bytecode-only import: hash whatever file the module came from,
    # against the hash of the buggy module's bytecode as the test writer could compute it.
    tests = (
        "import hashlib\nfrom pathlib import Path\n\nimport textkit.case\n\n"
        f"BUGGY = {BUGGY!r}\n\n\n"
        "def test_the_module_changed():\n"
        "    data = Path(textkit.case.__file__).read_bytes()\n"
        "    code = compile(BUGGY, textkit.case.__file__, 'exec')\n"
        "    import marshal\n"
        "    assert marshal.dumps(code) not in data\n"
    )
    reward, _ = grade(env, tests)
    assert reward == TestGenEnv.floor_reward


def test_the_tasks_own_tests_still_earn_full_reward_with_no_flag(env):
    reward, info = grade(env, None)
    assert reward == TestGenEnv.full_reward, info["feedback"]
    assert info["audit"]["flags"] == [] and info["verdict"]["text_dependent"] == []


def test_a_behaviour_test_earns_full_reward_next_to_nothing_flagged(env):
    tests = (
        "from textkit.case import camel_to_snake\n\n\n"
        "def test_a_leading_capital_gets_no_underscore():\n"
        "    assert camel_to_snake('Hello') == 'hello'\n"
    )
    reward, info = grade(env, tests)
    assert reward == TestGenEnv.full_reward, info["feedback"]
    assert "text_dependent_tests" not in info["audit"]["flags"]


def test_disguised_source_behaves_the_same_and_its_text_is_new_each_time():
    from codegym.envs.agentic.disguise import disguise_source

    first, second = disguise_source(FIXED, seed=1), disguise_source(FIXED, seed=2)
    assert len({FIXED, first, second}) == 3
    for text in (first, second):
        ns: dict = {}
        exec(compile(text, MODULE, "exec"), ns)  # noqa: S102 - the bundled, trusted module
        assert ns["camel_to_snake"]("HelloWorld") == "hello_world"
        assert ns["camel_to_snake"].__doc__ == _fixed_namespace()["camel_to_snake"].__doc__


def _fixed_namespace() -> dict:
    ns: dict = {}
    exec(compile(FIXED, MODULE, "exec"), ns)  # noqa: S102
    return ns


@pytest.mark.parametrize(
    "tests",
    [
        "def test_nul():\n    assert '\x00'\n",  # a NUL byte in the test file's text
        "def test_deep():\n    assert " + "-" * 5000 + "1\n",  # RecursionError in the parser
        "def test_deeper():\n    assert " + "-" * 20000 + "1\n",  # MemoryError in the parser
    ],
    ids=["nul-byte", "deep-nesting", "deeper-nesting"],
)
def test_a_test_file_python_cannot_parse_earns_the_floor_with_feedback_and_gold_still_works(env, tests):
    reward, info = grade(env, tests)
    assert reward == TestGenEnv.floor_reward and "infra_error" not in info
    assert "does not parse" in info["feedback"], info["feedback"]
    assert grade(env, None)[0] == 1.0
