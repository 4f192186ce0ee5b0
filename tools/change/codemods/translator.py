"""Translate one loop of a function into numpy statements: one Translator owns the loop's bindings.

Analysis runs on `ast`; the result is new statement text per loop, which `vectorize.py`
splices into the file with libcst. Every loop axis becomes an array axis: the outer loop
axis 0 (a 1-D array), an inner reduction loop the last axis (a 2-D array, reduced away).
Sums are written as `np.cumsum(...)[..., -1]`, which adds left to right like the loop, so
results stay bit-identical; a loop that needs anything else is refused with the reason
(`NotApplicable`).

The class reads in translation order: names, expressions, loop headers (rows, inner loops,
windows), then statements (assignments, if/elif/else, appends, reductions).
"""
from __future__ import annotations

import ast
import re
from dataclasses import replace

from perfloop.tools.change.codemods.axes import AxisRules
from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.bests import BestRules
from perfloop.tools.change.codemods.calls import CallRules
from perfloop.tools.change.codemods.conditions import ConditionRules
from perfloop.tools.change.codemods.counted_from import StartedCounters
from perfloop.tools.change.codemods.counts import CountRules
from perfloop.tools.change.codemods.eager_iterables import EagerIterables
from perfloop.tools.change.codemods.loops import (
    Held,
    Val,
    break_guard_at,
    dotted,
    identifier,
    is_atomic,
    is_guard,
    is_inf,
    is_number_literal,
    listed,
    literal_chain,
    names_loaded,
    names_stored,
)
from perfloop.tools.change.codemods.records import RecordRules
from perfloop.tools.change.codemods.scans import RunningRules

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
           ast.RShift: ">>"}
# Python's binding strength, weakest first: | ^ & (<< >>) (+ -) (* / // %) **.
_PRECEDENCE = {ast.BitOr: -3, ast.BitXor: -2, ast.BitAnd: -1, ast.LShift: 0, ast.RShift: 0,
               ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.FloorDiv: 2, ast.Mod: 2, ast.Pow: 4}
