"""Window reductions: a nest of counting loops that writes, at each position, the maximum, minimum, sum or mean of an
array's window around it (a local maximum for a threshold, a dark channel, a grey-level erosion, a moving average):

    for i in range(n):
        lo = max(0, i - half)
        hi = min(n, i + half + 1)
        thr[i] = alpha * x[lo:hi].max()

    for y in range(h):
        for x in range(w):
            patch = padded[y:y + k, x:x + k, :]
            dark[y, x] = np.min(patch)

    smooth = [padded[i:i + win].mean() for i in range(n)]      # or a loop of smooth.append(...)

Every window of the nest is reduced at once, one array axis at a time, by `_window_reduce`, which the file gains once
(HELPER_SOURCE), and the loop stays as the branch taken where that declines:

    x_max = _window_reduce(x, (
        ("window", -half, 1, 2 * half + 1, True, n, len(range(n))),
    ), 'max')
    if x_max is not None and _window_target(thr, (x,), (0,)):
        thr[0:n] = alpha * x_max
    else:
        for i in range(n):
            ...                                     # the loop as it was

Exactness: a maximum over a rectangle is the maximum of its rows' maxima, in any order, so the result is the loop's to
the bit (NaN included). A sum or mean is taken only over one axis of whole windows (none clipped), each window's values
copied into a row of their own, which numpy adds as it added the slice (the same pairwise grouping of the same values
in the same order); a 2-D window's sum, or a clipped one's, is left to the loop.

What each window's bounds may be: `c * v + a` to `c * v + b` for a loop counter `v` (a stride `c` and offsets
`a`, `b` the nest does not change, so every window is `b - a` long), the lower one clipped as `max(0, ...)` and the
upper one as `min(N, ...)`, either spelled with the bounds in names the body sets first. A window clipped at an
edge is padded with the reduction's identity (-inf, the dtype's smallest integer, False for a maximum), which
changes no maximum. The reduction is `np.max`/`np.min`/`np.amax`/`np.amin`/`np.sum`/`np.mean` or the same methods
of the slice, or the builtin `max`/`min` of a one-dimensional slice (where the array holds no NaN: the builtin's
answer for a NaN depends on where it is). What the loop writes (or appends, or the comprehension makes) is the
reduction inside arithmetic with values the nest does not change, at the loop counters (each plus a fixed offset),
in the nest's order.

Where the nest's own semantics could differ, it runs as before, decided when it runs (`_window_reduce` returns
None): the array is not a numpy array of numbers; a window would start before 0 unclipped (a negative index wraps)
or be empty (the loop would raise); the stride is not positive; the written array is not a numpy array, shares
memory with a window's array, or is written from a negative position; an appended-to name is not a list; a sum or
mean whose windows' rows would hold more than 2**24 values (copied, 128 MiB of float64). One
difference stays: a maximum of 0.0 and -0.0 may be either zero; the data check, which compares every batch, sees it.
"""
from __future__ import annotations

import ast
import copy
import functools
from collections.abc import Callable

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.imports import after_imports_text
from perfloop.tools.change.codemods.loops import (
    LoopRewrite,
    identifier,
    name_apart,
    names_loaded,
    names_stored,
    read_before_rebound,
)
from perfloop.tools.change.codemods.window_args import applied, reduction, unrepeatable
from perfloop.tools.change.codemods.window_runtime import HELPER_SOURCE

_INVARIANT_CALLS = {"len", "int", "abs", "min", "max"}

Poly = dict[tuple[str, ...], int]
"""A polynomial in values the nest does not change: monomial (their source texts, sorted) -> integer factor."""


def has_windowreduction(node: ast.AST) -> bool:
    """Whether `node` holds a max, min, sum or mean of a sliced subscript, or of a name (which may be bound to one
    first): worth trying as window reductions."""
    return any(reduction(sub, names_too=True) is not None or unrepeatable(sub) for sub in ast.walk(node))


def or_windows(node: ast.stmt, windows: Callable[[], LoopRewrite],
               other: Callable[[], tuple[LoopRewrite, list[str]]]) -> tuple[LoopRewrite, list[str]]:
    """`node` rewritten as window reductions where it holds one and that applies, else by `other`; where both
    refuse, both reasons."""
    if not has_windowreduction(node):
        return other()
    try:
        return windows(), []
    except NotApplicable as not_windows:
        try:
            return other()
        except NotApplicable as why:
            raise NotApplicable(f"{why}; as window reductions: {not_windows}") from None


