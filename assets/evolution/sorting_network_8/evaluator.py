"""A network that sorts all 256 inputs of 0s and 1s sorts everything (the 0-1 principle).

combined_score = 19 / comparators for a network that sorts, else 0.
"""

ENTRY = 'run'
PER_INPUT = False
TIMEOUT = 10

N, OPTIMAL = 8, 19


def score(outputs, inputs):
    pairs = outputs
    if not isinstance(pairs, list) or not pairs or len(pairs) > 1000:
        return {"combined_score": 0.0, "sorts": 0.0}
    for p in pairs:
        if not (isinstance(p, list) and len(p) == 2 and all(type(v) is int and 0 <= v < N for v in p) and p[0] != p[1]):
            return {"combined_score": 0.0, "sorts": 0.0}
    sorted_count = 0
    for m in range(2**N):
        v = [(m >> b) & 1 for b in range(N)]
        for i, j in pairs:
            a, b = min(i, j), max(i, j)
            if v[a] > v[b]:
                v[a], v[b] = v[b], v[a]
        sorted_count += v == sorted(v)
    sorts = sorted_count / 2**N
    return {"combined_score": OPTIMAL / len(pairs) if sorts == 1.0 else 0.0, "sorts": sorts, "comparators": float(len(pairs))}

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
