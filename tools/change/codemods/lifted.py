"""A loop of array code over a grid of values, computed for every value at once: one axis more.

    power = np.zeros(len(freqs))                  power = np.zeros(len(freqs))
    for i, f in enumerate(freqs):                 if <freqs, t, w, y, power are what the loop assumed>:
        c = np.cos(2.0 * np.pi * f * t)               f_grid = freqs[:, None]
        C = np.sum(w * c)                  ->         c = np.cos(2.0 * np.pi * f_grid * t)
        power[i] = (C * C) / norm                     C = np.sum(w * c, axis=-1, keepdims=True)
                                                      power[:len(freqs)] = np.broadcast_to(C * C / norm, ...)[:, 0]
                                                  else:
                                                      <the loop as it was>

A periodogram over trial frequencies, a matched filter over templates, a response per angle: each pass computes
numpy arrays from one value of the grid and arrays fixed for the whole loop, reduces them to numbers and writes one
slot per pass. The vectoriser's element-wise translator refuses it (a numpy call in a Python loop), and the gain is
the loop's Python and per-call overhead, paid once per grid value.

Every value the pass computes gets a leading axis along the grid: a number per pass is a column `(N, 1)`, an array per
pass a row per grid value `(N, M)`, and numpy's broadcasting does the rest. A reduction of the pass's array
(`np.sum(x)`, `x.sum()`, `np.mean`, `np.max`, `np.min`, `np.prod`) reduces that row (`axis=-1, keepdims=True`): the
same row, reduced by the same loop over it. What the loop reads but does not change (`t`, `w`, `norm`) is read as it
is: a reduction of it alone is computed once.

Taken only where that is exactly the loop (`lift_grid`):
- the loop is `for i, v in enumerate(seq)` or `for i in range(n)`, at the function's top level, without `else`;
- its body is assignments to names, then writes `out[i] = e` into arrays made before it; no name it sets is read
  before the pass sets it, or after the loop;
- the expressions are arithmetic, numbers, names, `np.pi`-like constants, elementwise numpy functions, the
  reductions above of a whole value, and rows of a fixed array picked by the counter (`img[i]`); a number per pass
  raised by `**` is raised by Python's `**`, as the loop's numpy scalars were (libm's pow, which numpy's array square
  and SIMD pow do not match in the last bit), and a power of a value that may be either is refused.
At run time the new lines run only where what the loop assumed holds (`seq` a 1-D float array; every name read a
number or an array of at most one axis, or of exactly two where the counter picks its rows; every output a 1-D array; the
grid not empty; at most 4M elements per array made): the original loop runs anywhere else.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import LoopRewrite, dotted, name_apart, names_stored

ELEMENTWISE = frozenset({"sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "exp",
                         "expm1", "log", "log1p", "log2", "log10", "sqrt", "abs", "absolute", "fabs", "square",
                         "floor", "ceil", "trunc", "rint", "sign", "hypot", "maximum", "minimum", "cbrt", "negative",
                         "reciprocal", "deg2rad", "rad2deg", "radians", "degrees"})
REDUCTIONS = {"sum": "sum", "mean": "mean", "max": "max", "amax": "max", "min": "min", "amin": "min",
              "prod": "prod"}
MAX_ELEMENTS = 1 << 22  # per array the lifted lines make: past this the loop runs as it was
_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%"}


# What a value is on one pass: a NUMBER or an array fixed for the loop (FIXED: either), or one varying along the grid:
# a number per pass (PER_PASS), an array per pass (ROW), or either (EITHER: a fixed name of unknown shape took part).
NUMBER, FIXED, PER_PASS, ROW, EITHER = "number", "fixed", "per pass", "row", "either"
VARIES = (PER_PASS, ROW, EITHER)


def _combined(kinds: list[str]) -> str:
    """The kind of an elementwise result of values of these kinds."""
    if ROW in kinds:
        return ROW
    if any(k in VARIES for k in kinds):
        return PER_PASS if all(k in (PER_PASS, NUMBER) for k in kinds) else EITHER
    return NUMBER if all(k == NUMBER for k in kinds) else FIXED


class _Lift:
    """The lifted text of one loop's body: each expression with its kind (above)."""

    def __init__(self, counter: str, value: str | None, grid: str, index: str, stored: set[str],
                 numbers: set[str]) -> None:
        self.counter, self.value, self.grid, self.index, self.stored = counter, value, grid, index, stored
        self.numbers = numbers             # names set once before the loop to a number (`Y = np.sum(w * y)`)
        self.kinds: dict[str, str] = {}    # names set so far in the pass -> their kind
        self.fixed: set[str] = set()       # names (and attributes) read as they are: the guard checks them
        self.rows: dict[str, str] = {}     # fixed arrays read by the counter's row -> their lifted text

    def expr(self, node: ast.expr) -> tuple[str, str]:
        """(text, kind) of `node`, or NotApplicable naming what is not array code."""
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return repr(node.value), NUMBER
        if isinstance(node, ast.Name):
            return self._name(node, where)
        if isinstance(node, ast.Attribute) and dotted(node) in ("np.pi", "np.e", "math.pi", "math.e", "math.tau"):
            return dotted(node), NUMBER
        if isinstance(node, ast.Attribute) and dotted(node) and dotted(node).split(".")[0] == "self":
            self.fixed.add(dotted(node))
            return dotted(node), FIXED
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            return self._power(node, where)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            (left, a), (right, b) = self.expr(node.left), self.expr(node.right)
            return f"({left} {_OPS[type(node.op)]} {right})", _combined([a, b])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            text, kind = self.expr(node.operand)
            return f"({'-' if isinstance(node.op, ast.USub) else '+'}{text})", kind
        if isinstance(node, ast.Call):
            return self._call(node, where)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Name) \
                and node.slice.id == self.counter and node.value.id not in self.stored:
            name = node.value.id
            self.rows[name] = f"{name}[:{self.index}]"
            return f"{self.grid}_{name}", ROW  # a row of a 2-D array (the guard checks it is one)
        raise NotApplicable(f"{where}: `{ast.unparse(node)}` is not array code the grid can be lifted through "
                            "(arithmetic, numpy's elementwise functions and whole reductions only)")

    def _power(self, node: ast.BinOp, where: str) -> tuple[str, str]:
        """`a ** b`: an array's power stays numpy's; a number per pass is raised by Python's `**` (a numpy scalar's
        and a Python float's `**` is libm's pow, which differs from numpy's square or SIMD pow in the last bit)."""
        (base, a), (exponent, b) = self.expr(node.left), self.expr(node.right)
        kind = _combined([a, b])
        if kind == EITHER:
            raise NotApplicable(f"{where}: `{ast.unparse(node)}` may be a number on each pass or an array: numpy's "
                                "scalar power and its array power differ in the last bit, and which it is is unknown")
        if kind == PER_PASS:
            if b != NUMBER:
                raise NotApplicable(f"{where}: `{ast.unparse(node)}` raises to a power that varies along the grid")
            return (f"np.reshape(np.array([v ** {exponent} for v in np.ravel({base}).tolist()]), "
                    f"np.shape({base}))"), PER_PASS
        return f"({base} ** {exponent})", kind

    def _name(self, node: ast.Name, where: str) -> tuple[str, str]:
        if node.id == self.value:
            return self.grid, PER_PASS
        if node.id == self.counter:
            return f"{self.grid}_at", PER_PASS
        if node.id in self.kinds:
            return node.id, self.kinds[node.id]
        if node.id in self.stored:
            raise NotApplicable(f"{where}: `{node.id}` is read before the pass sets it: carried from pass to pass")
        self.fixed.add(node.id)
        return node.id, NUMBER if node.id in self.numbers else FIXED

    def _call(self, call: ast.Call, where: str) -> tuple[str, str]:
        name = dotted(call.func)
        if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
            raise NotApplicable(f"{where}: `{ast.unparse(call)}` passes keywords or a starred argument")
        method = isinstance(call.func, ast.Attribute) and not name.startswith(("np.", "numpy."))
        attr = call.func.attr if isinstance(call.func, ast.Attribute) else name
        if method and attr in REDUCTIONS and not call.args:
            return self._reduce(REDUCTIONS[attr], call.func.value)
        if name.startswith(("np.", "numpy.")) and attr in REDUCTIONS and len(call.args) == 1:
            return self._reduce(REDUCTIONS[attr], call.args[0])
        if name.startswith(("np.", "numpy.")) and attr in ELEMENTWISE:
            args = [self.expr(a) for a in call.args]
            return f"np.{attr}({', '.join(text for text, _ in args)})", _combined([k for _, k in args])
        raise NotApplicable(f"{where}: call to {name or ast.unparse(call.func)}() is not one of numpy's "
                            "elementwise functions or whole reductions")

    def _reduce(self, reduction: str, node: ast.expr) -> tuple[str, str]:
        text, kind = self.expr(node)
        if kind not in VARIES:
            return f"np.{reduction}({text})", NUMBER  # the same value on every pass: computed once
        return f"np.{reduction}({text}, axis=-1, keepdims=True)", PER_PASS


