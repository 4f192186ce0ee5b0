"""A preallocated array filled slot by slot is a list built by appends, made into that array after the loop.

    roc = np.zeros(len(g))                       roc = []
    for i in range(len(g)):                      for i in range(len(g)):
        prev, cur = ...                              prev, cur = ...
        if math.isnan(prev) or ...:       ->         if math.isnan(prev) or ...:
            continue                                     roc.append(0.0)
        roc[i] = (cur - prev) / dt                       continue
                                                     roc.append((cur - prev) / dt)
                                                 roc = np.array(roc, dtype=np.float64)    # after the loop's rewrite

`array_slots_as_appends` restates the parsed body the translator reads (as `restate.slots_as_appends` does for a
list `[c] * N`), and `array_made` gives the line that makes the array again after the translated loop. The array
is the one the loop filled: the same length, the same dtype (numpy's default float64, or torch's default dtype,
where none is given), and each value converted as its slot's write converted it (a Python float or int into the
dtype, by the same C cast; a value the dtype cannot hold raises in both). A pass a `continue` guard ends before the
write leaves the slot as made: the fill value is appended there.

A 2-D array made with a shape `(H, W)` and filled cell by cell in `for y in range(H): for x in range(W):`
(`out[y, x] = e` or `out[y][x] = e`, the last statement of the inner body, perhaps under an `if`, after plain
assignments) is said as rows appended per pass (`array_grid_as_rows`), which the translator reads as one comprehension
over both axes; `grid_made` makes it the array again, reshaped to `(H, W)` so that a grid with no rows keeps its shape.
A numpy grid filled over an inner region, `for y in range(a, s): for x in range(c, t):` with `a` and `c` literal ints
(a 3x3 stencil's `range(1, h - 1)`, its border left as made), is made as before after the nest, and the rows written
into `out[a:a + ny, c:c + nx]`, `ny = len(range(a, s))` (a stop past the array raises in both forms: an IndexError in
the loop, a shape error in the write).
A pixel unpacked in the inner body (`r, g, b = img[y, x]`) is read as its channels (`img[y, x][0]`, ...); the
rewrite then runs only where `img` is a numpy array of three axes with exactly that many channels, as the unpacking
required (`grid_guard`), and the original init and nest run where it is anything else.

Taken only where that is exact: `np.zeros`/`np.ones`/`np.full` (or torch's) of the loop's own `range(N)`, made
just before the loop (nothing between reads or sets it), a 1-D length (not a shape tuple), a fill value and dtype
the loop does not change, one write `out[i] = e` at the top of the loop's body, nothing else in the loop or its
range reading `out`, and no pass ending early except by `if test: continue` before the write (the write may be the
only statement of an `if` and its `else`). A loop that only copies an element (`out[i] = int(data[i + 1])`) is left
to the gather rewrite, which writes it as one array with no list between, and one that reduces windows
(`out[i] = x[lo:hi].max()`) to the window rewrite. `np.empty` (slots
as made are not defined) and any other form are left alone.
"""
from __future__ import annotations

import ast
import copy

from perfloop.tools.change.codemods.loops import dotted, name_apart, names_loaded, names_stored
from perfloop.tools.change.codemods.restate import skips_a_pass
from perfloop.tools.change.codemods.window_args import reduction

_FILLS = {"zeros": "0", "ones": "1"}
_MODULES = {"np": "np", "numpy": "np", "torch": "torch"}


def array_slots_as_appends(body: list[ast.stmt], k: int) -> list[ast.stmt] | None:
    """The body with a preallocated array's init and filling loop `body[k]` said as appends to a list, or None."""
    found = _filled(body, k)
    if found is None:
        return None
    j, out, fill, _, _ = found
    loop = body[k]
    write = next(s for s in loop.body if _slot_value(s, out, [loop.target.id]) is not None)
    at = loop.body.index(write)
    value = _slot_value(write, out, [loop.target.id], ast.parse(fill, mode="eval").body)
    new_body = []
    for stmt in loop.body[:at]:
        if isinstance(stmt, ast.If) and [type(s) for s in stmt.body] == [ast.Continue] and not stmt.orelse:
            stmt = copy.copy(stmt)
            stmt.body = [_append(out, ast.parse(fill, mode="eval").body, stmt), stmt.body[0]]
        new_body.append(stmt)
    new_body += [_append(out, value, write), *loop.body[at + 1:]]
    new_loop = copy.copy(loop)
    new_loop.body = [ast.fix_missing_locations(s) for s in new_body]
    init = ast.copy_location(ast.Assign(targets=[ast.Name(id=out, ctx=ast.Store())],
                                        value=ast.List(elts=[], ctx=ast.Load())), body[j])
    restated = list(body)
    restated[j], restated[k] = ast.fix_missing_locations(init), new_loop
    return restated