_BITWISE = (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


class Translator(StartedCounters, EagerIterables, AxisRules, BestRules, CallRules, ConditionRules, CountRules, RecordRules, RunningRules):
    """Translate one top-level loop (or comprehension) of a function; it owns every binding of that loop."""

    def __init__(self, func_names: set[str], exact: bool, float_ctx: bool) -> None:
        self.taken = set(func_names) | {"np"}
        self.exact = exact
        self.float_ctx = float_ctx
        self.env: dict[str, Val] = {}
        self.dead: set[str] = set()     # inner-loop names: their last value is gone
        self.carried: set[str] = set()  # assigned in the loop: reading one before it is set is carried
        self.hoists: list[tuple[str, str]] = []
        self.hoisted: dict[str, str] = {}
        self.lines: list[str] = []
        self.init_nodes: dict[str, ast.AST] = {}
        self.starts: dict[str, ast.AST] = {}  # the outer loop's accumulators: their values before it
        self.running_names: dict[str, str] = {}  # running sum's array -> its accumulator (`running`)
        self.written: set[str] = set()
        self.inexact: list[str] = []
        self.notes: list[str] = []
        self.outer_range: tuple[str, str, str, str] | None = None  # var, start, stop, step
        self.depth = 1
        self.mask: str | None = None  # inner axis entries that exist (ragged ranges, `if` filters)
        self.conditions: list[Val] = []  # the tests the value being translated is read under (conditions.py)
        self.condition_names: dict[str, str] = {}  # a test's text -> the name its line binds
        self.guards = 0  # `if cond: continue` guards translated (their lines compute skipped elements too)
        self.held = Held()  # names known to hold bytes or a dict (an annotation or what set them)
        self.scatter_names: dict[str, str] = {}  # list made before the loop -> its numpy dtype (counts, histograms)
        self.scatters: dict[str, list[tuple[list[Val], Val, str | None]]] = {}  # name -> (indices, term, keep)
        self.draw: tuple[int, int] | None = None  # where the loop's one draw per element is (draws.py)
        self.draw_axis = ""  # a value along the loop's axis: the array draw takes its length
        self.drawn: Val | None = None
        self.elements: set[str] = set()  # names bound to the elements of a row in an element-wise comprehension
        self.fixed_items: dict[str, ast.AST] = {}  # inner loop name -> the list it walks, one the loop never changes
        self.best_positions: dict[str, tuple[str, str, str]] = {}  # a running best -> its lines' names (bests.py)
        self.slot_fill: dict[str, str] = {}  # a list of slots a break leaves as made -> its float fill (restate.py)
        self.last_tests: dict[str, str] = {}  # `if test: acc = v` -> where it is set (conditions.last_value)
        self.quiet = False  # lines compute values the loop did not (np.errstate(all="ignore") around them)
        self.row_picks: dict[str, tuple[str, str]] = {}  # `arr[rows]` -> (arr, rows): a row of a fixed array each

    def arm_draw(self, draw: ast.Call | None, target: ast.AST) -> None:
        """Let the loop's one unconditional draw per element through (`draws.sole_draw`), drawn as one array along
        the axis of the loop's first target name."""
        first = next((n.id for n in ast.walk(target) if isinstance(n, ast.Name) and n.id in self.env), None)
        if draw is not None and first is not None and self.env[first].depth == 1:
            self.draw, self.draw_axis = (draw.lineno, draw.col_offset), self.env[first].src

    # names and hoisting -------------------------------------------------------------
    def fresh(self, base: str) -> str:
        base = identifier(base)
        name, k = base, 2
        while name in self.taken:
            name, k = f"{base}_{k}", k + 1
        self.taken.add(name)
        return name

    def as_array(self, node: ast.AST) -> str:
        """Hoist `np.asarray(<invariant>)` once per source expression; return its name."""
        text = ast.unparse(node)
        if names_loaded(node) & (set(self.env) | self.carried):
            raise NotApplicable(f"line {node.lineno}: `{text}` changes inside the loop; only loop-invariant "
                                "arrays are indexed or iterated")
        if text in self.held.dicts:
            raise NotApplicable(f"line {node.lineno}: `{text}` is a dict; its lookups by key are no array's "
                                "positions")
        if text not in self.hoisted:
            key = re.search(r"\[['\"](\w+)['\"]\]$", text)
            base = key.group(1) if key else text.split(".")[-1].split("[")[0]
            name = self.fresh(f"{base}_arr")
            if text in self.held.bytes:
                # Iterating bytes gives Python ints: the bytes as uint8, widened so that arithmetic does not wrap.
                self.hoists.append((name, f"np.frombuffer({text}, dtype=np.uint8).astype("
                                          f"{'np.float64' if self.float_ctx else 'np.int64'})"))
            elif self.float_ctx and listed(node) is not None:
                # `<x>.tolist()` read as float64: the same values straight from the tensor or array, no list.
                source = self.fresh(f"{base}_source")
                self.hoists.append((source, ast.unparse(listed(node))))
                self.hoists.append((name, _float64_values(source)))
            elif self.float_ctx and _held_table(node):
                # Numbers are read as float64, as Python's float arithmetic computes; a table the module or the object
                # holds (`ELEMENTS`, `self.symbols`) may be of strings compared with `==`, where a cast would raise.
                self.hoists.append((name, f"np.asarray({text})"))
                self.hoists.append((name, f"{name}.astype(np.float64) if {name}.dtype.kind in 'biuf' else {name}"))
            elif self.float_ctx:
                self.hoists.append((name, f"np.asarray({text}, dtype=np.float64)"))
            else:  # a string is walked by its characters, which np.asarray would hold as one 0-d value
                self.hoists.append((name, f"np.asarray(list({text}), dtype=str) if isinstance({text}, str) "
                                          f"else np.asarray({text})"))
            self.hoisted[text] = name
        return self.hoisted[text]

    def render(self, val: Val) -> str:
        """Spell a value for use at the current depth (outer 1-D values gain a trailing axis)."""
        if val.depth == 1 and self.depth == 2:
            if val.row:
                raise NotApplicable("a whole row is used where the loop reads one number")
            return f"{self.atom(val.src)}[:, None]"
        return val.src

    def invariant(self, node: ast.AST) -> bool:
        """Whether `node` reads nothing the loop binds, so Python computes it as written."""
        return not names_loaded(node) & (set(self.env) | self.carried | self.dead)

    def operand(self, node: ast.AST, val: Val, parent: ast.operator, right: bool) -> str:
        """Parenthesise a binary operand only where Python's precedence needs it."""
        if isinstance(node, ast.BinOp) and type(node.op) in _PRECEDENCE and not isinstance(parent, ast.Pow):
            mine, theirs = _PRECEDENCE[type(node.op)], _PRECEDENCE[type(parent)]
            if mine > theirs or (mine == theirs and not right):
                return val.src
        return self.atom(val.src)

    @staticmethod
    def atom(src: str) -> str:
        """Parenthesise `src` unless it is a name, a call, an index or already in parentheses."""
        return src if is_atomic(src) else f"({src})"

    # expressions ------------------------------------------------------------------
    def expr(self, node: ast.AST) -> Val:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            return Val(repr(node.value), 0)
        if isinstance(node, ast.Name):
            if node.id in self.env:
                if self.unrecorded(node).mask is not None:
                    raise NotApplicable(f"line {node.lineno}: `{node.id}` is a slice whose length varies along the "
                                        "loop; only sum(), len() and loops over it are vectorised")
                return Val(self.render(self.env[node.id]), self.env[node.id].depth)
            if node.id in self.dead:
                raise NotApplicable(f"line {node.lineno}: `{node.id}` is read after the inner loop that sets it "
                                    "(it would hold only the last element)")
            if node.id in self.carried:
                raise NotApplicable(f"line {node.lineno}: loop-carried dependency: `{node.id}` is read before "
                                    "this iteration sets it, so each element depends on the previous one")
            return Val(node.id, 0)
        if isinstance(node, ast.Attribute):
            if names_loaded(node) & (set(self.env) | self.carried | self.dead):
                raise NotApplicable(f"line {node.lineno}: attribute `{ast.unparse(node)}` of a loop value")
            return Val(ast.unparse(node), 0)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            left = self.expr(node.left)
            right = self.expr(node.right) if not left.row else left
            if left.row or right.row:
                raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` does arithmetic on a whole row; "
                                    "on Python lists + concatenates and * repeats")
            if left.depth == right.depth == 0 and self.invariant(node):
                return Val(ast.unparse(node), 0)
            if isinstance(node.op, _BITWISE) and self.float_ctx:
                raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` is bitwise on values the loop reads "
                                    "as float64 (it also computes in floats)")
            if isinstance(node.op, ast.Pow) and not (isinstance(node.right, ast.Constant)
                                                     and type(node.right.value) is int and node.right.value in (1, 2)):
                # Python's float ** is libm's pow; numpy's power may take a SIMD pow (AVX-512) that differs in the
                # last bit (x ** 2.2 on 5% of values). ** 2 is a square in both, correctly rounded.
                self.inexact.append(f"`{ast.unparse(node)}` -> numpy's power may differ from Python's ** in the "
                                    "last bit")
            op = _BINOPS[type(node.op)]
            return Val(f"{self.operand(node.left, left, node.op, False)} {op} "
                       f"{self.operand(node.right, right, node.op, True)}", max(left.depth, right.depth))
        if isinstance(node, ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, ast.Compare) and (found := self.row_contains(node)) is not None:
            return found
        if isinstance(node, ast.Compare):
            parts, left = [], node.left
            for op, right in zip(node.ops, node.comparators):
                if type(op) not in _CMPOPS:
                    break
                a, b = (Val(repr(side.value), 0) if _text(side) and isinstance(op, (ast.Eq, ast.NotEq))
                        else self.expr(side) for side in (left, right))  # `ev["type"] == "arrive"`: strings equal
                parts.append(Val(f"{self.atom(a.src)} {_CMPOPS[type(op)]} {self.atom(b.src)}",
                                 max(a.depth, b.depth)))
                left = right
            else:
                if all(p.depth == 0 for p in parts) and self.invariant(node):
                    return Val(ast.unparse(node), 0)
                return self.combine("np.logical_and", parts)
        if isinstance(node, ast.BoolOp):
            return self.boolop(node)
        if isinstance(node, ast.IfExp):
            return self.ifexp(node)
        if isinstance(node, ast.Call) and not node.keywords:
            return self.call(node)
        if isinstance(node, ast.Call):
            return self.keyed_call(node)
        if isinstance(node, ast.ListComp) and self.depth == 1:
            return self.row_comprehension(node)
        if isinstance(node, ast.Subscript):
            return self.record_index(node) or self.subscript(node)
        raise NotApplicable(f"line {getattr(node, 'lineno', '?')}: `{ast.unparse(node)}` has no numpy "
                            "equivalent the vectoriser knows")

    def unary(self, node: ast.UnaryOp) -> Val:
        inner = self.expr(node.operand)
        if inner.depth == 0 and self.invariant(node):
            return Val(ast.unparse(node), 0)
        if isinstance(node.op, ast.USub):
            return Val(f"-{self.atom(inner.src)}", inner.depth)
        if isinstance(node.op, ast.UAdd):
            return inner
        if isinstance(node.op, ast.Not):
            return Val(f"np.logical_not({inner.src})", inner.depth)
        if self.float_ctx or isinstance(node.operand, (ast.Compare, ast.BoolOp)):
            # ~ of a Python bool is an int (-1, -2); of a numpy bool array, logical not.
            raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` inverts a truth value or a float")
        return Val(f"~{self.atom(inner.src)}", inner.depth)

    def combine(self, func: str, parts: list[Val]) -> Val:
        src = parts[0].src
        for part in parts[1:]:
            src = f"{func}({src}, {part.src})"
        return Val(src, max(p.depth for p in parts))

    # statements -------------------------------------------------------------------
    def statements(self, stmts: list[ast.stmt], lists: set[str], appended: dict[str, Val]) -> None:
        """Translate a loop body at the current depth, emitting numpy statements in order."""
        for stmt in stmts:
            if isinstance(stmt, ast.Pass):
                continue
            if self.append_stmt(stmt, lists, appended):
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple) \
                    and isinstance(stmt.value, ast.Tuple) and len(stmt.targets[0].elts) == len(stmt.value.elts) \
                    and all(isinstance(e, ast.Name) for e in stmt.targets[0].elts):
                # `a, b = x, y`: every right-hand side is read before any name is set, as Python does.
                values = [self.expr(v) for v in stmt.value.elts]
                for elt, val in zip(stmt.targets[0].elts, values):
                    self.assign(elt.id, val)
                continue
            if literal_chain(stmt):  # `miss = fa = 0`: one start value for each name
                self.statements([ast.copy_location(ast.Assign(targets=[t], value=stmt.value), stmt)
                                 for t in stmt.targets], lists, appended)
                continue
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id in self.env:
                # `c0 *= k` on a name this pass bound: a number, so `c0 = c0 * k` (a sum across passes is a reduction)
                value = ast.BinOp(left=ast.Name(id=stmt.target.id, ctx=ast.Load()), op=stmt.op, right=stmt.value)
                self.assign(stmt.target.id, self.expr(ast.copy_location(value, stmt)))
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                self.init_nodes[name] = stmt.value
                record = self.record(stmt.value)
                if record is not None:  # `px = [r, g, b]`, appended below: made after the loop (records.py)
                    self.env[name] = record
                    self.carried.discard(name)
                elif is_number_literal(stmt.value) or is_inf(stmt.value):
                    # A start value (acc = 0.0): inlined where read, never an array.
                    self.env[name] = Val(ast.unparse(stmt.value), 0)
                    self.carried.discard(name)
                elif self.depth == 1 and self.is_ragged_slice(stmt.value):
                    # `win = x[lo:i + 1]`: a masked row, read only by sum(), len() and loops over it.
                    self.assign(name, self.ragged_slice(stmt.value))
                else:
                    self.assign(name, self.expr(stmt.value))
                continue
            if isinstance(stmt, ast.If):
                for name, val in self.branches(stmt, lists).items():
                    if name.startswith("\0"):
                        appended[name[1:]] = val
                    else:
                        self.assign(name, val)
                continue
            if isinstance(stmt, ast.For) and self.depth == 1 and not stmt.orelse:
                self.inner_loop(stmt)
                continue
            raise NotApplicable(f"line {stmt.lineno}: statement `{ast.unparse(stmt).splitlines()[0]}` is not "
                                "an assignment, an append or an if/elif/else of them")

    def assign(self, name: str, val: Val) -> None:
        if self.depth == 2 and val.depth < 2:
            raise NotApplicable(f"`{name}` is set inside the inner loop but does not vary along it")
        target = self.target_name(name)
        self.lines.append(f"{target} = {val.src}")
        self.env[name] = Val(target, val.depth, row=val.row, mask=val.mask)
        if val.src in self.row_picks:
            self.row_picks[target] = self.row_picks[val.src]
        self.carried.discard(name)

    def target_name(self, name: str) -> str:
        """Keep `name` for its first array; a second one gets a fresh name, since earlier values may read the first."""
        if name in self.written:
            return self.fresh(name)
        self.written.add(name)
        return name

    def append_stmt(self, stmt: ast.stmt, lists: set[str], appended: dict[str, Val]) -> bool:
        """Record `lst.append(v)` of a list the loop builds (False where `stmt` is not one)."""
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
                and isinstance(call.func.value, ast.Name) and call.func.value.id in lists):
            return False
        name = call.func.value.id
        if self.depth != 1 or len(call.args) != 1 or name in appended:
            raise NotApplicable(f"line {stmt.lineno}: `{name}` is appended more than once per element or "
                                "inside an inner loop")
        arg = call.args[0]
        held = self.env.get(arg.id) if isinstance(arg, ast.Name) else None
        appended[name] = held if held is not None and held.record else self.record(arg) or self.expr(arg)
        return True

    # reductions -------------------------------------------------------------------
    def reduction(self, stmt: ast.stmt, accs: set[str]) -> tuple[str, str, Val] | None:
        """Recognise `acc += t`, `acc = acc + t`, `acc *= t`, `acc = max(acc, t)`, `if t > acc: acc = t`,
        and `if cond: acc += t` (a count or a masked sum: the skipped elements add 0, which leaves a sum
        from 0 unchanged bit for bit)."""
        if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 \
                and isinstance(stmt.body[0], ast.AugAssign) and isinstance(stmt.body[0].target, ast.Name) \
                and stmt.body[0].target.id in accs and isinstance(stmt.body[0].op, (ast.Add, ast.Sub, ast.Mult)):
            test = self.expr(stmt.test)
            with self.under(test):
                inner = self.reduction(stmt.body[0], accs)
            if inner is not None:  # the passes that skip it add 0 or multiply by 1: the same bits
                acc, kind, term = inner
                unit = 1 if kind == "prod" else 0
                return acc, kind, Val(f"np.where({test.src}, {term.src}, {unit})", max(test.depth, term.depth))
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id in accs:
            ops = {ast.Add: "sum", ast.Sub: "sum", ast.Mult: "prod"}
            if type(stmt.op) not in ops:
                return None
            term = self.expr(stmt.value)
            if isinstance(stmt.op, ast.Sub):
                term = Val(f"-{self.atom(term.src)}", term.depth)
            return stmt.target.id, ops[type(stmt.op)], term
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id in accs:
            acc, value = stmt.targets[0].id, stmt.value
            if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Mult)):
                kind = "sum" if isinstance(value.op, ast.Add) else "prod"
                for mine, other in ((value.left, value.right), (value.right, value.left)):
                    if isinstance(mine, ast.Name) and mine.id == acc:
                        return acc, kind, self.expr(other)
            if isinstance(value, ast.Call) and dotted(value.func) in ("max", "min") and len(value.args) == 2:
                for mine, other in ((value.args[0], value.args[1]), (value.args[1], value.args[0])):
                    if isinstance(mine, ast.Name) and mine.id == acc:
                        return acc, dotted(value.func), self.expr(other)
        if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 \
                and isinstance(stmt.body[0], ast.Assign) and isinstance(stmt.test, ast.Compare) \
                and len(stmt.test.ops) == 1 and isinstance(stmt.body[0].targets[0], ast.Name):
            acc = stmt.body[0].targets[0].id
            left, right, op = stmt.test.left, stmt.test.comparators[0], stmt.test.ops[0]
            new = ast.dump(stmt.body[0].value)
            if acc in accs and isinstance(op, (ast.Gt, ast.Lt)):
                if isinstance(right, ast.Name) and right.id == acc and ast.dump(left) == new:
                    return acc, "max" if isinstance(op, ast.Gt) else "min", self.expr(left)
                if isinstance(left, ast.Name) and left.id == acc and ast.dump(right) == new:
                    return acc, "min" if isinstance(op, ast.Gt) else "max", self.expr(right)
        return self.last_value(stmt, accs)

    def reduce(self, acc: str, kind: str, term: Val, init: ast.AST | None, init_val: Val | None,
               mask: str | None = None) -> None:
        """Emit the statement that replaces a loop's accumulation into `acc` (at depth self.depth).

        `mask` marks the entries of a ragged inner range that exist: the others add 0, multiply
        by 1 or compare as the start value, after the real terms.
        """
        if kind == "last":
            return self.reduce_last(acc, term, init, mask)
        if isinstance(init, ast.Constant) and init.value is None:
            raise NotApplicable(f"`{acc}` starts at None; only a value set under a test may")
        if kind.startswith(("best", "at:")):
            start = init_val.src if init_val is not None else ast.unparse(init) if init is not None else None
            if start is None:
                raise NotApplicable(f"`{acc}` has no starting value the vectoriser can read")
            return self.reduce_best(acc, kind, term, start, mask)
        if term.depth != self.depth + 1 and not (mask is not None and kind == "sum"):
            raise NotApplicable(f"the term added to `{acc}` does not vary along the loop")
        if mask is not None:
            if kind in ("max", "min") and not (init is not None and is_inf(init)):
                raise NotApplicable(f"`{acc}` takes the {kind} over a ragged range from a start value that is not "
                                    "±inf")
            pad = {"sum": "0", "prod": "1"}.get(kind, ast.unparse(init) if init is not None else "0")
            # A term the same along the range (a count, `c += 1`) is broadcast over the entries that exist.
            term = Val(f"np.where({mask}, {term.src}, {pad})", self.depth + 1)
        last = "[-1]" if self.depth == 0 else "[:, -1]"
        where = f"`{acc}`"
        if kind in ("sum", "prod"):
            unit = 0 if kind == "sum" else 1
            if init is None or not is_number_literal(init) or ast.literal_eval(init) != unit:
                raise NotApplicable(f"{where} starts at {ast.unparse(init) if init else 'a computed value'}; "
                                    f"only {'sums from 0' if unit == 0 else 'products from 1'} keep the loop's "
                                    "order of operations")
            is_float = isinstance(ast.literal_eval(init), float)
            dtype = ", dtype=np.float64" if is_float else ""
            if kind == "sum" and not self.exact:
                self.inexact.append(f"the sum into {where} is reordered (pairwise)")
                expr = f"{self.atom(term.src)}.sum(axis=-1{dtype})"
            else:
                func = "np.cumsum" if kind == "sum" else "np.cumprod"
                # cumsum adds left to right like the loop, so the last column is bit-identical.
                expr = f"{func}({term.src}, axis=-1{dtype}){last}"
                if kind == "sum" and self.depth > 0:
                    # `+ 0`: a row of -0.0 terms sums to 0.0 when added to 0 in the loop (at depth 0 below too).
                    expr = f"({expr} + 0)"
                if self.depth > 0 and mask is None:
                    # An inner loop over an empty list leaves each row at its start value (no last column).
                    terms = self.fresh(f"{acc}_terms")
                    self.lines.append(f"{terms} = {term.src}")
                    expr = expr.replace(term.src, terms, 1)
                    expr = (f"{expr} if {terms}.shape[-1] else np.full({terms}.shape[:-1], {unit}, "
                            f"dtype={'np.float64' if is_float else terms + '.dtype'})")
            if self.depth == 0:
                terms = self.fresh(f"{acc}_terms")
                self.lines.append(f"{terms} = {term.src}")
                expr = expr.replace(term.src, terms, 1)
                # A Python number, as the loop left; `+ 0` turns a sum of -0.0 terms into 0.0, as the loop's 0 does.
                expr = f"({expr} + 0).item() if {terms}.shape[-1] else {ast.unparse(init)}"
        else:
            func = "np.max" if kind == "max" else "np.min"
            if init is not None and is_inf(init):
                expr = f"{func}({term.src}, axis=-1, initial={ast.unparse(init)})"
            elif init_val is not None:
                pair = "np.maximum" if kind == "max" else "np.minimum"
                terms = self.fresh(f"{acc}_terms")
                self.lines.append(f"{terms} = {term.src}")
                # An empty range leaves the start value, where np.max of no element raises.
                expr = (f"{pair}({init_val.src}, {func}({terms}, axis=-1)) if {terms}.shape[-1] else "
                        f"np.broadcast_to({init_val.src}, {terms}.shape[:-1]).copy()")
            else:
                raise NotApplicable(f"{where} has no starting value the vectoriser can read")
        if self.depth == 0 and kind in ("max", "min"):
            expr = f"{self.atom(expr)}.item()"
        target = self.target_name(acc)
        self.lines.append(f"{target} = {expr}")
        self.env[acc] = Val(target, self.depth)

    def inner_loop(self, loop: ast.For) -> None:
        """Translate a reduction loop nested in the outer loop: its values live on the last axis."""
        stored = names_stored(loop.body) | names_stored([loop.target])
        accs = {name for name in stored if name in self.env}
        saved = {name: self.env.pop(name) for name in accs}
        self.carried |= stored
        self.depth = 2
        self.mask = None
        self.bind_inner(loop.target, loop.iter)
        found = self.loop_body(loop.body, accs, set(), {})
        for name in stored - set(found):
            self.env.pop(name, None)
            self.dead.add(name)
        self.depth, mask, self.mask = 1, self.mask, None
        missing = accs - set(found)
        if missing:
            raise NotApplicable(f"line {loop.lineno}: loop-carried dependency on `{sorted(missing)[0]}`")
        for acc, (kind, term) in found.items():
            self.reduce(acc, kind, term, self.init_nodes.get(acc), saved[acc], mask)
        self.carried -= stored

    def loop_body(self, body: list[ast.stmt], accs: set[str], lists: set[str],
                  appended: dict[str, Val]) -> dict[str, tuple[str, Val]]:
        """Translate a loop's body: each accumulator's one reduction, every other statement in order.

        A guard, `if cond: continue`, leaves the elements where cond holds out of what follows it:
        the statements after it are computed for every element (under np.errstate, see
        LoopRewrite.quiet), then sums add 0 and products multiply by 1 for the skipped ones (bit for
        bit what skipping does), and appended values keep only the elements that got past it.
        """
        found: dict[str, tuple[str, Val]] = {}
        keep: str | None = None  # elements no guard above the current statement skipped
        at = break_guard_at(body) if self.depth == 1 else None
        for j, stmt in enumerate(body):
            if j == at:
                keep = self.break_guard(stmt)  # the elements before the first where the test holds
                continue
            if is_guard(stmt):
                with self.under(keep):  # a later guard's test is read only where the earlier ones let the pass on
                    keep = self.guard(stmt, keep)
                continue
            with self.under(keep):  # its subscripts and term are read only where the guards let the pass on
                counted = self.scatter(stmt, keep)
            if counted or self.counted_if(stmt, keep):
                continue
            before = dict(appended)
            with self.under(keep):
                hits = self.masked_reductions(stmt, accs)
                if hits is None:
                    self.statements([stmt], lists, appended)
                    hits = []
            for hit in hits:
                if hit[0] in found:
                    raise NotApplicable(f"line {stmt.lineno}: `{hit[0]}` is updated twice per element")
                found[hit[0]] = hit[1:] if keep is None else self.guarded(hit, keep, stmt)
                self.running(hit[0], *found[hit[0]])
            if keep is not None:
                for name, val in appended.items():
                    if name not in before:
                        if val.depth != self.depth:
                            raise NotApplicable(f"line {stmt.lineno}: the value appended to `{name}` does not vary "
                                                "along the loop")
                        if name in self.slot_fill:
                            # slots from the pass that breaks on keep the list's fill (a float, as the values are)
                            if val.record or not self.float_ctx:
                                raise NotApplicable(f"line {stmt.lineno}: the slots of `{name}` a break leaves keep "
                                                    "a float fill, and the values written are not read as floats")
                            appended[name] = Val(f"np.where({keep}, {val.src}, {self.slot_fill[name]})", val.depth)
                            continue
                        # a record per element (`(i, t)`) is made again from its fields where `keep` holds
                        appended[name] = replace(val, mask=keep) if val.record else \
                            Val(f"{self.atom(val.src)}[{keep}]", val.depth, row=val.row)
        return found

def _text(node: ast.AST) -> bool:
    """A str literal: compared for (in)equality with a column of strings, element by element, as Python compares."""
    return isinstance(node, ast.Constant) and type(node.value) is str


def _held_table(node: ast.AST) -> bool:
    """A module constant (`ELEMENTS`, by its upper-case name) or an attribute of an object (`self.symbols`)."""
    return (isinstance(node, ast.Name) and node.id.isupper()) or isinstance(node, ast.Attribute)


def _float64_values(source: str) -> str:
    """float64 values of `source`, equal to `np.asarray(source.tolist(), dtype=np.float64)`: a real torch tensor
    through `.double()` (exact for every real dtype, bfloat16 included), a numpy array of bools, ints or floats by
    `astype`; anything else (a complex tensor, a list) still through `.tolist()`."""
    return (f"{source}.detach().cpu().double().numpy() if hasattr({source}, 'detach') and not {source}.is_complex() "
            f"else np.asarray({source}, dtype=np.float64) if isinstance({source}, np.ndarray) and "
            f"{source}.dtype.kind in 'biuf' else np.asarray({source}.tolist(), dtype=np.float64)")

