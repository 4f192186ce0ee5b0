"""A counting `while` inside a loop's pass, restated as the `for` it is (`whiles_as_fors`), before translation.

`k = 0; while k < m and k <= n: ...; k += 1` counts through `range(0, min(m, n + 1))`; said as a `for`, the
translator reads it as an inner loop (a ragged range where the bounds move with the outer loop) and the
whole nest can be vectorised. The top-level `while` of a function is `vectorize._while`'s.
"""
from __future__ import annotations

import ast
import copy

from perfloop.tools.change.codemods.loops import (
    counter_start,
    is_number_literal,
    names_loaded,
    names_stored,
    while_stop,
)


def whiles_as_fors(body: list[ast.stmt], k: int) -> list[ast.stmt] | None:
    """The loop `body[k]` with each counting `while` in its passes as the `for` it is, or None where it has none.

    `k = 0` then `while k < n_taps and k <= n: acc += taps[k] * x[n - k]; k += 1` is, pass for pass,
    `for k in range(0, min(n_taps, n + 1)): acc += ...`: the counter's start statement goes. Taken only where
    the counter starts at a statement of the same block, is raised by a positive literal as the `while`'s last
    statement and set nowhere else in it, the bounds (`loops.while_stop`) do not change in it, no `continue`
    skips the raise, and nothing else in the loop, or after it, reads the counter (its value past the bound).
    """
    loop = body[k]
    if not isinstance(loop, ast.For) or loop.orelse:
        return None
    new_loop = copy.deepcopy(loop)
    if not _fors_for_whiles(new_loop.body, [*new_loop.body, *body[k + 1:]]):
        return None
    return [*body[:k], ast.fix_missing_locations(new_loop), *body[k + 1:]]


def _fors_for_whiles(stmts: list[ast.stmt], scope: list[ast.stmt]) -> bool:
    """Replace, in place, the counting `while` loops of `stmts` (and of the `for` loops in them); True if any."""
    changed, j = False, 0
    while j < len(stmts):
        stmt = stmts[j]
        if isinstance(stmt, ast.For) and not stmt.orelse:
            changed |= _fors_for_whiles(stmt.body, scope)
        elif isinstance(stmt, ast.While):
            found = _counted_for(stmts, j, scope)
            if found is not None:
                start, stmts[j] = found
                del stmts[start]
                changed, j = True, j - 1
        j += 1
    return changed


def _counted_for(stmts: list[ast.stmt], j: int, scope: list[ast.stmt]) -> tuple[int, ast.For] | None:
    """(index of the counter's start statement, the `for`) for the counting `while` stmts[j], else None."""
    loop = stmts[j]
    last = loop.body[-1] if loop.body else None
    if loop.orelse or not (isinstance(last, ast.AugAssign) and isinstance(last.op, ast.Add)
                           and isinstance(last.target, ast.Name) and is_number_literal(last.value)
                           and ast.literal_eval(last.value) > 0):
        return None
    counter = last.target.id
    stop = while_stop(loop.test, counter)
    if stop is None or counter in names_stored(loop.body[:-1]) or names_loaded(stop) & names_stored(loop.body) \
            or _continues(loop.body):
        return None
    # The last `counter = start` before the loop, with nothing in between that reads or sets the counter.
    found = counter_start(stmts[:j], counter)
    if found is None or counter in names_loaded(found[1]):
        return None
    start = found[0]
    # Nothing in between sets what the start reads (the start moves to the loop), and the counter is read only
    # by the `while` itself, nowhere else.
    if names_loaded(stmts[start].value) & names_stored(stmts[start + 1:j]):
        return None
    elsewhere = [s for s in scope if s is not loop and s is not stmts[start]]
    if any(counter in names_loaded(s) for s in _flat(elsewhere, loop, stmts[start])):
        return None
    # range() takes ints, where a `while` also counts up to a float: only bounds that read as ints
    # (int literals, names, len(), min/max/int of them, + - * of them); a float there would be truncated.
    if not all(_int_shaped(e) for e in (stmts[start].value, stop)):
        return None
    args = [stmts[start].value, stop] + ([] if ast.literal_eval(last.value) == 1 else [last.value])
    rng = ast.Call(func=ast.Name(id="range", ctx=ast.Load()), args=args, keywords=[])
    return start, ast.copy_location(ast.For(target=ast.Name(id=counter, ctx=ast.Store()), iter=rng,
                                            body=loop.body[:-1], orelse=[], type_comment=None), loop)


def _int_shaped(node: ast.AST) -> bool:
    """Whether `node` is built only of int literals, names, `len()`, and `min`/`max`/`int` and + - * of them."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)) and _int_shaped(node.left) and _int_shaped(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        if node.func.id in ("len", "int"):
            return len(node.args) == 1
        return node.func.id in ("min", "max") and all(_int_shaped(a) for a in node.args)
    return False


def _continues(stmts: list[ast.stmt]) -> bool:
    """Whether a `continue` of this loop (not of a loop nested in it) is among `stmts`."""
    for stmt in stmts:
        if isinstance(stmt, ast.Continue):
            return True
        if isinstance(stmt, (ast.If, ast.With, ast.Try)) and _continues(
                [*getattr(stmt, "body", []), *getattr(stmt, "orelse", []), *getattr(stmt, "finalbody", []),
                 *[s for h in getattr(stmt, "handlers", []) for s in h.body]]):
            return True
    return False


def _flat(stmts: list[ast.stmt], loop: ast.stmt, start: ast.stmt) -> list[ast.AST]:
    """Every node of `stmts` outside `loop` and `start` (the statements of nested blocks, their headers)."""
    out: list[ast.AST] = []
    for stmt in stmts:
        if stmt is loop or stmt is start:
            continue
        if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With)):
            inner = [*getattr(stmt, "body", []), *getattr(stmt, "orelse", [])]
            out += [getattr(stmt, attr) for attr in ("iter", "test", "target") if hasattr(stmt, attr)]
            out += [i for i in getattr(stmt, "items", [])]
            out += _flat(inner, loop, start)
        else:
            out.append(stmt)
    return out
