"""combined_score = 1 / (1 + mean squared error) against the hidden formula (kept here, never shown)."""

ENTRY = 'run'
PER_INPUT = False
TIMEOUT = 10

import math


def target(x1, x2):
    return x1 * x1 - 0.5 * x2 + math.sin(x1 * x2)


def score(outputs, inputs):
    if not (isinstance(outputs, list) and len(outputs) == len(inputs)):
        return {"combined_score": 0.0}
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in outputs):
        return {"combined_score": 0.0}
    mse = sum((v - target(*x)) ** 2 for v, x in zip(outputs, inputs)) / len(inputs)
    return {"combined_score": 1.0 / (1.0 + mse), "mse": mse}

def evaluate(program_path):
    """OpenEvolve's entry: run the program in a process of its own and score the data it returned."""
    import json
    import os
    import subprocess
    import sys

    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inputs.json")
    inputs = json.load(open(here)) if os.path.exists(here) else None
    code = (
        "import importlib.util, json, sys\n"
        "s = importlib.util.spec_from_file_location('p', sys.argv[1])\n"
        "m = importlib.util.module_from_spec(s); s.loader.exec_module(m)\n"
        "args = json.loads(sys.stdin.read())\n"
        "f = getattr(m, sys.argv[2])\n"
        "print(json.dumps([f(x) for x in args[0]] if sys.argv[3] == '1' else f(*args)))\n"
    )
    argv = [sys.executable, "-c", code, program_path, ENTRY, "1" if PER_INPUT else "0"]
    try:
        run = subprocess.run(argv, input=json.dumps([] if inputs is None else [inputs]), capture_output=True, text=True, timeout=TIMEOUT)
        return score(json.loads(run.stdout.strip().splitlines()[-1]), inputs)
    except Exception as exc:  # a program that fails scores 0, as OpenEvolve's examples do
        return {"combined_score": 0.0, "error": str(exc)}
