"""Test-file surgery with libcst: keep or drop test functions (or their cases) by pytest node id.

A node id may name one case of a parametrized test (``test_f[a-1]``). SWE-bench often adds
fail-to-pass tests as new cases of an existing function whose other cases pass before and
after the fix; dropping the whole function then hides those pass-to-pass cases and leaves
the gold test patch no context to apply to. So a drop removes only the named cases from a
literal ``@pytest.mark.parametrize`` list, their ids computed as pytest computes them
(:func:`case_ids`). Where the ids cannot be known from the text (stacked decorators,
values that are not literals, ``ids=`` from a function), the whole function goes, as
before: hiding too much is safe, hiding too little would show the answer.
"""

from __future__ import annotations

import ast
from collections import Counter, defaultdict
from dataclasses import dataclass

import libcst as cst


def _names(nodes: list[str], path: str) -> dict[str, set[str | None]]:
    """``Class.method`` / ``function`` -> its case ids named in ``nodes`` (None: the whole test)."""
    names: dict[str, set[str | None]] = defaultdict(set)
    for node in nodes:
        parts = node.split("::")
        if parts[0] != path or len(parts) < 2:
            continue
        head, bracket, case = parts[-1].partition("[")
        qual = ".".join([*(p.split("[")[0] for p in parts[1:-1]), head])
        names[qual].add(case[:-1] if bracket and case.endswith("]") else None)
    return names


@dataclass
class _Parametrize:
    decorator: cst.Decorator
    values: cst.List | cst.Tuple
    ids: list[str]
    exact: bool  # every value was a literal: the ids are pytest's for sure


def _literal(node: cst.CSTNode) -> object:
    """The value of a literal expression; ValueError when it is not one."""
    return ast.literal_eval(cst.Module([]).code_for_node(node))


def _value_id(value: object) -> str | None:
    """The id pytest gives one parameter value (``_idval_from_value``), None for argname+index."""
    if isinstance(value, str):
        return value.encode("unicode_escape").decode("ascii")
    if isinstance(value, bytes):
        return value.decode("ascii", "backslashreplace")
    if value is None or isinstance(value, (bool, int, float, complex)):
        return str(value)
    return None


def _is_parametrize(dec: cst.Decorator) -> bool:
    call = dec.decorator
    if not isinstance(call, cst.Call):
        return False
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    return name == "parametrize"


def case_ids(dec: cst.Decorator) -> _Parametrize | None:
    """The ids pytest gives the cases of one ``parametrize`` decorator, or None if unknowable."""
    call = dec.decorator
    assert isinstance(call, cst.Call)
    pos = [a for a in call.args if a.keyword is None]
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    argnames_node = pos[0].value if pos else kw.get("argnames")
    values = pos[1].value if len(pos) > 1 else kw.get("argvalues")
    if argnames_node is None or not isinstance(values, (cst.List, cst.Tuple)) or set(kw) - {"ids", "argnames"}:
        return None
    try:
        argnames = _literal(argnames_node)
        given_ids = _literal(kw["ids"]) if "ids" in kw else None
    except (ValueError, SyntaxError, TypeError):
        return None
    if isinstance(argnames, str):
        argnames = [n.strip() for n in argnames.split(",") if n.strip()]
    if not isinstance(argnames, (list, tuple)) or not argnames:
        return None
    ids: list[str] = []
    exact = True
    for index, element in enumerate(values.elements):
        node, explicit = element.value, None
        if isinstance(node, cst.Call) and _call_name(node) == "param":
            explicit = next((a.value for a in node.args if a.keyword and a.keyword.value == "id"), None)
            parts = [a.value for a in node.args if a.keyword is None]
        elif len(argnames) == 1:
            parts = [node]
        elif isinstance(node, (cst.Tuple, cst.List)):
            parts = [e.value for e in node.elements]
        else:
            return None
        if len(parts) != len(argnames):
            return None
        try:
            if explicit is not None:
                ids.append(str(_literal(explicit)))
                continue
            if isinstance(given_ids, (list, tuple)) and index < len(given_ids) and given_ids[index] is not None:
                ids.append(str(given_ids[index]))
                continue
            one = [_value_id(_literal(p)) for p in parts]
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            one, exact = [None] * len(parts), False  # a name or a call: pytest may use its __name__
        ids.append("-".join(i if i is not None else f"{n}{index}" for i, n in zip(one, argnames, strict=True)))
    return _Parametrize(dec, values, _unique(ids), exact)


def _call_name(call: cst.Call) -> str:
    func = call.func
    return func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")


def _unique(ids: list[str]) -> list[str]:
    """The suffixes pytest gives duplicate ids (``make_unique_parameterset_ids``)."""
    counts = Counter(ids)
    if len(counts) == len(ids):
        return ids
    taken, suffixes = set(ids), defaultdict(int)
    out = []
    for one in ids:
        if counts[one] > 1:
            sep = "_" if one and one[-1].isdigit() else ""
            new = f"{one}{sep}{suffixes[one]}"
            while new in taken:
                suffixes[one] += 1
                new = f"{one}{sep}{suffixes[one]}"
            suffixes[one] += 1
            one = new
        out.append(one)
    return out


def _drop_cases(func: cst.FunctionDef, cases: set[str]) -> cst.FunctionDef | cst.RemovalSentinel:
    """``func`` without the named parametrized cases; removed whole when that cannot be done exactly."""
    decorators = [d for d in func.decorators if _is_parametrize(d)]
    spec = case_ids(decorators[0]) if len(decorators) == 1 else None
    if spec is None:
        return cst.RemovalSentinel.REMOVE
    call = spec.decorator.decorator
    assert isinstance(call, cst.Call)
    if any(a.keyword and a.keyword.value == "ids" for a in call.args):
        return cst.RemovalSentinel.REMOVE  # an ids= list would have to shrink with the values
    kept = [e for e, i in zip(spec.values.elements, spec.ids, strict=True) if i not in cases]
    if len(kept) == len(spec.ids):
        # The named cases are not in this file yet (the test patch adds them), unless the ids
        # were guessed: then they may be here under other ids, and must not be shown.
        return func if spec.exact else cst.RemovalSentinel.REMOVE
    if not kept:
        return cst.RemovalSentinel.REMOVE
    if isinstance(spec.values, cst.Tuple) and len(kept) == 1:
        kept = [kept[0].with_changes(comma=cst.Comma())]  # ``(x)`` is not a tuple; ``(x,)`` is
    new_values = spec.values.with_changes(elements=kept)
    args = [a.with_changes(value=new_values) if a.value is spec.values else a for a in call.args]
    new_dec = spec.decorator.with_changes(decorator=call.with_changes(args=args))
    return func.with_changes(decorators=[new_dec if d is spec.decorator else d for d in func.decorators])


class _Filter(cst.CSTTransformer):
    def __init__(self, names: dict[str, set[str | None]], keep: bool) -> None:
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
        if self.keep:
            return updated if qual in self.names else cst.RemovalSentinel.REMOVE
        if qual not in self.names:
            return updated
        cases = self.names[qual]
        if None in cases:
            return cst.RemovalSentinel.REMOVE
        return _drop_cases(updated, {c for c in cases if c is not None})


def filter_tests(source: str, path: str, nodes: list[str], keep: bool) -> str:
    """``source`` with only (``keep``) or without (not ``keep``) the tests named by ``nodes``.

    Keeping keeps each named function whole (its other cases pass on the base and the fix
    alike); dropping drops only the named cases of a parametrized function where their ids
    can be read from the text (see the module docstring).
    """
    return cst.parse_module(source).visit(_Filter(_names(nodes, path), keep)).code
