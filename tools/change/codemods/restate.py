"""Restate a loop in the form the translator reads, in the source or in the parsed body, before translating it.

A list filled slot by slot is the loop that appends, said another way (`list_grids.py` says so for a grid of lists,
in the source): `slots_as_appends`: `out = [c] * N` filled by `out[i] = e` in a range loop is the loop that
appends e, in the parsed body the translator reads.
Each is taken only where every slot is written once, in order, and nothing else reads the list: no pass
of the loop ends early (`continue`, `break`, `return`: `skips_a_pass`), which would leave a slot as made.
"""
from __future__ import annotations

import ast
import copy

from perfloop.tools.change.codemods.loops import (
    break_guard_at,
    dotted,
    is_number_literal,
    name_apart,
    names_loaded,
    names_stored,
)


def skips_a_pass(body: list[ast.stmt]) -> bool:
    """Whether a pass of the loop whose body this is can end before its last statement: a `continue` or `break`
    of this loop (not of a loop inside it), or a `return`, anywhere. A slot such a pass never writes keeps the
    value the list was made with, which appends would not give."""
    todo = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Continue, ast.Break, ast.Return)):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            todo += [n for stmt in node.body + node.orelse for n in ast.walk(stmt) if isinstance(n, ast.Return)]
            continue
        todo += list(ast.iter_child_nodes(node))
    return False


def substituted(body: list[ast.stmt], write: ast.Assign) -> ast.AST | None:
    """The written value with the body's temporaries put in their place, when the body is only `name = expr`
    statements (each name set once, read only after it is set) and then the write; else None."""
    if body[-1] is not write:
        return None
    values: dict[str, ast.AST] = {}
    for stmt in body[:-1]:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id not in values):
            return None
        values[stmt.targets[0].id] = replace_names(stmt.value, values)
    return replace_names(write.value, values)


def replace_names(node: ast.AST, values: dict[str, ast.AST]) -> ast.AST:
    """A copy of `node` with each name `values` holds, where it is read, replaced by a copy of its value."""
    class Put(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.AST:
            if isinstance(name.ctx, ast.Load) and name.id in values:
                return copy.deepcopy(values[name.id])
            return name
    return Put().visit(copy.deepcopy(node))


def slots_as_appends(body: list[ast.stmt], k: int) -> list[ast.stmt] | None:
    """`out = [c] * N` then `for i in range(N): ... out[i] = e ...` is the loop that appends e: say it so.

    Every slot is written once, in order, so the list ends as the appends would build it. The
    form: the list made just before (nothing between reads or sets it), the same `N` unchanged
    in between and in the loop, one write `out[i] = e` at the top of the loop's body and no other
    use of `out` in the loop. Returns the body with the two statements restated, or None.
    """
    loop = body[k]
    rng = loop.iter
    if not (isinstance(loop.target, ast.Name) and isinstance(rng, ast.Call) and dotted(rng.func) == "range"
            and len(rng.args) == 1 and not rng.keywords and not loop.orelse):
        return None
    counter, bound = loop.target.id, ast.dump(rng.args[0])
    writes = [j for j, stmt in enumerate(loop.body) if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
              and isinstance(stmt.targets[0], ast.Subscript) and isinstance(stmt.targets[0].value, ast.Name)
              and isinstance(stmt.targets[0].slice, ast.Name) and stmt.targets[0].slice.id == counter]
    stop = break_guard_at(loop.body)
    if len(writes) != 1 or (skips_a_pass(loop.body) and not _only_the_break(loop.body, stop, writes[0])):
        return None
    write = loop.body[writes[0]]
    out = write.targets[0].value.id
    others = loop.body[:writes[0]] + loop.body[writes[0] + 1:] + [write.value]
    if any(out in names_loaded(s) | names_stored([s]) for s in others) \
            or names_loaded(rng.args[0]) & names_stored(loop.body):
        return None
    for j in range(k - 1, -1, -1):
        stmt = body[j]
        value = stmt.value if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
            and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == out else None
        if value is not None:
            if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult)
                    and isinstance(value.left, ast.List) and len(value.left.elts) == 1
                    and isinstance(value.left.elts[0], ast.Constant) and ast.dump(value.right) == bound):
                return None
            if any(names_loaded(rng.args[0]) & names_stored([s]) for s in body[j + 1:k]):
                return None
            init = ast.copy_location(ast.Assign(targets=[stmt.targets[0]], value=ast.List(elts=[], ctx=ast.Load())),
                                     stmt)
            append = ast.copy_location(ast.Expr(value=ast.Call(
                func=ast.Attribute(value=ast.Name(id=out, ctx=ast.Load()), attr="append", ctx=ast.Load()),
                args=[write.value], keywords=[])), write)
            new_loop = copy.copy(loop)
            new_loop.body = [*loop.body[:writes[0]], append, *loop.body[writes[0] + 1:]]
            if stop is not None:
                if not isinstance(value.left.elts[0].value, float):
                    return None
                # The slots from the pass that breaks on keep the value the list was made with (the translator
                # fills them: `Translator.slot_fill`); a float fill only, so no slot changes its type.
                new_loop.slot_fill = {out: repr(value.left.elts[0].value)}
            new_body = list(body)
            new_body[j], new_body[k] = ast.fix_missing_locations(init), ast.fix_missing_locations(new_loop)
            return new_body
        if out in names_loaded(stmt) | names_stored([stmt]):
            return None
    return None


