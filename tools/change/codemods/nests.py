"""The restatements a `for` loop goes through before translation, in order (`restated_loop`), and rows appended per
pass as one grid (`appended_rows_as_grid`); `for_rewrite` tries them.

Each says the loop another way that the translator reads, pass for pass the same: a preallocated list
filled slot by slot as appends, counts per branch and per row, an appending `continue` as the `if`
branch of an if/else, short inner rows written out, counting `while` loops as `for` loops, and a sort in
place of a list the pass has just made as a sorted copy. Each is taken where its own conditions hold,
on the body the ones before it gave.
"""
from __future__ import annotations

import ast
import copy

from perfloop.tools.change.codemods.array_slots import (
    array_grid_as_rows,
    array_made,
    array_slots_as_appends,
    grid_guard,
    grid_made,
)
from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.chunked import chunks_by_counter
from perfloop.tools.change.codemods.counts import counts_under_tail_ifs
from perfloop.tools.change.codemods.fission import split_nest
from perfloop.tools.change.codemods.flat_nests import nest_as_one_loop, one_loop_guard
from perfloop.tools.change.codemods.loop_checks import PURE_BUILTINS
from perfloop.tools.change.codemods.loops import (
    LoopRewrite,
    dotted,
    indented,
    names_loaded,
    names_stored,
    quiet_lines,
    read_before_rebound,
)
from perfloop.tools.change.codemods.restate import (
    appends_under_tail_if,
    continue_as_else,
    else_break_as_guard,
    replace_names,
    restate_counts,
    rows_unrolled,
    slots_as_appends,
    sorts_as_sorted,
)
from perfloop.tools.change.codemods.whiles import whiles_as_fors

CONTINUE_AS_ELSE = "an appending `continue` as else"
PREALLOCATED_ARRAY = "preallocated array as appends"
PREALLOCATED_GRID = "preallocated 2-D array as rows"
FISSION = "one nest per output"
ONE_LOOP = "a nest appending to one list as one loop over both ranges"
CHUNKS = "chunks summed by a counter it resets as a loop over chunks"


def restated_loop(block: list[ast.stmt], k: int, names: set[str]) -> tuple[list[ast.stmt], list[str]]:
    """The block with its loop `block[k]` restated, and the restatements taken (their rule names, in order)."""
    steps = [(PREALLOCATED_ARRAY, lambda b: array_slots_as_appends(b, k)),
             (PREALLOCATED_GRID, lambda b: array_grid_as_rows(b, k, names)),
             ("preallocated list", lambda b: slots_as_appends(b, k)),
             (ONE_LOOP, lambda b: nest_as_one_loop(b, k, names)),
             ("counts per branch and per row", lambda b: restate_counts(b, k, names)),
             ("counts under an `if` that ends the pass as guards", lambda b: counts_under_tail_ifs(b, k)),
             (CONTINUE_AS_ELSE, lambda b: continue_as_else(b, k)),
             ("a pass kept while a test holds as a break guard", lambda b: else_break_as_guard(b, k)),
             ("appends under an `if` that ends the pass as a guard", lambda b: appends_under_tail_if(b, k)),
             ("short rows written out", lambda b: rows_unrolled(b, k, names)),
             ("counting while loops as for loops", lambda b: whiles_as_fors(b, k)),
             ("sorts in place as sorted copies", lambda b: sorts_as_sorted(b, k))]
    taken = []
    for rule, step in steps:
        new = step(block)
        if new is not None:
            block = new
            taken.append(rule)
    return block, taken


def for_rewrite(block: list[ast.stmt], k: int, names: set[str], loop_rewrite, grid_rewrite):
    """(rewrite, inexact, restatements taken) of the `for` loop `block[k]`: restated (`restated_loop`), then as one
    grid where its rows are appended per pass (`appended_rows_as_grid`, through `grid_rewrite` of the new
    statement), else as a loop (`loop_rewrite` of the restated block); where neither applies to a nest computing
    several outputs, one nest per output (`fission.split_nest`), each rewritten so or left as it was.
    NotApplicable where nothing applies."""
    try:
        return _for_rewrite(block, k, names, loop_rewrite, grid_rewrite)
    except NotApplicable as whole:
        nests = split_nest(block, k)
        if nests is None:
            raise
        return _fissioned(block, k, nests, whole, lambda b: _for_rewrite(b, k, names, loop_rewrite, grid_rewrite))


