"""CodeOptimization-v0: make a slow but correct Python function faster (RLPF-style)."""

from __future__ import annotations

import ast
import json
import random
import re
import secrets
import statistics
from typing import Any, ClassVar

from codegym.core import Outcome, Task, extract_code
from codegym.errors import InfraError, TaskFormatError
from codegym.sandbox import ExecResult

from .audit import audit
from .env import CodeGenEnv
from .grading import RunResult, read_report, run_attempt, runner_stdin

#: Staged reward of programs that are not correct, by how far they got.
R_NO_CODE, R_SYNTAX, R_RUNTIME, R_WRONG_BASE, R_WRONG_SPAN, R_CORRECT = 0.0, 0.05, 0.1, 0.1, 0.2, 0.4
#: Share of the way from baseline to expert cost that earns the full speed reward.
FULL_SPEED_AT = 0.95
#: Costs within this fraction of each other count as ties in the percentile view (noise).
TIE = 0.10
OFFLOAD_RE = re.compile(
    r"\b(?:subprocess|multiprocessing|os\.fork|os\.spawn|os\.system|os\.popen|threading|concurrent\.futures)\b"
)


def references(task: Task) -> list[str]:
    """The reference solutions timed with an attempt: the baseline, the expert, then any others."""
    first = [task["baseline"], task["gold"]]
    return first + [r for r in task.get("references") or [] if r not in first]


def same_program(a: str, b: str) -> bool:
    """Whether two sources are one program (they differ in layout and comments at most).

    One program ties with itself in the percentile view, however its two timings came out:
    on this VM one program's cost, measured twice in one run, differed by up to 22%
    (``bench/optimization_noise.py``, the expert as the attempt).
    """
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


