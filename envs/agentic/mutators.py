"""Procedural bug injection with libcst (SWE-smith's procedural modifications).

Each mutator names a kind of site (an operator, a literal, a statement, ...) and how to
break it. :func:`sites` counts the sites of every mutator in a module; :func:`mutate`
rewrites exactly one of them, keeping all other formatting and comments, and says which
function it was in (the issue text names the function, never the change).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

_FLIP_BINARY: dict[type, type] = {
    cst.Add: cst.Subtract,
    cst.Subtract: cst.Add,
    cst.Multiply: cst.FloorDivide,
    cst.FloorDivide: cst.Multiply,
    cst.Divide: cst.Multiply,
    cst.Modulo: cst.FloorDivide,
}
_FLIP_COMPARE: dict[type, type] = {
    cst.LessThan: cst.LessThanEqual,
    cst.LessThanEqual: cst.LessThan,
    cst.GreaterThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.GreaterThan,
    cst.Equal: cst.NotEqual,
    cst.NotEqual: cst.Equal,
    cst.In: cst.NotIn,
    cst.NotIn: cst.In,
    cst.Is: cst.IsNot,
    cst.IsNot: cst.Is,
}

MUTATORS = (
    "flip_operator",
    "flip_comparison",
    "flip_boolean",
    "off_by_one",
    "change_constant",
    "drop_condition",
    "drop_statement",
    "swap_arguments",
    "invert_if_else",
    "negate_condition",
)


@dataclass(frozen=True)
class Mutation:
    """One applied mutation: which mutator, which site, in which function, on which line."""

    mutator: str
    site: int
    function: str
    line: int


class _Mutator(cst.CSTTransformer):
    """Walks a module; counts sites of ``kind``, rewrites site number ``target`` (-1: none)."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, kind: str, target: int, module_level: bool = False) -> None:
        super().__init__()
        self.kind, self.target, self.module_level = kind, target, module_level
        self.count = 0
        self.functions: list[str] = []
        self.hit: Mutation | None = None
        self._in_docstring_expr = 0

    # -- bookkeeping
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node.name.value)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self.functions.pop()
        return updated

    def _site(self, node: cst.CSTNode) -> bool:
        """Count a site; True when it is the one to rewrite (inside functions, unless module_level)."""
        if not self.functions and not self.module_level:
            return False
        index = self.count
        self.count += 1
        if index != self.target:
            return False
        line = self.get_metadata(PositionProvider, node).start.line
        self.hit = Mutation(self.kind, index, ".".join(self.functions) or "<module>", line)
        return True

    def _when(self, kind: str, node: cst.CSTNode) -> bool:
        return self.kind == kind and self._site(node)

    # -- operators
    def leave_BinaryOperation(self, original: cst.BinaryOperation, updated: cst.BinaryOperation) -> cst.BaseExpression:
        if type(updated.operator) in _FLIP_BINARY and self._when("flip_operator", original):
            return updated.with_changes(operator=_FLIP_BINARY[type(updated.operator)]())
        return updated

    def leave_Comparison(self, original: cst.Comparison, updated: cst.Comparison) -> cst.BaseExpression:
        first = updated.comparisons[0]
        if type(first.operator) in _FLIP_COMPARE and self._when("flip_comparison", original):
            flipped = first.with_changes(operator=_FLIP_COMPARE[type(first.operator)]())
            return updated.with_changes(comparisons=[flipped, *updated.comparisons[1:]])
        return updated

    def leave_BooleanOperation(
        self, original: cst.BooleanOperation, updated: cst.BooleanOperation
    ) -> cst.BaseExpression:
        if self._when("flip_boolean", original):
            op = cst.Or() if isinstance(updated.operator, cst.And) else cst.And()
            return updated.with_changes(operator=op)
        return updated

    # -- literals
    def leave_Integer(self, original: cst.Integer, updated: cst.Integer) -> cst.BaseExpression:
        if self.kind == "off_by_one" and self._site(original):
            return updated.with_changes(value=str(int(updated.value, 0) + 1))
        if self.kind == "change_constant" and self._site(original):
            value = int(updated.value, 0)
            return updated.with_changes(value=str(0 if value else 1) if value in (0, 1) else str(value * 2))
        return updated

    # -- conditions and statements
    def leave_If(self, original: cst.If, updated: cst.If) -> cst.BaseStatement | cst.RemovalSentinel:
        test = updated.test
        if isinstance(test, cst.BooleanOperation) and self._when("drop_condition", original):
            return updated.with_changes(test=test.left)
        if isinstance(updated.orelse, cst.Else) and self._when("invert_if_else", original):
            return updated.with_changes(body=updated.orelse.body, orelse=updated.orelse.with_changes(body=updated.body))
        if self._when("negate_condition", original):
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                return updated.with_changes(test=test.expression)
            return updated.with_changes(test=cst.UnaryOperation(cst.Not(), _paren(test)))
        return updated

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.RemovalSentinel:
        body = updated.body
        droppable = (
            len(body) == 1
            and isinstance(body[0], (cst.Assign, cst.AugAssign, cst.Expr))
            and not (
                isinstance(body[0], cst.Expr) and isinstance(body[0].value, (cst.SimpleString, cst.ConcatenatedString))
            )
        )
        if droppable and self._when("drop_statement", original):
            return cst.SimpleStatementLine([cst.Pass()])
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        positional = [i for i, a in enumerate(updated.args) if a.keyword is None and not a.star]
        if len(positional) >= 2 and self._when("swap_arguments", original):
            args = list(updated.args)
            i, j = positional[0], positional[1]
            args[i], args[j] = args[j].with_changes(comma=args[i].comma), args[i].with_changes(comma=args[j].comma)
            return updated.with_changes(args=args)
        return updated


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, (cst.Name, cst.Call, cst.Attribute, cst.Subscript)):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _run(source: str, kind: str, target: int, module_level: bool = False) -> tuple[str, _Mutator]:
    wrapper = MetadataWrapper(cst.parse_module(source))
    visitor = _Mutator(kind, target, module_level)
    module = wrapper.visit(visitor)
    return module.code, visitor


def sites(source: str, module_level: bool = False) -> dict[str, int]:
    """How many sites each mutator has in ``source`` (inside functions only, unless ``module_level``).

    ``module_level`` also counts the statements of a script (``codegym validate --mutants``
    mutates stdin/stdout golds written without functions); ``synth-tasks`` keeps to functions,
    whose names its issue texts give.
    """
    return {kind: _run(source, kind, -1, module_level)[1].count for kind in MUTATORS}


def mutate(source: str, kind: str, site: int, module_level: bool = False) -> tuple[str, Mutation] | None:
    """``source`` with site number ``site`` of mutator ``kind`` broken, or None if unchanged."""
    code, visitor = _run(source, kind, site, module_level)
    if visitor.hit is None or code == source:
        return None
    try:
        compile(code, "<mutant>", "exec")
    except SyntaxError:
        return None
    return code, visitor.hit


Candidate = tuple[str, str, int]
Enumerate = Callable[[str], list[Candidate]]