def _fissioned(block: list[ast.stmt], k: int, nests: list[ast.For], whole: NotApplicable, attempt):
    """The nests of one output each, in order: rewritten where `attempt` takes one, else the loop as it is."""
    lines, removed, notes, inexact, rules, before, why = [], set(), [], [], [], [], []
    for nest in nests:
        try:
            rewrite, more, own = attempt([*block[:k], nest, *block[k + 1:]])
            if rewrite.start != k or rewrite.end != k:
                raise NotApplicable(f"line {nest.lineno}: the rewrite takes statements before the loop too")
        except NotApplicable as error:
            lines.append(ast.unparse(nest))
            why.append(str(error))
            continue
        # both branches computed for every element: quietly
        lines += quiet_lines(rewrite.lines) if rewrite.quiet or CONTINUE_AS_ELSE in own else rewrite.lines
        removed |= set(rewrite.remove)
        notes += rewrite.notes
        inexact += more
        rules.append(rewrite.rule)
        before += rewrite.before
    if not rules:
        raise NotApplicable(f"{whole}; as one nest per output ({len(nests)}): {'; '.join(why)}")
    note = (f"line {block[k].lineno}: the nest computes {len(nests)} outputs, each into an array made just before it "
            "and read by no other: one nest per output, in order (the names two outputs need computed in both)")
    notes = [note, *notes, *(f"left as a Python loop: {reason}" for reason in why)]
    return LoopRewrite(start=k, end=k, lines=lines, rule=f"one nest per output ({'; '.join(rules)})",
                       remove=sorted(removed), notes=notes, before=before), inexact, [FISSION]


def _guarded(rewrite: LoopRewrite, block: list[ast.stmt], k: int, guard=None) -> LoopRewrite:
    """The rewrite under a test, the original statements run where it fails: the grid's unpacked pixels
    (`array_slots.grid_guard`), or `guard` (a test and the original text); the rewrite as it is where neither."""
    guard = guard or grid_guard(block, k)
    if guard is None:
        return rewrite
    test, original = guard
    body = quiet_lines(rewrite.lines) if rewrite.quiet else rewrite.lines
    rewrite.lines = [f"if {test}:\n{indented(body)}else:\n{indented([original])}"]
    rewrite.quiet = False
    return rewrite


def _for_rewrite(block: list[ast.stmt], k: int, names: set[str], loop_rewrite, grid_rewrite):
    chunked = chunks_by_counter(block, k, names)
    restated, rules = restated_loop(chunked[0] if chunked else block, k, names)
    if chunked:
        rules.insert(0, CHUNKS)
    grid = appended_rows_as_grid(restated, k)
    why = ""
    if grid is not None:
        try:
            rewrite, inexact = grid_rewrite(grid[1])
        except NotApplicable as error:
            why = f"line {block[k].lineno}: the rows appended per pass are not vectorised as one grid: {error}"
        else:
            rewrite.remove = sorted({*rewrite.remove, grid[0]})
            rewrite.rule = ", ".join([*reversed(rules), "rows appended per pass as one grid", rewrite.rule])
            rewrite.lines += grid_made(block, k, names) if PREALLOCATED_GRID in rules else []
            return _guarded(rewrite, block, k) if PREALLOCATED_GRID in rules else rewrite, inexact, rules
    rewrite, inexact = loop_rewrite(restated)
    rewrite.rule = ", ".join([*reversed(rules), rewrite.rule])
    guard = one_loop_guard(block[k]) if ONE_LOOP in rules else chunked[2] if chunked else None
    if guard is not None:  # the nest as it was where the test fails, with the inits the rewrite takes in
        made = [ast.unparse(block[i]) for i in sorted(rewrite.remove) if i != k]
        rewrite.lines = [*(chunked[1] if chunked else []), *(quiet_lines(rewrite.lines) if rewrite.quiet
                                                             else rewrite.lines)]
        rewrite.quiet = False
        rewrite = _guarded(rewrite, block, k, (guard, "\n".join([*made, ast.unparse(block[k])])))
    if PREALLOCATED_ARRAY in rules:  # the list the rewrite builds, made the array the loop filled
        rewrite.lines += array_made(block, k, names)
    if PREALLOCATED_GRID in rules:
        rewrite.lines += grid_made(block, k, names)
        rewrite = _guarded(rewrite, block, k)
    if why:
        rewrite.notes.append(why)
    return rewrite, inexact, rules

