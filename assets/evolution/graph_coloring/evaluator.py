"""combined_score = mean over graphs of DSatur's colour count / the colours used; 0 for an improper colouring."""

ENTRY = 'run'
PER_INPUT = False
TIMEOUT = 10

def dsatur(n, edges):
    nb = [set() for _ in range(n)]
    for a, b in edges:
        nb[a].add(b)
        nb[b].add(a)
    col = [-1] * n
    for _ in range(n):
        v = max((u for u in range(n) if col[u] < 0), key=lambda u: (len({col[w] for w in nb[u] if col[w] >= 0}), len(nb[u]), -u))
        used = {col[w] for w in nb[v]}
        col[v] = min(c for c in range(n + 1) if c not in used)
    return len(set(col))


def score(outputs, inputs):
    if not (isinstance(outputs, list) and len(outputs) == len(inputs)):
        return {"combined_score": 0.0}
    ratios = []
    for g, col in zip(inputs, outputs):
        if not (isinstance(col, list) and len(col) == g["n"] and all(type(c) is int and c >= 0 for c in col)):
            return {"combined_score": 0.0}
        if any(col[a] == col[b] for a, b in g["edges"]):
            return {"combined_score": 0.0}
        ratios.append(dsatur(g["n"], g["edges"]) / len(set(col)))
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
