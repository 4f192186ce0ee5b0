"""Gather loops: a nest of `for` loops that copies `A[affine index]` into `T[loop counters]`.

The batch builders of character LMs (nanoGPT style) fill a preallocated tensor element
by element:

    for b, i in enumerate(ix.tolist()):
        for j in range(block_size):
            x[b, j] = int(data[i + j])

Every loop becomes an array axis and the whole nest one fancy-indexed read and one
slice write per statement:

    i = np.asarray(ix.tolist(), dtype=np.int64)
    j = np.arange(block_size)
    x[:len(i), :len(j)] = torch.as_tensor(data_arr[i[:, None] + j].astype(np.int64))

The conversion is the loop's: `int(v)` -> `.astype(np.int64)` (truncates like int()),
`float(v)` -> `.astype(np.float64)` (exact); the write then casts into the target's
dtype as the element-wise writes did (the same C cast for each element). Refused, with
the reason: other statements, targets read in the loop (aliasing, loop-carried
dependencies), indices that are not affine in the loop values, written indices that
are not the loop counters in loop order, early exits, random draws and other calls, and a target
the function makes with more axes than the loops have counters (an element write spread its value
over a row, which one array write does not).

Row writes (`row_write_loop`, tried where the nest is not a gather): one loop that copies a sequence into one row
of a preallocated array or tensor, element by element (the padding loop of a collate):

    for t, tok in enumerate(q):
        input_ids[i, t] = tok
        attention[i, t] = 1

is one slice write per statement, the sequence converted once to the target's dtype, as each element's write did:

    input_ids[i, :len(q)] = torch.as_tensor(q, dtype=input_ids.dtype)
    attention[i, :len(q)] = 1

The counter must be one position of the written index (the others the loop never changes), the value the loop's
element, `seq[t]`, a value the loop does not change, or a value computed from the element by builtins that only
compute, a mapping's `.get`, string methods and math.* (`tokens[b, t] = VOCAB.get(ch, UNK)`, `gaps[b, t] = ch == "-"`):
that one is the loop's own header as a comprehension, `[VOCAB.get(ch, UNK) for t, ch in enumerate(seq)]`, the same
Python values in the same order, converted once to the target's dtype as each write converted its own (a
per-element tensor write costs microseconds; the comprehension's element, a tenth of one). Each statement reads the
sequence again, so it must be a sequence, not an iterator (`len(seq)` sizes the slice; replay sees one that is not).
A sequence longer than the row raises in both forms (an IndexError part-way through the loop, a shape error before
any write).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loop_checks import refuse_effects
from perfloop.tools.change.codemods.loops import (
    MATH_NAMES,
    LoopRewrite,
    dotted,
    identifier,
    names_loaded,
    read_before_rebound,
)

_PURE_CALLS = {"len", "range", "enumerate", "int", "float"}
_CONVERSIONS = {"int": ".astype(np.int64)", "float": ".astype(np.float64)"}


@dataclass
class _Level:
    """One loop of the nest: the name that counts 0..n-1 (if any), the element name and its array."""

    counter: str | None
    value: str | None
    values_src: str      # numpy source of the array the loop walks
    count_name: str      # the name whose len() is the loop's trip count


def is_gather(loop: ast.For) -> bool:
    """Whether the loop nest writes subscripts (the only writes a gather loop makes)."""
    return any(isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) for t in node.targets)
               for node in ast.walk(loop))


def gather_loop(fn_body: list[ast.stmt], k: int, names: set[str]) -> LoopRewrite:
    """Rewrite the gather loop nest `fn_body[k]`, or raise NotApplicable with the reason."""
    loop = fn_body[k]
    refuse_effects(loop, pure_calls=_PURE_CALLS, math_calls=False, tolist=True, subscript_writes=True,
                   calls_allowed="a gather loop only reads arrays (len, range, enumerate, .tolist(), int, float)")
    levels, stmts, loop_vars = _levels(loop)
    taken = set(names) | {"np"}
    writes = []
    for stmt in stmts:
        writes.append(_write(stmt, levels, loop_vars))
    written = [base for base, _, _, _ in writes]
    for base in written:
        if written.count(base) > 1:
            raise NotApplicable(f"line {loop.lineno}: `{base}` is written by two statements of the loop")
    read_nodes = [node for _, _, src, _ in writes for node in ast.walk(src)] + \
                 [node for sub in ast.walk(loop) if isinstance(sub, ast.For) for node in ast.walk(sub.iter)]
    for node in read_nodes:
        if isinstance(node, (ast.Name, ast.Attribute)) and dotted(node) in written:
            raise NotApplicable(f"line {loop.lineno}: `{dotted(node)}` is both written and read in the loop "
                                "(loop-carried dependency / the target aliases a source); the rewrite would read "
                                "every element before writing any")
    leaked = {name for name in loop_vars if read_before_rebound(name, fn_body[k + 1:])}
    if leaked:
        raise NotApplicable(f"line {loop.lineno}: `{sorted(leaked)[0]}` is read after the loop, where it holds "
                            "the last element's value")
    kinds = {base: _target_kind(fn_body[:k], base) for base in written}
    for base in written:
        axes = _made_axes(fn_body[:k], base)
        if axes is not None and axes != len(levels):
            raise NotApplicable(f"line {loop.lineno}: `{base}` is made with {axes} axes and the loop writes it at "
                                f"{len(levels)} counters: each element write spread its value over the rest, which "
                                "one array write would not")
    lines = [f"{level.count_name} = {level.values_src}" for level in levels]
    for level in levels:
        if level.counter and level.counter != level.count_name and _uses(writes, level.counter):
            lines.append(f"{level.counter} = np.arange(len({level.count_name}))")
    hoisted: dict[str, str] = {}
    for base, conv, src, _ in writes:
        text = dotted(src.value)
        if text not in hoisted:
            hoisted[text] = _fresh(f"{text.split('.')[-1]}_arr", taken)
            lines.append(f"{hoisted[text]} = np.asarray({text})")
    shape = ", ".join(f":len({level.count_name})" for level in levels)
    for base, conv, src, stmt in writes:
        index = _broadcast(src.slice, levels)
        values = f"{hoisted[dotted(src.value)]}[{index}]{_CONVERSIONS.get(conv, '')}"
        if kinds[base] == "torch":
            lines.append(f"{base}[{shape}] = torch.as_tensor({values})")
        elif kinds[base] == "numpy":
            lines.append(f"{base}[{shape}] = {values}")
        else:
            tmp = _fresh(f"{base.split('.')[-1]}_values", taken)
            # Unknown target: a numpy array takes the array, a tensor a tensor (torch.as_tensor when
            # the function names torch, else the tensor's own new_tensor, which needs no import).
            tensor = f"torch.as_tensor({tmp})" if "torch" in names else f"{base}.new_tensor({tmp})"
            lines += [f"{tmp} = {values}",
                      f"{base}[{shape}] = {tmp} if isinstance({base}, np.ndarray) else {tensor}"]
    return LoopRewrite(start=k, end=k, lines=lines, rule="gather")


def copy_loop(fn_body: list[ast.stmt], k: int, names: set[str]) -> LoopRewrite:
    """A gather nest, or else one row copied element by element; where neither, the gather's reason for a nest, and
    both reasons for a single loop."""
    try:
        return gather_loop(fn_body, k, names)
    except NotApplicable as not_a_gather:
        if any(isinstance(stmt, ast.For) for stmt in fn_body[k].body):
            raise
        try:
            return row_write_loop(fn_body, k, names)
        except NotApplicable as not_a_row:
            raise NotApplicable(f"{not_a_gather}; as one row copied element by element: {not_a_row}") from None


def row_write_loop(fn_body: list[ast.stmt], k: int, names: set[str]) -> LoopRewrite:
    """Rewrite the row-write loop `fn_body[k]` (see the module docstring), or raise NotApplicable with the reason."""
    loop = fn_body[k]
    where = f"line {loop.lineno}"
    counter, value, seq = _row_header(loop)
    loop_vars = {n for n in (counter, value) if n}
    if loop.orelse or not all(isinstance(s, ast.Assign) and len(s.targets) == 1
                              and isinstance(s.targets[0], ast.Subscript) for s in loop.body):
        raise NotApplicable(f"{where}: a row write holds only `T[..., t, ...] = value` statements")
    if any(isinstance(n, ast.Call) for n in ast.walk(seq)):
        raise NotApplicable(f"{where}: the sequence `{ast.unparse(seq)}` is computed by a call")
    lines, written = [], []
    for stmt in loop.body:
        base, index = _row_target(stmt.targets[0], counter, loop_vars, where)
        if base in written or base in names_loaded(seq) or base == dotted(seq):
            raise NotApplicable(f"{where}: `{base}` is written twice, or is the sequence copied")
        written.append(base)
        target = stmt.targets[0].slice
        axes, at = _made_axes(fn_body[:k], base), len(target.elts) if isinstance(target, ast.Tuple) else 1
        if axes is not None and axes != at:
            raise NotApplicable(f"{where}: `{base}` is made with {axes} axes and written at {at}: each element "
                                "write spread its value over the rest, which one row write would not")
        rows = ast.unparse(seq) if _is_element(stmt.value, value, seq, counter) else None
        if rows is None and names_loaded(stmt.value) & loop_vars:
            # A value computed per element (`AA_TO_ID.get(ch, UNK)`, `ch == GAP`): the loop's own header as a
            # comprehension, the same Python values in the same order, converted once instead of per write.
            _refuse_per_element(stmt.value, written_by(loop))
            rows = f"[{ast.unparse(stmt.value)} for {ast.unparse(loop.target)} in {ast.unparse(loop.iter)}]"
        elif rows is None and any(isinstance(n, ast.Call) for n in ast.walk(stmt.value)):
            raise NotApplicable(f"line {stmt.lineno}: `{ast.unparse(stmt.value)}` calls a function")
        slot = index.replace("\0", f":len({ast.unparse(seq)})")
        lines.append(f"{base}[{slot}] = {_converted(base, rows, _target_kind(fn_body[:k], base), names)}"
                     if rows is not None else f"{base}[{slot}] = {ast.unparse(stmt.value)}")
    for node in ast.walk(ast.Module(body=[s.value for s in loop.body] + [seq], type_ignores=[])):
        if isinstance(node, (ast.Name, ast.Attribute)) and dotted(node) in written:
            raise NotApplicable(f"{where}: `{dotted(node)}` is both written and read in the loop")
    leaked = {name for name in loop_vars if read_before_rebound(name, fn_body[k + 1:])}
    if leaked:
        raise NotApplicable(f"{where}: `{sorted(leaked)[0]}` is read after the loop, where it holds the last "
                            "element's value")
    return LoopRewrite(start=k, end=k, lines=lines, rule="row writes")


# What a value computed per element of a row write may call: builtins that only compute, a mapping's `.get`, string
# methods that make a new value, and math's functions (each call made once per element, as the loop made it).
_ROW_BUILTINS = frozenset({"abs", "min", "max", "float", "int", "bool", "len", "ord", "chr", "str", "round"})
_ROW_METHODS = frozenset({"get", "lower", "upper", "casefold", "strip", "lstrip", "rstrip", "isdigit", "isalpha",
                          "isspace", "isupper", "islower", "startswith", "endswith"})


def written_by(loop: ast.For) -> set[str]:
    """The dotted names of the arrays a row-write loop writes."""
    return {dotted(s.targets[0].value if not isinstance(s.targets[0].value, ast.Subscript)
                   else s.targets[0].value.value) for s in loop.body}


def _refuse_per_element(node: ast.expr, written: set[str]) -> None:
    """Refuse a per-element value that could do more than compute: a call outside the lists above, a `.get` of
    something the loop writes, an assignment expression, a lambda or a nested generator."""
    for sub in ast.walk(node):
        if isinstance(sub, (ast.NamedExpr, ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom, ast.GeneratorExp)):
            raise NotApplicable(f"line {sub.lineno}: `{ast.unparse(node)}` holds `{type(sub).__name__}`; a value "
                                "written per element is computed again by a comprehension only where it only reads")
        if not isinstance(sub, ast.Call):
            continue
        name = dotted(sub.func)
        if isinstance(sub.func, ast.Name) and name in _ROW_BUILTINS:
            continue
        if name.startswith("math.") and name[5:] in MATH_NAMES:
            continue
        if isinstance(sub.func, ast.Attribute) and sub.func.attr in _ROW_METHODS \
                and dotted(sub.func.value) not in written:
            continue
        raise NotApplicable(f"line {sub.lineno}: `{ast.unparse(node)}` calls {name or ast.unparse(sub.func)}(), "
                            "which may do more than compute; a row write computes its values with builtins, "
                            "`.get` of a mapping, string methods and math.* only")


def _row_header(loop: ast.For) -> tuple[str, str | None, ast.expr]:
    """(counter, element name or None, the sequence) of `for t, v in enumerate(seq)` or `for t in range(len(seq))`."""
    call = loop.iter if isinstance(loop.iter, ast.Call) and not loop.iter.keywords and len(loop.iter.args) == 1 \
        else None
    name, target = (dotted(call.func) if call else ""), loop.target
    if name == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
            and all(isinstance(e, ast.Name) for e in target.elts) and target.elts[0].id != target.elts[1].id:
        return target.elts[0].id, target.elts[1].id, call.args[0]
    inner = call.args[0] if call else None
    if name == "range" and isinstance(target, ast.Name) and isinstance(inner, ast.Call) \
            and dotted(inner.func) == "len" and len(inner.args) == 1 and not inner.keywords:
        return target.id, None, inner.args[0]
    raise NotApplicable(f"line {loop.lineno}: a row write walks `enumerate(seq)` or `range(len(seq))`, not "
                        f"`{ast.unparse(loop.iter)}`")


def _row_target(target: ast.Subscript, counter: str, loop_vars: set[str], where: str) -> tuple[str, str]:
    """(the written array, its index with "\\0" where the counter is) of `T[i, t]`, `T[i][t]` or `T[t]`."""
    def fixed(node: ast.expr) -> bool:
        return not names_loaded(node) & loop_vars and not any(isinstance(n, (ast.Call, ast.Slice, ast.Starred))
                                                                 for n in ast.walk(node))

    def is_counter(node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id == counter

    base = dotted(target.value)
    parts = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    if base and base.split(".")[0] not in loop_vars and sum(map(is_counter, parts)) == 1 \
            and all(is_counter(p) or fixed(p) for p in parts):
        return base, ", ".join("\0" if is_counter(p) else ast.unparse(p) for p in parts)
    outer = target.value
    if isinstance(outer, ast.Subscript) and is_counter(target.slice) and dotted(outer.value) \
            and dotted(outer.value).split(".")[0] not in loop_vars and fixed(outer.slice):
        return dotted(outer.value), f"{ast.unparse(outer.slice)}][\0"
    raise NotApplicable(f"{where}: the written index `{ast.unparse(target)}` is not the loop's counter at one place "
                        "and values the loop does not change elsewhere")


def _is_element(node: ast.expr, value: str | None, seq: ast.expr, counter: str) -> bool:
    """Whether `node` is the loop's element: its name, or `seq[t]`."""
    if value is not None and isinstance(node, ast.Name) and node.id == value:
        return True
    return isinstance(node, ast.Subscript) and ast.dump(node.value) == ast.dump(seq) \
        and isinstance(node.slice, ast.Name) and node.slice.id == counter


