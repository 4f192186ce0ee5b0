"""What the loop rewrites share: translated values, rewrite records and facts about AST nodes.

``translator.Translator`` (loops into numpy statements) and ``gather.py`` (index loops into
array gathers) both read these; nothing here holds translation state.
"""
from __future__ import annotations

import ast
import keyword
import re
from dataclasses import dataclass, field

# math.<f> -> np.<f>; the first set gives the same correctly rounded result, the
# second may differ from libm in the last bit, so it needs a tolerance.
EXACT_MATH = {"sqrt": "sqrt", "fabs": "abs", "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite", "copysign": "copysign"}
INEXACT_MATH = {name: name for name in (
    "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "tanh", "sinh",
    "cosh", "asin", "acos", "atan", "atan2", "hypot")} | {"pow": "power"}
# math.<f> of one number giving an int: np.<f>, exact in float64, then cast to int64.
INT_MATH = {"floor": "floor", "ceil": "ceil", "trunc": "trunc"}
MATH_NAMES = frozenset(EXACT_MATH) | frozenset(INEXACT_MATH) | frozenset(INT_MATH)


def identifier(base: str) -> str:
    """A valid Python name from any text (`(1, 2, 3, 4)_arr` -> `v_1__2__3__4_arr`): a new name the rewrite binds."""
    name = re.sub(r"\W", "_", base).strip("_") or "values"
    return f"v_{name}" if name[0].isdigit() or keyword.iskeyword(name) else name


@dataclass
class Val:
    """A translated value: numpy source text and the deepest loop axis it varies along (0: none).

    ``row``: each element is a whole row (a sorted copy, a comprehension over a row, a
    slice of one) rather than a number: its array has one more trailing axis, it is never
    broadcast with ``[:, None]``, and arithmetic on it is refused (Python's ``+`` would
    concatenate the lists).

    ``mask``: for a ragged row (a slice whose bounds move with the loop, padded to the widest),
    the boolean array of the entries that exist; reductions read the padding as neutral and
    anything that would see it (indexing, sorting, element-wise comprehensions) is refused.
    """

    src: str
    depth: int
    row: bool = False
    mask: str | None = None
    record: tuple[bool, tuple[tuple[str, bool], ...]] | None = None
    """A tuple (True) or list (False) display per element: (source, varies) per field (`records.py`); `src` is
    empty, and only a store, an append or a comprehension's element takes it."""


@dataclass
class LoopRewrite:
    """New text for statements body[start:end + 1] of the function (the inits and the loop)."""

    start: int
    end: int
    lines: list[str]
    rule: str
    list_outputs: list[str] = field(default_factory=list)
    remove: list[int] = field(default_factory=list)
    """Indices of init statements (`out = []`, `acc = 0.0`) the new lines make dead."""
    notes: list[str] = field(default_factory=list)
    """What the rewrite assumes (for the audit log)."""
    quiet: bool = False
    """Run the new lines under ``np.errstate(all="ignore")``: they compute elements a `continue` guard
    skipped (their values are masked out), which may divide by zero where the loop never did."""
    block: tuple[int, ...] = ()
    """Where the statements are: () for the function's body; (k, j) for the body of the loop at index j of
    the body of the loop at index k of the function's body (an inner loop of an outer one not vectorised)."""
    before: list[str] = field(default_factory=list)
    """For an inner loop's rewrite: array conversions of what no enclosing loop changes (`np.asarray(img)`),
    put once before the outermost enclosing loop (the function body's statement ``block[0]``)."""


def indented(lines: list[str]) -> str:
    """The statements `lines` (each one or more lines of text) as one block indented by four spaces."""
    return "".join(f"    {part}\n" for line in lines for part in line.splitlines())


def quiet_lines(lines: list[str]) -> list[str]:
    """The lines as one `with np.errstate(all="ignore"):` block (a guarded loop's masked-out elements)."""
    return [f'with np.errstate(all="ignore"):\n{indented(lines)}']


