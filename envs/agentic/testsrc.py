"""Test-file surgery with libcst: keep or drop test functions by pytest node id."""

from __future__ import annotations

import libcst as cst


def _names(nodes: list[str], path: str) -> set[str]:
    """``Class.method`` / ``function`` names of the node ids that live in ``path``."""
    names = set()
    for node in nodes:
        parts = node.split("::")
        if parts[0] == path and len(parts) > 1:
            names.add(".".join(p.split("[")[0] for p in parts[1:]))
    return names


class _Filter(cst.CSTTransformer):
    def __init__(self, names: set[str], keep: bool) -> None:
        super().__init__()
        self.names, self.keep = names, keep
        self.cls: list[str] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.cls.append(node.name.value)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef | cst.RemovalSentinel:
        name = self.cls.pop()
        if self.keep and name.startswith("Test") and not any(n.startswith(name + ".") for n in self.names):
            return cst.RemovalSentinel.REMOVE
        return updated

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.FunctionDef | cst.RemovalSentinel:
        qual = ".".join([*self.cls, updated.name.value])
        if not updated.name.value.startswith("test"):
            return updated
        if (qual in self.names) != self.keep:
            return cst.RemovalSentinel.REMOVE
        return updated


def filter_tests(source: str, path: str, nodes: list[str], keep: bool) -> str:
    """``source`` with only (``keep``) or without (not ``keep``) the tests named by ``nodes``."""
    return cst.parse_module(source).visit(_Filter(_names(nodes, path), keep)).code