def array_made(original: list[ast.stmt], k: int, taken: set[str]) -> list[str]:
    """The lines that make the array again from the appended list, after the loop's rewrite, where
    `array_slots_as_appends` restated `original[k]` (a loop from slot `a` > 0 writes the list into the array made
    as before, whose first `a` slots keep their fill); else none. `taken`: names in use."""
    found = _filled(original, k)
    if found is None:
        return []
    j, out, _, (module, dtype), first = found
    if not first:
        return [f"{out} = {module}.{'array' if module == 'np' else 'tensor'}({out}, dtype={dtype})"]
    slots = name_apart(f"{out}_slots", taken)
    return [f"{out}, {slots} = {ast.unparse(original[j].value)}, {out}", f"{out}[{first}:] = {slots}"]


def array_grid_as_rows(body: list[ast.stmt], k: int, taken: set[str]) -> list[ast.stmt] | None:
    """The body with a preallocated 2-D array's init and filling nest `body[k]` (`out[y, x] = e`, or `out[y][x]`, in
    `for y in range(H): for x in range(W):`, the write last in the inner body, perhaps under an `if`) said as rows
    appended per pass (which `nests.appended_rows_as_grid` reads as one comprehension over both axes), or None."""
    found = _grid(body, k)
    if found is None:
        return None
    j, out, fill = found[:3]
    loop, inner = body[k], body[k].body[-1]
    row = name_apart(f"{out}_row", taken | {n.id for n in ast.walk(loop) if isinstance(n, ast.Name)})
    value = _slot_value(inner.body[-1], out, [loop.target.id, inner.target.id], ast.parse(fill, mode="eval").body)
    new_inner = copy.copy(inner)
    temps = [_split_pixel(stmt, loop.target.id, inner.target.id) or stmt for stmt in inner.body[:-1]]
    new_inner.body = [*temps, _append(row, value, inner.body[-1])]
    start = ast.copy_location(ast.Assign(targets=[ast.Name(id=row, ctx=ast.Store())],
                                         value=ast.List(elts=[], ctx=ast.Load())), inner)
    new_loop = copy.copy(loop)
    new_loop.body = [ast.fix_missing_locations(s) for s in (*loop.body[:-1], start, new_inner,
                                                           _append(out, ast.Name(id=row, ctx=ast.Load()), inner))]
    init = ast.copy_location(ast.Assign(targets=[ast.Name(id=out, ctx=ast.Store())],
                                        value=ast.List(elts=[], ctx=ast.Load())), body[j])
    restated = list(body)
    restated[j], restated[k] = ast.fix_missing_locations(init), new_loop
    return restated


def _split_pixel(stmt: ast.stmt, y: str, x: str) -> ast.Assign | None:
    """`r, g, b = img[y, x]` (or `img[y][x]`) as `r, g, b = img[y, x][0], img[y, x][1], img[y, x][2]` (`_` left out),
    which the grid's rows read as channels; the rewrite takes it only where `img` is a numpy array whose pixels hold
    exactly that many values (`grid_guard`), as the unpacking required."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
            and _pixel(stmt.value, y, x) is not None):
        return None
    names = stmt.targets[0].elts
    if not all(isinstance(n, ast.Name) for n in names):
        return None
    kept = [(n, k) for k, n in enumerate(names) if n.id != "_"]
    values = [ast.Subscript(value=copy.deepcopy(stmt.value), slice=ast.Constant(k), ctx=ast.Load()) for _, k in kept]
    target = ast.Tuple(elts=[ast.Name(id=n.id, ctx=ast.Store()) for n, _ in kept], ctx=ast.Store())
    return ast.fix_missing_locations(ast.copy_location(ast.Assign(
        targets=[target], value=ast.Tuple(elts=values, ctx=ast.Load())), stmt))


def _pixel(value: ast.expr, y: str, x: str) -> str | None:
    """The array's text where `value` is `img[y, x]` or `img[y][x]` of a plain name or attribute, else None."""
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Tuple) \
            and [ast.unparse(e) for e in value.slice.elts] == [y, x]:
        base = value.value
    elif isinstance(value, ast.Subscript) and isinstance(value.value, ast.Subscript) \
            and [ast.unparse(value.value.slice), ast.unparse(value.slice)] == [y, x]:
        base = value.value.value
    else:
        return None
    return ast.unparse(base) if isinstance(base, (ast.Name, ast.Attribute)) else None


