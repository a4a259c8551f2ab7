"""CodeGen-v0 and CodeOptimization-v0: execution-verified code generation (issue 3).

This package only re-exports; registration lives in ``codegym.registration``. Modules:

* ``env`` / ``optimization``: the two envs (docstrings state rewards and episode ends);
* ``tasks``: the task format; ``problems/``: the bundled problems, exported by
  ``python -m codegym.envs.codegen.problems.build`` to ``assets/codegen`` and ``assets/codeopt``;
* ``_runner`` (runs inside the sandbox) and ``grading`` (host side): one sandboxed run per
  attempt; ``compare``: float and whitespace rules; ``rewards``: binary / pass_rate /
  hierarchical; ``faultloc``: Ochiai token rewards; ``audit``: reward-hacking flags;
* ``generate``: procedural tasks (``generate_tasks``); ``loaders``: HumanEval / MBPP,
  CodeContests / LiveCodeBench, APPS; ``consensus``: probe-consensus group reward (ERPO
  PCR); ``metrics``: pass@k and Pass@1 / Pass@K of multi-turn repair.

The DHRCL curriculum wrapper is ``codegym.wrappers.curriculum``.
"""

from .env import CodeGenEnv
from .generate import generate_tasks
from .optimization import CodeOptimizationEnv

__all__ = ["CodeGenEnv", "CodeOptimizationEnv", "generate_tasks"]