def _only_the_break(body: list[ast.stmt], stop: int | None, write: int) -> bool:
    """Whether the pass's one early exit is the break guard at `stop`, before the slot's write."""
    if stop is None or stop > write:
        return False
    return not skips_a_pass([*body[:stop], *body[stop + 1:]])


def restate_counts(body: list[ast.stmt], k: int, names: set[str]) -> list[ast.stmt] | None:
    """The loop `body[k]` with its counts said the way the translator reads them, or None where nothing changes.

    - An `if`/`elif`/`else` chain whose every branch is one `acc += term` (or `-=`) on its own accumulator, whose
      tests read none of them, is the same as one `if` per branch, each test with the earlier tests negated:
      `if s > 0: c += 1 elif s < 0: d += 1` is `if s > 0: c += 1` and `if not s > 0 and s < 0: d += 1`.
    - A count carried across an inner loop's passes (`c = 0` before the loops, then only `c += 1`, perhaps under an
      `if`, inside the inner loop: a Kendall tau's concordant pairs) is counted per outer pass instead: `c_row = 0`
      before the inner loop, `c_row += 1` in it, `c += c_row` after it. Taken only where every term is an int
      literal and the start value a number literal, so the sums are of integers and their order changes nothing
      (a float count from `0.0` stays below 2**53, where every partial sum is exact), and where the outer loop
      mentions `c` nowhere else.
    """
    loop = body[k]
    if not isinstance(loop, ast.For) or loop.orelse:
        return None
    outer = _split_chains(loop.body)
    changed = outer is not loop.body
    starts = _number_starts(body[:k])
    taken = set(names) | names_loaded(loop) | names_stored([loop])
    new_outer: list[ast.stmt] = []
    for stmt in outer:
        if not (isinstance(stmt, ast.For) and not stmt.orelse):
            new_outer.append(stmt)
            continue
        inner = copy.copy(stmt)
        inner.body = _split_chains(stmt.body)
        changed |= inner.body is not stmt.body
        rows: list[tuple[str, str]] = []
        for acc in sorted(_counted(inner.body) & starts):
            uses = sum(1 for s in outer for n in ast.walk(s) if isinstance(n, ast.Name) and n.id == acc)
            if uses != _count_sites(inner.body, acc):
                continue  # read or set elsewhere in the outer loop: its value per pass matters
            row = name_apart(f"{acc}_row", taken)
            taken.add(row)
            rows.append((acc, row))
            inner.body = [_renamed(s, acc, row) for s in inner.body]
        if rows:
            changed = True
            new_outer += [_at_line(f"{row} = 0", stmt) for _, row in rows]
            new_outer.append(inner)
            new_outer += [_at_line(f"{acc} += {row}", stmt) for acc, row in rows]
        else:
            new_outer.append(inner)
    if not changed:
        return None
    new_loop = copy.copy(loop)
    new_loop.body = new_outer
    return [*body[:k], ast.fix_missing_locations(new_loop), *body[k + 1:]]


