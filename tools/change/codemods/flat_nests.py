"""Two range loops that append to one list made outside them, restated as one loop over both (`nest_as_one_loop`).

    peaks = []                                   peaks = []
    for y in range(b, h - b):                    for _cell in range(len(range(b, h - b)) * W):
        for x in range(b, w - b):        ->          y = b + _cell // W
            if img[y, x] > t:                        x = b + _cell % W
                peaks.append((y, x))                 if img[y, x] > t:
                                                         peaks.append((y, x))

with `W` written `len(range(b, w - b))`. The rewrite runs under `if len(range(b, h - b)) > 0 and W > 0:`
(`one_loop_guard`), the nest as it was otherwise: the inner bounds are read only where the nest would have read them,
after an outer pass began (`len(grid[0])` of an empty grid is never evaluated), and no array is indexed with the
empty counters of an empty nest (an empty list of rows is a 1-D array, which two indices do not fit).

The cells come in the nest's order (row by row), so the list gets the same values in the same order, and a sum
into a name made before the nest adds them in the same order too; a `continue` of the inner loop ends the cell's
pass either way. The translator reads one loop whose counter's quotient and remainder are the two indices, where
it refuses an append inside an inner loop ("appended ... inside an inner loop").

Taken only for that exact shape: the outer loop's body is the inner loop alone, both are `range` loops of one or
two arguments whose bounds the nest does not change (the inner one's do not read the outer counter: no ragged
rows), the inner body appends to a list bound before the outer loop, and nothing in it ends the nest early
(`break`, `return`, `yield`) or binds either counter. Each name the restated loop adds is one the function does
not use; the counters, left holding the last cell's values, must not be read after the nest (the translator
refuses it).
"""
from __future__ import annotations

import ast
import copy

from perfloop.tools.change.codemods.loops import dotted, name_apart, names_loaded, names_stored

_ENDS = (ast.Break, ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal, ast.FunctionDef,
         ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.Try, ast.With)


def nest_as_one_loop(body: list[ast.stmt], k: int, taken: set[str]) -> list[ast.stmt] | None:
    """The block with its nest `body[k]` said as one loop over both ranges (see the module docstring), or None."""
    outer = body[k]
    if not (isinstance(outer, ast.For) and len(outer.body) == 1 and isinstance(outer.body[0], ast.For)):
        return None
    inner = outer.body[0]
    bounds = [_bounds(loop) for loop in (outer, inner)]
    if None in bounds or outer.orelse or inner.orelse:
        return None
    y, x = outer.target.id, inner.target.id
    stored = names_stored(inner.body)
    if y == x or {y, x} & stored or any(names_loaded(b) & (stored | {y, x}) for pair in bounds for b in pair):
        return None
    if any(isinstance(n, _ENDS) for s in inner.body for n in ast.walk(s)):
        return None
    before = {t.id for s in body[:k] if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)}
    if not any(_appends_to(n, before) for s in inner.body for n in ast.walk(s)):
        return None
    cell = name_apart("_cell", taken | {n.id for n in ast.walk(outer) if isinstance(n, ast.Name)})
    rows, cols = (f"len(range({ast.unparse(lo)}, {ast.unparse(hi)}))" for lo, hi in bounds)
    (y0, _), (x0, _) = bounds
    head = ast.parse(f"for {cell} in range({rows} * {cols}):\n"
                     f"    {y} = {ast.unparse(y0)} + {cell} // {cols}\n"
                     f"    {x} = {ast.unparse(x0)} + {cell} % {cols}\n").body[0]
    head.body += copy.deepcopy(inner.body)
    new = ast.fix_missing_locations(ast.copy_location(head, outer))
    for node in ast.walk(new):
        if hasattr(node, "lineno"):
            node.lineno, node.end_lineno = outer.lineno, outer.end_lineno
    return [*body[:k], new, *body[k + 1:]]


def one_loop_guard(nest: ast.For) -> str:
    """The test the one loop's rewrite of a nest `nest_as_one_loop` restated runs under: both ranges hold something
    (the nest as it was runs otherwise, with the statements the rewrite takes in)."""
    (y0, y1), (x0, x1) = _bounds(nest), _bounds(nest.body[0])
    return f"len(range({ast.unparse(y0)}, {ast.unparse(y1)})) > 0 and len(range({ast.unparse(x0)}, {ast.unparse(x1)})) > 0"


def _bounds(loop: ast.For) -> tuple[ast.expr, ast.expr] | None:
    """(start, stop) of `for v in range(stop)` or `range(start, stop)`, else None."""
    rng = loop.iter
    if isinstance(rng, ast.Call) and dotted(rng.func) == "range" and 1 <= len(rng.args) <= 2 and not rng.keywords \
            and isinstance(loop.target, ast.Name) and not any(isinstance(a, ast.Starred) for a in rng.args):
        return (rng.args[0], rng.args[1]) if len(rng.args) == 2 else (ast.Constant(0), rng.args[0])
    return None


def _appends_to(node: ast.AST, lists: set[str]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id in lists
