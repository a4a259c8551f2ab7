"""Terminal-v0: Terminal-Bench style shell tasks checked by a hidden verifier."""

from __future__ import annotations

import base64
import io
import json
import secrets
import shutil
import tarfile
from pathlib import Path

from codegym.core import Outcome, Task
from codegym.core.extract import Extracted
from codegym.errors import InfraError, TaskFormatError
from codegym.sandbox import create

from .base import AgenticEnv
from .pytest_report import PLUGIN, parse_report
from .repairtask import TEST_TIMEOUT
from .repo import STATE_DIR, cached_tree, tree_key

VERIFIER_INI = "[pytest]\naddopts =\n"


class TerminalEnv(AgenticEnv):
    """Do a job in a shell (files, text, git, builds, configs, packaging, data wrangling).

    ## Description
    Terminal-Bench 2 style tasks: ``instruction.md``, ``task.toml``, ``environment/`` (the
    starting files; an optional ``environment/setup.sh`` runs once, sandboxed, when the
    task is prepared, e.g. to build a git history), hidden ``tests/`` (the verifier) and
    ``solution/solve.sh`` (gold). Bundled: tasks written for codegym in ``assets/terminal``.

    ## Action
    ``harness="bash"`` (default): one command per step, ``submit`` to finish.
    ``"editor"``: JSON tool calls (view / create / str_replace / insert / undo_edit / bash / submit).

    ## Observation
    The instruction and the harness help; then each command's output (capped, with a note).

    ## Reward
    After the episode the hidden tests are copied into a fresh random folder and the
    verifier runs in its own ``run`` (every process the agent started is dead by then; its
    conftest files, ``pytest.ini`` and ``PYTHONPATH`` are not used: ``python -P`` with the
    verifier folder as rootdir and conftest cut-off)::

        reward = checks_passed / checks_total       (tests/test_*.py, read from the report plugin)
        reward = the number the verifier writes to $CODEGYM_REWARD_FILE, clipped to [0, 1]   (tests/test.sh)
        reward = 0                                   if info["audit"]["flags"] is not empty

    ## Starting state
    The task's prepared files at ``/sandbox`` (a cached copy-on-write layer).

    ## Episode end
    Termination: ``submit``. Truncation: ``max_turns`` reached (the work is graded as it is).

    ## Arguments
    See :class:`AgenticEnv` (``harness`` is ``bash`` or ``editor`` here).

    ## Version history
    * v0: initial version.
    """

    bundled_tasks = "terminal"
    default_harness = "bash"
    supported_harnesses = ("bash", "editor")

    def parse_task(self, task: Task) -> Task:
        """Check the task folder: environment/, tests/ with a verifier, solution/solve.sh."""
        if task.path is None:
            raise TaskFormatError(
                task.source,
                "path",
                "terminal tasks are folders (instruction.md, task.toml, environment/, tests/, solution/)",
            )
        tests = task.path / "tests"
        if not tests.is_dir() or not (list(tests.glob("test_*.py")) or (tests / "test.sh").is_file()):
            raise TaskFormatError(
                str(task.path), "tests", "needs test_*.py (pytest checks) or test.sh (writes $CODEGYM_REWARD_FILE)"
            )
        if not (task.path / "solution" / "solve.sh").is_file():
            raise TaskFormatError(str(task.path), "solution/solve.sh", "missing; every task ships its gold solution")
        if not task.get("instruction"):
            raise TaskFormatError(str(task.path), "instruction.md", "missing or empty")
        return task

    def _prepare(self, task: Task) -> Path:
        assert task.path is not None
        env_dir = task.path / "environment"
        backend = self.sandbox_spec.get("backend")

        def build(tree: Path) -> None:
            if env_dir.is_dir():
                shutil.copytree(env_dir, tree, dirs_exist_ok=True, symlinks=True)
            setup = tree / "setup.sh"
            if setup.is_file():
                _run_setup(tree, backend)

        return cached_tree(f"terminal-{task.id}-{tree_key(task.id, env_dir)}", build)

    def _prompt(self, task: Task) -> str:
        return str(task["instruction"]).strip()

    def _evaluate(self, action: str, code: Extracted | None) -> Outcome:
        task = self.episode.task if self.episode else None
        assert task is not None and task.path is not None
        sb = self.sandbox
        folder = f"{STATE_DIR}/v{secrets.token_hex(8)}"
        sb.copy_in(str(task.path / "tests"), folder)
        timeout = float(task.get("verifier_timeout", TEST_TIMEOUT))
        if (task.path / "tests" / "test.sh").is_file() and not list((task.path / "tests").glob("test_*.py")):
            return self._reward_file(folder, timeout)
        report = f"{folder}/r{secrets.token_hex(6)}.json"
        sb.write_file(f"{folder}/conftest.py", PLUGIN)
        sb.write_file(f"{folder}/pytest.ini", VERIFIER_INI)
        cmd = (
            f"cd /sandbox/{folder} && CODEGYM_REPORT_PATH=/sandbox/{report} python -P -s -m pytest -q "
            f"-c pytest.ini --rootdir . --confcutdir . -p no:cacheprovider ."
        )
        res = sb.run(cmd, timeout=timeout)
        try:
            raw: bytes | None = sb.read_file(report)
        except Exception:  # noqa: BLE001 - no report is missing evidence: graded as failure
            raw = None
        sb.run(["rm", "-rf", f"/sandbox/{folder}"], timeout=30)
        results = parse_report(raw, res.exit_code, res.timed_out)
        checks = {n.split("::")[-1]: results.passed(n) for n in sorted(results.outcomes)}
        total = len(checks)
        passed = sum(checks.values())
        reward = passed / total if total and results.valid else 0.0
        lines = [f"verifier: {passed}/{total} checks pass"]
        failing = [n for n, ok in checks.items() if not ok]
        if failing:
            lines.append("failing: " + ", ".join(failing[:10]))
            for node in sorted(results.messages)[:3]:
                lines.append(f"  {node.split('::')[-1]}: {(results.messages[node].splitlines() or [''])[0][:200]}")
        if not results.valid:
            lines.append(f"the verifier gave no valid results: {results.problem}")
        return Outcome(
            reward,
            {"checks": reward, "solved": 1.0 if reward == 1.0 else 0.0},
            feedback="\n".join(lines),
            verdict={
                "checks": checks,
                "passed": passed,
                "total": total,
                "valid": results.valid,
                "solved": reward == 1.0,
            },
        )

    def _reward_file(self, folder: str, timeout: float) -> Outcome:
        sb = self.sandbox
        reward_file = f"{folder}/reward-{secrets.token_hex(6)}.txt"
        res = sb.run(
            f"bash /sandbox/{folder}/test.sh",
            timeout=timeout,
            env={"CODEGYM_REWARD_FILE": f"/sandbox/{reward_file}", "CODEGYM_TESTS": f"/sandbox/{folder}"},
        )
        try:
            value = float(sb.read_file(reward_file).decode().strip())
            reward = min(1.0, max(0.0, value)) if value == value else 0.0
        except Exception:  # noqa: BLE001 - no or unreadable reward file: missing evidence
            reward = 0.0
        sb.run(["rm", "-rf", f"/sandbox/{folder}"], timeout=30)
        return Outcome(
            reward,
            {"checks": reward, "solved": 1.0 if reward == 1.0 else 0.0},
            feedback=f"verifier reward {reward:.3f}\n{(res.stdout + res.stderr)[-1000:]}",
            verdict={"reward_file": reward, "exit_code": res.exit_code, "solved": reward == 1.0},
        )

    def gold_action(self) -> str:
        """Runs ``solution/solve.sh`` and submits, under the current harness."""
        task = self.episode.task if self.episode else None
        if task is None or task.path is None:
            raise RuntimeError("call reset() first")
        script = (task.path / "solution" / "solve.sh").read_text()
        if self.harness == "bash":
            return f"````bash\n{script.rstrip()}\nsubmit\n````\n"
        return json.dumps([{"tool": "bash", "command": script}, {"tool": "submit"}])


def _run_setup(tree: Path, backend: str | None) -> None:
    """Run ``setup.sh`` of a task's environment in a sandbox; ``tree`` becomes the result."""
    with create(backend, workdir_from=tree, timeout_s=120, max_output_bytes=64 * 2**20) as sb:
        res = sb.run(
            "bash setup.sh >&2 && rm -f setup.sh && tar -cf - . | base64 -w0",
            env={
                "GIT_AUTHOR_NAME": "codegym",
                "GIT_AUTHOR_EMAIL": "codegym@localhost",
                "GIT_COMMITTER_NAME": "codegym",
                "GIT_COMMITTER_EMAIL": "codegym@localhost",
                "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
                "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
            },
        )
        if not res.ok or res.output_truncated:
            raise InfraError(f"environment/setup.sh failed (exit {res.exit_code}): {res.stderr[-1000:]}")
    shutil.rmtree(tree)
    tree.mkdir()
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(res.stdout)), mode="r:") as tar:
        for member in tar.getmembers():  # our own tar, but never trust paths blindly
            name = Path(member.name)
            if name.is_absolute() or ".." in name.parts or member.isdev():
                raise InfraError(f"environment/setup.sh produced an unsafe path {member.name!r}")
        tar.extractall(tree)
