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
    name_apart,
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
    if not _fors_for_whiles(new_loop.body, [*new_loop.body, *body[k + 1:]], int_names(body[:k], loop)):
        return None
    return [*body[:k], ast.fix_missing_locations(new_loop), *body[k + 1:]]


def int_names(before: list[ast.stmt], loop: ast.stmt) -> dict[str, ast.expr]:
    """Names an int for certain where `loop` runs: bound once in `before` (and nowhere in the loop) to int literals
    and `len()` (`last = len(wf) - 2`), with what they were bound to."""
    bound: dict[str, list[ast.expr]] = {}
    for stmt in before:
        for name in names_stored([stmt]):
            bound.setdefault(name, []).append(stmt.value if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                                              and isinstance(stmt.targets[0], ast.Name) else None)
    inside = names_stored([loop])
    return {name: values[0] for name, values in bound.items()
            if len(values) == 1 and values[0] is not None and name not in inside and _int_shaped(values[0], False)}


def _fors_for_whiles(stmts: list[ast.stmt], scope: list[ast.stmt], known: dict[str, ast.expr]) -> bool:
    """Replace, in place, the counting `while` loops of `stmts` (and of the `for` loops in them); True if any.
    `known`: names an int for certain (`int_names`)."""
    changed, j = False, 0
    while j < len(stmts):
        stmt = stmts[j]
        if isinstance(stmt, ast.For) and not stmt.orelse:
            changed |= _fors_for_whiles(stmt.body, scope, known)
        elif isinstance(stmt, ast.While):
            found = _counted_for(stmts, j, scope)
            if found is not None:
                start, stmts[j] = found
                del stmts[start]
                changed, j = True, j - 1
            elif (searched := _searched_for(stmts, j, scope, known)) is not None:
                start, stmts[start], stmts[j] = searched
                changed = True
        j += 1
    return changed