def _split_chains(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """`stmts` with each if/elif/else chain of reductions split into one `if` per branch (the same list where
    there is none)."""
    out: list[ast.stmt] = []
    for stmt in stmts:
        branches = _chain(stmt)
        if branches is None:
            out.append(stmt)
            continue
        earlier: list[ast.expr] = []
        for test, update in branches:
            parts: list[ast.expr] = [ast.UnaryOp(op=ast.Not(), operand=copy.deepcopy(t)) for t in earlier]
            if test is not None:
                parts.append(copy.deepcopy(test))
                earlier.append(test)
            cond = parts[0] if len(parts) == 1 else ast.BoolOp(op=ast.And(), values=parts)
            out.append(ast.fix_missing_locations(ast.copy_location(ast.If(test=cond, body=[update], orelse=[]),
                                                                   update)))
    return out if len(out) != len(stmts) or any(a is not b for a, b in zip(out, stmts)) else stmts


def _chain(stmt: ast.stmt) -> list[tuple[ast.expr | None, ast.AugAssign]] | None:
    """The branches (test, update) of an if/elif/else chain of one `acc += term` each, on distinct
    accumulators none of the tests reads; None for anything else (a lone `if`, which the translator reads)."""
    if not (isinstance(stmt, ast.If) and stmt.orelse):
        return None
    branches: list[tuple[ast.expr | None, ast.AugAssign]] = []
    node = stmt
    while True:
        if len(node.body) != 1 or not _is_update(node.body[0]):
            return None
        branches.append((node.test, node.body[0]))
        if not node.orelse:
            break
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            continue
        if len(node.orelse) == 1 and _is_update(node.orelse[0]):
            branches.append((None, node.orelse[0]))
            break
        if all(isinstance(s, ast.Pass) for s in node.orelse):  # `else: pass`
            break
        return None
    accs = [update.target.id for _, update in branches]
    if len(set(accs)) != len(accs) or any(names_loaded(t) & set(accs) for t, _ in branches if t is not None):
        return None
    return branches


def _is_update(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) \
        and isinstance(stmt.op, (ast.Add, ast.Sub))


def _is_count(stmt: ast.stmt) -> bool:
    return _is_update(stmt) and isinstance(stmt.value, ast.Constant) and type(stmt.value.value) is int


def _counted(stmts: list[ast.stmt]) -> set[str]:
    """Accumulators every one of whose mentions in `stmts` is a count: `acc += 1` alone or as an `if`'s only
    statement (after `_split_chains`)."""
    counted = {s.target.id for s in _count_stmts(stmts)}
    return {acc for acc in counted
            if sum(1 for s in stmts for n in ast.walk(s) if isinstance(n, ast.Name) and n.id == acc)
            == _count_sites(stmts, acc)}


def _count_stmts(stmts: list[ast.stmt]) -> list[ast.AugAssign]:
    found = []
    for s in stmts:
        if _is_count(s):
            found.append(s)
        elif isinstance(s, ast.If) and not s.orelse and len(s.body) == 1 and _is_count(s.body[0]):
            found.append(s.body[0])
    return found


def _count_sites(stmts: list[ast.stmt], acc: str) -> int:
    return sum(1 for s in _count_stmts(stmts) if s.target.id == acc)


def _number_starts(before: list[ast.stmt]) -> set[str]:
    """Names whose last binding in `before` is a number literal (`c = 0`, `c = d = 0.0`, `c, d = 0, 0`)."""
    starts: set[str] = set()
    for stmt in before:
        for name in names_stored([stmt]):
            starts.discard(name)
        if not isinstance(stmt, ast.Assign):
            continue
        if is_number_literal(stmt.value) and all(isinstance(t, ast.Name) for t in stmt.targets):
            starts |= {t.id for t in stmt.targets}
        elif len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple) and isinstance(stmt.value, ast.Tuple) \
                and len(stmt.targets[0].elts) == len(stmt.value.elts):  # `a, b = 0, 0`
            starts |= {t.id for t, v in zip(stmt.targets[0].elts, stmt.value.elts)
                       if isinstance(t, ast.Name) and is_number_literal(v)}
    return starts