def _converted(base: str, seq: str, kind: str, names: set[str]) -> str:
    """`seq` as the written array's kind, in its dtype (each element converted as its own write converted it)."""
    if kind == "torch":
        return f"torch.as_tensor({seq}, dtype={base}.dtype)"
    if kind == "numpy":
        return f"np.asarray({seq}, dtype={base}.dtype)"
    tensor = f"torch.as_tensor({seq}, dtype={base}.dtype)" if "torch" in names else f"{base}.new_tensor({seq})"
    return f"(np.asarray({seq}, dtype={base}.dtype) if isinstance({base}, np.ndarray) else {tensor})"


def _levels(loop: ast.For) -> tuple[list[_Level], list[ast.stmt], set[str]]:
    """Walk the perfect loop nest: its headers, the innermost statements, every loop name."""
    levels: list[_Level] = []
    loop_vars: set[str] = set()
    node = loop
    while True:
        if node.orelse:
            raise NotApplicable(f"line {node.lineno}: for/else is not vectorised")
        bound = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        if not bound or names_loaded(node.iter) & loop_vars:
            raise NotApplicable(f"line {node.lineno}: the loop over `{ast.unparse(node.iter)}` depends on an outer "
                                "loop; only rectangular nests are gathered")
        if bound & loop_vars:
            raise NotApplicable(f"line {node.lineno}: `{sorted(bound & loop_vars)[0]}` is bound by two loops")
        loop_vars |= bound
        levels.append(_header(node))
        if len(node.body) == 1 and isinstance(node.body[0], ast.For):
            node = node.body[0]
            continue
        for stmt in node.body:
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Subscript)):
                raise NotApplicable(f"line {stmt.lineno}: the loop writes subscripts (a side effect) and also runs "
                                    f"`{ast.unparse(stmt).splitlines()[0]}`; a gather loop holds only "
                                    "`T[counters] = A[index]` statements")
        return levels, node.body, loop_vars


