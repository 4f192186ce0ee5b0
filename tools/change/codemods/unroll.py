"""Unroll a short loop over values written in the code, inside another loop, so the outer loop can be vectorised.

Image and grid code walks a neighbourhood with a loop over offsets written out:

    for x in range(w):
        s = 0
        for dy in (-1, 0, 1):
            r = cell[min(max(y + dy, 0), h - 1)]
            for dx in (-1, 0, 1):
                s += r[min(max(x + dx, 0), w - 1)]

The vectoriser refuses the three-pass loops (numpy's cost per call is more than a few passes of Python), and with
them the pixel loop that holds them. Written out, the pixel loop's pass is straight-line code: one copy of the
body per value, in the loop's order, each with the value in place of the loop's name. Additions stay in the loop's
order, so results are the same bits. A row read into a name (`r = cell[...]`) and then only indexed is read in
place (`cell[...][...]`): the translator indexes the whole array once where it refused a loop value indexed.

Unrolled only where it cannot change what runs (each reason, where refused, is the loop's own: nothing is said, the
vectoriser's refusal of the loop stands):
- a `for` loop inside another loop, over a tuple or list literal of at most MAX_VALUES constants (numbers,
  strings, None, booleans, and tuples of them matching a tuple target);
- its body holds no `break`, `continue`, `return`, `yield`, `else`, function or class, and never sets the loop's
  names; the loop's names, and a row name read in place, are not read anywhere else in the function (after the loop
  they would hold the last value);
- at most MAX_STATEMENTS statements once written out (loops inside are unrolled first).
A row name is read in place only where its value is `name[index]`, nothing between sets the names it reads or
writes into `name`, and every later read of it in that copy is `row[...]`.
"""
from __future__ import annotations

import ast
import copy

from perfloop.tools.change.codemods.blocks import block_at
from perfloop.tools.change.codemods.loops import names_loaded, names_stored
from perfloop.tools.change.codemods.restate import replace_names

MAX_VALUES = 9
"""Values a loop may run over to be written out (a 3x3 neighbourhood, 8 neighbours, a short kernel)."""
MAX_STATEMENTS = 96
"""Statements a loop may become once written out."""


class Unrolled:
    """What unrolling did: a note per loop written out (by its first line), and the paths of the blocks whose
    statements moved (the vectoriser leaves them alone: a rewrite's place in them would not be the text's)."""

    def __init__(self, notes: dict[int, str], moved: frozenset[tuple[int, ...]]) -> None:
        self.notes, self.moved = notes, moved

    def inside_moved(self, path: tuple[int, ...]) -> bool:
        return any(path[:len(m)] == m for m in self.moved)

    def annotate(self, fn: ast.FunctionDef, rewrites: list) -> None:
        """Add to each rewrite the notes of the loops written out inside the statement it replaces."""
        for rewrite in rewrites:
            stmt = block_at(fn.body, rewrite.block)[rewrite.end]
            rewrite.notes += [note for line, note in self.notes.items() if stmt.lineno <= line <= stmt.end_lineno]


def unroll_literal_loops(fn: ast.FunctionDef) -> tuple[ast.FunctionDef, Unrolled]:
    """`fn` (a copy where anything changed) with each short literal loop inside another loop written out."""
    notes: dict[int, str] = {}
    new = copy.deepcopy(fn)
    outside = _loaded_outside(new)

    def walk(body: list[ast.stmt], depth: int) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            if isinstance(stmt, (ast.For, ast.While)):
                stmt.body = walk(stmt.body, depth + 1)
            elif isinstance(stmt, ast.If):
                stmt.body, stmt.orelse = walk(stmt.body, depth), walk(stmt.orelse, depth)
            copies = _written_out(stmt, outside) if depth > 0 and isinstance(stmt, ast.For) else None
            if copies is None:
                out.append(stmt)
                continue
            notes[stmt.lineno] = (f"line {stmt.lineno}: the loop over {len(stmt.iter.elts)} values written in the code "
                                  "is written out, one copy of its body per value in the loop's order")
            out += copies
        return out

    new.body = walk(new.body, 0)
    return (new, Unrolled(notes, _moved(fn.body, new.body, ()))) if notes else (fn, Unrolled({}, frozenset()))


def _moved(before: list[ast.stmt], after: list[ast.stmt], path: tuple[int, ...]) -> frozenset[tuple[int, ...]]:
    """The paths (loop bodies, as `blocks.block_at` walks them) of the blocks of `after` whose statements are not
    where `before` has them."""
    if len(before) != len(after):
        return frozenset({path})
    moved: frozenset[tuple[int, ...]] = frozenset()
    for k, (old, new) in enumerate(zip(before, after)):
        if isinstance(old, (ast.For, ast.While)):
            moved |= _moved(old.body, new.body, (*path, k))
    return moved


