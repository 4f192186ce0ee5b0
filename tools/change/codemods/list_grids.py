"""A grid of lists filled cell by cell, restated in the source as rows built by appends (`grids_as_rows`).

`out = [[c] * W for _ in range(H)]` (or `[[c for _ in range(W)] for _ in range(H)]`, c a constant, a name or an
attribute) filled by `out[y][x] = e`, or by `row[x] = e` through the pass's `row = out[y]`, in two range loops, writes
every cell once, row by row: the same list as `out = []` and, per row, `row = []`, `row.append(e)`, `out.append(row)`.
An `if test: continue` before the write leaves its cell as made: the fill is appended there (`row.append(c);
continue`). With no guard and no row name, the whole grid becomes one comprehension over both axes, which the
translator reads over both axes; else it reads the rows (`nests.py`).
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.hot_function import functions
from perfloop.tools.change.codemods.loops import dotted, is_guard, name_apart, names_loaded, names_stored, within
from perfloop.tools.change.codemods.restate import skips_a_pass, substituted


def grids_as_rows(text: str, tree: ast.Module, fn: ast.FunctionDef,
                   scanned: list[ast.FunctionDef]) -> tuple[str, ast.Module, ast.FunctionDef]:
    """Restate each filled grid in `scanned` as rows built by appends, in the source; return the new text,
    its parse and the hot function found again in it.

    `out = [[c] * W for _ in range(H)]` (or `[[c for _ in range(W)] for _ in range(H)]`), then
    `for y in range(H): for x in range(W): ... out[y][x] = e ...` writes every slot once, row by row,
    in order: the same list as `out = []`, and per row `row = []`, `row.append(e)`, `out.append(row)`.
    The inner loop is then a loop that builds a list, which the translator vectorises per row. Taken
    only in that exact form: the grid made just before the loops (nothing between uses it), H and W
    unchanged by them, one write per pass on its own line, and no other use of `out` in the loops.
    A list whose own slots a range loop rewrites from their old values is said as appends too (`slots_edit`).
    """
    edits: list[tuple[int, int, str]] = []  # (first line, last line, new text), 1-based, inclusive
    for function in scanned:
        for block in _blocks(function):
            for k, loop in enumerate(block):
                edit = _grid_edit(text, block, k, function) or slots_edit(text, block, k, function)
                if edit is not None:
                    edits += edit
    if not edits:
        return text, tree, fn
    lines = text.splitlines(keepends=True)
    for first, last, new in sorted(edits, reverse=True):
        lines[first - 1:last] = [new]
    new_text = "".join(lines)
    new_tree = ast.parse(new_text)
    found = [node for node, _ in functions(new_tree) if node.name == fn.name]
    old_same = [node for node, _ in functions(tree) if node.name == fn.name]
    return new_text, new_tree, found[old_same.index(fn)]


def _blocks(function: ast.FunctionDef) -> list[list[ast.stmt]]:
    """Every statement list in the function (its body, and those of its compound statements)."""
    found = []
    for node in ast.walk(function):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                found.append(block)
    return found


def _grid_edit(text: str, block: list[ast.stmt], k: int,
               function: ast.FunctionDef) -> list[tuple[int, int, str]] | None:
    loop = block[k]
    if not (isinstance(loop, ast.For) and not loop.orelse and 1 <= len(loop.body) <= 2
            and isinstance(loop.body[-1], ast.For) and not loop.body[-1].orelse):
        return None
    inner, alias = loop.body[-1], _row_alias(loop)
    if len(loop.body) == 2 and alias is None:
        return None
    ranges = []
    for each in (loop, inner):
        it = each.iter
        if not (isinstance(each.target, ast.Name) and isinstance(it, ast.Call) and dotted(it.func) == "range"
                and len(it.args) == 1 and not it.keywords):
            return None
        ranges.append(it.args[0])
    y, x = loop.target.id, inner.target.id
    writes = [s for s in inner.body if _cell_write(s, y, x, alias)]
    if len(writes) != 1 or writes[0].lineno != writes[0].end_lineno:
        return None
    write = writes[0]
    guards = [s for s in inner.body[:inner.body.index(write)] if is_guard(s)]
    if skips_a_pass([s for s in inner.body if s not in guards]):
        return None
    out = write.targets[0].value.value.id if alias is None else alias[1]
    others = [s for s in inner.body if s is not write] + [write.value]
    stored = names_stored(loop.body) | {y, x}
    if any(out in names_loaded(s) | names_stored([s]) for s in others) \
            or alias is not None and any(alias[0] in names_loaded(s) | names_stored([s]) for s in others) \
            or any(names_loaded(r) & stored for r in ranges):
        return None
    init = next((j for j in range(k - 1, -1, -1) if out in names_loaded(block[j]) | names_stored([block[j]])), None)
    stmt = block[init] if init is not None else None
    fill = _grid_fill(stmt.value, ranges) if isinstance(stmt, ast.Assign) else None
    if not (fill is not None and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id == out and not names_loaded(fill) & stored and stmt.lineno == stmt.end_lineno
            and not any(names_loaded(r) & names_stored(block[init + 1:k]) for r in ranges)):
        return None
    lines = text.splitlines(keepends=True)
    value = substituted(inner.body, write) if not guards and alias is None else None
    # The loops go: the names they set (counters, temporaries) must not be read anywhere else.
    outside = {n.id for node in ast.walk(function) if node is not loop
               for n in ([node] if isinstance(node, ast.Name) else [])
               if isinstance(n.ctx, ast.Load) and not within(n, loop)}
    if value is not None and not (names_stored([loop]) & outside):
        # Only temporaries and the write: the whole grid as one comprehension, which the translator
        # vectorises over both axes (the arrays it reads hoisted once, not once per row).
        init_line = lines[stmt.lineno - 1]
        grid = f"[[{ast.unparse(value)} for {x} in range({ast.unparse(ranges[1])})] " \
               f"for {y} in range({ast.unparse(ranges[0])})]"
        new_init = init_line[:stmt.value.col_offset] + grid + init_line[stmt.value.end_col_offset:]
        return [(stmt.lineno, stmt.lineno, new_init), (loop.lineno, loop.end_lineno, "")]
    return _rows_edit(text, stmt, loop, write, guards, alias, fill)


def _rows_edit(text: str, stmt: ast.Assign, loop: ast.For, write: ast.Assign, guards: list[ast.If],
               alias: tuple[str, str] | None, fill: ast.expr) -> list[tuple[int, int, str]]:
    """The edits that build the grid `stmt` makes by rows appended per pass of `loop` (the fill appended where a guard
    ends the pass), the pass's row name `alias[0]` kept as the row where there is one."""
    lines = text.splitlines(keepends=True)
    inner, out = loop.body[-1], stmt.targets[0].id
    taken = {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
    row, n = f"{out}_row", 2
    while row in taken:
        row, n = f"{out}_row_{n}", n + 1
    row = alias[0] if alias is not None else row
    init_line = lines[stmt.lineno - 1]
    value_start = stmt.value.col_offset
    new_init = init_line[:value_start] + "[]" + init_line[stmt.value.end_col_offset:]
    inner_lines = lines[inner.lineno - 1:inner.end_lineno]
    # A pass a guard ends leaves its slot as made: the fill appended there (evaluated as the grid's rows were).
    fill_text = ast.unparse(fill)
    for guard in guards:
        stop = guard.body[0]
        at = stop.lineno - inner.lineno
        inner_lines[at] = (inner_lines[at][:stop.col_offset] + f"{row}.append({fill_text}); continue"
                           + inner_lines[at][stop.end_col_offset:])
    at = write.lineno - inner.lineno
    write_line = inner_lines[at]
    inner_lines[at] = (f"{write_line[:write.col_offset]}{row}.append("
                       f"{write_line[write.value.col_offset:write.value.end_col_offset]})"
                       f"{write_line[write.value.end_col_offset:]}")
    inner_text = "".join(inner_lines)
    if not inner_text.endswith("\n"):
        inner_text += "\n"
    inner_indent = lines[inner.lineno - 1][:inner.col_offset]
    if alias is not None:  # `row = out[y]` becomes the row's start
        first = loop.body[0]
        alias_line = lines[first.lineno - 1]
        new_alias = alias_line[:first.value.col_offset] + "[]" + alias_line[first.value.end_col_offset:]
        return [(stmt.lineno, stmt.lineno, new_init), (first.lineno, first.lineno, new_alias),
                (inner.lineno, inner.end_lineno, f"{inner_text}{inner_indent}{out}.append({row})\n")]
    new_inner = f"{inner_indent}{row} = []\n{inner_text}{inner_indent}{out}.append({row})\n"
    return [(stmt.lineno, stmt.lineno, new_init), (inner.lineno, inner.end_lineno, new_inner)]


def _row_alias(loop: ast.For) -> tuple[str, str] | None:
    """(row, grid) where the pass starts `row = grid[y]` (one line) before its inner loop, else None."""
    first = loop.body[0] if len(loop.body) == 2 else None
    if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Name)
            and isinstance(first.value, ast.Subscript) and isinstance(first.value.value, ast.Name)
            and isinstance(first.value.slice, ast.Name) and isinstance(loop.target, ast.Name)
            and first.value.slice.id == loop.target.id and first.lineno == first.end_lineno):
        return None
    return first.targets[0].id, first.value.value.id


