"""Export the bundled problems to ``assets/codegen/*.jsonl`` (run after editing a batch).

python -m codegym.envs.codegen.problems.build [--out assets/codegen]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from . import fn_easy, fn_extra, fn_hard, fn_medium, fn_more, fn_task, io_tasks, opt, stdio, stdio_more

FUNCTION_BATCHES = (fn_easy, fn_medium, fn_hard, fn_more, fn_extra)
STDIO_BATCHES = (stdio, stdio_more)


def build_all() -> dict[str, list[dict[str, Any]]]:
    """Every bundled task, by output file name."""
    fns = [p for b in FUNCTION_BATCHES for p in b.PROBLEMS]
    ios = [p for b in STDIO_BATCHES for p in b.PROBLEMS]
    return {
        "functions.jsonl": [fn_task(p, i) for i, p in enumerate(fns)],
        "stdio.jsonl": [t for i, p in enumerate(ios) for t in io_tasks(p, i)],
        "../codeopt/problems.jsonl": [opt.opt_task(p, i) for i, p in enumerate(opt.PROBLEMS)],
    }


def main() -> None:
    """Write the JSONL files."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[3] / "assets" / "codegen"))
    out = Path(ap.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    (out.parent / "codeopt").mkdir(exist_ok=True)
    for name, tasks in build_all().items():
        with open(out / name, "w", encoding="utf-8") as f:
            for t in tasks:
                f.write(json.dumps(t, ensure_ascii=False) + "\n")
        print(f"{name}: {len(tasks)} tasks")


if __name__ == "__main__":
    main()
