"""combined_score = size / 20 for a valid cap set in F_3^4, else 0."""

ENTRY = 'run'
PER_INPUT = False
TIMEOUT = 10

N, MAXIMUM = 4, 20


def score(outputs, inputs):
    pts = outputs
    if not (isinstance(pts, list) and 0 < len(pts) <= 81):
        return {"combined_score": 0.0, "valid": 0.0}
    if not all(isinstance(p, list) and len(p) == N and all(type(v) is int and 0 <= v < 3 for v in p) for p in pts):
        return {"combined_score": 0.0, "valid": 0.0}
    seen = {tuple(p) for p in pts}
    if len(seen) != len(pts):
        return {"combined_score": 0.0, "valid": 0.0}
    pts = sorted(seen)
    for i, a in enumerate(pts):
        for b in pts[i + 1 :]:
            c = tuple((-x - y) % 3 for x, y in zip(a, b))
            if c in seen and c != a and c != b:
                return {"combined_score": 0.0, "valid": 0.0}
    return {"combined_score": len(pts) / MAXIMUM, "valid": 1.0, "size": float(len(pts))}

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