def _renamed(stmt: ast.stmt, old: str, new: str) -> ast.stmt:
    stmt = copy.deepcopy(stmt)
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and node.id == old:
            node.id = new
    return stmt


def _at_line(source: str, where: ast.stmt) -> ast.stmt:
    return ast.fix_missing_locations(ast.copy_location(ast.parse(source).body[0], where))


def else_break_as_guard(body: list[ast.stmt], k: int) -> list[ast.stmt] | None:
    """The loop `body[k]` whose pass is `if test: <assignments> else: break` said as `if not test: break` then `if
    test: name = value` per assignment, or None.

    A search that keeps a value while the items pass a test (`for s, g in steps: if s <= t: value = g else: break`)
    ends at the first item that fails it: a break guard first in the pass, after which the test held at every pass
    the loop ran, so each assignment under it is a last value set under a test (`ConditionRules.last_value`). Taken
    where that `if` is the whole pass and its body only assigns names, none of which another of them reads.
    """
    loop = body[k]
    if not (isinstance(loop, ast.For) and not loop.orelse and len(loop.body) == 1):
        return None
    stmt = loop.body[0]
    if not (isinstance(stmt, ast.If) and len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.Break)
            and stmt.body and all(isinstance(s, ast.Assign) and len(s.targets) == 1
                                  and isinstance(s.targets[0], ast.Name) for s in stmt.body)):
        return None
    set_here = {s.targets[0].id for s in stmt.body}
    if len(set_here) != len(stmt.body) or any(names_loaded(s.value) & set_here for s in stmt.body) \
            or names_loaded(stmt.test) & set_here:
        return None
    stop = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=copy.deepcopy(stmt.test)), body=[ast.Break()], orelse=[])
    kept = [ast.If(test=copy.deepcopy(stmt.test), body=[s], orelse=[]) for s in stmt.body]
    new_loop = copy.copy(loop)
    new_loop.body = [ast.fix_missing_locations(ast.copy_location(s, stmt)) for s in (stop, *kept)]
    return [*body[:k], new_loop, *body[k + 1:]]


def continue_as_else(body: list[ast.stmt], k: int) -> list[ast.stmt] | None:
    """The loop `body[k]` with an edge case that appends and moves on said as an `if`/`else`, or None.

    `if energy == 0: out.append(0.0); continue` followed by the rest of the pass, which ends in
    `out.append(v / rms)`, is `if energy == 0: out.append(0.0)` `else: <the rest>`: each pass appends once,
    on one branch or the other. Taken where the guard's body is assignments to names and appends, then
    `continue`, and the rest of the pass neither ends early nor holds another compound statement (but the if/else
    a later such edge case becomes, said so first), so the translator reads both branches (computing both for every
    element, quietly, and keeping one).
    """
    loop = body[k]
    if not isinstance(loop, ast.For) or loop.orelse:
        return None
    for j, stmt in enumerate(loop.body):
        if not (isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) >= 2
                and isinstance(stmt.body[-1], ast.Continue)):
            continue
        guard, rest = stmt.body[:-1], loop.body[j + 1:]
        simple = (ast.Assign, ast.Expr, ast.Pass, ast.AugAssign)
        said = None
        if rest and not all(isinstance(s, simple) for s in rest):
            # a later edge case of the same kind (a second guard that appends the fill): said so first, in the rest
            later = continue_as_else([ast.copy_location(ast.For(target=loop.target, iter=loop.iter, body=rest,
                                                                orelse=[], type_comment=None), loop)], 0)
            rest, said = (later[0].body, later[0].body[-1]) if later is not None else (rest, None)
        if not rest or not all(isinstance(s, simple) for s in guard + [s for s in rest if s is not said]) \
                or not any(_appends(s) for s in guard) or skips_a_pass(rest):
            return None
        new_loop = copy.copy(loop)
        new_if = ast.copy_location(ast.If(test=stmt.test, body=guard, orelse=rest), stmt)
        new_loop.body = [*loop.body[:j], ast.fix_missing_locations(new_if)]
        return [*body[:k], new_loop, *body[k + 1:]]
    return None