def _header(node: ast.For) -> _Level:
    call = node.iter if isinstance(node.iter, ast.Call) and not node.iter.keywords else None
    name = dotted(call.func) if call else ""
    target = node.target
    if name == "range" and isinstance(target, ast.Name) and 1 <= len(call.args) <= 3:
        args = [ast.unparse(a) for a in call.args]
        counts = len(args) == 1 or (len(args) == 2 and args[0] == "0")
        return _Level(target.id if counts else None, target.id, f"np.arange({', '.join(args)})", target.id)
    if name == "enumerate" and len(call.args) == 1 and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
            and all(isinstance(e, ast.Name) for e in target.elts):
        counter, value = (e.id for e in target.elts)
        return _Level(counter, value, f"np.asarray({ast.unparse(call.args[0])}, dtype=np.int64)", value)
    if isinstance(target, ast.Name) and name not in ("zip", "enumerate", "range"):
        return _Level(None, target.id, f"np.asarray({ast.unparse(node.iter)}, dtype=np.int64)", target.id)
    raise NotApplicable(f"line {node.lineno}: loop header `for {ast.unparse(target)} in {ast.unparse(node.iter)}` "
                        "is not range(n), enumerate(xs) or a plain iterable")


def _write(stmt: ast.Assign, levels: list[_Level], loop_vars: set[str]):
    """Check `T[c1, c2, ...] = conv(A[affine])`; return (T, conv, the A[...] node, stmt)."""
    target = stmt.targets[0]
    base = dotted(target.value)
    where = f"line {stmt.lineno}"
    if not base or base.split(".")[0] in loop_vars:
        raise NotApplicable(f"{where}: the loop writes `{ast.unparse(target)}`, not an element of a fixed array")
    index = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    counters = [level.counter for level in levels]
    if [n.id if isinstance(n, ast.Name) else None for n in index] != counters or None in counters:
        want = ", ".join(c or "?" for c in counters)
        raise NotApplicable(f"{where}: the written index `{ast.unparse(target.slice)}` is not the loop counters in "
                            f"loop order ({want}); each element must be written exactly once")
    value, conv = stmt.value, None
    if isinstance(value, ast.Call) and dotted(value.func) in _CONVERSIONS and len(value.args) == 1 \
            and not value.keywords:
        conv, value = dotted(value.func), value.args[0]
    if not (isinstance(value, ast.Subscript) and dotted(value.value)
            and dotted(value.value).split(".")[0] not in loop_vars):
        raise NotApplicable(f"{where}: `{ast.unparse(stmt.value)}` is not int()/float() of an element of a fixed "
                            "array; only copies A[index] -> T[counters] are gathered")
    parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
    for part in parts:
        if isinstance(part, ast.Slice) or not _affine(part, loop_vars):
            raise NotApplicable(f"{where}: index `{ast.unparse(part)}` does not vary along the loops as an affine "
                                "expression of the loop values (a + b, b * stride + j, i + j + 1)")
    return base, conv, value, stmt


