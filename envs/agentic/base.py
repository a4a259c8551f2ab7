"""``AgenticEnv``: what CodeRepair, TestGen and Terminal share (sandbox, harnesses, forks).

A family writes ``_prepare(task) -> Path`` (the cached starting tree), ``_prompt(task)``,
``_evaluate(action, code) -> Outcome`` (grade the work dir after a submit) and
``gold_action()``. This class runs the harness loop: parse the action, run tool calls in
the episode's sandbox, grade at ``submit`` (or at once under ``patch``), and auto-submit at
the turn limit (the step is then *truncated*, with the graded reward).
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from codegym.core import CodeEnv, Outcome, Task
from codegym.core.extract import Extracted, extract_code
from codegym.errors import did_you_mean
from codegym.sandbox import Runtime, Sandbox, create

from .audit import audit_commands
from .harness import BASH_HELP, EDITOR_HELP, HARNESSES, PATCH_HELP, parse_bash, parse_editor, run_tool
from .patches import apply_patch

# Starts never wait on anything; closes wait on starts, so they get their own threads
# (one pool for both could fill up with closes waiting on starts queued behind them).
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="codegym-sandbox-start")
_CLOSER = ThreadPoolExecutor(max_workers=2, thread_name_prefix="codegym-sandbox-close")


def _close_when_started(item: Future[Sandbox] | Sandbox) -> None:
    try:
        (item.result() if isinstance(item, Future) else item).close()
    except Exception:  # noqa: BLE001 - a start that failed left nothing to close
        pass


#: Default sandbox limits of an episode (``sandbox={"backend": ..., **limits}`` overrides).
DEFAULT_LIMITS = {"timeout_s": 60.0, "memory_mb": 2048, "max_processes": 256}


class AgenticEnv(CodeEnv):
    """Base of the agentic families; see the module docstring.

    Args:
        tasks: task folders / JSONL / list of dicts replacing the bundled set.
        sandbox: ``"local"``, ``"docker"`` or a dict of ``codegym.sandbox.create`` arguments.
        harness: ``patch``, ``bash`` or ``editor`` (the family's default when None).
        max_turns: steps per episode (1 for ``patch``; 30 for multi-turn harnesses when None).
        command_timeout: seconds per shell command.
        output_limit: characters of tool output shown per step (the rest is cut, with a note).
        step_rewards: multi-turn only: grade after every step and reward the change in
            score (the rewards of an episode then add up to its final score).
        prestart: keep one spare sandbox of the current task started in the background, so
            the next reset or retry of the same task (a GRPO group, a recovery chain) finds
            its sandbox ready; costs one idle sandbox per env.
        render_mode, record_timing, split, difficulty: as :class:`codegym.core.CodeEnv`.

    """

    default_harness: str = "patch"
    supported_harnesses: tuple[str, ...] = HARNESSES

    def __init__(
        self,
        tasks: str | Path | list[dict[str, Any]] | None = None,
        sandbox: str | dict[str, Any] | None = None,
        harness: str | None = None,
        max_turns: int | None = None,
        command_timeout: float = 60.0,
        output_limit: int = 6000,
        step_rewards: bool = False,
        prestart: bool = True,
        render_mode: str | None = None,
        record_timing: bool = False,
        split: str | None = None,
        difficulty: str | None = None,
    ) -> None:
        harness = harness or self.default_harness
        if harness not in self.supported_harnesses:
            raise ValueError(
                f"harness={harness!r} is not supported by {type(self).__name__}; "
                f"use one of {list(self.supported_harnesses)}.{did_you_mean(str(harness), self.supported_harnesses)}"
            )
        self.harness = harness
        if max_turns is None:
            max_turns = 1 if harness == "patch" else 30
        if harness == "patch" and max_turns != 1:
            raise ValueError(
                f"harness='patch' is single-turn: max_turns must be 1, got {max_turns}; "
                "use harness='bash' for more turns"
            )
        super().__init__(
            tasks=tasks,
            sandbox=sandbox,
            render_mode=render_mode,
            max_turns=max_turns,
            record_timing=record_timing,
            split=split,
            difficulty=difficulty,
        )
        self.sandbox_spec = {**DEFAULT_LIMITS, **self.sandbox_spec}
        self.command_timeout = command_timeout
        self.output_limit = output_limit
        self.step_rewards = step_rewards
        self._sandbox: Sandbox | None = None
        self._pending: Future[Sandbox] | None = None
        self._spare: tuple[Path, Future[Sandbox]] | None = None
        self._discarding: list[Future[None]] = []
        self.prestart = prestart
        self._tree: Path | None = None
        #: The current task's own environment (a repository's venv), set by ``_prepare``.
        self._runtime: Runtime | None = None

    # ------------------------------------------------------------------ family hooks
    def _prepare(self, task: Task) -> Path:
        """The cached starting tree of ``task`` (prepared once per machine)."""
        raise NotImplementedError

    def _prompt(self, task: Task) -> str:
        """The task statement (the harness's instructions are added after it)."""
        raise NotImplementedError

    def _evaluate(self, action: str, code: Extracted | None) -> Outcome:
        """Grade the work dir as it is now; ``code`` is the diff under the ``patch`` harness."""
        raise NotImplementedError

    # ------------------------------------------------------------------ episode
    @property
    def sandbox(self) -> Sandbox:
        """The episode's sandbox (started in the background at reset; made on first use after an unpickle)."""
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self._sandbox = pending.result()  # re-raises InfraError from the start
        if self._sandbox is None:
            if self._tree is None:
                raise RuntimeError("call reset() first")
            self._sandbox = self.new_sandbox(self._tree)
        return self._sandbox

    def _start_sandbox_in_background(self) -> None:
        # The first observation needs no sandbox: start it on a thread while the agent
        # reads the prompt and writes its first action (a container start is ~0.5 s).
        assert self._tree is not None
        tree = self._tree
        if self._spare is not None and self._spare[0] == tree:
            self._pending = self._spare[1]
        else:
            if self._spare is not None:
                self._discard(self._spare[1])
            self._pending = _POOL.submit(self.new_sandbox, tree)
        self._spare = (tree, _POOL.submit(self.new_sandbox, tree)) if self.prestart else None

    def _discard(self, item: Future[Sandbox] | Sandbox) -> None:
        """Close a sandbox (or one still starting) in the background; close() waits for it."""
        self._discarding = [f for f in (self._discarding or []) if not f.done()]
        self._discarding.append(_CLOSER.submit(_close_when_started, item))

    def _drop_current(self) -> None:
        """Let go of the episode's sandbox without waiting (a reset must be quick)."""
        if self._pending is not None:
            self._discard(self._pending)
            self._pending = None
        if self._sandbox is not None:
            self._discard(self._sandbox)
            self._sandbox = None

    def new_sandbox(self, tree: Path | None) -> Sandbox:
        """A sandbox of this env's backend and limits whose work dir starts as ``tree``."""
        return create(**self.sandbox_spec, workdir_from=tree, runtime=self._runtime)

    def _start(self, task: Task) -> str:
        self._drop_current()
        self._tree = self._prepare(task)
        self._start_sandbox_in_background()
        assert self.episode is not None
        self.episode.state.update(commands=[], undo={}, score=0.0, harness=self.harness)
        return self._first_observation(task)

    def _first_observation(self, task: Task, preface: str = "") -> str:
        helps = {"patch": PATCH_HELP, "bash": BASH_HELP, "editor": EDITOR_HELP}
        return (
            f"{preface}{self._prompt(task).rstrip()}\n\nThe repository is at /sandbox (your working directory).\n\n"
            f"{helps[self.harness]}\n"
        )

    def restart_attempt(self, preface: str) -> str:
        """Start a new attempt on the same task from its original state (RecoveryWrapper).

        Args:
            preface: text put before the task statement (the last attempt's patch and feedback).

        Returns:
            The new attempt's first observation.

        """
        assert self.episode is not None
        task = self.episode.task
        self._drop_current()
        self._start_sandbox_in_background()
        self.episode.turn, self.episode.done = 0, False
        self.episode.state.update(commands=[], undo={}, score=0.0)
        obs = self._first_observation(task, preface)
        self.episode.last_observation = obs
        return obs

    def _grade(self, action: str) -> Outcome:
        outcome = self._grade_harness(action)
        outcome.verdict.setdefault("harness", self.harness)
        return outcome

    def _grade_harness(self, action: str) -> Outcome:
        assert self.episode is not None
        state = self.episode.state
        if self.harness == "patch":
            code = extract_code(action, "diff")
            if code is None or not code.code.strip():
                return self._floor("no diff found: answer with a unified diff in a ```diff block", "no_patch")
            applied, method, message = apply_patch(self.sandbox, code.code, self.command_timeout)
            if not applied:
                return self._floor(
                    f"the patch did not apply (git apply, 3-way and patch --fuzz all failed):\n{message}",
                    "patch_failed",
                )
            self.episode.state["apply_method"] = method  # "git": the work dir changed by exactly this diff
            outcome = self._submit(action, code)
            outcome.verdict["apply_method"] = method
            return outcome
        parsed = parse_bash(action) if self.harness == "bash" else parse_editor(action)
        if parsed.error:
            return self._intermediate(parsed.error)
        outputs: list[str] = []
        for call in parsed.calls:
            if call.tool == "submit":
                outcome = self._submit(action, None)
                if outputs:
                    outcome.feedback = "\n".join(outputs) + "\n" + outcome.feedback
                return outcome
            outputs.append(run_tool(self.sandbox, call, state, self.command_timeout, self.output_limit))
        return self._intermediate("\n".join(outputs))

    def _intermediate(self, text: str) -> Outcome:
        assert self.episode is not None
        last = self.episode.turn >= self.max_turns
        if last:  # the turn limit auto-submits; the base class marks the step truncated
            outcome = self._submit("", None)
            outcome.terminated = False
            outcome.feedback = f"{text}\n[turn limit reached: the work was submitted as it is]\n{outcome.feedback}"
            return outcome
        reward = 0.0
        components: dict[str, float] = {}
        if self.step_rewards:
            # Graded on a fork, so grading leaves the agent's work dir as it was.
            live = self.sandbox
            self._sandbox = live.fork()
            try:
                graded = self._evaluate_with_audit("", None)
            finally:
                assert self._sandbox is not None
                self._sandbox.close()
                self._sandbox = live
            score = graded.reward
            reward = score - float(self.episode.state.get("score", 0.0))
            self.episode.state["score"] = score
            components = {"score": score, "step_delta": reward}
        return Outcome(reward, components, feedback=text, terminated=False, observation=text)

    def _submit(self, action: str, code: Extracted | None) -> Outcome:
        assert self.episode is not None
        outcome = self._evaluate_with_audit(action, code)
        if self.step_rewards and self.harness != "patch":
            final = outcome.reward
            outcome.reward = final - float(self.episode.state.get("score", 0.0))
            outcome.components = {**outcome.components, "score": final, "step_delta": outcome.reward}
            self.episode.state["score"] = final
        return outcome

    def _evaluate_with_audit(self, action: str, code: Extracted | None) -> Outcome:
        assert self.episode is not None
        outcome = self._evaluate(action, code)
        flags = sorted(set(outcome.audit_flags) | set(audit_commands(self.episode.state.get("commands", []))))
        outcome.audit_flags = flags
        if flags and outcome.infra_error is None:
            # Flagged attempts earn nothing, whatever the neutralised grading said.
            outcome.audit_reward = 0.0
            if outcome.reward > 0:
                outcome.feedback += f"\n[audit: {', '.join(flags)}: this attempt earns no reward]"
            outcome.reward = 0.0
            outcome.token_rewards = []
        return outcome

    def _floor(self, feedback: str, error: str) -> Outcome:
        return Outcome(self.floor_reward, {}, feedback=feedback, verdict={"error": error})

    # ------------------------------------------------------------------ resources
    def _snapshot_resources(self) -> Any:
        return None if self._sandbox is None and self._pending is None else self.sandbox.snapshot()

    def _restore_resources(self, state: Any) -> None:
        if state is None:
            self._drop_current()
        else:
            self.sandbox.restore(state)

    def _fork_resources(self, clone: CodeEnv) -> None:
        assert isinstance(clone, AgenticEnv)
        clone._pending, clone._spare, clone._discarding = None, None, []
        clone._sandbox = None if self._sandbox is None and self._pending is None else self.sandbox.fork()

    def _close_resources(self) -> None:
        self._drop_current()
        if self._spare is not None:
            self._discard(self._spare[1])
            self._spare = None
        discarding, self._discarding = self._discarding or [], []
        for future in discarding:  # close() returns only once nothing is left running
            future.result()
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None

    def _live_attributes(self) -> tuple[str, ...]:
        return ("_sandbox", "_pending", "_spare", "_discarding")
