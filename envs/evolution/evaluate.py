"""Evaluating one child program in the sandbox, so that it cannot forge its own fitness.

``score`` mode (this project's folders) takes two sandboxed runs: the child runs alone in a
work dir holding only itself, the public inputs and a small harness (``_child.py``), and
prints what its entry returned; then the judge runs the task's ``evaluator.score`` over that
data in a second sandbox that never holds the child's code. A child that prints fake
metrics, writes a score file or reads the evaluator finds nothing to act on: its files die
with its work dir (restored to a clean snapshot before every run), the evaluator and its
hidden answers are elsewhere, and its printed results are only data the judge checks.

``evaluate`` mode (OpenEvolve folders as they are) runs the folder's own ``evaluate`` with
the program in the judge's sandbox, as OpenEvolve does; an evaluator that imports the
program in its own process can be fooled by it there, as under OpenEvolve, and the static
audit flags children that reach for the evaluator or its metrics.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym.sandbox import Sandbox, create

from .tasks import EvolutionTask

HERE = Path(__file__).parent
CHILD_MARK = "\x1e@codegym-result "
JUDGE_MARK = "\x1e@codegym-metrics "
#: Files of a task folder the judge never gets in ``score`` mode (they are not the grader's).
NOT_FOR_JUDGE = {"initial_program.py", "reference_program.py", "task.json", "config.yaml"}

# What a child that reaches for the grader spells (the audit is a flag, the containment is the design).
_READS_GRADER = re.compile(r"evaluator|reference_program|_judge|outputs\.json|/proc/\d+|/proc/self/fd|codegym-metrics")
_FORGES = re.compile(r"combined_score|codegym-result|metrics\.json|score\.txt")


@dataclass
class Evaluation:
    """One child's evaluation.

    Attributes:
        fitness: ``combined_score``, else the mean of the numeric metrics; 0 when it failed.
        metrics: the evaluator's numeric metrics.
        ok: the child ran and was scored.
        flags: audit flags (``timeout``, ``memory_limit``, ``reads_grader``, ``forged_output``,
            ``forges_metrics``, ``crashed``, ``invalid_output``).
        feedback: what went wrong, for the rewriter's next prompt.
        stages: cascade stages run (``evaluate`` mode).

    """

    fitness: float
    metrics: dict[str, float] = field(default_factory=dict)
    ok: bool = True
    flags: list[str] = field(default_factory=list)
    feedback: str = ""
    stages: int = 1


def static_flags(code: str) -> list[str]:
    """Signs in the child's text of reaching for the grader or forging metrics."""
    flags = []
    if _READS_GRADER.search(code):
        flags.append("reads_grader")
    if _FORGES.search(code):
        flags.append("forges_metrics")
    return flags


def fitness_of(metrics: dict[str, float]) -> float:
    """OpenEvolve's reading of a metrics dict: ``combined_score``, else the mean of the metrics."""
    if "combined_score" in metrics:
        return metrics["combined_score"]
    return sum(metrics.values()) / len(metrics) if metrics else 0.0


