"""CodeGen-v0: write a program, run it against hidden tests, learn from the result."""

from __future__ import annotations

from typing import Any, ClassVar

from codegym.core import CodeEnv, Outcome, Task, extract_code
from codegym.sandbox import Sandbox, create

from . import faultloc
from .audit import audit
from .compare import show
from .grading import RunResult, prepare, run_attempt
from .loaders import load_apps, load_codecontests, load_humaneval
from .rewards import REWARD_MODES, components, reward
from .tasks import parse_codegen_task

FEEDBACK_LEVELS = ("none", "first", "all")
DEFAULT_TIMEOUT = 4.0


class CodeGenEnv(CodeEnv):
    """Execution-verified code generation (HumanEval-style functions and stdin/stdout programs).

    ## Description
    Each episode is one problem: a Python function to write (signature and docstring) or a
    stdin/stdout program in Python, C++, JavaScript or Rust (the prompt names the language).
    The attempt runs against the problem's hidden tests in a sandbox: all tests of one
    attempt in one sandboxed run of a small runner (``_runner.py``), with a per-test timeout
    and a result per test (pass / fail / error / timeout, expected, got, trace). Expected
    outputs stay on the host, which compares them (rules in ``compare.py``).

    ## Action
    Text: the model's completion. The code is the last fenced block in the task's language
    (else the last untagged block, else the whole text).

    ## Observation
    Text: the prompt; on later turns of a multi-turn episode, the prompt, the previous
    attempt and its test feedback.

    ## Reward
    From ``info["reward_components"]`` (``syntax``, ``execution``, ``pass_rate``,
    ``structure``, ``solved``) by ``reward_mode`` (formulas in ``rewards.py``):
    ``binary = solved``; ``pass_rate = passed / tests``; ``hierarchical = 1 if solved else
    0.1 syntax + 0.2 execution + 0.5 pass_rate + 0.1 structure``. Floor: 0 (no code, bad
    input). ``token_rewards``: Ochiai fault-localisation spans over the attempt's lines
    (Python), a -1 span on the line of a syntax / compile error (any language); formula in
    ``faultloc.py``. ``audit``: flags from ``audit.py``; ``audit_reward`` is 0 when flagged.

    ## Starting state
    A problem drawn with the seed (or picked by ``options``: ``task_id``, ``split``,
    ``difficulty``).

    ## Episode end
    Termination: when every test passes, or after the single attempt when ``max_turns=1``.
    Truncation: at ``max_turns`` attempts without a full pass (multi-turn repair).

    ## Arguments
    ``tasks``, ``sandbox``, ``max_turns``, ``record_timing``, ``split``, ``difficulty``
    (see :class:`CodeEnv`), and:

    * ``reward_mode``: ``"pass_rate"`` (default), ``"binary"`` or ``"hierarchical"``.
    * ``feedback``: how much of the failing tests the feedback shows: ``"none"`` (counts
      only), ``"first"`` (default: the first failing test) or ``"all"``.
    * ``trace``: trace executed lines for token rewards (Python; default True).
    * ``timeout``: seconds per test when the task gives none (default 4).

    ## Version history
    * v0: first version.
    """

    bundled_tasks: ClassVar[str] = "codegen"
    floor_reward: ClassVar[float] = 0.0
    #: ``tasks=`` files of these formats load unchanged (``codegym/core/formats.json``).
    task_formats: ClassVar[dict[str, Any]] = {
        "HumanEval": load_humaneval,
        "MBPP": load_humaneval,
        "CodeContests": load_codecontests,
        "LiveCodeBench": load_codecontests,
        "APPS": load_apps,
    }

    def __init__(
        self,
        tasks: Any = None,
        sandbox: Any = None,
        render_mode: str | None = None,
        max_turns: int = 1,
        record_timing: bool = False,
        split: str | None = None,
        difficulty: str | None = None,
        reward_mode: str = "pass_rate",
        feedback: str = "first",
        trace: bool = True,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode={reward_mode!r} is unknown; use one of {list(REWARD_MODES)}")
        if feedback not in FEEDBACK_LEVELS:
            raise ValueError(f"feedback={feedback!r} is unknown; use one of {list(FEEDBACK_LEVELS)}")
        if timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds per test, got {timeout}")
        super().__init__(tasks, sandbox, render_mode, max_turns, record_timing, split, difficulty)
        self.reward_mode, self.feedback_level, self.trace, self.timeout = reward_mode, feedback, trace, timeout
        self._sandbox: Sandbox | None = None
        self._clean: Any = None

    # ------------------------------------------------------------------ hooks
    def parse_task(self, task: Task) -> Task:
        """Check the CodeGen task format (``tasks.py``)."""
        return parse_codegen_task(task)

    def _start(self, task: Task) -> str:
        return str(task["prompt"])

    def gold_action(self) -> str:
        """The task's gold solution in a fenced block of its language."""
        if self.episode is None:
            raise RuntimeError("call reset() before gold_action()")
        task = self.episode.task
        if not task.get("gold"):
            raise ValueError(f"task {task.id!r} ships no gold solution")
        return f"```{task['language']}\n{task['gold'].rstrip()}\n```"

    def _ensure_sandbox(self) -> Sandbox:
        if self._sandbox is None:
            self._sandbox = create(**self.sandbox_spec)
            self._clean = prepare(self._sandbox)
        else:
            self._sandbox.restore(self._clean)  # every attempt starts from the clean work dir
        return self._sandbox

    def run_code(self, task: Task, code: str, trace: bool | None = None) -> RunResult:
        """Run ``code`` on ``task``'s tests in this env's sandbox (no episode needed)."""
        return run_attempt(
            self._ensure_sandbox(),
            code,
            kind=task["kind"],
            language=task["language"],
            tests=task["tests"],
            entry_point=task.get("entry_point"),
            test_code=task.get("test_code"),
            prelude=task.get("prelude"),
            timeout=float(task.get("timeout") or self.timeout),
            float_tol=task.get("float_tol"),
            trace=self.trace if trace is None else trace,
        )

    def _grade(self, action: str) -> Outcome:
        assert self.episode is not None
        task = self.episode.task
        lang = task["language"]
        found = extract_code(action, lang)
        if found is None:
            comp = {"syntax": 0.0, "execution": 0.0, "pass_rate": 0.0, "structure": 0.0, "solved": 0.0}
            return self._finish(
                Outcome(
                    self.floor_reward,
                    comp,
                    f"No code found: reply with the program in a ```{lang} fenced block.",
                    verdict={"error": "no code"},
                ),
                action,
                None,
            )
        code, start = found.code, found.start
        if task.get("prelude") and _is_body(code):
            # A HumanEval-style completion (the function's body): graded as its harness
            # grades it, the prompt followed by the completion.
            code, start = task["prelude"] + code, start - len(task["prelude"])
        result = self.run_code(task, code)
        comp = components(result, code, task.get("gold"), lang)
        rew = reward(self.reward_mode, comp)
        spans = (
            faultloc.token_rewards(code, start, result)
            if lang == "python"
            else faultloc.error_span(code, start, result.error_line)
            if not result.syntax_ok
            else []
        )
        spans = [(max(a, found.start), b, v) for a, b, v in spans if b > found.start]  # (none in the prompt)
        flags = audit(
            found.code, lang, task["kind"], [t.get("expected", t.get("output")) for t in task["tests"]], result.flags
        )
        outcome = Outcome(
            rew,
            comp,
            self._feedback(task, result),
            spans,
            self._verdict(task, result),
            audit_flags=flags,
            audit_reward=self.floor_reward if flags else rew,
            terminated=bool(comp["solved"]) or self.max_turns == 1,
        )
        return self._finish(outcome, action, found.code)

    def _finish(self, outcome: Outcome, action: str, code: str | None) -> Outcome:
        assert self.episode is not None
        outcome.verdict["turn"] = self.episode.turn
        self.episode.state.setdefault("turns", []).append(
            {
                "turn": self.episode.turn,
                "solved": bool(outcome.components.get("solved")),
                "pass_rate": outcome.components.get("pass_rate", 0.0),
            }
        )
        if not outcome.terminated:
            outcome.observation = (
                f"{self.episode.task['prompt']}\n\nYour previous attempt (turn {self.episode.turn}):\n"
                f"```{self.episode.task['language']}\n{code if code is not None else action}\n```\n"
                f"Test results:\n{outcome.feedback}\nWrite a corrected version."
            )
        return outcome

    # ------------------------------------------------------------------ text for the model
    def _feedback(self, task: Task, result: RunResult) -> str:
        n, passed = len(result.tests), result.passed
        io = task["kind"] == "stdio"  # stdout is shown as text, returned values as repr
        if not result.syntax_ok:
            head = f"Does not compile (line {result.error_line}):\n{result.load_trace.strip()[-1500:]}"
            return head
        lines = [f"{passed}/{n} tests passed."]
        if result.load_error and not result.loaded:
            lines.append(f"The program failed before any test ran: {result.load_trace.strip()[-1500:]}")
            return "\n".join(lines)
        if self.feedback_level == "none" or passed == n:
            return "\n".join(lines)
        failing = [(i, t) for i, t in enumerate(result.tests) if t.status != "pass"]
        for i, t in failing[: 1 if self.feedback_level == "first" else len(failing)]:
            lines.append(f"Test {i + 1} {t.status}: input {show(_input_of(task, i), text=True)}")
            if t.status == "fail" and not task.get("test_code"):  # asserts: the trace names the failing one
                lines.append(f"  expected {show(t.expected, text=io)}\n  got      {show(t.got, text=io)}")
            elif t.trace:
                lines.append("  " + t.trace.strip()[-800:].replace("\n", "\n  "))
        return "\n".join(lines)

    def _verdict(self, task: Task, result: RunResult) -> dict[str, Any]:
        io = task["kind"] == "stdio"
        return {
            "language": task["language"],
            "kind": task["kind"],
            "passed": result.passed,
            "total": len(result.tests),
            "syntax_ok": result.syntax_ok,
            "loaded": result.loaded,
            "error_line": result.error_line,
            "tests": [
                {
                    "status": t.status,
                    "expected": show(t.expected, text=io),
                    "got": show(t.got, text=io),
                    "trace": t.trace[-500:],
                }
                for t in result.tests
            ],
        }

    # ------------------------------------------------------------------ resources
    def _fork_resources(self, clone: CodeEnv) -> None:
        # Attempts always start from a clean work dir, so a fork needs no copy of ours;
        # it makes its own sandbox on its first attempt.
        clone._sandbox, clone._clean = None, None  # type: ignore[attr-defined]

    def _close_resources(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox, self._clean = None, None

    def _live_attributes(self) -> tuple[str, ...]:
        return ("_sandbox", "_clean")


def _input_of(task: Task, i: int) -> Any:
    t = task["tests"][i]
    if "args" in t:
        return "(" + ", ".join(show(a, 80) for a in t["args"]) + ")"
    return t.get("input", "<check(candidate)>")


def _is_body(code: str) -> bool:
    """Whether ``code`` is an indented block (a completion of a prompt), not a program."""
    for line in code.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return line[:1] in (" ", "\t")
    return False