def appends_under_tail_if(body: list[ast.stmt], k: int) -> list[ast.stmt] | None:
    """The loop `body[k]` whose pass ends in an `if` that appends (a filter) said with a guard, or None.

    `if eta[i - 1] < 0.0 <= eta[i]: frac = ...; crossings.append((i, t))`, the last statement of the pass with no
    `else`, is `if not (eta[i - 1] < 0.0 <= eta[i]): continue` followed by its body: nothing follows it in the pass,
    so skipping the rest of the pass is skipping its body, and the test is evaluated once, where it was. The
    translator reads a guard as a mask, which keeps only the appended values of the elements that got past it (it
    refuses an append, or a record built per element, on one branch of an if/else). Taken where the `if` body is
    only assignments to names and appends, at least one of them an append, and the names it sets are mentioned nowhere
    else in the pass (a value kept from pass to pass, `if n == k: out.append(acc); acc = 0.0`, is not a filter).
    """
    loop = body[k]
    if not isinstance(loop, ast.For) or loop.orelse or not loop.body:
        return None
    last = loop.body[-1]
    if not (isinstance(last, ast.If) and not last.orelse and any(_appends(s) for s in last.body)
            and all(_appends(s) or isinstance(s, ast.Assign) and all(isinstance(n, (ast.Name, ast.Tuple))
                                                                    for n in s.targets) for s in last.body)):
        return None
    own = names_stored(last.body)  # names the `if` sets for its own use only, not a value carried from pass to pass
    if own & (names_loaded(ast.Module(body=loop.body[:-1], type_ignores=[])) | names_stored(loop.body[:-1])
              | names_loaded(last.test)):
        return None
    skip = ast.copy_location(ast.If(test=ast.UnaryOp(op=ast.Not(), operand=last.test),
                                    body=[ast.copy_location(ast.Continue(), last)], orelse=[]), last)
    new_loop = copy.copy(loop)
    new_loop.body = [*loop.body[:-1], ast.fix_missing_locations(skip), *last.body]
    return [*body[:k], new_loop, *body[k + 1:]]