class Judge:
    """Evaluates programs of one task; holds the two sandboxes (child, judge) with clean snapshots.

    Args:
        task: the task.
        spec: :func:`codegym.sandbox.create` arguments (backend, limits).

    """

    def __init__(self, task: EvolutionTask, spec: dict[str, Any]) -> None:
        self.task = task
        limits = {"timeout_s": task.timeout_s, **spec}
        self.child_box: Sandbox = create(**limits)
        self.judge_box: Sandbox = create(**limits)
        inputs = task.folder / "inputs.json"
        if inputs.is_file():
            self.child_box.copy_in(str(inputs), "inputs.json")
        self.child_box.copy_in(str(HERE / "_child.py"), "_child.py")
        for item in sorted(task.folder.iterdir()):
            if task.mode == "score" and item.name in NOT_FOR_JUDGE:
                continue
            if item.name.startswith((".", "__pycache__")):
                continue
            self.judge_box.copy_in(str(item), item.name)
        self.judge_box.copy_in(str(HERE / "_judge.py"), "_judge.py")
        self._clean = (self.child_box.snapshot(), self.judge_box.snapshot())

    def close(self) -> None:
        """Release both sandboxes."""
        self.child_box.close()
        self.judge_box.close()

    def evaluate(self, code: str) -> Evaluation:
        """Evaluate one program's text."""
        flags = static_flags(code)
        result = self._score_mode(code) if self.task.mode == "score" else self._evaluate_mode(code)
        result.flags = sorted(set(result.flags) | set(flags))
        if {"forged_output"} & set(result.flags):
            result.fitness, result.ok = 0.0, False
        return result

    # ------------------------------------------------------------------ modes
    def _score_mode(self, code: str) -> Evaluation:
        box = self.child_box
        box.restore(self._clean[0])
        box.write_file("program.py", code)
        run = box.run(
            ["python3", "-I", "_child.py", self.task.entry, "1" if self.task.per_input else "0"],
            timeout=self.task.timeout_s,
        )
        flags = _limit_flags(run)
        lines = [ln[len(CHILD_MARK) :] for ln in run.stdout.split("\n") if ln.startswith(CHILD_MARK)]
        try:
            outputs = [json.loads(ln) for ln in lines]
        except json.JSONDecodeError:
            return Evaluation(0.0, ok=False, flags=[*flags, "forged_output"], feedback="the results were not data")
        expected = self._input_count() if self.task.per_input else 1
        if len(outputs) > expected:
            return Evaluation(
                0.0,
                ok=False,
                flags=[*flags, "forged_output"],
                feedback="the program printed result lines of its own; results are what its entry returns",
            )
        if not outputs:
            why = _why(run, self.task.timeout_s)
            return Evaluation(0.0, ok=False, flags=[*flags, "crashed"] if not flags else flags, feedback=why)
        data = outputs if self.task.per_input else outputs[0]
        judged = self._judge("score", json.dumps(data))
        judged.flags += flags
        if flags and judged.ok:
            judged.feedback = (_why(run, self.task.timeout_s) + "\n" + judged.feedback).strip()
        return judged

    def _evaluate_mode(self, code: str) -> Evaluation:
        return self._judge("evaluate", None, code)

    def _judge(self, mode: str, outputs: str | None, program: str | None = None) -> Evaluation:
        box = self.judge_box
        box.restore(self._clean[1])
        if outputs is not None:
            box.write_file("outputs.json", outputs)
        if program is not None:
            box.write_file("program.py", program)
        # The judge gets its own time: the evaluator's checks (all 2^n inputs of a network...) are not the child's.
        run = box.run(
            ["python3", "_judge.py", mode, json.dumps(list(self.task.thresholds))], timeout=self.task.timeout_s
        )
        lines = [ln[len(JUDGE_MARK) :] for ln in run.stdout.split("\n") if ln.startswith(JUDGE_MARK)]
        flags = _limit_flags(run) if program is not None else []
        if len(lines) != 1:
            if program is not None and len(lines) > 1:
                return Evaluation(0.0, ok=False, flags=[*flags, "forged_output"], feedback="metrics printed twice")
            why = _why(run, self.task.timeout_s)
            return Evaluation(0.0, ok=False, flags=flags or ["invalid_output"], feedback=f"the evaluator failed: {why}")
        payload = json.loads(lines[0])
        metrics = {str(k): float(v) for k, v in payload["metrics"].items()}
        text = ", ".join(f"{k}={v:.6g}" for k, v in sorted(metrics.items()))
        return Evaluation(fitness_of(metrics), metrics, True, flags, f"metrics: {text}", int(payload["stages"]))

    def _input_count(self) -> int:
        data = json.loads((self.task.folder / "inputs.json").read_text(encoding="utf-8"))
        return len(data)


def _limit_flags(run: Any) -> list[str]:
    return (["timeout"] if run.timed_out else []) + (["memory_limit"] if run.oom_killed else [])


def _why(run: Any, timeout_s: float) -> str:
    if run.timed_out:
        return f"the program ran past the task's timeout of {timeout_s:g} s and was killed"
    if run.oom_killed:
        return "the program ran out of its memory limit and was killed"
    tail = run.stderr.strip().splitlines()[-6:]
    return "the program failed:\n" + "\n".join(tail) if tail else f"the program exited with status {run.exit_code}"
