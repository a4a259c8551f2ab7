"""ProgramEvolution-v0 against OpenEvolve: the same rewriter, the same task, the same budget.

The procedural rewriter (codegym's AST mutator, OpenEvolve's default constants as its
prefix) is served as an OpenAI-compatible chat endpoint on the loopback interface. OpenEvolve
(PyPI ``openevolve``, the ``bench`` extra) runs on the bundled task folder with that endpoint
as its only model (full rewrites); ProgramEvolution-v0 runs on the same folder with
``rewriter="openai:URL"`` (the same endpoint) and OpenEvolve's default constants drawn as
its prefix. Printed: evaluations per minute and best fitness of each, and their ratios.

    .venv/bin/python bench/evolution.py --task function_minimization --iterations 30
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
from codegym.envs.evolution import ProgramEvolutionEnv
from codegym.envs.evolution.ablation import openevolve_prefix
from codegym.envs.evolution.database import Program
from codegym.envs.evolution.prefix import Prefix
from codegym.envs.evolution.rewriter import ProceduralRewriter

ASSETS = Path(__file__).resolve().parent.parent / "assets" / "evolution"
_CURRENT = re.compile(r"# Current Program\n```[a-z]*\n(.*?)\n```", re.S)
_PARENT = re.compile(r"# Parent program[^\n]*\n```python\n(.*?)```", re.S)


class Rewriter(BaseHTTPRequestHandler):
    """POST /v1/chat/completions: the prompt's current program, mutated, in a fenced block."""

    rng = np.random.default_rng(0)
    lock = threading.Lock()
    calls = 0

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        m = _CURRENT.search(prompt) or _PARENT.search(prompt)
        code = m.group(1) + "\n" if m else ""
        with Rewriter.lock:
            Rewriter.calls += 1
            prefix = Prefix(mutation="rewrite", strength=0.3, novelty=0.2)
            child = ProceduralRewriter().rewrite(Program(0, code, 0.0, 0, None, 0, True), prefix, [], Rewriter.rng)
        reply = {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "procedural"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": f"```python\n{child}```"},
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        return


def run_openevolve(task: Path, url: str, iterations: int) -> tuple[float, float]:
    """(seconds, best combined_score) of OpenEvolve on ``task``."""
    from openevolve import run_evolution
    from openevolve.config import Config

    config = Config.from_dict(
        {
            "max_iterations": iterations,
            "random_seed": 0,
            "diff_based_evolution": False,
            "llm": {"models": [{"name": "procedural", "api_base": url, "api_key": "none", "weight": 1.0}]},
            "database": {"num_islands": 5, "population_size": 100},
            "evaluator": {"timeout": 30, "cascade_evaluation": False, "parallel_evaluations": 1},
        }
    )
    out = tempfile.mkdtemp(prefix="oe-bench-")
    started = time.perf_counter()
    try:
        result = run_evolution(
            str(task / "initial_program.py"), str(task / "evaluator.py"), config, iterations, output_dir=out
        )
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return time.perf_counter() - started, float(result.best_program.metrics.get("combined_score", result.best_score))


def run_codegym(task_id: str, url: str, iterations: int) -> tuple[float, float]:
    """(seconds, best fitness) of ProgramEvolution-v0 on ``task_id`` with the endpoint as rewriter."""
    env = ProgramEvolutionEnv(max_turns=iterations, rewriter=f"openai:{url}")
    started = time.perf_counter()
    try:
        env.reset(seed=0, options={"task_id": task_id})
        rng = np.random.default_rng(0)
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(openevolve_prefix(rng))
            done = terminated or truncated
        return time.perf_counter() - started, env.episode.state["db"].best.fitness
    finally:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="function_minimization")
    parser.add_argument("--iterations", type=int, default=30)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Rewriter)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        cg_s, cg_best = run_codegym(args.task, url, args.iterations)
        oe_s, oe_best = run_openevolve(ASSETS / args.task, url, args.iterations)
    finally:
        server.shutdown()
    cg_rate, oe_rate = 60 * args.iterations / cg_s, 60 * args.iterations / oe_s
    print(f"task {args.task}, {args.iterations} evaluations each, rewriter calls {Rewriter.calls}")
    print(f"ProgramEvolution-v0: {cg_rate:7.1f} evaluations/min, best fitness {cg_best:.4f} ({cg_s:.1f} s)")
    print(f"OpenEvolve         : {oe_rate:7.1f} evaluations/min, best fitness {oe_best:.4f} ({oe_s:.1f} s)")
    print(f"ratio: {cg_rate / oe_rate:.2f}x evaluations/min; best fitness {cg_best - oe_best:+.4f}")


if __name__ == "__main__":
    main()