class CodeOptimizationEnv(CodeGenEnv):
    """Optimise a correct but slow Python function; faster earns more.

    ## Description
    Each task shows a correct but slow function (the *baseline*) and asks for a faster
    one with the same behaviour. The attempt must first pass the correctness tests and the
    large optimisation tests (inputs big enough that complexity class shows). Then its cost
    is measured against the baseline and the expert reference in the same sandboxed run.

    Cost measure: perf's hardware instruction counter is unsupported on this machine (a VM
    without a PMU) and callgrind slows Python ~100x, so the cost is CPU time: the CPU clock
    of the code's own worker process, read by the runner from outside that process around
    each call once the worker has left the CPU (the code cannot patch or report it), calls
    interleaved (repeat -> test -> code, the codes' order rotated each repeat) so machine
    drift hits every code alike, a short call (< 2 ms) preceded by an untimed call (else it
    pays for the caches the previous code's long call evicted), each code's cost the sum over
    optimisation tests of the minimum over ``repeats`` (contention only ever adds time, so
    the minimum is the least noisy estimate of the code's own cost); while some code's two
    fastest calls on a test still differ by more than 1%, more rounds run, up to ``3 *
    repeats``.

    No timed call can be answered from a cache: every timed call of a code gets arguments
    none of its calls (in any of its processes) had before, drawn fresh for each grading from
    the bundled problem's generator at the big size (every code gets the same ones, round by
    round; see :func:`perf_inputs`; a problem whose big input is fixed, or a task without a
    generator, is timed once). The arguments travel to the worker inside the timed window,
    and the references' code with them lives only in the runner's secret buffer, which each
    worker zeroes before it loads its code. Every code's results must match the expert's on
    the same arguments (digests compared by the runner), so a fake "done" cannot cut a
    measurement short. The coefficient of variation over repeats is reported as the noise
    (``verdict["noise_cv"]``); it includes the cost differences between the drawn inputs.

    ## Action
    Text: the completion; the code is its last ```python block (or the raw text).

    ## Observation
    Text: the prompt with the baseline code.

    ## Reward
    Staged (``reward_components``: ``syntax``, ``execution``, ``pass_rate``, ``correct``,
    ``speedup``, ``improvement``):

    * no code: 0; syntax error: 0.05; runtime error or timeout: 0.1;
    * wrong answer: ``0.1 + 0.2 * pass_rate``;
    * correct: ``0.4 + 0.6 * min(1, s / 0.95)`` with ``s = clip((t_base - t) / (t_base -
      t_expert), 0, 1)`` (reaching 95% of the way to the expert earns the full reward).

    ``improvement = t_base / t``. ``verdict["percentile"]``: the share of the reference
    solutions (baseline, expert, others) slower than the attempt; ``top50`` / ``top30``:
    the attempt is at least as fast as 50% / 70% of them (costs within 10% count as ties,
    and so does a reference that is the attempt's own program).
    ``token_rewards``: as CodeGen-v0
    (fault localisation while not correct). ``audit``: CodeGen-v0's flags plus
    ``offloads_work`` (subprocesses / threads, whose CPU the worker's clock would miss).

    ## Starting state
    A problem drawn with the seed (``options``: ``task_id``, ``split``, ``difficulty``).

    ## Episode end
    Termination after the attempt (single turn; with ``max_turns=K`` when the attempt
    reaches the full reward). Truncation at ``max_turns``.

    ## Arguments
    As CodeGen-v0 (``reward_mode`` is ignored), plus ``repeats`` (calls per code and test,
    default 5; up to three times as many while the fastest calls disagree) and
    ``perf_timeout`` (seconds per optimisation call, default 20).

    ## Version history
    * v0: first version.
    """

    bundled_tasks: ClassVar[str] = "codeopt"

    def __init__(self, *args: Any, repeats: int = 5, perf_timeout: float = 20.0, **kwargs: Any) -> None:
        if repeats < 1:
            raise ValueError(f"repeats must be >= 1, got {repeats}")
        super().__init__(*args, **kwargs)
        self.repeats, self.perf_timeout = repeats, perf_timeout

    def parse_task(self, task: Task) -> Task:
        """CodeGen format plus ``perf_tests``, ``baseline`` and ``gold`` (the expert)."""
        task = super().parse_task(task)
        for key in ("perf_tests", "baseline", "gold"):
            if key not in task.data:
                raise TaskFormatError(task.source, key, f"missing in optimisation task {task.id!r}")
        if task["kind"] != "function":
            raise TaskFormatError(
                task.source, "kind", f"optimisation tasks are function-call tasks; {task.id!r} is {task['kind']!r}"
            )
        return task

    def _grade(self, action: str) -> Outcome:
        assert self.episode is not None
        task = self.episode.task
        found = extract_code(action, "python")
        comp = {"syntax": 0.0, "execution": 0.0, "pass_rate": 0.0, "correct": 0.0, "speedup": 0.0, "improvement": 0.0}
        if found is None:
            return Outcome(
                R_NO_CODE,
                comp,
                "No code found: reply with the function in a ```python block.",
                verdict={"stage": "no_code"},
            )
        code = found.code
        tests = list(task["tests"]) + list(task["perf_tests"])
        result = run_attempt(
            self._ensure_sandbox(),
            code,
            kind="function",
            language="python",
            tests=tests,
            entry_point=task["entry_point"],
            timeout=self.perf_timeout,
            trace=self.trace,
        )
        flags = audit(code, "python", "function", [t["expected"] for t in tests], result.flags)
        if OFFLOAD_RE.search(code):
            flags.append("offloads_work")
        comp.update(syntax=float(result.syntax_ok), execution=result.executed_rate, pass_rate=result.pass_rate)
        from . import faultloc  # local: only the not-correct path needs it

        spans = faultloc.token_rewards(code, found.start, result)
        if not result.syntax_ok:
            return self._done(
                R_SYNTAX, comp, "Does not compile: " + result.load_trace[-800:], spans, "syntax_error", flags
            )
        if result.passed < len(tests):
            stage, rew = self._failure_stage(result)
            return self._done(rew, comp, self._feedback(task, result), spans, stage, flags)
        comp["correct"] = 1.0
        self._bench_flags = []
        costs, noise = self._measure(task, code)
        flags += self._bench_flags
        t_base, t_exp, t = costs[0], costs[1], costs[-1]
        if t is None:
            return self._done(R_RUNTIME, comp, "The function failed while being timed.", [], "bench_error", flags)
        s = min(1.0, max(0.0, (t_base - t) / (t_base - t_exp))) if t_base > t_exp else float(t <= t_base)
        comp["speedup"] = min(1.0, s / FULL_SPEED_AT)
        comp["improvement"] = t_base / max(t, 1)
        rew = R_CORRECT + (1 - R_CORRECT) * comp["speedup"]
        refs = [
            (c, same_program(code, ref)) for c, ref in zip(costs[:-1], references(task), strict=True) if c is not None
        ]
        slower = sum(c > t for c, _ in refs) / len(refs)
        at_least = sum(same or c >= t * (1 - TIE) for c, same in refs) / len(refs)
        verdict = {
            "stage": "correct",
            "cost_ns": t,
            "baseline_ns": t_base,
            "expert_ns": t_exp,
            "reference_ns": costs[:-1],
            "percentile": slower,
            "top50": at_least >= 0.5,
            "top30": at_least >= 0.7,
            "noise_cv": noise,
            "measure": "worker CPU clock, min of repeats",
        }
        fb = (
            f"Correct. Cost {t / 1e6:.2f} ms vs baseline {t_base / 1e6:.2f} ms and expert {t_exp / 1e6:.2f} ms "
            f"({comp['improvement']:.1f}x faster than the baseline)."
        )
        out = Outcome(
            rew,
            comp,
            fb,
            [],
            verdict,
            audit_flags=sorted(set(flags)),
            audit_reward=self.floor_reward if flags else rew,
            terminated=self.max_turns == 1 or rew >= 1.0,
        )
        return out

    def _failure_stage(self, result: RunResult) -> tuple[str, float]:
        if any(t.status in ("error", "timeout") for t in result.tests) or not result.loaded:
            return "runtime_error", R_RUNTIME
        return "wrong_answer", R_WRONG_BASE + R_WRONG_SPAN * result.pass_rate

    def _done(
        self,
        rew: float,
        comp: dict[str, float],
        feedback: str,
        spans: list[tuple[int, int, float]],
        stage: str,
        flags: list[str],
    ) -> Outcome:
        return Outcome(
            rew,
            comp,
            feedback,
            spans,
            {"stage": stage},
            audit_flags=sorted(set(flags)),
            audit_reward=self.floor_reward if flags else rew,
            terminated=self.max_turns == 1,
        )

    def _measure(self, task: Task, code: str) -> tuple[list[int | None], float]:
        """Costs (ns) of the references then the attempt, and the largest CV over repeats.

        Sets ``self._bench_flags``: ``forged_results`` when the timing run's stdout was
        tampered with, ``harness_exit`` when it died twice while the references alone time
        fine (the attempt's cost is then None). Failing with the references alone too is
        the machine's fault: InfraError.
        """
        self._bench_flags: list[str] = []
        codes = references(task) + [code]
        res, payload, tampered = self._bench(task, codes)
        if not tampered and not _timed_all(payload) and not res.timed_out and not res.oom_killed:
            # The runner or a reference's worker died without a word. The attempt can kill
            # them (same uid), and so can the machine: once more, then judge who it was.
            res, payload, tampered = self._bench(task, codes)
        if tampered:
            self._bench_flags.append("forged_results")
            if not _timed_all(payload):  # the report was forged or duplicated: nothing in it counts
                return [None] * len(codes), 0.0
        elif not _timed_all(payload):
            if _timed_all(self._bench(task, codes[:-1])[1]):  # the references alone are timed fine
                self._bench_flags += [] if res.timed_out else ["harness_exit"]
                return [None] * len(codes), 0.0
            if payload is None:
                raise InfraError(f"the timing run did not report: exit {res.exit_code}, {res.stderr[-300:]}")
            raise InfraError(f"the baseline or the expert of {task.id!r} failed while being timed")
        assert payload is not None
        raw = payload["meta"].get("costs") or []
        costs: list[int | None] = []
        cvs = []
        for per_test in raw:
            if per_test is None:
                costs.append(None)
                continue
            costs.append(int(sum(min(ns) for ns in per_test)))
            totals = [sum(rep) for rep in zip(*per_test, strict=True)]
            if len(totals) > 1 and statistics.mean(totals) > 0:
                cvs.append(statistics.stdev(totals) / statistics.mean(totals))
        return costs, max(cvs) if cvs else 0.0

    def _bench(self, task: Task, codes: list[str]) -> tuple[ExecResult, dict[str, Any] | None, bool]:
        """One timing run of ``codes`` (the expert second) on fresh inputs: the run, its report, tampering."""
        rng = random.Random(secrets.randbits(64))
        inputs = [perf_inputs(task, test, 1 + 2 * 3 * self.repeats, rng) for test in task["perf_tests"]]
        replicas = min([2] + [len(timed) for _, timed in inputs])
        code_bytes = [c.encode() for c in codes]
        calls = [
            [b"" if warm is None else json.dumps(warm).encode()] + [json.dumps(a).encode() for a in timed]
            for warm, timed in inputs
        ]
        spec = {
            "kind": "function",
            "tests": [],
            "timeout": self.perf_timeout,
            "bench": {
                "code_bytes": [len(c) for c in code_bytes],
                "variant_bytes": [[len(a) for a in test] for test in calls],
                "reference": 1,  # the expert: every code's results must match its results
                "entry_point": task["entry_point"],
                "repeats": self.repeats,
                "max_repeats": 3 * self.repeats,
                "replicas": replicas,
                "timeout": self.perf_timeout,
            },
        }
        stdin, nonce = runner_stdin(spec, b"".join(code_bytes) + b"".join(a for test in calls for a in test))
        budget = len(codes) * len(inputs) * 2 * (3 * self.repeats + 1) * self.perf_timeout + 30  # +1: warm-ups
        sb = self._ensure_sandbox()
        res = sb.run(["python3", "-I", ".cg_runner.py"], timeout=budget, stdin=stdin)
        payload, tampered = read_report(res.stdout, nonce)
        return res, payload, tampered


