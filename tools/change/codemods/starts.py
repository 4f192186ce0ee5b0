"""The start values a loop's rewrite reads before it (`simple_inits`): `out = []`, `acc = 0.0`, `counts = [0] * k`.

A reduction takes its start from the statement before the loop that sets it; that statement goes when every name it
sets is computed by the new lines. Which starts a reduction accepts is its own rule: sums and products a literal 0 or
1, a running best or a last value set under a test a computed start too (a name, an attribute, an item of one).
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.counts import count_list
from perfloop.tools.change.codemods.loops import is_inf, is_number_literal, literal_chain


def simple_inits(stmt: ast.stmt) -> list[tuple[str, ast.AST]]:
    """(name, value) for `out = []`, `acc = 0.0`, `counts = [0] * k` or `a, b = [], []` statements, and `a = b = 0`
    chains of a number (one immutable value for every name; a chained `[]` would be one list); [] otherwise."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) > 1:
        return [(name, stmt.value) for name in literal_chain(stmt) or []]
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return []
    target, value = stmt.targets[0], stmt.value
    pairs = [(target, value)]
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        pairs = list(zip(target.elts, value.elts))
    found = []
    for name, val in pairs:
        if not isinstance(name, ast.Name):
            return []
        if not ((isinstance(val, ast.List) and not val.elts) or is_number_literal(val) or is_inf(val)
                or count_list(val) or _read_start(val)
                or isinstance(val, ast.Constant) and type(val.value) in (type(None), bool)):
            return []
        found.append((name.id, val))
    return found


def _read_start(node: ast.AST) -> bool:
    """A start value read as it is (`best_row = self.min_row`, `lo = -limit`, `noise = ordered[0]`): a name or
    attribute, negated or not, or an item of one at a literal or a name. Only a reduction that takes a computed start
    (a running best, a last value set under a test) uses it; the others refuse it as before."""
    node = node.operand if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) else node
    if isinstance(node, ast.Subscript) and isinstance(node.slice, (ast.Constant, ast.Name, ast.UnaryOp)) \
            and all(isinstance(n, (ast.Constant, ast.Name, ast.UnaryOp, ast.USub, ast.Load))
                    for n in ast.walk(node.slice)):
        node = node.value
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)