def windows_first(loop: bool):
    """Wrap the vectoriser's translator of a loop (`loop`: called with the block and the loop's index) or of a
    comprehension statement: what holds a window reduction is tried as window reductions first (`or_windows`)."""
    def wrap(translate):
        @functools.wraps(translate)
        def attempt(first, k, names, *rest, **options):
            if loop:
                node, windows = first[k], lambda: window_loop(first, k, names)
            else:
                node, windows = first, lambda: window_comprehension(first, k, names)
            return or_windows(node, windows, lambda: translate(first, k, names, *rest, **options))
        return attempt
    return wrap


def with_helpers(text: str) -> str:
    """`text` with the window helpers defined after its imports, once, where a rewrite calls them."""
    if "_window_reduce(" not in text or HELPER_SOURCE in text:
        return text
    if "def _window_reduce(" in text:
        raise NotApplicable("the file holds window helpers of another perfloop version (`_window_reduce`); more window "
                            "rewrites in it need this version's: rewrite the earlier change's loops back first")
    return after_imports_text(text, HELPER_SOURCE)


def window_loop(fn_body: list[ast.stmt], k: int, names: set[str]) -> LoopRewrite:
    """Rewrite the window-reduction nest `fn_body[k]` (see the module docstring), or raise NotApplicable saying
    which part of it is not a window reduction."""
    loop = fn_body[k]
    where = f"line {loop.lineno}"
    levels, temps, writes = _nest(loop, where)
    stored = {var for var, _, _ in levels} | {name for name, _ in temps}
    for name in sorted(stored):
        if read_before_rebound(name, fn_body[k + 1:]):
            raise NotApplicable(f"{where}: `{name}` is read after the loop, where it holds the last pass's value")
    for _, start, stop in levels:
        _invariant(start, stored, where)
        _invariant(stop, stored, where)
    for name, value in temps:  # a name the nest sets goes with the loop: it must compute, nothing more
        reduced = {id(n) for r in ast.walk(value) if reduction(r, names_too=True) is not None for n in ast.walk(r)}
        for node in ast.walk(value):
            if isinstance(node, ast.Call) and id(node) not in reduced \
                    and not (isinstance(node.func, ast.Name) and node.func.id in _INVARIANT_CALLS):
                raise NotApplicable(f"line {value.lineno}: `{ast.unparse(node)}`, which sets `{name}`, is a call "
                                    "the rewrite would not make")
    taken = set(names) | {"np"}
    lines, guards, new_writes, sources, targets = [], [], [], [], []
    # Every array the nest writes is read by none of its statements: the loop would read a slot before or after
    # a pass wrote it, where the rewrite reads them all before any write.
    written_all = {ast.unparse(s.value.func.value if isinstance(s, ast.Expr) else s.targets[0].value) for s in writes}
    for stmt in writes:
        if isinstance(stmt, ast.Expr):  # out.append(value), in a single loop
            out = ast.unparse(stmt.value.func.value)
            value, read = _reduced(stmt.value.args[0], temps, levels, stored | written_all, taken, lines, guards,
                                   f"line {stmt.lineno}")
            guards.append(f"type({out}) is list")
            new_writes.append(f"{out}.extend(_window_items({value}, {_tuple(dict.fromkeys(read))}))")
            sources += read
            continue
        target = _substituted(stmt.targets[0], temps)  # `out[j]` with `j = i - r` set first: `out[i - r]`
        written = ast.unparse(target.value)
        slots, firsts = _written(target, levels, stored, where)
        value, read = _reduced(stmt.value, temps, levels, stored | written_all, taken, lines, guards,
                               f"line {stmt.lineno}")
        sources += read
        targets.append((written, firsts))
        new_writes.append(f"{written}[{slots}] = {value}")
    for written, firsts in targets:  # and shares no memory with any array read, checked when it runs
        guards.append(f"_window_target({written}, {_tuple(dict.fromkeys(sources))}, {_tuple(firsts)})")
    body = "".join(f"    {line}\n" for line in new_writes)
    original = "".join(f"    {line}\n" for line in ast.unparse(loop).splitlines())
    lines.append(f"if {' and '.join(dict.fromkeys(guards))}:\n{body}else:\n{original}")
    return LoopRewrite(start=k, end=k, lines=lines, rule="window reductions", notes=[_NOTE.format(where=where)])