def _timed_all(payload: dict[str, Any] | None) -> bool:
    """The timing run reported costs for the baseline and the expert."""
    if payload is None:
        return False
    costs = payload.get("meta", {}).get("costs") or []
    return len(costs) >= 2 and costs[0] is not None and costs[1] is not None


def _generator(task: Task) -> tuple[Any, int] | None:
    """The bundled problem's input generator and big size, when ``task`` is that problem."""
    from .problems import opt

    if not _GENERATORS:
        _GENERATORS.update({f"opt-{p.id}": p for p in opt.PROBLEMS})
    p = _GENERATORS.get(task.id)
    if p is None or p.baseline != task["baseline"] or len(task["perf_tests"]) != 1:
        return None
    return p.gen, p.big


_GENERATORS: dict[str, Any] = {}


def perf_inputs(task: Task, test: dict[str, Any], count: int, rng: random.Random) -> tuple[Any, list[Any]]:
    """Arguments for timing one perf test: a warm-up call's (or None) and the timed calls'.

    No two timed calls get equal arguments, and the warm-up's differ from all of them: a code
    that caches results by argument (memoisation, a file, another process) gains nothing, as
    every timed call is the first call on its arguments. A bundled problem draws up to
    ``count`` fresh inputs of its big size from its generator (a problem whose big input is
    fixed gets that one input, timed once); any other task times its perf test once, with its
    largest correctness test as the warm-up.
    """
    found = _generator(task)
    seen: set[str] = set()
    drawn: list[Any] = []
    if found is not None:
        gen, big = found
        for _ in range(2 * count):
            args = gen(rng, big)
            key = json.dumps(args)
            if key not in seen:
                seen.add(key)
                drawn.append(args)
                if len(drawn) >= count:
                    break
            elif len(drawn) == 1 and len(seen) == 1 and _ >= 3:
                break  # a fixed big input: the generator gives nothing new
    else:
        drawn = [test["args"]]
        seen = {json.dumps(test["args"])}
    if len(drawn) >= 2:
        return drawn[0], drawn[1:]
    small = [t["args"] for t in task["tests"] if json.dumps(t["args"]) not in seen]
    return (max(small, key=lambda a: len(json.dumps(a))) if small else None), drawn