@dataclass
class FunctionRewrite:
    """What vectorising one function found: rewrites, refusals and whether results stay exact."""

    rewrites: list[LoopRewrite] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    inexact: list[str] = field(default_factory=list)


def name_apart(stem: str, taken: set[str]) -> str:
    """`stem`, or `stem_2`, ... : a name none of `taken` is."""
    name, k = stem, 2
    while name in taken:
        name, k = f"{stem}_{k}", k + 1
    return name


def dotted(node: ast.AST) -> str:
    """Return "a.b.c" for a Name/Attribute chain, "" otherwise."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def within(node: ast.AST, outer: ast.AST) -> bool:
    """Whether `node` lies inside `outer` in the source (by their line and column spans)."""
    return (outer.lineno, outer.col_offset) <= (node.lineno, node.col_offset) \
        and (node.end_lineno, node.end_col_offset) <= (outer.end_lineno, outer.end_col_offset)


def is_atomic(src: str) -> bool:
    if re.fullmatch(r"[\w.]+", src):
        return True
    if not src or src[-1] not in ")]":
        return False
    depth = 0
    for i in range(len(src) - 1, -1, -1):
        depth += {")": 1, "]": 1, "(": -1, "[": -1}.get(src[i], 0)
        if depth == 0:
            prefix = src[:i]
            return (prefix == "" and src[i] == "(") or (prefix != "" and is_atomic(prefix))
    return False


def additive_terms(node: ast.AST, sign: int) -> list[tuple[int, ast.AST]]:
    """Flatten a + b - c into [(+1, a), (+1, b), (-1, c)]."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        right = sign if isinstance(node.op, ast.Add) else -sign
        return additive_terms(node.left, sign) + additive_terms(node.right, right)
    return [(sign, node)]


def names_loaded(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def listed(node: ast.AST) -> ast.expr | None:
    """`x` of an argument-less `x.tolist()`, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "tolist" \
            and not node.args and not node.keywords:
        return node.func.value
    return None


def columns_of(iterable: ast.AST, count: int) -> str:
    """Source of the `count` columns of the rows `iterable` gives, each a sequence of the values the loop's unpacking
    would bind: `tuple(zip(*rows, strict=True))` (rows of another length raise, as the unpacking did), or, for
    `x.tolist()` of a 2-D numpy array `x` (a name or attribute) with `count` columns, `x.T.tolist()`: the same Python
    numbers, without a tuple per row (zip over 12,000 rows cost more than the loop it replaced)."""
    text = ast.unparse(iterable)
    fallback = f"tuple(zip(*{text}, strict=True)) or ((),) * {count}"
    base = listed(iterable)
    if base is None or not dotted(base):
        return fallback
    name = ast.unparse(base)
    return (f"{name}.T.tolist() if isinstance({name}, np.ndarray) and {name}.ndim == 2 and {name}.shape[1] == {count} "
            f"else {fallback}")


def stores(node: ast.AST, name: str) -> int:
    """How many times `node` binds `name` (each target naming it)."""
    return sum(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(node))


def read_before_rebound(name: str, stmts: list[ast.stmt]) -> bool:
    """Whether any of `stmts` (what follows a loop, in order) may read `name` while it still holds what the loop
    left in it.

    Names reused from loop to loop (`for v in x: ...` then `for i, v in enumerate(y): ...`) are not reads of the
    first loop's value: a later `for` that binds `name` reads it in its body only after binding it (reads after
    that `for` still count: it may run no pass), a plain `name = value` that does not read it ends the search
    (on both branches of an `if`, too), and a comprehension that binds it reads its own. Anything else that
    mentions the name counts as a read."""
    return _first_use(name, stmts) == "read"


def _first_use(name: str, stmts: list[ast.stmt]) -> str | None:
    """"read" where `stmts` may read `name` before binding it, "bound" where they surely bind it first, else None."""
    for stmt in stmts:
        if isinstance(stmt, ast.For):
            if _reads(stmt.iter, name):
                return "read"
            if name not in names_stored([stmt.target]) and _first_use(name, stmt.body) == "read":
                return "read"
            if _first_use(name, stmt.orelse) == "read":
                return "read"
        elif isinstance(stmt, ast.While):
            if _reads(stmt.test, name) or "read" in (_first_use(name, stmt.body), _first_use(name, stmt.orelse)):
                return "read"
        elif isinstance(stmt, ast.If):
            if _reads(stmt.test, name):
                return "read"
            sides = (_first_use(name, stmt.body), _first_use(name, stmt.orelse))
            if "read" in sides:
                return "read"
            if sides == ("bound", "bound"):
                return "bound"
        elif isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets) \
                and name in {t.id for t in stmt.targets}:
            return "read" if _reads(stmt.value, name) else "bound"
        elif _reads(stmt, name):
            return "read"
    return None


def _reads(node: ast.AST, name: str) -> bool:
    """Whether `node` loads `name`, leaving out comprehensions and lambdas that bind it for themselves."""
    if isinstance(node, ast.Name):
        return node.id == name and isinstance(node.ctx, ast.Load)
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)) \
            and name in names_stored([g.target for g in node.generators]):
        return _reads(node.generators[0].iter, name)  # the first iterable is read in the enclosing scope
    if isinstance(node, ast.Lambda) and name in {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}:
        return False
    return any(_reads(child, name) for child in ast.iter_child_nodes(node))


def names_stored(nodes: list[ast.AST]) -> set[str]:
    return {n.id for node in nodes for n in ast.walk(node)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def is_number_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return is_number_literal(node.operand)
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def is_inf(node: ast.AST) -> bool:
    text = ast.unparse(node).replace(" ", "")
    return text.lstrip("-") in ("math.inf", "float('inf')", 'float("inf")', "np.inf", "numpy.inf")


def literal_chain(stmt: ast.stmt) -> list[str] | None:
    """The names of `a = b = 0` (a chain of names set to one number or infinity: one immutable value for each, as
    separate assignments would give; a chained `[]` would be one list), else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) > 1 and all(isinstance(t, ast.Name) for t in stmt.targets) \
            and (is_number_literal(stmt.value) or is_inf(stmt.value)):
        return [t.id for t in stmt.targets]
    return None