def grid_guard(original: list[ast.stmt], k: int) -> tuple[str, str] | None:
    """(the test the rewritten nest runs under, the original init and nest run where it fails) where the nest unpacks
    pixels (`_split_pixel`): each array a numpy array of two axes and one of exactly as many values as the unpacking
    names; else None."""
    found = _grid(original, k)
    if found is None:
        return None
    loop = original[k]
    inner = loop.body[-1]
    tests = []
    for stmt in inner.body[:-1]:
        if _split_pixel(stmt, loop.target.id, inner.target.id) is not None:
            base, count = _pixel(stmt.value, loop.target.id, inner.target.id), len(stmt.targets[0].elts)
            tests.append(f"type({base}) is np.ndarray and {base}.ndim == 3 and {base}.shape[2] == {count}")
    if not tests:
        return None
    return " and ".join(dict.fromkeys(tests)), f"{ast.unparse(original[found[0]])}\n{ast.unparse(loop)}"


def grid_made(original: list[ast.stmt], k: int, taken: set[str]) -> list[str]:
    """The lines that make the 2-D array again from the rows appended, after the nest's rewrite, where
    `array_grid_as_rows` restated `original[k]` (reshaped, so that no rows still give its shape; a nest from
    `range(a, s)` and `range(c, t)` writes them into the array made as before, from cell (a, c)); else none.
    `taken`: names in use."""
    found = _grid(original, k)
    if found is None:
        return []
    j, out, _, (module, dtype), shape, inside = found
    if inside is None:
        return [f"{out} = {module}.{'array' if module == 'np' else 'tensor'}({out}, dtype={dtype}).reshape({shape})"]
    # Cells from (a, c) on: the array made as before, the rows written into as many of its rows and columns as the
    # ranges gave (len(range(a, s)), never a slice's reading of a negative stop), the rest keeping their fill.
    (a, stop_y), (c, stop_x) = inside
    rows, ny, nx = (name_apart(f"{out}_{part}", taken) for part in ("rows", "ny", "nx"))
    return [f"{ny}, {nx} = len(range({a}, {stop_y})), len(range({c}, {stop_x}))",
            f"{out}, {rows} = {ast.unparse(original[j].value)}, np.array({out}, dtype={dtype}).reshape({ny}, {nx})",
            f"{out}[{a}:{a} + {ny}, {c}:{c} + {nx}] = {rows}"]