def window_comprehension(stmt: ast.stmt, k: int, names: set[str]) -> LoopRewrite:
    """A statement holding `[g(x[lo:hi].mean()) for i in range(n)]` (`out = [...]`, `return np.array([...])`) with
    the comprehension as `list(...)` of the window reductions' array (its items the numpy scalars the comprehension
    made), or the statement as it was where `_window_reduce` declines."""
    where = f"line {stmt.lineno}"
    comps = [node for node in ast.walk(stmt) if isinstance(node, ast.ListComp) and has_windowreduction(node)]
    comp = comps[0] if len(comps) == 1 else None
    if comp is None or len(comp.generators) != 1 or comp.generators[0].ifs or comp.generators[0].is_async:
        raise NotApplicable(f"{where}: not one `[... for v in range(...)]` without a condition")
    outside = [node for node in ast.walk(stmt) if isinstance(node, ast.Call)
               and not any(node is inner for inner in ast.walk(comp))]
    for call in outside:  # the rest of the statement runs after the windows are reduced: it must not change them
        if ast.unparse(call.func) not in _WRAPPERS:
            raise NotApplicable(f"{where}: `{ast.unparse(call)}` in the same statement would run after the windows "
                                "are reduced instead of before")
    gen = comp.generators[0]
    loop = ast.For(target=gen.target, iter=gen.iter, body=[ast.Expr(value=comp.elt)], orelse=[], lineno=stmt.lineno)
    levels, _, _ = _nest(loop, where, comprehension=True)
    stored = {levels[0][0]}
    _invariant(levels[0][1], stored, where)
    _invariant(levels[0][2], stored, where)
    lines, guards = [], []
    written = names_stored([stmt])
    value, read = _reduced(comp.elt, [], levels, stored | written, set(names) | {"np"}, lines, guards, where)
    fast = copy.deepcopy(stmt)
    twin = next(node for node in ast.walk(fast) if isinstance(node, ast.ListComp) and ast.dump(node) == ast.dump(comp))
    fast = _replace(fast, twin, ast.parse(f"_window_items({value}, {_tuple(dict.fromkeys(read))})", mode="eval").body)
    lines.append(f"if {' and '.join(guards)}:\n    {ast.unparse(fast)}\nelse:\n    {ast.unparse(stmt)}\n")
    return LoopRewrite(start=k, end=k, lines=lines, rule="window reductions", notes=[_NOTE.format(where=where)])


_WRAPPERS = {"np.array", "np.asarray", "numpy.array", "numpy.asarray", "list", "tuple", "torch.tensor",
             "torch.as_tensor", "len"}
"""Calls a statement may make around a comprehension of window reductions (they only convert its list)."""


_NOTE = ("{where}: every window's reduction computed at once, one axis at a time (`_window_reduce`; exact: a "
         "maximum is the same in any order, and a sum or mean adds each whole window as its own row, as the slice "
         "did); where the array is not a numpy array of numbers, a window would wrap, be empty or (for a sum or "
         "mean) be clipped, or the written array is not a numpy array apart from it, the loop runs as before")


_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)  # elementwise on arrays as on numbers