def _loaded_outside(fn: ast.FunctionDef) -> dict[int, set[str]]:
    """For each `for` loop of `fn` (by id), the names read anywhere in `fn` outside it."""
    everywhere: dict[str, int] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            everywhere[node.id] = everywhere.get(node.id, 0) + 1
    found: dict[int, set[str]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.For):
            inside: dict[str, int] = {}
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                    inside[sub.id] = inside.get(sub.id, 0) + 1
            found[id(node)] = {name for name, count in everywhere.items() if count > inside.get(name, 0)}
    return found


def _written_out(loop: ast.For, outside: dict[int, set[str]]) -> list[ast.stmt] | None:
    """The loop's body once per value, or None where it is not a short loop over written values."""
    values = _values(loop)
    if values is None or loop.orelse:
        return None
    targets = names_stored([loop.target])
    if any(isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom, ast.FunctionDef,
                          ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.Global, ast.Nonlocal))
           for stmt in loop.body for n in ast.walk(stmt)):
        return None
    if names_stored(loop.body) & targets or targets & outside.get(id(loop), set()):
        return None
    copies: list[ast.stmt] = []
    for value in values:
        bound = _bind(loop.target, value)
        if bound is None or set(bound) != targets:
            return None
        body = [ast.copy_location(replace_names(stmt, bound), stmt) for stmt in loop.body]
        copies += _rows_in_place(body, outside.get(id(loop), set()))
    if sum(1 for stmt in copies for n in ast.walk(stmt) if isinstance(n, ast.stmt)) > MAX_STATEMENTS:
        return None
    return [ast.fix_missing_locations(stmt) for stmt in copies]


def _values(loop: ast.For) -> list[ast.expr] | None:
    if not isinstance(loop.iter, (ast.Tuple, ast.List)) or not 0 < len(loop.iter.elts) <= MAX_VALUES:
        return None
    if not all(_constant(e) for e in loop.iter.elts):
        return None
    return loop.iter.elts


def _constant(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float))
    return isinstance(node, ast.Tuple) and all(_constant(e) for e in node.elts)


def _bind(target: ast.expr, value: ast.expr) -> dict[str, ast.expr] | None:
    """Each name of the loop's target with its part of `value`; None where their shapes differ."""
    if isinstance(target, ast.Name):
        return {target.id: value}
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, ast.Tuple) \
            and len(target.elts) == len(value.elts):
        bound: dict[str, ast.expr] = {}
        for part, sub in zip(target.elts, value.elts):
            inner = _bind(part, sub)
            if inner is None:
                return None
            bound.update(inner)
        return bound
    return None


def _rows_in_place(body: list[ast.stmt], outside: set[str]) -> list[ast.stmt]:
    """`body` with each `row = base[index]` read in place where it is only indexed after, the assignment dropped."""
    out = list(body)
    k = 0
    while k < len(out):
        stmt = out[k]
        row = _row_alias(stmt)
        rest = out[k + 1:]
        if row is None or row in outside or not _only_indexed(row, rest) \
                or names_stored(rest) & (names_loaded(stmt.value) | {row}) \
                or _may_write(rest):
            k += 1
            continue
        out = out[:k] + [_read_in_place(s, row, stmt.value) for s in rest]
    return out


def _row_alias(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and isinstance(stmt.value, ast.Subscript) and isinstance(stmt.value.value, ast.Name) \
            and not isinstance(stmt.value.slice, ast.Slice):
        return stmt.targets[0].id
    return None


def _only_indexed(name: str, stmts: list[ast.stmt]) -> bool:
    """Whether every read of `name` in `stmts` is `name[...]`, and there is at least one."""
    reads = indexed = 0
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                reads += 1
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                    and isinstance(node.ctx, ast.Load):
                indexed += 1
    return reads > 0 and reads == indexed


def _may_write(stmts: list[ast.stmt]) -> bool:
    """Whether `stmts` may change a row read in place: any store into a subscript or an attribute, or any call but
    min/max/abs/int/float (which might)."""
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
                return True
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name)
                                                  and node.func.id in ("min", "max", "abs", "int", "float")):
                return True
    return False


def _read_in_place(stmt: ast.stmt, row: str, value: ast.expr) -> ast.stmt:
    return ast.copy_location(replace_names(stmt, {row: value}), stmt)
