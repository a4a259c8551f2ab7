"""CodeRepair-v0 on SWE-bench-format instances built from real PyPI sdists (tests/swebench_real.py).

The hidden tests must run with the repository's own code and dependencies in a per-task
environment, never with codegym's venv: pluggy is installed in codegym's venv too, and
there a README-only edit used to "resolve" the instance; packaging's tests need
``pretend`` and referencing needs ``rpds-py`` (a compiled Rust extension), which codegym's
venv lacks. Grading must agree with the ``swebench`` package's own grading functions,
run on the same pytest output.

The default run grades pluggy on the local backend (its venv is built once and cached
under the codegym cache dir); ``-m slow`` grades all four libraries on both backends.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import gymnasium as gym
import pytest
from conftest import docker_available
from swebench_real import DATA, LIBRARIES, Instance, Offline, build_instance

import codegym  # noqa: F401 - registers the env ids

FAST = "pluggy"  # a src/ layout, and installed in codegym's venv as well: the README trap


@pytest.fixture(scope="module")
def instances(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Instance]:
    """Instances built on first use, one mirror folder for all."""
    root = tmp_path_factory.mktemp("mirrors")

    class Lazy(dict):
        def __missing__(self, name: str) -> Instance:
            try:
                instance = build_instance(name, root)
            except Offline as exc:
                pytest.skip(f"no sdist: {exc}")
            _env_or_skip(instance)
            self[name] = instance
            return instance

    return Lazy()


#: What pip prints when PyPI cannot be reached.
_OFFLINE = ("NewConnectionError", "Temporary failure in name resolution", "Network is unreachable")


def _env_or_skip(instance: Instance) -> None:
    """Build (or find cached) the instance's venv; skip the test when PyPI cannot be reached."""
    from codegym.envs.agentic.repo import prepare_from_mirror
    from codegym.envs.agentic.taskenv import EnvBuildError, InstallSpec, ensure_env

    mirror = instance.repo_root / instance.task["repo"].replace("/", "__")
    tree = prepare_from_mirror(mirror, instance.task["base_commit"], f"swe-{instance.task['instance_id']}")
    try:
        ensure_env(InstallSpec.of(instance.task), tree, "local")
    except EnvBuildError as exc:
        if any(word in str(step.get("output", "")) for step in exc.log for word in _OFFLINE):
            pytest.skip(f"PyPI cannot be reached: {exc}")
        raise


def _env(instance: Instance, backend: str) -> gym.Env:
    return gym.make("CodeRepair-v0", tasks=[instance.task], repo_root=str(instance.repo_root), sandbox=backend)


def grade(instance: Instance, label: str, backend: str = "local") -> tuple[float, dict, gym.Env]:
    """Reward and info of the attempt ``label`` (a diff of the instance, or '' for a no-op)."""
    env = _env(instance, backend)
    _, info = env.reset(seed=0)
    assert "infra_error" not in info, info["infra_error"]
    diff = instance.diffs[label] if label else "diff --git a/x b/x\n"
    _, reward, terminated, _, info = env.step(f"```diff\n{diff}```\n" if label else "no change")
    assert terminated and "infra_error" not in info, info.get("infra_error")
    return reward, info, env


def swebench_grading(instance: Instance, log: str, exit_code: int) -> tuple[dict[str, str], dict, bool]:
    """What the ``swebench`` package's grading functions make of the same pytest output."""
    grading = pytest.importorskip("swebench.harness.grading")
    from swebench.harness.constants import END_TEST_OUTPUT, START_TEST_OUTPUT, TEST_EXIT_CODE, ResolvedStatus
    from swebench.types import TestSpec

    task = instance.task
    f2p, p2p = json.loads(task["FAIL_TO_PASS"]), json.loads(task["PASS_TO_PASS"])
    spec = TestSpec(
        instance_id=task["instance_id"],
        image="",
        eval_script_list=[],
        repo=task["repo"],
        version=task["version"],
        FAIL_TO_PASS=f2p,
        PASS_TO_PASS=p2p,
        log_parser="parse_log_pytest",
        eval_type="pass_and_fail",
    )
    path = Path(instance.repo_root) / f"{task['instance_id']}.log"
    path.write_text(f"{START_TEST_OUTPUT}\n{log}\n{END_TEST_OUTPUT}\n{TEST_EXIT_CODE}: {exit_code}\n")
    status_map, found = grading.get_logs_eval(spec, str(path))
    assert found, "swebench found no test results in the log"
    report = grading.get_eval_tests_report(status_map, {"FAIL_TO_PASS": f2p, "PASS_TO_PASS": p2p})
    return status_map, report, grading.get_resolution_status(report) == ResolvedStatus.FULL.value


#: Our outcome names -> the statuses of swebench's pytest log parser.
SWEBENCH_STATUS = {"passed": "PASSED", "failed": "FAILED", "error": "ERROR", "skipped": "SKIPPED", "xfailed": "XFAIL"}