def _numbers(fn_body: list[ast.stmt], k: int) -> set[str]:
    """Names the function sets once, before the loop at `k`, to a number: a literal, a whole reduction, `len()`,
    `float()`/`int()`, or arithmetic of those (what a per-pass number may be combined with and stay one)."""
    counts: dict[str, int] = {}
    for node in ast.walk(ast.Module(body=fn_body, type_ignores=[])):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
    found: set[str] = set()

    def number(node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            return type(node.value) in (int, float)
        if isinstance(node, ast.Name):
            return node.id in found
        if isinstance(node, ast.BinOp):
            return number(node.left) and number(node.right)
        if isinstance(node, ast.UnaryOp):
            return number(node.operand)
        if isinstance(node, ast.Call) and not node.keywords and len(node.args) <= 1:
            name = dotted(node.func)
            attr = name.rpartition(".")[2]
            if name in ("len", "float", "int") or (name.startswith(("np.", "numpy.")) and attr in REDUCTIONS):
                return len(node.args) == 1
            return isinstance(node.func, ast.Attribute) and attr in REDUCTIONS and not node.args
        return False

    for stmt in fn_body[:k]:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and counts.get(stmt.targets[0].id) == 1 and number(stmt.value):
            found.add(stmt.targets[0].id)
    return found


def lift_grid(block: list[ast.stmt], k: int, names: set[str]) -> tuple[LoopRewrite, list[str]]:
    """The loop `block[k]` computed for its whole grid at once (see the module's docstring), or NotApplicable."""
    loop = block[k]
    where = f"line {loop.lineno}"
    if not isinstance(loop, ast.For) or loop.orelse:
        raise NotApplicable(f"{where}: not a plain `for` loop")
    counter, value, seq, count = _grid(loop, where)
    stored = names_stored(loop.body)
    grid = name_apart("_grid", names)
    index = name_apart("_grid_n", names)
    lift = _Lift(counter, value, grid, index, stored, _numbers(block, k))
    lines, outputs = [], []
    for stmt in loop.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            text, kind = lift.expr(stmt.value)
            lift.kinds[stmt.targets[0].id] = kind
            lines.append(f"{stmt.targets[0].id} = {text}")
            continue
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                and isinstance(target.slice, ast.Name) and target.slice.id == counter and target.value.id not in stored:
            text, kind = lift.expr(stmt.value)
            if kind == ROW:
                raise NotApplicable(f"line {stmt.lineno}: the pass writes an array into its slot: a row of an array "
                                    "of two axes, not a number per grid value")
            outputs.append(target.value.id)
            lines.append(f"{target.value.id}[:{index}] = np.broadcast_to({text}, ({index}, 1))[:, 0]")
            continue
        raise NotApplicable(f"line {stmt.lineno}: `{ast.unparse(stmt).splitlines()[0]}`: a pass may only set names "
                            "and write its slot `out[i] = ...` of an array made before the loop")
    if not outputs:
        raise NotApplicable(f"{where}: the loop writes no slot of an array made before it")
    after = [n for s in block[k + 1:] for n in ast.walk(s) if isinstance(n, ast.Name)]
    leaked = sorted({n.id for n in after} & (stored | {counter, value} - {None}))
    if leaked:
        raise NotApplicable(f"{where}: `{leaked[0]}`, set in the loop, is read after it")
    if set(outputs) & lift.fixed:
        raise NotApplicable(f"{where}: an output of the loop is also read in it")
    head = [f"{grid} = {seq}[:, None]"] if value is not None else []
    if _reads_counter(loop, counter):
        head.append(f"{grid}_at = np.arange({index})[:, None]")
    head += [f"{grid}_{name} = {text}" for name, text in lift.rows.items()]
    guard = _guard(seq, count, sorted(lift.fixed - set(lift.rows)), sorted(lift.rows), sorted(set(outputs)))
    body = "".join(f"    {line}\n" for line in [f"{index} = {count}", *head, *lines])
    original = "".join(f"    {line}\n" for line in ast.unparse(loop).splitlines())
    text = f"if {guard}:\n{body}else:\n{original}"
    notes = [f"{where}: the loop's {len(outputs)} slot write(s) computed for the whole grid at once (each value per "
             "pass one row along a new first axis; reductions over that row); the loop as it was runs where the "
             "arrays are not what it assumed", "numpy's elementwise functions of a number per pass are computed in "
             "one array call, and sums of each pass's array along the row (the same values where numpy's scalar and "
             "array loops agree; replay compares them)"]
    return LoopRewrite(start=k, end=k, lines=[text], rule="array code lifted over the loop's grid", notes=notes), []


def _grid(loop: ast.For, where: str) -> tuple[str, str | None, str | None, str]:
    """(counter, value name, sequence text, count text) of `for i, v in enumerate(seq)` or `for i in range(n)`."""
    it = loop.iter
    if isinstance(it, ast.Call) and dotted(it.func) == "enumerate" and len(it.args) == 1 and not it.keywords \
            and isinstance(loop.target, ast.Tuple) and len(loop.target.elts) == 2 \
            and all(isinstance(e, ast.Name) for e in loop.target.elts) and isinstance(it.args[0], ast.Name):
        seq = it.args[0].id
        return loop.target.elts[0].id, loop.target.elts[1].id, seq, f"len({seq})"
    if isinstance(it, ast.Call) and dotted(it.func) == "range" and len(it.args) == 1 and not it.keywords \
            and isinstance(loop.target, ast.Name) and _plain_count(it.args[0]):
        return loop.target.id, None, None, ast.unparse(it.args[0])
    raise NotApplicable(f"{where}: the loop walks neither `enumerate(seq)` of a name nor `range(n)`")


def _plain_count(node: ast.expr) -> bool:
    """A count the guard may read again: a name, an int, or `len()` of a name or attribute."""
    if isinstance(node, ast.Name) or (isinstance(node, ast.Constant) and type(node.value) is int):
        return True
    return isinstance(node, ast.Call) and dotted(node.func) == "len" and len(node.args) == 1 \
        and isinstance(node.args[0], (ast.Name, ast.Attribute)) and bool(dotted(node.args[0]))


def _reads_counter(loop: ast.For, counter: str) -> bool:
    """Whether the counter is read other than as the slot or row index `x[i]`."""
    slots = {id(s.slice) for s in ast.walk(loop) if isinstance(s, ast.Subscript) and isinstance(s.slice, ast.Name)}
    return any(isinstance(n, ast.Name) and n.id == counter and isinstance(n.ctx, ast.Load) and id(n) not in slots
               for s in loop.body for n in ast.walk(s))


def _guard(seq: str | None, count: str, fixed: list[str], rows: list[str], outputs: list[str]) -> str:
    """The test under which the lifted lines are exactly the loop: the shapes and types it assumed."""
    tests = []
    if seq is not None:
        tests.append(f"isinstance({seq}, np.ndarray) and {seq}.ndim == 1 and {seq}.dtype == np.float64")
    tests.append(f"{count} > 0")
    # float64 or integer values only: a float32 number per pass would be raised in float32, not by Python's `**`
    plain = "(isinstance(v, (float, int)) or (isinstance(v, (np.ndarray, np.generic)) and (v.dtype == np.float64 " \
            "or v.dtype.kind in 'biu')))"
    if fixed:
        tests.append(f"all({plain} and np.ndim(v) <= 1 for v in ({', '.join(fixed)},))")
    if rows:
        tests.append(f"all({plain} and isinstance(v, np.ndarray) and v.ndim == 2 and len(v) >= {count} "
                     f"for v in ({', '.join(rows)},))")
    tests.append(f"all(isinstance(v, np.ndarray) and v.ndim == 1 and len(v) >= {count} "
                 f"for v in ({', '.join(outputs)},))")
    sizes = ", ".join(f"np.size({v})" for v in [*fixed, *rows])
    tests.append(f"{count} * max([1, {sizes}]) <= {MAX_ELEMENTS}" if sizes else f"{count} <= {MAX_ELEMENTS}")
    return " and ".join(f"({t})" for t in tests)

