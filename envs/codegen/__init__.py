"""CodeGen-v0 and CodeOptimization-v0: execution-verified code generation (issue 3).

This package only re-exports; registration lives in ``codegym.registration``.
"""

from .env import CodeGenEnv
from .generate import generate_tasks
from .optimization import CodeOptimizationEnv

__all__ = ["CodeGenEnv", "CodeOptimizationEnv", "generate_tasks"]