def _grid(body: list[ast.stmt], k: int) -> tuple | None:
    """(the init's index, the array's name, its fill's text, (module, dtype), its shape's text, the nest's (start,
    stop text) per axis where it fills less than the whole array, else None) where `body[k]` is a nest that fills
    a preallocated 2-D array as `array_grid_as_rows` says; else None."""
    loop = body[k]
    if not (isinstance(loop, ast.For) and loop.body and isinstance(loop.body[-1], ast.For)):
        return None
    inner = loop.body[-1]
    bounds = [_range(loop), _range(inner)]
    if None in bounds or not inner.body:
        return None
    ranges = [stop for _, stop in bounds]
    y, x = loop.target.id, inner.target.id
    write = inner.body[-1]
    if _slot_value(write, None, [y, x]) is None or len(loop.body) == len(inner.body) == 1 and _copies(write) \
            or _reduces_windows(loop):
        return None
    out = _written(write)
    others = [*loop.body[:-1], *inner.body[:-1], _slot_value(write, out, [y, x]), inner.iter]
    if any(out in names_loaded(s) | names_stored([s]) for s in others) or skips_a_pass(loop.body) \
            or not all(isinstance(s, ast.Assign) for s in [*loop.body[:-1], *inner.body[:-1]]) \
            or names_loaded(inner.iter) & names_stored([*loop.body[:-1], loop.target]) \
            or names_loaded(loop.iter) & names_stored(loop.body):
        return None
    for j in range(k - 1, -1, -1):
        stmt = body[j]
        if out not in names_loaded(stmt) | names_stored([stmt]):
            continue
        shape = stmt.value.args[0] if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) \
            and stmt.value.args else None
        if not (isinstance(shape, (ast.Tuple, ast.List)) and len(shape.elts) == 2):
            return None
        whole = [ast.dump(e) for e in shape.elts] == [ast.dump(r) for r in ranges] and bounds[0][0] == bounds[1][0] == 0
        made = _made(stmt, out, shape)
        if made is None or any(names_loaded(stmt.value) & names_stored([s]) for s in body[j + 1:k]) \
                or names_loaded(stmt.value) & names_stored(loop.body) or not whole and made[1][0] != "np" \
                or not whole and (names_loaded(loop.iter) | names_loaded(inner.iter)) & names_stored([loop]):
            return None
        inside = None if whole else tuple((start, ast.unparse(stop)) for start, stop in bounds)
        return j, out, made[0], made[1], ast.unparse(shape).strip("()[]"), inside
    return None


def _range(loop: ast.For) -> tuple[int, ast.expr] | None:
    """(a, N) of `for v in range(a, N)` with `a` a literal int from 0, (0, N) of `range(N)`; else None."""
    rng = loop.iter
    if not (isinstance(rng, ast.Call) and dotted(rng.func) == "range" and 1 <= len(rng.args) <= 2
            and not rng.keywords and isinstance(loop.target, ast.Name) and not loop.orelse):
        return None
    first = rng.args[0] if len(rng.args) == 2 else ast.Constant(0)
    if not (isinstance(first, ast.Constant) and type(first.value) is int and first.value >= 0):
        return None
    return first.value, rng.args[-1]


def _filled(body: list[ast.stmt], k: int) -> tuple[int, str, str, tuple[str, str], int] | None:
    """(the init's index, the array's name, its fill value's text, (module, dtype text), the first slot the loop
    writes) where `body[k]` fills a preallocated array as the module docstring says; else None."""
    loop = body[k]
    rng = loop.iter if isinstance(loop, ast.For) else None
    if not (isinstance(rng, ast.Call) and dotted(rng.func) == "range" and 1 <= len(rng.args) <= 2
            and not rng.keywords and isinstance(loop.target, ast.Name) and not loop.orelse):
        return None
    first = rng.args[0] if len(rng.args) == 2 else ast.Constant(0)
    if not (isinstance(first, ast.Constant) and type(first.value) is int and first.value >= 0):
        return None
    counter = loop.target.id
    writes = [s for s in loop.body if _slot_value(s, None, [counter]) is not None]
    if len(writes) != 1:
        return None
    write = writes[0]
    out = _written(write)
    at = loop.body.index(write)
    if len(loop.body) == 1 and _copies(write) or _reduces_windows(loop):
        return None  # an element copied, or windows reduced: the gather or window rewrite takes the loop as it is
    others = loop.body[:at] + loop.body[at + 1:] + [_slot_value(write, out, [counter], ast.Constant(0))]
    if any(out in names_loaded(s) | names_stored([s]) for s in others) or out in names_loaded(rng) \
            or names_loaded(rng.args[0]) & names_stored(loop.body) or skips_a_pass(loop.body[at + 1:]):
        return None
    for stmt in loop.body[:at]:
        guard = isinstance(stmt, ast.If) and [type(s) for s in stmt.body] == [ast.Continue] and not stmt.orelse
        if not guard and skips_a_pass([stmt]):
            return None
    for j in range(k - 1, -1, -1):
        stmt = body[j]
        if out not in names_loaded(stmt) | names_stored([stmt]):
            continue
        made = _made(stmt, out, rng.args[-1])
        if made is None or any(names_loaded(stmt.value) & names_stored([s]) for s in body[j + 1:k]):
            return None
        fill, dtype = made
        if names_loaded(stmt.value) & names_stored(loop.body) or first.value and dtype[0] != "np":
            return None
        return j, out, fill, dtype, first.value
    return None


