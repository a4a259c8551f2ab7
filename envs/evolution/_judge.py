"""Runs inside the judge's sandbox: the task's evaluator over the child's data, or OpenEvolve's cascade.

The sandbox holds the task folder and never the child's code (``score`` mode), or the
folder and the program (``evaluate`` mode, OpenEvolve folders).

``score``: ``evaluator.score(outputs, inputs)`` over the data the child printed.
``evaluate``: OpenEvolve's cascade: ``evaluate_stage1/2/3`` while the stage passes its
threshold, else ``evaluate``. The metrics dict is printed as one JSON line after a marker.
"""

import importlib.util
import json
import math
import os
import sys

MARK = "\x1e@codegym-metrics "


def numbers(metrics):
    """The numeric metrics of what an evaluator returned (a dict or an EvaluationResult)."""
    metrics = getattr(metrics, "metrics", metrics)
    if not isinstance(metrics, dict):
        raise TypeError(f"the evaluator returned a {type(metrics).__name__}, not a dict of metrics")
    out = {}
    for k, v in metrics.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
            continue
        out[str(k)] = float(v)
    return out


def fitness(metrics):
    """OpenEvolve's reading: combined_score when given, else the mean of the numeric metrics."""
    if "combined_score" in metrics:
        return metrics["combined_score"]
    return sum(metrics.values()) / len(metrics) if metrics else 0.0


def main():
    mode = sys.argv[1]
    out = os.fdopen(os.dup(1), "w")
    sys.path.insert(0, os.getcwd())
    spec = importlib.util.spec_from_file_location("evaluator", "evaluator.py")
    evaluator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(evaluator)
    if mode == "score":
        with open("outputs.json") as f:
            outputs = json.load(f)
        inputs = None
        if os.path.exists("inputs.json"):
            with open("inputs.json") as f:
                inputs = json.load(f)
        metrics = numbers(evaluator.score(outputs, inputs))
        stages = 1
    else:
        thresholds = json.loads(sys.argv[2])
        program = os.path.abspath("program.py")
        staged = [getattr(evaluator, f"evaluate_stage{i}", None) for i in (1, 2, 3)]
        staged = [f for f in staged if f is not None]
        if not staged:
            metrics, stages = numbers(evaluator.evaluate(program)), 1
        else:
            metrics, stages = {}, 0
            for i, stage in enumerate(staged):
                metrics.update(numbers(stage(program)))
                stages += 1
                if i < len(thresholds) and fitness(metrics) < thresholds[i]:
                    break
    out.write(MARK + json.dumps({"metrics": metrics, "stages": stages}) + "\n")
    out.flush()


main()