def is_guard(stmt: ast.stmt) -> bool:
    """`if cond: continue` with nothing else: the rest of the loop's body runs only where cond is false."""
    return isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 \
        and isinstance(stmt.body[0], ast.Continue)


def is_break_guard(stmt: ast.stmt) -> bool:
    """`if cond: break` with nothing else: the loop ends at the first element where cond holds."""
    return isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 \
        and isinstance(stmt.body[0], ast.Break)


def break_guard_at(body: list[ast.stmt]) -> int | None:
    """The index of the loop body's `if cond: break` where only plain assignments to names come before it (the
    values its test reads: `i0 = int(f)`, then `if i0 + 1 >= n: break`), else None. Those assignments run in the
    pass that breaks too, and set nothing the loop keeps but names, so the passes run are the same as if the
    test came first."""
    for j, stmt in enumerate(body):
        if is_break_guard(stmt):
            return j
        if not (isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) or (
                isinstance(t, ast.Tuple) and all(isinstance(e, ast.Name) for e in t.elts)) for t in stmt.targets)):
            return None
    return None


def without_guards(loop: ast.For) -> ast.For:
    """A copy of `loop` whose guards (`if cond: continue` directly in its body, or in the body of a `for`
    nested in it, and an `if cond: break` in its own body after plain assignments only) read `if cond: pass`:
    what remains of early exits is refused as before."""
    import copy

    copied = copy.deepcopy(loop)
    at = break_guard_at(copied.body)
    if at is not None:
        copied.body[at].body = [ast.Pass(lineno=copied.body[at].lineno, col_offset=copied.body[at].col_offset)]
    for node in ast.walk(copied):
        if isinstance(node, ast.For):
            for stmt in node.body:
                if is_guard(stmt):
                    stmt.body = [ast.Pass(lineno=stmt.body[0].lineno, col_offset=stmt.body[0].col_offset)]
    return copied