def appended_rows_as_grid(block: list[ast.stmt], k: int) -> tuple[int, ast.Assign] | None:
    """(index of `out = []`, `out = [[e' for x in S] for y in R]`) for rows appended per pass, else None.

    `out = []`, then `for y in R:` with temporaries, `row = []`, `for x in S:` with temporaries and
    `row.append(e)`, then `out.append(row)`: the same list as the comprehension over both axes whose element
    is `e` with every temporary put in its place (a name set again takes its new value from there on), which
    the translator vectorises over both axes. A row picked by a condition and then indexed,
    `(rows[y - 1] if y > 0 else rows[y])[x]`, is the index picked: `rows[y - 1 if y > 0 else y][x]`.
    Taken only in that exact form: plain `name = value` temporaries (or `a, b = c, d`), those of the outer pass
    calling nothing but builtins like `max` and `math.*` (a draw made once per row must not be made per element),
    no pass that ends early, `row` and `out` used nowhere else in the loops, no name the loops set read after them, and an inner
    range that reads nothing the outer pass sets (rows of one length).
    """
    loop = block[k]
    if not (isinstance(loop, ast.For) and not loop.orelse and isinstance(loop.target, ast.Name)
            and len(loop.body) >= 3 and isinstance(loop.body[-2], ast.For)):
        return None
    inner, appended = loop.body[-2], _appended(loop.body[-1])
    if inner.orelse or not isinstance(inner.target, ast.Name) or appended is None \
            or not isinstance(appended[1], ast.Name) or not inner.body:
        return None
    out, row = appended[0], appended[1].id
    heads = loop.body[:-2]
    starts = [j for j, s in enumerate(heads) if ast.dump(s) == ast.dump(_empty_list(row))]
    last = _appended(inner.body[-1])
    if len(starts) != 1 or last is None or last[0] != row:
        return None
    outer_temps, inner_temps = heads[:starts[0]] + heads[starts[0] + 1:], inner.body[:-1]
    if any(isinstance(n, ast.Call) and not (dotted(n.func) in PURE_BUILTINS or dotted(n.func).startswith("math."))
           for n in ast.walk(ast.Module(body=outer_temps, type_ignores=[]))):
        return None  # put in place, a value made once per row (a draw, a call) would be made once per element
    values: dict[str, ast.AST] = {}
    # Plain assignments only (`_put`), before `_carried` reads their values: a loop among them is no temporary.
    if not (_put(outer_temps, values) and _put(inner_temps, values)) or _carried(outer_temps, inner_temps):
        return None
    if loop.target.id in values \
            or inner.target.id in values or {row, out} & (_loaded(outer_temps + inner_temps) | set(values)) \
            or row in names_loaded(last[1]) or out in names_loaded(last[1]) \
            or names_loaded(inner.iter) & (names_stored([loop.target]) | names_stored(outer_temps) | {out}):
        return None  # rows whose length the outer pass sets may differ: a grid of them is no array
    init = next((j for j in range(k - 1, -1, -1) if out in names_loaded(block[j]) | names_stored([block[j]])), None)
    if init is None or ast.dump(block[init]) != ast.dump(_empty_list(out)):
        return None
    if any(read_before_rebound(name, block[k + 1:]) for name in names_stored([loop]) - {out}):
        return None
    element = _chosen_rows(replace_names(last[1], values))
    inner_gen = ast.comprehension(target=inner.target, iter=inner.iter, ifs=[], is_async=0)
    outer_gen = ast.comprehension(target=loop.target, iter=loop.iter, ifs=[], is_async=0)
    grid = ast.ListComp(elt=ast.ListComp(elt=element, generators=[inner_gen]), generators=[outer_gen])
    assign = ast.Assign(targets=[ast.Name(id=out, ctx=ast.Store())], value=grid)
    return init, ast.fix_missing_locations(ast.copy_location(assign, loop))