def _cell_write(stmt: ast.stmt, y: str, x: str, alias: tuple[str, str] | None) -> bool:
    """`grid[y][x] = e`, or `row[x] = e` through the pass's `row = grid[y]`."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)
            and isinstance(stmt.targets[0].slice, ast.Name) and stmt.targets[0].slice.id == x):
        return False
    base = stmt.targets[0].value
    if alias is not None:
        return isinstance(base, ast.Name) and base.id == alias[0]
    return isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name) and isinstance(base.slice, ast.Name) \
        and base.slice.id == y


def _grid_fill(value: ast.AST, ranges: list[ast.AST]) -> ast.expr | None:
    """c of `[[c] * W for _ in range(H)]` or `[[c for _ in range(W)] for _ in range(H)]`, with c a constant, a name
    or an attribute of one (`self.fill`: the same value wherever it is read, where the loops do not set it); else
    None."""
    if not (isinstance(value, ast.ListComp) and len(value.generators) == 1 and not value.generators[0].ifs):
        return None
    outer = value.generators[0].iter
    if not (isinstance(outer, ast.Call) and dotted(outer.func) == "range" and len(outer.args) == 1
            and ast.dump(outer.args[0]) == ast.dump(ranges[0])):
        return None
    row = value.elt
    if isinstance(row, ast.BinOp) and isinstance(row.op, ast.Mult) and isinstance(row.left, ast.List) \
            and len(row.left.elts) == 1 and _plain_fill(row.left.elts[0]):
        return row.left.elts[0] if ast.dump(row.right) == ast.dump(ranges[1]) else None
    if isinstance(row, ast.ListComp) and len(row.generators) == 1 and not row.generators[0].ifs \
            and _plain_fill(row.elt):
        it = row.generators[0].iter
        same = isinstance(it, ast.Call) and dotted(it.func) == "range" and len(it.args) == 1 \
            and ast.dump(it.args[0]) == ast.dump(ranges[1])
        return row.elt if same else None
    return None


def _plain_fill(node: ast.AST) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, (ast.Constant, ast.Name))


def slots_edit(text: str, block: list[ast.stmt], k: int, function: ast.FunctionDef) -> list[tuple[int, int, str]] | None:
    """`for i in range(N): ... X[i] = e ...` rewriting each slot of a list X from its old value (`re[k] = re[k] * g`),
    said as `X_new.append(e)` and, after the loop, `X[:len(X_new)] = X_new`: the same values in the same list object.

    Every value a pass reads of X is `X[i]`, its own slot, not yet written (no later slot is read, none written
    earlier), so computing from the old list is computing what the loop computed. Taken where each write is one line
    at the top of the pass, reads `X[i]` (so a range past the list's end raises IndexError there, as the loop did),
    X is a name bound once in the function to a list of its own (`.tolist()`, a display, a comprehension, `list(...)`)
    and read nowhere else in the loop, the counter and N are unchanged by the loop, and no pass ends early.
    """
    loop = block[k]
    rng = loop.iter if isinstance(loop, ast.For) else None
    if not (isinstance(rng, ast.Call) and dotted(rng.func) == "range" and len(rng.args) == 1 and not rng.keywords
            and isinstance(loop.target, ast.Name) and not loop.orelse) or skips_a_pass(loop.body):
        return None
    i = loop.target.id
    writes = [s for s in loop.body if isinstance(s, ast.Assign) and len(s.targets) == 1
              and isinstance(s.targets[0], ast.Subscript) and isinstance(s.targets[0].value, ast.Name)
              and isinstance(s.targets[0].slice, ast.Name) and s.targets[0].slice.id == i]
    names = [w.targets[0].value.id for w in writes]
    if not writes or len(set(names)) != len(names) or any(w.lineno != w.end_lineno for w in writes) \
            or i in names_stored(loop.body) or names_loaded(rng) & names_stored(loop.body):
        return None
    for name, write in zip(names, writes):
        body = [n for stmt in loop.body for n in ast.walk(stmt)]  # the header's `range(len(X))` reads its length
        own = [n for n in body if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == name]
        mentions = [n for n in body if isinstance(n, ast.Name) and n.id == name]
        if len(mentions) != len(own) or not all(isinstance(n.slice, ast.Name) and n.slice.id == i for n in own) \
                or not any(n is not write.targets[0] for n in own if within(n, write)) \
                or any(n.lineno > write.lineno for n in own) or not _own_list(function, name):
            return None
    lines = text.splitlines(keepends=True)
    indent = lines[loop.lineno - 1][:loop.col_offset]
    taken = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
    fresh = {}
    for name in names:
        fresh[name] = name_apart(f"{name}_new", taken)
        taken.add(fresh[name])
    edits = [(loop.lineno, loop.lineno, "".join(f"{indent}{fresh[n]} = []\n" for n in names) + lines[loop.lineno - 1])]
    for name, write in zip(names, writes):
        line = lines[write.lineno - 1]
        edits.append((write.lineno, write.lineno, f"{line[:write.col_offset]}{fresh[name]}.append("
                      f"{line[write.value.col_offset:write.value.end_col_offset]}){line[write.value.end_col_offset:]}"))
    merged = dict((first, new) for first, _, new in edits)  # one edit per line: the header, each write
    last = merged.get(loop.end_lineno, lines[loop.end_lineno - 1])
    merged[loop.end_lineno] = (last if last.endswith("\n") else last + "\n") + "".join(
        f"{indent}{n}[:len({fresh[n]})] = {fresh[n]}\n" for n in names)  # after the loop's last line
    return [(line, line, new) for line, new in merged.items()]


def _own_list(function: ast.FunctionDef, name: str) -> bool:
    """Whether `name` is bound once in `function`, to a list of its own: `x.tolist()`, a list display or
    comprehension, or `list(...)` (alone, or an item of a tuple assignment of such values)."""
    found = []
    for node in ast.walk(function):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.With)):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            for target in targets:
                if isinstance(target, ast.Name) and target.id == name:
                    found.append(node.value if isinstance(node, ast.Assign) else None)
                elif isinstance(target, ast.Tuple) and any(isinstance(e, ast.Name) and e.id == name
                                                           for e in target.elts):
                    value = node.value if isinstance(node, ast.Assign) else None
                    at = [isinstance(e, ast.Name) and e.id == name for e in target.elts].index(True)
                    found.append(value.elts[at] if isinstance(value, ast.Tuple)
                                 and len(value.elts) == len(target.elts) else None)
    if name in {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)} or len(found) != 1:
        return False
    value = found[0]
    return isinstance(value, (ast.List, ast.ListComp)) or isinstance(value, ast.Call) and (
        isinstance(value.func, ast.Attribute) and value.func.attr == "tolist" and not value.args
        or dotted(value.func) == "list")