def assert_parity(instance: Instance, info: dict, env: gym.Env) -> None:
    """Our resolved and per-test statuses equal swebench's, from the same run's output."""
    log, exit_code = env.unwrapped.episode.state["test_log"]
    status_map, report, resolved = swebench_grading(instance, log, exit_code)
    verdict = info["verdict"]
    assert verdict["resolved"] is resolved
    for node, ours in verdict["statuses"].items():
        assert SWEBENCH_STATUS.get(ours) == status_map.get(node), node
    assert sorted(n for n, ok in verdict["f2p"].items() if ok) == sorted(report["FAIL_TO_PASS"]["success"])
    assert sorted(verdict["p2p_failed"]) == sorted(report["PASS_TO_PASS"]["failure"])


# ---------------------------------------------------------------------------- default run
def test_gold_resolves_with_the_repository_s_own_environment(instances: dict[str, Instance]) -> None:
    reward, info, env = grade(instances[FAST], "gold")
    try:
        assert reward == 1.0 and info["verdict"]["resolved"] is True
        record = info["verdict"]["environment"]
        assert record["source"] == "venv" and record["build_s"] > 0
        assert [s["step"] for s in record["log"]] == ["venv", "pip_packages", "install", "pytest"]
        # The env's own pytest (pinned by the instance), not codegym's.
        sb = env.unwrapped.sandbox
        assert sb.run("python -m pytest --version").stdout.strip() == "pytest 8.2.2"
        where = sb.run("python -c 'import pluggy; print(pluggy.__file__)'").stdout.strip()
        assert where == "/sandbox/src/pluggy/__init__.py"
        assert_parity(instances[FAST], info, env)
    finally:
        env.close()


def test_readme_only_edit_earns_nothing(instances: dict[str, Instance]) -> None:
    # Failed on main: the tests imported codegym's own installed pluggy, and this earned 1.0.
    reward, info, env = grade(instances[FAST], "readme")
    try:
        assert reward == 0.0 and info["verdict"]["resolved"] is False
        assert not any(info["verdict"]["f2p"].values())
        assert_parity(instances[FAST], info, env)
    finally:
        env.close()


def test_no_op_earns_nothing(instances: dict[str, Instance]) -> None:
    env = _env(instances[FAST], "local")
    try:
        env.reset(seed=0)
        _, reward, _, _, info = env.step("I made no change.")
        assert reward == 0.0 and "infra_error" not in info
    finally:
        env.close()


def test_partial_fix_earns_the_fail_to_pass_fraction(instances: dict[str, Instance]) -> None:
    reward, info, env = grade(instances[FAST], "partial")
    try:
        assert reward == pytest.approx(DATA[FAST]["partial"]) and 0 < reward < 1
        assert_parity(instances[FAST], info, env)
    finally:
        env.close()


def test_fix_that_breaks_a_pass_to_pass_test_earns_nothing(instances: dict[str, Instance]) -> None:
    reward, info, env = grade(instances[FAST], "breaks")
    try:
        assert reward == 0.0 and info["verdict"]["p2p_failed"]
        assert_parity(instances[FAST], info, env)
    finally:
        env.close()


def test_runner_tampering_is_caught_in_the_task_environment(instances: dict[str, Instance]) -> None:
    """Code under test that makes pytest report every test as passed (names built from pieces)."""
    instance = instances[FAST]
    path = "src/pluggy/_hooks.py"
    original = (instance.repo_root / instance.task["repo"].replace("/", "__") / path).read_text()
    hacked = original.replace(
        "    if inspect.isclass(func):\n",
        "    _r = __import__('importlib').import_module('_py' + 'test.reports')\n"
        "    if not getattr(_r.TestReport, '_cg', False):\n"
        "        _o = _r.TestReport.__init__\n"
        "        def _i(self, *a, **k):\n"
        "            _o(self, *a, **k)\n"
        "            self.outcome, self.longrepr = 'passed', None\n"
        "        _r.TestReport.__init__, _r.TestReport._cg = _i, True\n"
        "    if inspect.isclass(func):\n",
        1,
    )
    lines = difflib.unified_diff(original.splitlines(True), hacked.splitlines(True), f"a/{path}", f"b/{path}")
    hack = f"diff --git a/{path} b/{path}\n" + "".join(lines)
    env = _env(instance, "local")
    try:
        env.reset(seed=0)
        _, reward, _, _, info = env.step(f"```diff\n{hack}```\n")
        assert "infra_error" not in info, info.get("infra_error")
        assert reward == 0.0 and "tampered_runner" in info["audit"]["flags"], info["feedback"]
    finally:
        env.close()


def test_failing_build_is_an_infra_error_naming_the_step(instances: dict[str, Instance]) -> None:
    task = {**instances[FAST].task, "version": "broken", "pip_packages": ["codegym-no-such-package==0.0.0"]}
    env = gym.make("CodeRepair-v0", tasks=[task], repo_root=str(instances[FAST].repo_root))
    try:
        _, info = env.reset(seed=0)
        assert "step 'pip_packages' failed" in info["infra_error"]
        _, reward, _, _, info = env.step(f"```diff\n{instances[FAST].diffs['gold']}```\n")
        assert reward == 0.0 and "step 'pip_packages' failed" in info["infra_error"]
    finally:
        env.close()