def _carried(outer_temps: list[ast.stmt], inner_temps: list[ast.stmt]) -> bool:
    """Whether a temporary reads a value a pass before set: a name the inner passes set, read by the outer pass or
    by an inner one before it is set there (`v = x - prev; prev = x`), or one the outer pass sets later in it."""
    inner_names, outer_names = names_stored(inner_temps), names_stored(outer_temps)
    set_so_far: set[str] = set()
    for stmt in outer_temps:
        if names_loaded(stmt.value) & (inner_names | (outer_names - set_so_far)):
            return True
        set_so_far |= names_stored([stmt])
    set_so_far = set()
    for stmt in inner_temps:
        if names_loaded(stmt.value) & (inner_names - set_so_far):
            return True
        set_so_far |= names_stored([stmt])
    return False


def _loaded(stmts: list[ast.stmt]) -> set[str]:
    return {name for stmt in stmts for name in names_loaded(stmt)}


def _appended(stmt: ast.stmt) -> tuple[str, ast.AST] | None:
    """(list name, value) where `stmt` is `name.append(value)`."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
            and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords:
        return call.func.value.id, call.args[0]
    return None


def _empty_list(name: str) -> ast.Assign:
    return ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.List(elts=[], ctx=ast.Load()))


def _put(stmts: list[ast.stmt], values: dict[str, ast.AST]) -> bool:
    """Add each temporary of `stmts` to `values`, its value with the earlier ones in place; False if one is not.
    `s += v` counts where `stmts` set `s` before it (`s = 0`, then a written-out neighbourhood's additions): `s + v`,
    in the same order; one that adds to what a pass before left is a carried value, not a temporary."""
    own: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id in own:
            values[stmt.target.id] = ast.BinOp(left=values[stmt.target.id], op=stmt.op,
                                               right=replace_names(stmt.value, values))
            continue
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            return False
        own |= names_stored(stmt.targets)
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts) \
                and all(isinstance(t, ast.Name) for t in target.elts):
            new = [replace_names(v, values) for v in value.elts]  # every right side read before any name is set
            values.update({t.id: v for t, v in zip(target.elts, new)})
        elif isinstance(target, ast.Name):
            values[target.id] = replace_names(value, values)
        else:
            return False
    return True


def _chosen_rows(node: ast.AST) -> ast.AST:
    """`(a[p] if c else a[q])[r]` as `a[p if c else q][r]` (the same `a`, a name or attribute)."""
    class Pick(ast.NodeTransformer):
        def visit_Subscript(self, sub: ast.Subscript) -> ast.AST:
            self.generic_visit(sub)
            pick = sub.value
            if isinstance(pick, ast.IfExp) and all(isinstance(b, ast.Subscript) and not isinstance(b.slice, ast.Slice)
                                                   for b in (pick.body, pick.orelse)) \
                    and isinstance(pick.body.value, (ast.Name, ast.Attribute)) \
                    and ast.dump(pick.body.value) == ast.dump(pick.orelse.value):
                index = ast.IfExp(test=pick.test, body=pick.body.slice, orelse=pick.orelse.slice)
                sub.value = ast.Subscript(value=pick.body.value, slice=index, ctx=ast.Load())
            return sub
    return ast.fix_missing_locations(Pick().visit(copy.deepcopy(node)))
