"""Runs inside the child's sandbox: import the program, call its entry, print what it returned.

Only data leaves this process (one JSON line per result after a marker); the evaluator,
its hidden answers and the score never enter the child's sandbox, so whatever the child
prints can at most be wrong data, which the judge checks. Arguments: entry name, whether
inputs are given one at a time (``per_input``).
"""

import importlib.util
import json
import math
import os
import sys

MARK = "\x1e@codegym-result "


def plain(x):
    """JSON-able copy of what the program returned (numpy arrays and scalars, tuples)."""
    if hasattr(x, "tolist"):
        x = x.tolist()
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    raise TypeError(f"the program returned a {type(x).__name__}, which is not data")


def main():
    entry, per_input = sys.argv[1], sys.argv[2] == "1"
    out = os.fdopen(os.dup(1), "w")
    spec = importlib.util.spec_from_file_location("program", "program.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    func = getattr(module, entry)
    inputs = None
    if os.path.exists("inputs.json"):
        with open("inputs.json") as f:
            inputs = json.load(f)
    if per_input:
        for item in inputs:
            out.write(MARK + json.dumps(plain(func(item))) + "\n")
            out.flush()
    else:
        result = func(inputs) if inputs is not None else func()
        out.write(MARK + json.dumps(plain(result)) + "\n")
        out.flush()


main()