def _reduced(value: ast.expr, temps: list[tuple[str, ast.expr]], levels: list[tuple[str, ast.expr, ast.expr]],
             stored: set[str], taken: set[str], lines: list[str], guards: list[str],
             where: str) -> tuple[str, list[str]]:
    """The text of `value` with each window reduction in it computed once for the whole nest (a line per reduction
    added to `lines`, its check to `guards`), and the arrays read. `stored`: what the nest sets, and what it
    writes (which no part may read)."""
    value = _substituted(value, temps)
    found = [(node, kind) for node in ast.walk(value) if (kind := reduction(node)) is not None]
    if not found:
        other = next((node for node in ast.walk(value) if unrepeatable(node)), None)
        if other is not None:
            raise NotApplicable(f"{where}: `{ast.unparse(other)}` reduces more than a window or element-wise "
                                "arithmetic on one (`+ - *`, an integer power, a division by a number, abs, square, "
                                "sqrt), which the rewrite could repeat on the whole array")
        raise NotApplicable(f"{where}: `{ast.unparse(value)}` is no maximum, minimum, sum or mean of a window")
    sources, made = [], []
    for node, (op, builtin, sub, arg) in found:
        base = ast.unparse(sub.value)
        _invariant(sub.value, stored, where)
        spec = _spec(sub, levels, stored, where)
        entries = "".join(f"    {entry},\n" for entry in spec)
        options = (", builtin=True" if builtin else "") + (applied(arg, sub, stored, taken, where) if arg is not sub
                                                           else "")
        call = f"_window_reduce({base}, (\n{entries}), {op!r}{options})"
        done = {line.split(" = ", 1)[1]: line.split(" = ", 1)[0] for line in lines}
        result = done.get(call) or name_apart(f"{identifier(base.split('.')[-1])}_{op}", taken)
        if call not in done:  # the same reduction read twice (`mean * mean`) is computed once
            taken.add(result)
            lines.append(f"{result} = {call}")
            guards.append(f"{result} is not None")
        made.append(result)
        sources.append(base)
        value = _replace(value, node, ast.Name(id=result, ctx=ast.Load()))
    if names_loaded(value) & stored or any(isinstance(n, ast.Call) for n in ast.walk(value)):
        raise NotApplicable(f"{where}: `{ast.unparse(value)}` uses the loop's values outside its windows, or calls a "
                            "function on a window's reduction")
    if all(op in ("size", "len") for _, (op, *_rest) in found):
        raise NotApplicable(f"{where}: `{ast.unparse(value)}` counts windows and reduces none (a count alone is a "
                            "Python int per window, which an array of them is not)")
    results = set(made)
    for node in ast.walk(value):  # arithmetic and one comparison: what a whole array computes as each number did
        if isinstance(node, (ast.BoolOp, ast.IfExp)) or isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) \
                or isinstance(node, ast.Compare) and (len(node.ops) > 1 or not isinstance(node.ops[0], _ORDER)) \
                or isinstance(node, (ast.Subscript, ast.Attribute)) and names_loaded(node) & results:
            raise NotApplicable(f"{where}: `{ast.unparse(node)}` takes a window's reduction as one number (a truth "
                                "value, an index or an attribute), which an array of them is not")
    return ast.unparse(value), sources


def _nest(loop: ast.For, where: str, comprehension: bool = False
          ) -> tuple[list[tuple[str, ast.expr, ast.expr]], list[tuple[str, ast.expr]], list[ast.stmt]]:
    """The nest's counting loops (counter, start, stop), the names its bodies set (in order) and the writes of the
    innermost body: subscripts written, or (in a single loop) `out.append(value)`."""
    levels, temps, node = [], [], loop
    while True:
        if node.orelse:
            raise NotApplicable(f"{where}: for/else is not a window reduction")
        if not (isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Call)
                and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range"
                and 1 <= len(node.iter.args) <= 2 and not node.iter.keywords):
            raise NotApplicable(f"line {node.lineno}: a window reduction's loops count with `range(stop)` or "
                                "`range(start, stop)`")
        args = node.iter.args
        levels.append((node.target.id, args[0] if len(args) == 2 else ast.Constant(0), args[-1]))
        body = list(node.body)
        while body and _is_temp(body[0]):
            temps += _pairs(body.pop(0))
        if len(body) == 1 and isinstance(body[0], ast.For):
            node = body[0]
            continue
        if comprehension:
            break
        if not body or not all(isinstance(s, ast.Assign) and len(s.targets) == 1
                               and isinstance(s.targets[0], ast.Subscript) or len(levels) == 1 and _appends(s)
                               for s in body):
            raise NotApplicable(f"line {node.lineno}: the innermost loop holds more than names set and then "
                                "subscripts written (`out[i] = ...`) or, in a single loop, values appended")
        break
    bound = [name for name, _ in temps] + [var for var, _, _ in levels]
    if len(set(bound)) != len(bound):
        raise NotApplicable(f"{where}: a name is set twice in the nest")
    return levels, temps, body