def _searched_for(stmts: list[ast.stmt], j: int, scope: list[ast.stmt],
                  known: dict[str, ast.expr]) -> tuple[int, ast.Assign, ast.For] | None:
    """(index of the counter's start, its new start, the `for`) for a searching `while` stmts[j], else None.

    `z = 0; while z < len(bounds) and p >= bounds[z] * ftp: z += 1` stops at the first position where the test
    fails, or at the bound: the smallest of the bound and of every failing position. Said as a `for`, that is a
    running min over the positions, which the translator vectorises:
    `z = len(bounds); for z_at in range(0, len(bounds)): z = min(z, len(bounds) if <test at z_at> else z_at)`.
    The rewrite reads the test at every position below the bound, where the `while` stopped at the first failing
    one, so it is taken only where that reading is safe and says the same: the body is `z += 1` alone, the
    counter starts at an int literal, the bound's tests (`loops.while_stop`) are those of `z` alone, and the
    other tests index by the counter only a sequence whose `len()` bounds it (`bounds[z]` under `z <
    len(bounds)`, `wf[j + 1]` under `j < len(wf) - 2`: an offset no larger than the bound's slack), with no call
    the translator does not know (it refuses those itself); the bound is built of int literals and `len()`
    (`_int_shaped` without names), or is a name bound once before the loop to such (`known`: `last = len(wf) - 2`).
    """
    loop = stmts[j]
    if loop.orelse or len(loop.body) != 1 or not isinstance(loop.test, ast.BoolOp) \
            or not isinstance(loop.test.op, ast.And):
        return None
    step = loop.body[0]
    if not (isinstance(step, ast.AugAssign) and isinstance(step.op, ast.Add) and isinstance(step.target, ast.Name)
            and isinstance(step.value, ast.Constant) and type(step.value.value) is int and step.value.value == 1):
        return None
    counter = step.target.id
    bounds = [v for v in loop.test.values if while_stop(v, counter) is not None]
    tests = [v for v in loop.test.values if while_stop(v, counter) is None]
    found = counter_start(stmts[:j], counter)
    if not bounds or not tests or found is None or not (isinstance(found[1], ast.Constant)
                                                         and type(found[1].value) is int and found[1].value >= 0):
        return None
    sized = dict(slack for b in bounds if (slack := _slack(b, counter, known)) is not None)
    for node in (n for t in tests for n in ast.walk(t)):
        if isinstance(node, ast.Subscript) and counter in names_loaded(node.slice) and not (
                (offset := _offset(node.slice, counter)) is not None and offset <= sized.get(ast.dump(node.value), -1)):
            return None
    start, first = found[0], found[1].value
    if (names_loaded(loop.test) - {counter}) & names_stored(stmts[start + 1:j]):
        return None  # the new start reads the bound where the counter started
    stop = while_stop(ast.BoolOp(op=ast.And(), values=bounds), counter) if len(bounds) > 1 else \
        while_stop(bounds[0], counter)
    if not _int_shaped(stop, names=False, known=set(known)):
        return None  # range() takes ints, where the `while` also stops below a float a name may hold
    taken = {n.id for stmt in scope for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    at = name_apart(f"{counter}_at", taken)
    test = ast.unparse(_renamed(copy.deepcopy(ast.BoolOp(op=ast.And(), values=tests) if len(tests) > 1 else tests[0]),
                                counter, at))
    stop_text = ast.unparse(stop)
    init = stop_text if first == 0 and _is_len(stop) else f"max({first}, {stop_text})"
    new_start = ast.parse(f"{counter} = {init}").body[0]
    new_loop = ast.parse(f"for {at} in range({first}, {stop_text}):\n"
                         f"    {counter} = min({counter}, {stop_text} if {test} else {at})").body[0]
    for node in (new_start, new_loop):
        ast.increment_lineno(node, loop.lineno - 1)
    return start, new_start, new_loop


def _slack(bound: ast.AST, counter: str, known: dict[str, ast.expr]) -> tuple[str, int] | None:
    """(the sequence, d) where `bound` keeps the counter below `len(seq) - d` (`z < len(seq)`: d = 0, `j < last`
    with `last = len(wf) - 2`: d = 2, `j <= len(x) - 3`: d = 2), else None."""
    if not (isinstance(bound, ast.Compare) and isinstance(bound.ops[0], (ast.Lt, ast.LtE))
            and isinstance(bound.left, ast.Name) and bound.left.id == counter):
        return None
    stop, d = bound.comparators[0], -1 if isinstance(bound.ops[0], ast.LtE) else 0
    if isinstance(stop, ast.Name) and stop.id in known:
        stop = known[stop.id]
    if isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Sub) and isinstance(stop.right, ast.Constant) \
            and type(stop.right.value) is int:
        stop, d = stop.left, d + stop.right.value
    return (ast.dump(stop.args[0]), d) if _is_len(stop) and d >= 0 else None


def _offset(index: ast.AST, counter: str) -> int | None:
    """c where `index` is the counter plus an int literal c >= 0 (`z`: 0, `j + 1`: 1), else None."""
    if isinstance(index, ast.Name) and index.id == counter:
        return 0
    if isinstance(index, ast.BinOp) and isinstance(index.op, ast.Add) and isinstance(index.left, ast.Name) \
            and index.left.id == counter and isinstance(index.right, ast.Constant) and type(index.right.value) is int \
            and index.right.value >= 0:
        return index.right.value
    return None


def _is_len(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
        and len(node.args) == 1 and not node.keywords


def _renamed(node: ast.AST, old: str, new: str) -> ast.AST:
    """`node`, changed in place, with every use of the name `old` reading `new`."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == old:
            n.id = new
    return node


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


def _int_shaped(node: ast.AST, names: bool = True, known: set[str] = frozenset()) -> bool:
    """Whether `node` is built only of int literals, `len()`, names and `int()`, and `min`/`max` and + - * of them.

    Without `names` (no names but those in `known`, no `int()`), an int for certain: a name may hold a float, below
    which a searching `while` stops, and range() would not take it."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Name):
        return names or node.id in known
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)) and _int_shaped(node.left, names, known) \
            and _int_shaped(node.right, names, known)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        if node.func.id == "len" or (node.func.id == "int" and names):
            return len(node.args) == 1
        return node.func.id in ("min", "max") and all(_int_shaped(a, names, known) for a in node.args)
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
