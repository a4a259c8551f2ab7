"""combined_score = 34 / length for a valid 8-mark Golomb ruler, else 0."""

ENTRY = 'run'
PER_INPUT = False
TIMEOUT = 10

N, OPTIMAL = 8, 34


def score(outputs, inputs):
    m = outputs
    if not (isinstance(m, list) and len(m) == N and all(type(v) is int and 0 <= v < 10**6 for v in m)):
        return {"combined_score": 0.0, "valid": 0.0}
    m = sorted(m)
    diffs = [b - a for i, a in enumerate(m) for b in m[i + 1 :]]
    if len(set(m)) != N or len(set(diffs)) != len(diffs):
        return {"combined_score": 0.0, "valid": 0.0}
    length = m[-1] - m[0]
    return {"combined_score": OPTIMAL / length, "valid": 1.0, "length": float(length)}

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
