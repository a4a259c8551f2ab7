"""Agentic sandbox families: CodeRepair-v0, TestGen-v0, Terminal-v0 (registered in codegym.registration)."""

from .repair import CodeRepairEnv
from .terminal import TerminalEnv
from .testgen import TestGenEnv

__all__ = ["CodeRepairEnv", "TerminalEnv", "TestGenEnv"]
