"""combined_score = mean over instances of value / optimal value (0 for an instance over capacity)."""

ENTRY = 'run'
PER_INPUT = False
TIMEOUT = 10

def optimum(k):
    best = [0] * (k["capacity"] + 1)
    for w, v in zip(k["weights"], k["values"]):
        for c in range(k["capacity"], w - 1, -1):
            best[c] = max(best[c], best[c - w] + v)
    return best[-1]


def score(outputs, inputs):
    if not (isinstance(outputs, list) and len(outputs) == len(inputs)):
        return {"combined_score": 0.0}
    ratios = []
    for k, taken in zip(inputs, outputs):
        n = len(k["weights"])
        ok = isinstance(taken, list) and all(type(i) is int and 0 <= i < n for i in taken) and len(set(taken)) == len(taken)
        if not ok or sum(k["weights"][i] for i in taken) > k["capacity"]:
            ratios.append(0.0)
            continue
        ratios.append(sum(k["values"][i] for i in taken) / optimum(k))
    return {"combined_score": sum(ratios) / len(ratios)}

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