def _appends(stmt: ast.stmt) -> bool:
    """`name.append(value)`."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
        and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords


def _is_temp(stmt: ast.stmt) -> bool:
    """`name = value`, or `a, b = x, y` where no value reads a name the statement sets."""
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return False
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, ast.Name):
        return True
    return isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts) \
        and all(isinstance(t, ast.Name) for t in target.elts) and not names_loaded(value) & names_stored([stmt])


def _pairs(stmt: ast.Assign) -> list[tuple[str, ast.expr]]:
    """The (name, value) pairs a `_is_temp` statement sets, in order."""
    target = stmt.targets[0]
    if isinstance(target, ast.Name):
        return [(target.id, stmt.value)]
    return [(t.id, v) for t, v in zip(target.elts, stmt.value.elts, strict=True)]


def _substituted(node: ast.expr, temps: list[tuple[str, ast.expr]]) -> ast.expr:
    """`node` with each name the nest set replaced by its value (values set in order, so later ones see earlier)."""
    values: dict[str, ast.expr] = {}
    for name, value in temps:
        values[name] = _swap(copy.deepcopy(value), values)
    return _swap(copy.deepcopy(node), values)


def _swap(node: ast.expr, values: dict[str, ast.expr]) -> ast.expr:
    class Swap(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.AST:
            return copy.deepcopy(values[name.id]) if isinstance(name.ctx, ast.Load) and name.id in values else name

    return Swap().visit(node)


def _replace(root: ast.AST, old: ast.AST, new: ast.expr) -> ast.AST:
    """`root` with `new` where `old` was (a reduction call replaced by its result's name)."""
    if root is old:
        return new
    for parent in ast.walk(root):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
            elif isinstance(value, list):
                parent.__dict__[field] = [new if item is old else item for item in value]
    return root


def _tuple(items) -> str:
    items = list(items)
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _invariant(node: ast.AST, stored: set[str], where: str) -> None:
    """Refuse unless `node` reads nothing the nest sets and calls only len/int/abs/min/max."""
    if names_loaded(node) & stored:
        raise NotApplicable(f"{where}: `{ast.unparse(node)}` changes inside the loop")
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and not (isinstance(sub.func, ast.Name) and sub.func.id in _INVARIANT_CALLS):
            raise NotApplicable(f"{where}: `{ast.unparse(sub)}` is a call the rewrite would make once instead of "
                                "on every pass")
        if isinstance(sub, (ast.NamedExpr, ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom)):
            raise NotApplicable(f"{where}: `{ast.unparse(sub)}` is not a plain value")


def _written(target: ast.Subscript, levels: list[tuple[str, ast.expr, ast.expr]], stored: set[str],
             where: str) -> tuple[str, list[str]]:
    """The slice text the rewrite writes for `out[...]` at the nest's counters (each plus a fixed offset) in its
    order, and each written axis's first position."""
    parts = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    by_var = {var: (start, stop) for var, start, stop in levels}
    texts, firsts, order = [], [], []
    for part in parts:
        if not names_loaded(part) & stored:
            _invariant(part, stored, where)
            texts.append(ast.unparse(part))
            continue
        form = _affine(part, stored, where) if not isinstance(part, ast.Slice) else {}
        moving = [key for key in form if key]
        if len(moving) != 1 or form[moving[0]] != {(): 1} or moving[0] not in by_var:
            raise NotApplicable(f"{where}: `{ast.unparse(part)}` in `{ast.unparse(target)}` is not a loop counter "
                                "plus a fixed offset")
        order.append(moving[0])
        start, stop = by_var[moving[0]]
        offset = form.get("", {})
        firsts.append(_text(_add(_atom(start), offset)))
        texts.append(f"{firsts[-1]}:{_text(_add(_atom(stop), offset))}")
    if order != [var for var, _, _ in levels]:
        raise NotApplicable(f"{where}: `{ast.unparse(target)}` is not written at the loop counters in the nest's "
                            "order")
    _invariant(target.value, stored, where)
    return ", ".join(texts), firsts


def _spec(sub: ast.Subscript, levels: list[tuple[str, ast.expr, ast.expr]], stored: set[str],
          where: str) -> list[str]:
    """One `_window_reduce` spec entry per index of `sub`, as source text."""
    parts = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
    by_var = {var: (start, stop) for var, start, stop in levels}
    spec, order = [], []
    for part in parts:
        if isinstance(part, ast.Slice) and not part.step and part.lower is None and part.upper is None:
            spec.append('("all",)')
            continue
        if not names_loaded(part) & stored:
            _invariant(part, stored, where)
            text = ast.unparse(part)
            if isinstance(part, ast.Slice):
                text = "slice(" + ", ".join(ast.unparse(end) if end else "None"
                                            for end in (part.lower, part.upper, part.step)) + ")"
            spec.append(f'("at", {text})')
            continue
        if not isinstance(part, ast.Slice) or part.step is not None or part.lower is None or part.upper is None:
            raise NotApplicable(f"{where}: `{ast.unparse(part)}` in `{ast.unparse(sub)}` is not a window "
                                "`lo:hi` around a loop counter")
        var, step, low, clip_low = _bound(part.lower, "max", stored, where)
        var_hi, step_hi, high, limit = _bound(part.upper, "min", stored, where)
        if var != var_hi or step != step_hi or var in order or var not in by_var:
            raise NotApplicable(f"{where}: `{ast.unparse(part)}` does not move both its ends with one loop counter "
                                "at one stride")
        order.append(var)
        start, stop = by_var[var]
        first = _text(_add(_times(step, _atom(start)), low))
        count = f"len(range({ast.unparse(stop)}))" if _atom(start) == {} else \
            f"len(range({ast.unparse(start)}, {ast.unparse(stop)}))"
        spec.append(f'("window", {first}, {_text(step)}, {_text(_add(high, _times({(): -1}, low)))}, '
                    f"{clip_low is not None}, {ast.unparse(limit) if limit is not None else None}, {count})")
    if order != [var for var, _, _ in levels]:
        raise NotApplicable(f"{where}: the windows of `{ast.unparse(sub)}` do not follow every loop counter of the "
                            "nest in its order")
    return spec


def _bound(node: ast.expr, clip: str, stored: set[str], where: str):
    """(counter, stride, offset, clip value or None) of `c * v + a`, or `max(0, ...)` (`min(N, ...)`) of it."""
    clipped = None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == clip \
            and len(node.args) == 2 and not node.keywords:
        inner = [a for a in node.args if names_loaded(a) & stored]
        outer = [a for a in node.args if not names_loaded(a) & stored]
        if len(inner) != 1 or len(outer) != 1:
            raise NotApplicable(f"{where}: `{ast.unparse(node)}` is not {clip}() of a bound and a fixed value")
        node, clipped = inner[0], outer[0]
        _invariant(clipped, stored, where)
        if clip == "max" and not (isinstance(clipped, ast.Constant) and clipped.value == 0):
            raise NotApplicable(f"{where}: `{ast.unparse(clipped)}` clips a window's start at another place than 0")
    form = _affine(node, stored, where)
    moving = [key for key in form if key]
    if len(moving) != 1 or not form[moving[0]]:
        raise NotApplicable(f"{where}: `{ast.unparse(node)}` does not move with exactly one loop counter")
    return moving[0], form[moving[0]], form.get("", {}), clipped


def _affine(node: ast.expr, stored: set[str], where: str) -> dict[str, Poly]:
    """`node` as {counter (or "" for the fixed part): polynomial factor}, or NotApplicable where it is not linear in
    the nest's counters."""
    if not names_loaded(node) & stored:
        _invariant(node, stored, where)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return {"": {(): node.value}} if node.value else {}
        return {"": _atom(node)}
    if isinstance(node, ast.Name):
        return {node.id: {(): 1}}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return {key: _times({(): -1}, poly) for key, poly in _affine(node.operand, stored, where).items()}
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        left, right = _affine(node.left, stored, where), _affine(node.right, stored, where)
        sign = {(): 1 if isinstance(node.op, ast.Add) else -1}
        return {key: _add(left.get(key, {}), _times(sign, right.get(key, {}))) for key in {*left, *right}}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        left, right = _affine(node.left, stored, where), _affine(node.right, stored, where)
        fixed, moving = (left, right) if set(left) <= {""} else (right, left)
        if not set(fixed) <= {""}:
            raise NotApplicable(f"{where}: `{ast.unparse(node)}` multiplies two loop counters")
        return {key: _times(fixed.get("", {}), poly) for key, poly in moving.items()}
    raise NotApplicable(f"{where}: `{ast.unparse(node)}` is not a loop counter times a stride plus an offset")


def _atom(node: ast.expr) -> Poly:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return {(): node.value} if node.value else {}
    text = ast.unparse(node)
    return {((text if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) else f"({text})"),): 1}


def _add(a: Poly, b: Poly) -> Poly:
    out = dict(a)
    for key, factor in b.items():
        out[key] = out.get(key, 0) + factor
    return {key: factor for key, factor in out.items() if factor}


def _times(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for key_a, fa in a.items():
        for key_b, fb in b.items():
            out = _add(out, {tuple(sorted(key_a + key_b)): fa * fb})
    return out


def _text(poly: Poly) -> str:
    """Source text of a polynomial (`2 * half + 1`), 0 for none."""
    terms = []
    for key, factor in sorted(poly.items(), key=lambda item: (-len(item[0]), item[0])):
        body = " * ".join(key)
        if not body:
            terms.append(str(factor))
        else:
            terms.append(body if factor == 1 else f"-{body}" if factor == -1 else f"{factor} * {body}")
    text = " + ".join(terms) or "0"
    return text.replace("+ -", "- ")