def _appends(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
        and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "append"


MAX_UNROLLED = 8
"""An inner `for c in range(K)` that builds one short row per pass is written out K times, up to this K."""


def rows_unrolled(body: list[ast.stmt], k: int, names: set[str]) -> list[ast.stmt] | None:
    """The loop `body[k]` with each short row its passes build written out, or None where it builds none.

    `px = []` then `for ch in range(3): v = f(c0, ch); px.append(g(v))` (a literal range of at most
    MAX_UNROLLED passes) is the same, pass for pass, as the three bodies in turn with `ch` read as 0, 1 and
    2, each append kept as a name, then `px = [px_0, px_1, px_2]`: a record per element the translator
    builds from per-field arrays (`records.py`). Taken only where the inner loop holds no loop, branch
    that leaves it, or other use of the row, does not rebind its counter, the counter is not read after it,
    and the append is one statement of the inner loop's own body.
    """
    loop = body[k]
    if not isinstance(loop, ast.For) or loop.orelse:
        return None
    new_body, changed, j = [], False, 0
    taken, stmts = set(names), loop.body
    while j < len(stmts):
        inner = stmts[j + 1] if j + 1 < len(stmts) else None
        unrolled = _unrolled(stmts[j], inner, taken) if inner is not None else None
        if unrolled is not None and not any(
                isinstance(n, ast.Name) and n.id == inner.target.id and isinstance(n.ctx, ast.Load)
                for later in [*stmts[j + 2:], *body[k + 1:]] for n in ast.walk(later)):
            new_body += unrolled
            changed, j = True, j + 2
        else:
            new_body.append(stmts[j])
            j += 1
    if not changed:
        return None
    new_loop = copy.copy(loop)
    new_loop.body = [ast.fix_missing_locations(s) for s in new_body]
    return [*body[:k], new_loop, *body[k + 1:]]


def _unrolled(start: ast.stmt, inner: ast.stmt, taken: set[str]) -> list[ast.stmt] | None:
    """`row = []` + `for c in range(K): ... row.append(e) ...` written out, or None."""
    if not (isinstance(start, ast.Assign) and len(start.targets) == 1 and isinstance(start.targets[0], ast.Name)
            and isinstance(start.value, ast.List) and not start.value.elts):
        return None
    row = start.targets[0].id
    if not (isinstance(inner, ast.For) and not inner.orelse and isinstance(inner.target, ast.Name)
            and isinstance(inner.iter, ast.Call) and isinstance(inner.iter.func, ast.Name)
            and inner.iter.func.id == "range" and len(inner.iter.args) == 1 and not inner.iter.keywords
            and isinstance(inner.iter.args[0], ast.Constant) and type(inner.iter.args[0].value) is int
            and 1 <= inner.iter.args[0].value <= MAX_UNROLLED):
        return None
    counter = inner.target.id
    appends = [s for s in inner.body if _appends(s) and isinstance(s.value.func.value, ast.Name)
               and s.value.func.value.id == row and len(s.value.args) == 1 and not s.value.keywords]
    uses = [n for s in inner.body for n in ast.walk(s) if isinstance(n, ast.Name) and n.id == row]
    leaves = (ast.For, ast.While, ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom, ast.FunctionDef,
              ast.Lambda, ast.Global, ast.Nonlocal, ast.Try, ast.With)
    if len(appends) != 1 or len(uses) != 1 or counter in names_stored(inner.body) \
            or any(isinstance(n, leaves) for s in inner.body for n in ast.walk(s)):
        return None
    out, fields = [], []
    for value in range(inner.iter.args[0].value):
        field = name_apart(f"{row}_{value}", taken)
        taken.add(field)
        fields.append(field)
        for stmt in inner.body:
            if stmt is appends[0]:
                stmt = ast.copy_location(ast.Assign(targets=[ast.Name(id=field, ctx=ast.Store())],
                                                    value=stmt.value.args[0]), stmt)
            out.append(ast.copy_location(replace_names(stmt, {counter: ast.Constant(value=value)}), stmt))
    display = ast.List(elts=[ast.Name(id=f, ctx=ast.Load()) for f in fields], ctx=ast.Load())
    out.append(ast.copy_location(ast.Assign(targets=[ast.Name(id=row, ctx=ast.Store())], value=display), inner))
    return out


def sorts_as_sorted(body: list[ast.stmt], k: int) -> list[ast.stmt] | None:
    """The loop `body[k]` with each `vals.sort()` of a list its pass has just made as `vals = sorted(vals)`, else None.

    Sorting in place and binding the sorted copy differ only for another reference to the same list. Taken only
    where the last statement before the sort in the same block that binds `vals` makes a new list (a display, a
    comprehension, `list(...)` or `sorted(...)`) and nothing between them reads `vals`.
    """
    loop = body[k]
    if not isinstance(loop, ast.For) or loop.orelse:
        return None
    new_loop = copy.deepcopy(loop)
    changed = False
    for node in ast.walk(new_loop):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list):
                continue
            for j, stmt in enumerate(stmts):
                name = _sorted_in_place(stmt)
                if name is None or not _fresh_list_before(stmts[:j], name):
                    continue
                call = ast.Call(func=ast.Name(id="sorted", ctx=ast.Load()), args=[ast.Name(id=name, ctx=ast.Load())],
                                keywords=[])
                stmts[j] = ast.fix_missing_locations(ast.copy_location(
                    ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=call), stmt))
                changed = True
    return [*body[:k], new_loop, *body[k + 1:]] if changed else None


def _sorted_in_place(stmt: ast.stmt) -> str | None:
    """`name` where `stmt` is `name.sort()` with no key and no reverse."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "sort" \
            and isinstance(call.func.value, ast.Name) and not call.args and not call.keywords:
        return call.func.value.id
    return None


def _fresh_list_before(before: list[ast.stmt], name: str) -> bool:
    for stmt in reversed(before):
        if isinstance(stmt, ast.Assign) and [ast.unparse(t) for t in stmt.targets] == [name]:
            value = stmt.value
            return isinstance(value, (ast.List, ast.ListComp)) or (
                isinstance(value, ast.Call) and dotted(value.func) in ("list", "sorted"))
        if name in names_loaded(stmt) | names_stored([stmt]):
            return False
    return False