def _made(stmt: ast.stmt, out: str, length: ast.expr) -> tuple[str, tuple[str, str]] | None:
    """(fill value, (module, dtype)) of `out = np.zeros(length, dtype=...)` and the like, else None."""
    call = stmt.value if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == out else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name) and call.func.value.id in _MODULES):
        return None
    module, kind = _MODULES[call.func.value.id], call.func.attr
    args = list(call.args)
    if kind == "full" and len(args) >= 2:
        fill = args.pop(1)
        if any(isinstance(n, (ast.Call, ast.NamedExpr)) for n in ast.walk(fill)):
            return None
        fill_text = ast.unparse(fill)
    elif kind in _FILLS:
        fill_text = _FILLS[kind]
    else:
        return None
    keywords = {kw.arg: kw.value for kw in call.keywords}
    if len(args) > (2 if module == "np" else 1) or set(keywords) - {"dtype"} \
            or not args or ast.dump(args[0]) != ast.dump(length):
        return None
    dtype = keywords.get("dtype") or (args[1] if len(args) == 2 else None)
    if dtype is not None and any(isinstance(n, (ast.Call, ast.NamedExpr)) for n in ast.walk(dtype)):
        return None
    default = "np.float64" if module == "np" else "torch.get_default_dtype()"
    return fill_text, (module, ast.unparse(dtype) if dtype is not None else default)


def _writes(stmt: ast.stmt, out: str | None, counters: list[str]) -> bool:
    """`out[c] = value`, `out[y, x] = value` or `out[y][x] = value` at the loop counters, in order (any name for `out`
    where it is None)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)):
        return False
    base, index = stmt.targets[0], []
    if isinstance(base.slice, ast.Tuple):
        base, index = base.value, [ast.unparse(e) for e in base.slice.elts]
    else:
        while isinstance(base, ast.Subscript):
            base, index = base.value, [ast.unparse(base.slice), *index]
    return isinstance(base, ast.Name) and (out is None or base.id == out) and index == counters


def _written(stmt: ast.stmt) -> str:
    """The array a `_slot_value` statement writes."""
    base = (stmt.body[0] if isinstance(stmt, ast.If) else stmt).targets[0]
    while isinstance(base, ast.Subscript):
        base = base.value
    return base.id


def _slot_value(stmt: ast.stmt, out: str | None, counters: list[str], fill: ast.expr | None = None) -> ast.expr | None:
    """What the pass leaves in the slot: `e` of `out[counters] = e`, or of `if test: out[counters] = e` (`else:
    out[counters] = e2`), as `e if test else fill` (`e2`); None for any other statement."""
    if _writes(stmt, out, counters):
        return stmt.value
    if not (isinstance(stmt, ast.If) and len(stmt.body) == 1 and _writes(stmt.body[0], out, counters)):
        return None
    if stmt.orelse and not (len(stmt.orelse) == 1 and _writes(stmt.orelse[0], _written(stmt), counters)):
        return None
    other = stmt.orelse[0].value if stmt.orelse else fill if fill is not None else ast.Constant(0)
    return ast.IfExp(test=stmt.test, body=stmt.body[0].value, orelse=other)


def _reduces_windows(loop: ast.For) -> bool:
    """Whether the loop reduces windows (`x[lo:hi].max()`, of a name bound to one too): the window rewrite's."""
    return any(reduction(node, names_too=True) is not None for node in ast.walk(loop))


def _copies(stmt: ast.stmt) -> bool:
    """`out[i] = A[...]`, or `int()`/`float()` of it."""
    value = stmt.value if isinstance(stmt, ast.Assign) else None
    if isinstance(value, ast.Call) and dotted(value.func) in ("int", "float") and len(value.args) == 1:
        value = value.args[0]
    return isinstance(value, ast.Subscript)


def _append(out: str, value: ast.expr, where: ast.stmt) -> ast.stmt:
    return ast.copy_location(ast.Expr(value=ast.Call(
        func=ast.Attribute(value=ast.Name(id=out, ctx=ast.Load()), attr="append", ctx=ast.Load()),
        args=[value], keywords=[])), where)