def _affine(node: ast.AST, loop_vars: set[str]) -> bool:
    """Whether `node` varies with the loops; raises when it does, but not affinely."""
    if not names_loaded(node) & loop_vars:
        return False
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _affine(node.operand, loop_vars)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return _affine(node.left, loop_vars) | _affine(node.right, loop_vars)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        left, right = _affine(node.left, loop_vars), _affine(node.right, loop_vars)
        if not (left and right):
            return True
    raise NotApplicable(f"line {node.lineno}: index `{ast.unparse(node)}` is not affine in the loop values "
                        "(only +, - and * by a loop-invariant factor are gathered)")


def _broadcast(index: ast.AST, levels: list[_Level]) -> str:
    """The source index with each loop's values on its own axis (`i[:, None] + j`)."""
    axes = {}
    for depth, level in enumerate(levels):
        trailing = len(levels) - 1 - depth
        suffix = f"[:{', None' * trailing}]" if trailing else ""
        if level.value:
            axes[level.value] = f"{level.count_name}{suffix}" if level.value == level.count_name else None
        if level.counter and level.counter != level.count_name:
            axes[level.counter] = f"{level.counter}{suffix}"

    class Spread(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id in axes and axes[node.id]:
                return ast.parse(axes[node.id], mode="eval").body
            return node

    return ast.unparse(Spread().visit(ast.parse(ast.unparse(index), mode="eval")).body)


def _uses(writes: list, name: str) -> bool:
    return any(name in names_loaded(src.slice) for _, _, src, _ in writes)


def _target_kind(before: list[ast.stmt], base: str) -> str:
    """"torch" or "numpy" when the function creates `base` with torch.* / np.*, else "either"."""
    for stmt in reversed(before):
        if isinstance(stmt, ast.Assign) and any(dotted(t) == base for t in stmt.targets):
            func = dotted(stmt.value.func) if isinstance(stmt.value, ast.Call) else ""
            if func.startswith("torch."):
                return "torch"
            if func.startswith(("np.", "numpy.")):
                return "numpy"
            break
    return "either"


def _made_axes(before: list[ast.stmt], base: str) -> int | None:
    """How many axes `base` has where the function makes it just so (`np.zeros((h, w))`: 2, `torch.empty(n)`: 1;
    the shape as the first argument, a tuple or list display or one value), else None."""
    for stmt in reversed(before):
        if isinstance(stmt, ast.Assign) and any(dotted(t) == base for t in stmt.targets):
            call = stmt.value if isinstance(stmt.value, ast.Call) else None
            if call is None or not call.args or not dotted(call.func).split(".")[-1] in ("zeros", "ones", "empty",
                                                                                       "full"):
                return None
            shape = call.args[0]
            if isinstance(shape, (ast.Tuple, ast.List)):
                return None if any(isinstance(e, ast.Starred) for e in shape.elts) else len(shape.elts)
            return 1 if isinstance(shape, (ast.Name, ast.BinOp, ast.Constant)) or dotted(shape.func if isinstance(
                shape, ast.Call) else shape) == "len" else None
    return None


def _fresh(base: str, taken: set[str]) -> str:
    base = identifier(base)
    name, k = base, 2
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    taken.add(name)
    return name