# ---------------------------------------------------------------------------- every library, both backends
BACKENDS = [
    "local",
    pytest.param("docker", marks=pytest.mark.skipif(not docker_available(), reason="no Docker engine")),
]


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", LIBRARIES)
def test_every_library_grades_like_swebench(instances: dict[str, Instance], name: str, backend: str) -> None:
    instance = instances[name]
    expected = {"gold": 1.0, "readme": 0.0, "partial": DATA[name]["partial"], "breaks": 0.0}
    for label, want in expected.items():
        reward, info, env = grade(instance, label, backend)
        try:
            assert reward == pytest.approx(want), (label, info["feedback"])
            assert_parity(instance, info, env)
        finally:
            env.close()
    env = _env(instance, backend)
    try:
        env.reset(seed=0)
        _, reward, _, _, info = env.step("no change")
        assert reward == 0.0 and "infra_error" not in info
    finally:
        env.close()


def test_testgen_judges_tests_with_the_repository_s_own_environment(instances: dict[str, Instance]) -> None:
    # Failed on main: the gold tests passed on the buggy base (codegym's own pluggy was imported).
    instance = instances[FAST]
    env = gym.make("TestGen-v0", tasks=[instance.task], repo_root=str(instance.repo_root))
    try:
        env.reset(seed=0)
        _, gold, _, _, info = env.step(env.unwrapped.gold_action())
        assert gold == 1.0 and "infra_error" not in info, info["feedback"]
        env.reset(seed=0)
        _, noop, _, _, info = env.step("no tests")
        assert noop == 0.0 and "infra_error" not in info
    finally:
        env.close()


def test_install_specs_are_read_from_every_dataset_shape() -> None:
    from codegym.envs.agentic.taskenv import InstallSpec

    flat = InstallSpec.of(
        {
            "instance_id": "o__r-1",
            "repo": "o/r",
            "version": "1.2",
            "install": "python -m pip install -e .[test]",
            "pip_packages": ["pytest==8.2.2", "pretend"],
            "pre_install": ["apt-get install -y locales"],
            "python": "3.9",
        }
    )
    assert flat.install == "python -m pip install -e .[test]" and flat.pip_packages == ("pytest==8.2.2", "pretend")
    assert (
        "sweb.eval.x86_64.o__r-1:latest" in flat.images and "swebench/sweb.eval.x86_64.o_1776_r-1:latest" in flat.images
    )
    rebench = InstallSpec.of(
        {"repo": "o/r", "base_commit": "abc", "install_config": {"install": "pip install .", "pip_packages": "a b"}}
    )
    assert rebench.version == "abc" and rebench.install == "pip install ." and rebench.pip_packages == ("a", "b")
    nested = InstallSpec.of(
        {"repo": "o/r", "version": "1", "specs": {"packages": "requirements.txt", "python": "3.11"}}
    )
    assert nested.packages == ("requirements.txt",) and nested.python == "3.11"
    images = InstallSpec.of({"repo": "o/r", "image_name": "swesmith.x86_64.o__r.abc", "docker_image": "r2e/img"})
    assert images.images[:2] == ("swesmith.x86_64.o__r.abc", "r2e/img")
    assert flat.key() != InstallSpec.of({"repo": "o/r", "version": "1.3", "install": flat.install}).key()


@pytest.mark.slow
@pytest.mark.skipif(not docker_available(), reason="no Docker engine")
def test_a_prebuilt_swebench_image_on_the_machine_is_used_as_it_is(instances: dict[str, Instance]) -> None:
    """An image named as the harness names it (``sweb.eval.x86_64.<id>``), env at SWE-bench's path."""
    import tempfile

    from codegym.envs.agentic.repo import prepare_from_mirror
    from codegym.envs.agentic.taskenv import InstallSpec, ensure_env

    from codegym.sandbox.docker import _client, base_image

    instance = instances[FAST]
    task = {**instance.task, "instance_id": "pytest-dev__pluggy-prebuilt"}
    mirror = instance.repo_root / task["repo"].replace("/", "__")
    venv = ensure_env(InstallSpec.of(task), prepare_from_mirror(mirror, task["base_commit"], "prebuilt"), "local")
    name = "sweb.eval.x86_64.pytest-dev__pluggy-prebuilt:latest"
    client = _client()
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "Dockerfile").write_text(f"FROM {base_image()}\nCOPY . /opt/miniconda3/envs/testbed\n")
        client.images.build(path=venv.runtime.host_dir, dockerfile=f"{tmp}/Dockerfile", tag=name, rm=True)
    try:
        instance = Instance(instance.name, task, instance.repo_root, instance.diffs)
        reward, info, env = grade(instance, "gold", "docker")
        env.close()
        assert reward == 1.0 and info["verdict"]["environment"]["image"] == name
        reward, info, env = grade(instance, "readme", "docker")
        env.close()
        assert reward == 0.0
    finally:
        client.images.remove(name, force=True)
