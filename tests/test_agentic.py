"""CodeRepair-v0, TestGen-v0, Terminal-v0: graders, harnesses, audit, synthesis, forks.

The default run grades a seeded sample of bundled tasks on each backend;
``tests/test_agentic_sweep.py`` (slow) grades every bundled task on both.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from codegym.envs.agentic import CodeRepairEnv, TerminalEnv, TestGenEnv
from codegym.envs.agentic.audit import audit_commands
from codegym.envs.agentic.harness import parse_bash, parse_editor
from codegym.envs.agentic.mutators import MUTATORS, mutate, sites
from codegym.envs.agentic.patches import file_diff, is_test_path, parse_diff
from codegym.envs.agentic.pytest_report import parse_report
from codegym.envs.agentic.sampler import FrontierSampler
from codegym.envs.agentic.synth import main as synth_main
from codegym.wrappers.recovery import RecoveryWrapper
from conftest import BACKENDS
from gymnasium.utils.env_checker import check_env
from leaks import containers

ASSETS = Path(__file__).resolve().parents[1] / "assets"
EDIT_TASK = "textkit.case.camel_to_snake.drop_condition.0"  # one-line fix, one mutant
WRAP_TASK = "textkit.wrap.wrap.flip_operator.1"
TEST_FILE = "tests/test_case.py"
PASS_ALL_HOOK = (
    "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n    out = yield\n    out.get_result().outcome = 'passed'\n"
)
FIX_OLD, FIX_NEW = "        if ch.isupper():\n", "        if ch.isupper() and i > 0:\n"


def repair(harness: str = "patch", backend: str = "local", **kw) -> CodeRepairEnv:
    env = CodeRepairEnv(sandbox=backend, harness=harness, **kw)
    env.reset(options={"task_id": EDIT_TASK})
    return env


def step(env, action: str):
    return env.step(action)


def diff(path: str, old: str, new: str) -> str:
    return f"```diff\n{file_diff(path, old, new)}```"


def source(path: str) -> str:
    return (ASSETS / "repair" / EDIT_TASK / "environment" / path).read_text()


# ---------------------------------------------------------------------------------- pure parts
def test_forged_all_passed_report_that_disagrees_with_the_exit_code_is_not_graded():
    raw = json.dumps({"tests": {"t::a": "passed"}, "exitstatus": 0}).encode()
    results = parse_report(raw, exit_code=1)
    assert not results.valid and not results.passed("t::a")


def test_missing_report_is_failure_not_success():
    results = parse_report(None, exit_code=0)
    assert not results.valid and not results.passed("t::a")


def test_report_with_failures_and_exit_code_zero_is_invalid():
    raw = json.dumps({"tests": {"t::a": "passed", "t::b": "failed"}, "exitstatus": 0}).encode()
    assert not parse_report(raw, exit_code=0).valid


def test_consistent_report_is_read_per_test():
    raw = json.dumps({"tests": {"t::a": "passed", "t::b": "failed"}, "exitstatus": 1}).encode()
    results = parse_report(raw, exit_code=1)
    assert results.valid and results.passed("t::a") and not results.passed("t::b")


def test_diff_parser_splits_files_and_hunks_at_their_offsets():
    text = "intro\n" + file_diff("a.py", "x\n" * 20, "y\n" + "x\n" * 18 + "z\n") + file_diff("b.py", None, "new\n")
    files = parse_diff(text)
    assert [f.path for f in files] == ["a.py", "b.py"]
    assert [f.status for f in files] == ["modified", "added"]
    assert len(files[0].hunks) == 2
    for hunk in files[0].hunks:
        assert text[hunk.start : hunk.end] == hunk.text and hunk.text.startswith("@@")


def test_test_paths_cover_tests_conftest_and_runner_files():
    assert all(
        is_test_path(p) for p in ("tests/x.py", "pkg/test_a.py", "a_test.py", "conftest.py", "pytest.ini", "x.pth")
    )
    assert not any(is_test_path(p) for p in ("pkg/core.py", "testing_utils_helper.md", "contest.py"))


def test_bash_parser_takes_submit_as_the_last_line():
    parsed = parse_bash("```bash\nls\nsubmit\n```")
    assert [c.tool for c in parsed.calls] == ["bash", "submit"]
    assert parse_bash("submit").calls[0].tool == "submit"
    assert parse_bash("   ").error


def test_editor_parser_reads_our_openai_and_swe_agent_forms():
    ours = parse_editor('{"tool": "view", "path": "a.py"}').calls[0]
    openai = parse_editor('{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}').calls[0]
    swe = parse_editor('{"command": "str_replace", "path": "a", "old_str": "x", "new_str": "y"}').calls[0]
    assert (ours.tool, openai.tool, openai.args["command"], swe.tool) == ("view", "bash", "ls", "str_replace")
    assert "unknown tool" in parse_editor('{"tool": "rm"}').error
    assert "not valid JSON" in parse_editor("{nope").error


def test_command_audit_flags_hidden_tests_future_history_and_network():
    assert audit_commands(["cat /tests/test_outputs.py"]) == ["read_hidden_tests"]
    assert audit_commands(["git reflog"]) == ["git_history_probe"]
    assert audit_commands(["git log --all --oneline"]) == ["git_history_probe"]
    assert audit_commands(["curl http://example.com"]) == ["network_use"]
    assert audit_commands(["ls tests/", "git log -3", "python -m pytest -q", "cat solution.txt"]) == []


def test_every_mutator_breaks_code_it_has_a_site_in():
    code = (
        "def f(a, b, xs):\n"
        "    total = a + b * 2\n"
        "    if a < b and b in xs:\n"
        "        total = max(a, b)\n"
        "    else:\n"
        "        total -= 1\n"
        "    return total\n"
    )
    counts = sites(code)
    for kind in MUTATORS:
        assert counts[kind] >= 1, kind
        mutated, mutation = mutate(code, kind, 0)
        assert mutated != code and mutation.function == "f"
        compile(mutated, "<m>", "exec")


def test_frontier_sampler_draws_untried_then_inside_the_band():
    sampler = FrontierSampler(["easy", "mid", "hard"], band=(0.3, 0.7), min_trials=2)
    rng = np.random.default_rng(0)
    for _ in range(4):
        sampler.update("easy", 1.0)
        sampler.update("hard", 0.0)
    assert sampler.sample(rng) == "mid"  # the only task with too few trials
    sampler.update("mid", 1.0)
    sampler.update("mid", 0.0)
    assert sampler.frontier() == ["mid"]
    assert {sampler.sample(rng) for _ in range(10)} == {"mid"}


def test_bundled_sets_are_big_enough_and_ship_gold_and_verifiers():
    repair_dirs = sorted(p for p in (ASSETS / "repair").iterdir() if p.is_dir())
    terminal_dirs = sorted(p for p in (ASSETS / "terminal").iterdir() if p.is_dir())
    assert len(repair_dirs) >= 40 and len(terminal_dirs) >= 20
    assert len({p.name.split(".")[0] for p in repair_dirs}) >= 3
    for d in repair_dirs:
        assert (d / "solution" / "fix.patch").is_file() and (d / "tests" / "files").is_dir()
    for d in terminal_dirs:
        assert (d / "solution" / "solve.sh").is_file() and list((d / "tests").glob("test_*.py"))
    categories = {(d / "task.toml").read_text().split('category = "')[1].split('"')[0] for d in terminal_dirs}
    assert {"text-processing", "git", "build", "config", "packaging", "data-wrangling", "files"} <= categories


def test_issue_texts_never_quote_the_changed_lines():
    for d in (ASSETS / "repair").iterdir():
        issue = (d / "instruction.md").read_text()
        for line in (d / "solution" / "fix.patch").read_text().splitlines():
            if line[:1] in "+-" and not line.startswith(("+++", "---")) and line[1:].strip():
                assert line[1:].strip() not in issue, d.name


# ---------------------------------------------------------------------------------- repair
def test_gold_patch_is_resolved_three_runs_in_a_row_with_the_same_verdict():
    env = repair()
    results = []
    for _ in range(3):
        env.reset(options={"task_id": EDIT_TASK})
        _, reward, terminated, _, info = env.step(env.gold_action())
        results.append((reward, json.dumps(info, sort_keys=True)))
    env.close()
    assert results[0][0] == 1.0 and len(set(results)) == 1
    info = json.loads(results[0][1])
    assert info["verdict"]["resolved"] and info["verdict"]["harness"] == "patch"
    assert info["token_rewards"] and info["token_rewards"][0][2] == 1.0


def test_noop_submit_earns_zero_and_names_the_failing_tests():
    env = repair("bash")
    _, reward, terminated, _, info = env.step("submit")
    env.close()
    assert reward == 0.0 and terminated and not info["verdict"]["resolved"]
    assert "test_camel_to_snake" in info["feedback"]


def test_leave_one_hunk_out_credits_the_fixing_hunk_and_not_the_idle_one():
    env = repair()
    fixed = source("textkit/case.py").replace(FIX_OLD, FIX_NEW)
    idle = source("textkit/wrap.py").replace(
        '"""Wrapping, truncation and padding."""', '"""Wrapping, truncation, padding."""'
    )
    action = (
        "```diff\n"
        + file_diff("textkit/case.py", source("textkit/case.py"), fixed)
        + file_diff("textkit/wrap.py", source("textkit/wrap.py"), idle)
        + "```"
    )
    _, reward, _, _, info = env.step(action)
    env.close()
    assert reward == 1.0
    spans = info["token_rewards"]
    assert len(spans) == 1 and spans[0][2] == 1.0
    assert "and i > 0" in action[spans[0][0] : spans[0][1]]


def test_bash_session_keeps_cwd_and_variables_then_reaches_gold():
    env = repair("bash")
    env.step("cd textkit && export GREETING=hi && LOCAL=x")
    obs, reward, terminated, _, _ = env.step("pwd; echo $GREETING $LOCAL")
    assert "/sandbox/textkit" in obs and "hi x" in obs and not terminated
    _, reward, terminated, _, info = env.step(env.gold_action())
    env.close()
    assert reward == 1.0 and terminated and info["verdict"]["harness"] == "bash"


def test_editor_harness_views_edits_undoes_and_reaches_gold():
    env = repair("editor")
    obs, *_ = env.step('{"tool": "view", "path": "textkit/case.py", "view_range": [20, 26]}')
    assert "isupper" in obs
    call = {"tool": "str_replace", "path": "textkit/case.py", "old_str": FIX_OLD, "new_str": FIX_NEW}
    env.step(json.dumps(call))
    env.step('{"tool": "undo_edit", "path": "textkit/case.py"}')
    assert env.sandbox.read_file("textkit/case.py").decode() == source("textkit/case.py")
    _, reward, terminated, _, info = env.step(json.dumps([call, {"tool": "submit"}]))
    env.close()
    assert reward == 1.0 and terminated and info["verdict"]["harness"] == "editor"


def test_tool_output_is_capped_and_says_so():
    env = repair("bash", output_limit=300)
    obs, *_ = env.step("seq 1 100000")
    env.close()
    assert "output cut" in obs and len(obs) < 600 and "100000" in obs


def test_turn_limit_submits_the_work_and_truncates():
    env = repair("bash", max_turns=1)
    _, reward, terminated, truncated, info = env.step(env.gold_action().replace("\nsubmit\n", "\n"))
    env.close()
    assert (reward, terminated, truncated) == (1.0, False, True)


def test_bad_patch_gets_floor_and_clear_feedback():
    env = repair()
    _, reward, terminated, _, info = env.step("```diff\n--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-x\n+y\n```")
    env.close()
    assert reward == 0.0 and terminated and "did not apply" in info["feedback"]


# ---------------------------------------------------------------------------------- audit
def _fixed_plus(extra: str) -> str:
    fixed = file_diff("textkit/case.py", source("textkit/case.py"), source("textkit/case.py").replace(FIX_OLD, FIX_NEW))
    return f"```diff\n{fixed}{extra}```"


def test_edited_tests_are_reverted_and_flagged():
    env = repair()
    old = source(TEST_FILE)
    weakened = old.replace('assert camel_to_snake("makeItWork") == "make_it_work"', "assert True")
    _, reward, _, _, info = env.step(diff(TEST_FILE, old, weakened))
    env.close()
    assert reward == 0.0 and "edited_tests" in info["audit"]["flags"]
    assert info["verdict"]["reverted_test_files"] == [TEST_FILE]


def test_deleted_tests_are_flagged_and_earn_nothing():
    env = repair()
    _, reward, _, _, info = env.step(_fixed_plus(file_diff(TEST_FILE, source(TEST_FILE), None)))
    env.close()
    assert reward == 0.0 and info["audit"]["audit_reward"] == 0.0 and "deleted_tests" in info["audit"]["flags"]


def test_conftest_that_passes_every_test_is_flagged_and_not_rewarded():
    env = repair()
    hook = PASS_ALL_HOOK
    _, reward, _, _, info = env.step(diff("conftest.py", None, hook))
    env.close()
    assert reward == 0.0 and "conftest_trick" in info["audit"]["flags"]
    assert "conftest.py" in info["verdict"]["reverted_test_files"]


def test_forged_passed_output_is_not_graded():
    env = repair()
    old = source("textkit/__init__.py")
    forged = old + 'print("tests/test_case.py::test_camel_to_snake PASSED")\nprint("43 passed in 0.1s")\n'
    _, reward, _, _, info = env.step(diff("textkit/__init__.py", old, forged))
    env.close()
    assert reward == 0.0 and "forged_test_output" in info["audit"]["flags"]
    assert info["verdict"]["f2p"] and not any(info["verdict"]["f2p"].values())


def test_code_that_rewrites_the_report_file_earns_nothing():
    env = repair()
    old = source("textkit/__init__.py")
    attack = old + (
        "import atexit, glob, json\n\n\ndef _forge():\n"
        "    for p in glob.glob('/sandbox/.codegym/*/*.json'):\n"
        "        data = json.load(open(p))\n"
        "        json.dump({'tests': {k: 'passed' for k in data['tests']}, 'exitstatus': 0}, open(p, 'w'))\n\n\n"
        "atexit.register(_forge)\n"
    )
    _, reward, _, _, info = env.step(diff("textkit/__init__.py", old, attack))
    env.close()
    assert reward == 0.0 and info["audit"]["audit_reward"] == 0.0


def test_reading_hidden_tests_finds_nothing_and_is_flagged():
    env = repair("bash")
    obs, *_ = env.step("cat /tests/files/tests/test_case.py; ls ../solution")
    assert "No such file" in obs
    _, reward, _, _, info = env.step(env.gold_action())
    env.close()
    assert reward == 0.0 and "read_hidden_tests" in info["audit"]["flags"]


def test_git_history_of_the_future_is_absent_and_probing_it_is_flagged():
    env = repair("bash")
    obs, *_ = env.step("git log --all --oneline | wc -l; git reflog | wc -l")
    assert obs.split()[:2] == ["1", "1"]
    _, reward, _, _, info = env.step(env.gold_action())
    env.close()
    assert reward == 0.0 and "git_history_probe" in info["audit"]["flags"]


def test_network_use_fails_in_the_sandbox_and_is_flagged():
    env = repair("bash")
    obs, *_ = env.step(
        "python -c \"import urllib.request; urllib.request.urlopen('http://example.com', timeout=3)\"; curl -sS http://example.com"
    )
    assert "exit code 0" not in obs
    _, reward, _, _, info = env.step(env.gold_action())
    env.close()
    assert reward == 0.0 and "network_use" in info["audit"]["flags"]


# ---------------------------------------------------------------------------------- SWE-bench JSONL
def _git(cwd: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@x",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@x",
        "HOME": str(cwd),
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def test_swebench_jsonl_loads_unchanged_and_grades_from_a_local_mirror(tmp_path):
    mirror = tmp_path / "mirrors" / "acme__textkit"
    mirror.mkdir(parents=True)
    (mirror / "textkit").mkdir()
    (mirror / "tests").mkdir()
    buggy = source("textkit/case.py")
    (mirror / "textkit" / "__init__.py").write_text("")
    (mirror / "textkit" / "case.py").write_text(buggy)
    (mirror / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    (mirror / "tests" / "test_old.py").write_text(
        "from textkit.case import slugify\n\n\ndef test_slug():\n    assert slugify('A b') == 'a-b'\n"
    )
    _git(mirror, "init", "-q", "-b", "main")
    _git(mirror, "add", ".")
    _git(mirror, "commit", "-q", "-m", "base")
    base = _git(mirror, "rev-parse", "HEAD").strip()
    new_test = (
        "from textkit.case import camel_to_snake\n\n\n"
        "def test_leading_capital():\n    assert camel_to_snake('HttpServer') == 'http_server'\n"
    )
    (mirror / "textkit" / "case.py").write_text(buggy.replace(FIX_OLD, FIX_NEW))
    _git(mirror, "commit", "-q", "-am", "the future: the fix")  # must never be visible to the agent
    instance = {
        "instance_id": "acme__textkit-1",
        "repo": "acme/textkit",
        "base_commit": base,
        "patch": file_diff("textkit/case.py", buggy, buggy.replace(FIX_OLD, FIX_NEW)),
        "test_patch": file_diff("tests/test_new.py", None, new_test),
        "problem_statement": "camel_to_snake('HttpServer') gives '_http_server'",
        "FAIL_TO_PASS": json.dumps(["tests/test_new.py::test_leading_capital"]),
        "PASS_TO_PASS": json.dumps(["tests/test_old.py::test_slug"]),
        "version": "0.1",
        "created_at": "2024-01-01",
        "hints_text": "",
        "environment_setup_commit": base,
    }
    (tmp_path / "swe.jsonl").write_text(json.dumps(instance) + "\n")
    env = CodeRepairEnv(tasks=tmp_path / "swe.jsonl", repo_root=tmp_path / "mirrors", sandbox="local", harness="bash")
    obs, info = env.reset(seed=0)
    assert info["task_id"] == "acme__textkit-1" and "HttpServer" in obs
    obs, *_ = env.step("git log --oneline | wc -l; grep -c 'and i > 0' textkit/case.py; ls tests")
    assert obs.split()[:2] == ["1", "0"] and "test_new.py" not in obs
    _, gold, *_ = env.step(env.gold_action())
    env.reset(seed=0)
    _, noop, *_ = env.step("submit")
    env.close()
    assert (gold, noop) == (1.0, 0.0)


# ---------------------------------------------------------------------------------- synthesis
def test_synthesis_turns_a_small_repository_into_gradable_tasks(tmp_path):
    repo = tmp_path / "mini"
    (repo / "mini").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "mini" / "__init__.py").write_text("")
    (repo / "mini" / "core.py").write_text(
        "def clip(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n"
    )
    (repo / "tests" / "test_core.py").write_text(
        "from mini.core import clip\n\n\ndef test_low():\n    assert clip(-5, 0, 10) == 0\n\n\n"
        "def test_high():\n    assert clip(50, 0, 10) == 10\n\n\ndef test_inside():\n    assert clip(5, 0, 10) == 5\n"
    )
    (repo / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['.']\n")
    out = tmp_path / "tasks"
    assert (
        synth_main(["--repo", str(repo), "--out", str(out), "--max-tasks", "1", "--max-candidates", "4", "--seed", "0"])
        == 0
    )
    tasks = sorted(out.iterdir())
    assert len(tasks) == 1
    meta = (tasks[0] / "task.toml").read_text()
    assert "fail_to_pass" in meta and "pass_to_pass" in meta
    env = CodeRepairEnv(tasks=out, sandbox="local")
    env.reset(options={"task_id": tasks[0].name})
    _, reward, *_ = env.step(env.gold_action())
    env.close()
    assert reward == 1.0


def test_synthesis_refuses_a_repository_without_tests(tmp_path, capsys):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "m.py").write_text("def f():\n    return 1\n")
    assert synth_main(["--repo", str(tmp_path / "r"), "--out", str(tmp_path / "o")]) == 1
    assert "no test files" in capsys.readouterr().err


# ---------------------------------------------------------------------------------- recovery, forks
def test_recovery_chains_a_failed_attempt_into_one_that_sees_its_patch():
    env = RecoveryWrapper(CodeRepairEnv(sandbox="local"), max_attempts=2)
    _, info = env.reset(options={"task_id": EDIT_TASK})
    chain = info["recovery"]["chain_id"]
    wrong = source("textkit/case.py").replace("out = []", "out = list()")
    obs, reward, terminated, truncated, info = env.step(diff("textkit/case.py", source("textkit/case.py"), wrong))
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["recovery"]["restarted"] and info["recovery"]["attempt_reward"] == 0.0
    assert "out = list()" in obs and "fail-to-pass" in obs
    assert env.unwrapped.sandbox.read_file("textkit/case.py").decode() == source("textkit/case.py")
    _, reward, terminated, _, info = env.step(env.unwrapped.gold_action())
    env.close()
    assert (reward, terminated) == (1.0, True)
    assert info["recovery"]["attempt_ids"] == [f"{chain}/a1", f"{chain}/a2"] and info["recovery"]["attempt"] == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_fork_and_restore_keep_work_dir_and_shell_state_apart(backend):
    env = repair("bash", backend)
    env.step("echo one > note.txt && cd textkit")
    snap = env.snapshot()
    clone = env.fork()
    clone.step("echo two > ../note.txt")
    obs, *_ = clone.step("pwd; cat ../note.txt")
    assert "/sandbox/textkit" in obs and "two" in obs
    assert env.sandbox.read_file("note.txt").decode() == "one\n"
    env.step("echo three > /sandbox/note.txt")
    env.restore(snap)
    assert env.sandbox.read_file("note.txt").decode() == "one\n" and env.episode.turn == 1
    clone.close()
    env.close()


# ---------------------------------------------------------------------------------- other families
@pytest.mark.parametrize("backend", BACKENDS)
def test_seeded_sample_repair_task_gold_full_noop_zero(backend):
    rng = np.random.default_rng(20261202)
    env = CodeRepairEnv(sandbox=backend, hunk_credit=False)
    task = env.tasks.ids[int(rng.integers(len(env.tasks)))]
    env.reset(options={"task_id": task})
    _, gold, *_ = env.step(env.gold_action())
    env.close()
    bash = CodeRepairEnv(sandbox=backend, harness="bash")
    bash.reset(options={"task_id": task})
    _, noop, *_ = bash.step("submit")
    bash.close()
    assert (gold, noop) == (1.0, 0.0), task
    if backend == "docker":
        assert not containers()


def test_seeded_sample_terminal_task_gold_full_noop_zero():
    rng = np.random.default_rng(20261202)
    term = TerminalEnv(sandbox="local")
    task = term.tasks.ids[int(rng.integers(len(term.tasks)))]
    term.reset(options={"task_id": task})
    _, gold, *_ = term.step(term.gold_action())
    term.reset(options={"task_id": task})
    _, noop, *_ = term.step("submit")
    term.close()
    assert (gold, noop) == (1.0, 0.0), task


def test_terminal_setup_script_builds_git_history_and_editor_harness_solves():
    env = TerminalEnv(sandbox="local", harness="editor")
    env.reset(options={"task_id": "git-restore-deleted-file"})
    obs, *_ = env.step('{"tool": "bash", "command": "git -C repo log --oneline | wc -l"}')
    assert obs.startswith("2")
    _, reward, terminated, _, info = env.step(env.gold_action())
    env.close()
    assert reward == 1.0 and terminated and info["verdict"]["reward"] == 1.0


def test_step_rewards_follow_each_verifier_check_and_add_up_to_the_score():
    env = TerminalEnv(sandbox="local", step_rewards=True)
    env.reset(options={"task_id": "fix-script-permissions"})
    rewards = [env.step(cmd)[1] for cmd in ("chmod u+x bin/*.sh", "ls", "chmod 600 secrets.env", "submit")]
    env.close()
    assert rewards == [0.5, 0.0, 0.5, 0.0]


def test_terminal_verifier_ignores_agent_conftest_and_reward_files():
    env = TerminalEnv(sandbox="local")
    env.reset(options={"task_id": "dedupe-emails"})
    hook = PASS_ALL_HOOK
    env.sandbox.write_file("app/conftest.py", hook)  # /app: the task's WORKDIR, where the verifier starts
    env.sandbox.write_file(".codegym/conftest.py", hook)
    env.sandbox.write_file("app/pytest.py", "raise SystemExit(0)\n")
    _, reward, *_, info = env.step("echo 1.0 > reward.txt; mkdir -p /sandbox/logs/verifier\nsubmit")
    env.close()
    assert reward == 0.0 and info["verdict"]["reward"] == 0.0 and info.get("infra_error") is None


def test_testgen_gold_tests_earn_full_reward_and_trivial_tests_are_flagged():
    env = TestGenEnv(sandbox="local")
    obs, _ = env.reset(options={"task_id": EDIT_TASK})
    assert "def test_camel_to_snake_leading_capital" not in env.sandbox.read_file(TEST_FILE).decode()
    _, gold, _, _, info = env.step(env.gold_action())
    assert gold == 1.0 and info["reward_components"]["kill_rate"] == 1.0, info["feedback"]
    env.reset(options={"task_id": EDIT_TASK})
    _, trivial, _, _, info = env.step("```python\ndef test_nothing():\n    assert 1 + 1 == 2\n```")
    assert trivial == 0.0 and "always_pass_tests" in info["audit"]["flags"]
    env.reset(options={"task_id": EDIT_TASK})
    _, broken, _, _, info = env.step(
        "```python\nfrom textkit.case import camel_to_snake\n\n"
        "def test_wrong():\n    assert camel_to_snake('A') == 'nope'\n```"
    )
    assert broken == 0.0 and "always_fail_tests" in info["audit"]["flags"]
    env.reset(options={"task_id": EDIT_TASK})
    _, net, _, _, info = env.step(
        "```python\nimport socket\n\ndef test_x():\n    socket.create_connection(('example.com', 80))\n```"
    )
    env.close()
    assert net == 0.0 and "network_use" in info["audit"]["flags"] and not info["verdict"]["qualified"]


@pytest.mark.parametrize(
    "make",
    [lambda: CodeRepairEnv(sandbox="local"), lambda: TestGenEnv(sandbox="local"), lambda: TerminalEnv(sandbox="local")],
    ids=["repair", "testgen", "terminal"],
)
def test_check_env_passes(make):
    env = make()
    check_env(env, skip_render_check=True)
    env.close()


def test_registered_ids_make_the_three_envs():
    import gymnasium as gym

    import codegym  # noqa: F401

    for env_id, cls in (("CodeRepair-v0", CodeRepairEnv), ("TestGen-v0", TestGenEnv), ("Terminal-v0", TerminalEnv)):
        env = gym.make(env_id)
        assert isinstance(env.unwrapped, cls)
        env.close()


def test_unknown_harness_is_refused_with_the_choices():
    with pytest.raises(
        ValueError, match=r"harness='shell' is not supported by TerminalEnv; use one of \['bash', 'editor'\]"
    ):
        TerminalEnv(harness="shell")