def float_context(nodes: list[ast.AST]) -> bool:
    """Whether the loop computes in Python floats (a float literal, `/`, math.* or float())."""
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, float):
                return True
            if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Div):
                return True
            if isinstance(sub, ast.Call) and (dotted(sub.func).startswith("math.") or dotted(sub.func) == "float"):
                return True
    return False


_BYTES_CALLS = ("bytes", "bytearray")
_BYTES_METHODS = ("tobytes", "encode")
_DICT_CALLS = ("dict", "dict.fromkeys", "collections.Counter", "Counter", "collections.defaultdict", "defaultdict",
               "collections.OrderedDict", "OrderedDict")


@dataclass(frozen=True)
class Held:
    """Names of a function that hold bytes, a dict or a numpy array of numbers, by the evidence of its text
    (`held_kinds`)."""

    bytes: frozenset[str] = frozenset()
    dicts: frozenset[str] = frozenset()
    arrays: frozenset[str] = frozenset()
    """Bound once, to `np.zeros(...)` or `np.zeros_like(...)` (not of bools), and never to anything else: counted into
    in place by a loop nested in another that does not set it (an image a backprojection adds to per angle)."""


def held_kinds(fn: ast.FunctionDef) -> Held:
    """Names of `fn` whose every binding says what they hold. Bytes: a `bytes`/`bytearray` annotation, or every
    assignment is bytes(...), bytearray(...), x.tobytes(), s.encode(...) or a b'' literal. A dict: every
    assignment is a dict display or comprehension, dict(...), dict.fromkeys(...), a Counter, defaultdict or
    OrderedDict (a subscript of it is a lookup by key, which no array index is)."""
    annotated = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg) and a.annotation is not None
                 and dotted(a.annotation) in _BYTES_CALLS}
    sources: dict[str, list[ast.AST]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        sources.setdefault(sub.id, []).append(node.value if isinstance(target, ast.Name) else target)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.comprehension)):
            for sub in ast.walk(getattr(node, "target", node)):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    sources.setdefault(sub.id, []).append(node)
    held = annotated - set(sources)  # reassigned: the annotation no longer says what it holds
    held |= {name for name, values in sources.items() if values and all(_is_bytes(v) for v in values)}
    dicts = {name for name, values in sources.items() if values and all(_is_dict(v) for v in values)}
    arrays = {name for name, values in sources.items() if len(values) == 1 and zeros_array(values[0])}
    return Held(frozenset(held), frozenset(dicts), frozenset(arrays))


_ZEROS = ("np.zeros", "numpy.zeros", "np.zeros_like", "numpy.zeros_like")


def zeros_array(value: ast.AST) -> bool:
    """`np.zeros(shape, dtype=...)` or `np.zeros_like(x)`, not of bools: a numpy array of numbers, zeros."""
    return isinstance(value, ast.Call) and dotted(value.func) in _ZEROS and bool(value.args) \
        and not any(isinstance(a, ast.Starred) for a in value.args) \
        and not any(k.arg is None or (k.arg == "dtype" and "bool" in ast.unparse(k.value)) for k in value.keywords)


def _is_dict(node: ast.AST) -> bool:
    return isinstance(node, (ast.Dict, ast.DictComp)) or isinstance(node, ast.Call) and dotted(node.func) in _DICT_CALLS


def _is_bytes(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, bytes):
        return True
    if isinstance(node, ast.Call):
        name = dotted(node.func)
        return name in _BYTES_CALLS or (isinstance(node.func, ast.Attribute) and node.func.attr in _BYTES_METHODS)
    return False


_CONVERSIONS = ("np.asarray", "np.array", "np.frombuffer")


def _converts(value: ast.AST) -> bool:
    return any(isinstance(c, ast.Call) and dotted(c.func) in _CONVERSIONS for c in ast.walk(value)) or (
        isinstance(value, ast.IfExp) and ".detach()" in ast.unparse(value))


