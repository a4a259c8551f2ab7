"""combined_score = sum of radii / 2.635 for 26 circles inside the unit square that do not overlap, else 0."""

ENTRY = 'run'
PER_INPUT = False
TIMEOUT = 20

N, BEST_KNOWN = 26, 2.635


def score(outputs, inputs):
    c = outputs
    if not (isinstance(c, list) and len(c) == N):
        return {"combined_score": 0.0, "valid": 0.0}
    if not all(isinstance(t, list) and len(t) == 3 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in t) for t in c):
        return {"combined_score": 0.0, "valid": 0.0}
    for x, y, r in c:
        if not (r > 0 and x - r >= -1e-12 and y - r >= -1e-12 and x + r <= 1 + 1e-12 and y + r <= 1 + 1e-12):
            return {"combined_score": 0.0, "valid": 0.0}
    for i in range(N):
        for j in range(i + 1, N):
            (x1, y1, r1), (x2, y2, r2) = c[i], c[j]
            if ((x1 - x2) ** 2 + (y1 - y2) ** 2) ** 0.5 < r1 + r2 - 1e-12:
                return {"combined_score": 0.0, "valid": 0.0}
    total = sum(t[2] for t in c)
    return {"combined_score": total / BEST_KNOWN, "valid": 1.0, "sum_radii": total}

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