def hoisted_conversions(lines: list[str], outer: set[str]) -> tuple[list[str], list[str]]:
    """(the statements of an inner loop's new lines to run once before the outermost enclosing loop, the rest).

    Moved: assignments that convert to an array (`img_arr = np.asarray(img, dtype=np.float64)`) what no enclosing
    loop binds or changes (``outer``) nor another new line sets, and those that only recast what a moved one made
    (a held table's float cast); converted on every pass, a whole image or window made a pipeline x3-x5 slower
    (blind8 a1, a6). Everything else, the checks that raise included, stays in order where it was."""
    tree = ast.parse("\n".join(lines))
    # Every name the new lines bind, tuple targets too (`r_col, g_col, b_col = ...`: blind11 b1's conversion of
    # `r_col` was moved before the loop that binds it).
    made = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    moved: set[str] = set()
    first, rest = [], []
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id not in moved:
            read = names_loaded(node.value) - {"np"}
            if read and not read & outer and read & made <= moved and (_converts(node.value) or read <= moved):
                first.append(ast.unparse(node))
                moved.add(node.targets[0].id)
                continue
        rest.append(ast.unparse(node))
    return first, rest


def rebuilt_every_pass(lines: list[str], outer: set[str]) -> str | None:
    """The first array conversion among an inner loop's new lines that reads nothing the enclosing loops
    change (`np.asarray(img)` of the whole image), which would run again on every pass; else None."""
    tree = ast.parse("\n".join(lines))
    # Names bound (tuple targets too); not the names in a written subscript (`ids[i, :len(seq)] = ...` binds none).
    values = {n.id: node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
              for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}

    def reads(node: ast.AST, seen: frozenset[str] = frozenset()) -> set[str]:
        """The names `node` reads from outside the new lines (through the names they set)."""
        found: set[str] = set()
        for name in names_loaded(node) - {"np"}:
            if name in values and name not in seen:
                found |= reads(values[name], seen | {name})
            elif name not in values:
                found.add(name)
        return found

    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, (ast.Call, ast.IfExp))):
            continue
        read = reads(node.value) if _converts(node.value) else set()
        if read and not read & outer:
            return ast.unparse(node.value)[:80]
    return None


def while_stop(test: ast.AST, counter: str) -> ast.AST | None:
    """The exclusive stop of `counter < E`, `counter <= E`, `counter + c <= E` or `counter - c < E` (c a constant or
    invariant);
    of several such tests joined by `and` (`k < n_taps and k <= n`), the smallest: `min(n_taps, n + 1)`."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        stops = [while_stop(value, counter) for value in test.values]
        if any(stop is None for stop in stops):
            return None
        call = ast.Call(func=ast.Name(id="min", ctx=ast.Load()), args=stops, keywords=[])
        return ast.fix_missing_locations(ast.copy_location(call, test))
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Lt, ast.LtE))):
        return None
    left, right = test.left, test.comparators[0]
    offset: ast.AST | None = None
    if isinstance(left, ast.BinOp) and isinstance(left.op, (ast.Add, ast.Sub)) and isinstance(left.left, ast.Name) \
            and left.left.id == counter and counter not in names_loaded(left.right):
        # `counter + c < E` stops at E - c, `counter - c < E` at E + c.
        offset, back, left = left.right, ast.Sub() if isinstance(left.op, ast.Add) else ast.Add(), left.left
    if not (isinstance(left, ast.Name) and left.id == counter) or counter in names_loaded(right):
        return None
    stop = right if offset is None else ast.BinOp(left=right, op=back, right=offset)
    if isinstance(test.ops[0], ast.LtE):
        stop = ast.BinOp(left=stop, op=ast.Add(), right=ast.Constant(1))
    return ast.fix_missing_locations(ast.copy_location(stop, test))


def counter_start(before: list[ast.stmt], counter: str) -> tuple[int, ast.AST] | None:
    """(index, value) of the last `counter = value` before the loop, when nothing after it reads the counter."""
    for j in range(len(before) - 1, -1, -1):
        stmt = before[j]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id == counter:
            return j, stmt.value
        if counter in names_loaded(stmt) | names_stored([stmt]):
            return None
    return None
