"""Translate one function's element-wise and reduction loops into numpy statements.

Analysis runs on `ast`; the result is new statement text per loop, which
`vectorize.py` splices into the file with libcst. Every loop axis becomes an array
axis: the outer loop axis 0 (a 1-D array), an inner reduction loop the last axis
(a 2-D array, reduced away). Sums are written as `np.cumsum(...)[..., -1]`, which
adds left to right like the loop, so results stay bit-identical; a loop that needs
anything else is refused with the reason (`NotApplicable`).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from perfloop.tools.change.codemods.base import NotApplicable

# math.<f> -> np.<f>; the first set gives the same correctly rounded result, the
# second may differ from libm in the last bit, so it needs a tolerance.
EXACT_MATH = {"sqrt": "sqrt", "fabs": "abs"}
INEXACT_MATH = {name: name for name in (
    "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "tanh", "sinh",
    "cosh", "asin", "acos", "atan", "atan2", "hypot")} | {"pow": "power"}
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%", ast.Pow: "**"}
_PRECEDENCE = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.FloorDiv: 2, ast.Mod: 2, ast.Pow: 4}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


@dataclass
class Val:
    """A translated value: numpy source text and the deepest loop axis it varies along (0: none)."""

    src: str
    depth: int


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


@dataclass
class FunctionRewrite:
    """What vectorising one function found: rewrites, refusals and whether results stay exact."""

    rewrites: list[LoopRewrite] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    inexact: list[str] = field(default_factory=list)


def dotted(node: ast.AST) -> str:
    """Return "a.b.c" for a Name/Attribute chain, "" otherwise."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


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


class ExpressionTranslator:
    """Translate expressions and loop headers of one loop; `loop_body.Translator` adds statements."""

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
        self.written: set[str] = set()
        self.inexact: list[str] = []
        self.notes: list[str] = []
        self.outer_range: tuple[str, str, str, str] | None = None  # var, start, stop, step
        self.depth = 1

    # names and hoisting -------------------------------------------------------------
    def fresh(self, base: str) -> str:
        base = re.sub(r"\W", "_", base).strip("_") or "values"
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
        if text not in self.hoisted:
            key = re.search(r"\[['\"](\w+)['\"]\]$", text)
            base = key.group(1) if key else text.split(".")[-1].split("[")[0]
            name = self.fresh(f"{base}_arr")
            dtype = ", dtype=np.float64" if self.float_ctx else ""
            self.hoists.append((name, f"np.asarray({text}{dtype})"))
            self.hoisted[text] = name
        return self.hoisted[text]

    def render(self, val: Val) -> str:
        """Spell a value for use at the current depth (outer 1-D values gain a trailing axis)."""
        if val.depth == 1 and self.depth == 2:
            return f"{self.atom(val.src)}[:, None]"
        return val.src

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
            left, right = self.expr(node.left), self.expr(node.right)
            if left.depth == right.depth == 0:
                return Val(ast.unparse(node), 0)
            op = _BINOPS[type(node.op)]
            return Val(f"{self.operand(node.left, left, node.op, False)} {op} "
                       f"{self.operand(node.right, right, node.op, True)}", max(left.depth, right.depth))
        if isinstance(node, ast.UnaryOp):
            inner = self.expr(node.operand)
            if inner.depth == 0:
                return Val(ast.unparse(node), 0)
            if isinstance(node.op, ast.USub):
                return Val(f"-{self.atom(inner.src)}", inner.depth)
            if isinstance(node.op, ast.UAdd):
                return inner
            if isinstance(node.op, ast.Not):
                return Val(f"np.logical_not({inner.src})", inner.depth)
        if isinstance(node, ast.Compare):
            parts, left = [], node.left
            for op, right in zip(node.ops, node.comparators):
                if type(op) not in _CMPOPS:
                    break
                a, b = self.expr(left), self.expr(right)
                parts.append(Val(f"{self.atom(a.src)} {_CMPOPS[type(op)]} {self.atom(b.src)}",
                                 max(a.depth, b.depth)))
                left = right
            else:
                if all(p.depth == 0 for p in parts):
                    return Val(ast.unparse(node), 0)
                return self.combine("np.logical_and", parts)
        if isinstance(node, ast.BoolOp):
            parts = [self.expr(v) for v in node.values]
            if all(p.depth == 0 for p in parts):
                return Val(ast.unparse(node), 0)
            return self.combine("np.logical_and" if isinstance(node.op, ast.And) else "np.logical_or", parts)
        if isinstance(node, ast.IfExp):
            test, body, orelse = self.expr(node.test), self.expr(node.body), self.expr(node.orelse)
            return Val(f"np.where({test.src}, {body.src}, {orelse.src})", max(test.depth, body.depth, orelse.depth))
        if isinstance(node, ast.Call) and not node.keywords:
            return self.call(node)
        if isinstance(node, ast.ListComp) and self.depth == 1:
            return self.row_comprehension(node)
        if isinstance(node, ast.Subscript):
            index = self.expr(node.slice) if not isinstance(node.slice, ast.Slice) else None
            if index is None or index.depth == 0:
                if names_loaded(node) & (set(self.env) | self.carried | self.dead):
                    raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` indexes a loop value")
                return Val(ast.unparse(node), 0)
            return Val(f"{self.as_array(node.value)}[{index.src}]", index.depth)
        raise NotApplicable(f"line {getattr(node, 'lineno', '?')}: `{ast.unparse(node)}` has no numpy "
                            "equivalent the vectoriser knows")

    def combine(self, func: str, parts: list[Val]) -> Val:
        src = parts[0].src
        for part in parts[1:]:
            src = f"{func}({src}, {part.src})"
        return Val(src, max(p.depth for p in parts))

    def call(self, node: ast.Call) -> Val:
        name = dotted(node.func)
        args = [self.expr(a) for a in node.args]
        depth = max((a.depth for a in args), default=0)
        if depth == 0:
            return Val(ast.unparse(node), 0)
        srcs = [a.src for a in args]
        if name.startswith("math."):
            fname = name[5:]
            if fname in EXACT_MATH:
                return Val(f"np.{EXACT_MATH[fname]}({', '.join(srcs)})", depth)
            if fname in INEXACT_MATH:
                self.inexact.append(f"math.{fname} -> np.{INEXACT_MATH[fname]} may differ in the last bit")
                return Val(f"np.{INEXACT_MATH[fname]}({', '.join(srcs)})", depth)
        if name == "abs" and len(args) == 1:
            return Val(f"np.abs({srcs[0]})", depth)
        if name == "float" and len(args) == 1:
            if self.float_ctx and srcs[0] in self.hoisted.values():
                return args[0]  # already read as float64
            return Val(f"np.asarray({srcs[0]}, dtype=np.float64)", depth)
        if name == "int" and len(args) == 1:
            if self.float_ctx and srcs[0] in self.hoisted.values():
                raise NotApplicable(f"line {node.lineno}: int() of values read as float64 (the loop computes in "
                                    "floats) would round integers beyond 2**53")
            # Truncates toward zero like int() (finite values; int() of inf or nan raised).
            self.notes.append("int() → .astype(np.int64): truncates toward zero like int(); where int() raised "
                              "(nan, inf, values beyond int64) the array cast does not; an empty list made "
                              "torch.tensor float32, the int64 array makes it int64")
            return Val(f"{self.atom(srcs[0])}.astype(np.int64)", depth)
        if name in ("min", "max") and len(args) == 2:
            inner = node.args[0]
            # min(max(x, lo), hi) is exactly what np.clip computes.
            if name == "min" and isinstance(inner, ast.Call) and dotted(inner.func) == "max" \
                    and len(inner.args) == 2 and not inner.keywords:
                x, lo = self.expr(inner.args[0]), self.expr(inner.args[1])
                return Val(f"np.clip({x.src}, {lo.src}, {srcs[1]})", depth)
            return Val(f"np.{'minimum' if name == 'min' else 'maximum'}({srcs[0]}, {srcs[1]})", depth)
        raise NotApplicable(f"line {node.lineno}: call to {name or ast.unparse(node.func)}() on loop values has "
                            "no numpy equivalent the vectoriser knows")

    # loop headers -----------------------------------------------------------------
    def bind_outer(self, target: ast.AST, iterable: ast.AST) -> None:
        """Bind the loop target(s) of a depth-1 loop or comprehension to 1-D arrays."""
        call = iterable if isinstance(iterable, ast.Call) and not iterable.keywords else None
        name = dotted(call.func) if call else ""
        if name == "range" and isinstance(target, ast.Name):
            bounds = [ast.unparse(a) for a in call.args]
            if names_loaded(call) & (set(self.env) | self.carried):
                raise NotApplicable(f"line {iterable.lineno}: the range depends on the loop")
            start, stop, step = (["0"] + bounds + ["1"])[:3] if len(bounds) == 1 else (bounds + ["1"])[:3]
            # The loop variable's name now holds every index; nothing reads it after the loop.
            self.hoists.append((target.id, f"np.arange({', '.join(bounds)})"))
            self.env[target.id] = Val(target.id, 1)
            self.outer_range = (target.id, start, stop, step)
            return
        if name == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
                and len(call.args) == 1 and all(isinstance(e, ast.Name) for e in target.elts):
            array = self.as_array(call.args[0])
            index = target.elts[0].id
            self.hoists.append((index, f"np.arange(len({array}))"))
            self.env[index] = Val(index, 1)
            self.env[target.elts[1].id] = Val(array, 1)
            return
        if name == "zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(call.args) \
                and all(isinstance(e, ast.Name) for e in target.elts):
            for elt, arg in zip(target.elts, call.args):
                self.env[elt.id] = Val(self.as_array(arg), 1)
            return
        if isinstance(target, ast.Name) and not call:
            self.env[target.id] = Val(self.as_array(iterable), 1)
            return
        if isinstance(target, ast.Tuple) and target.elts and all(isinstance(e, ast.Name) for e in target.elts) \
                and not call:
            self.bind_columns(target, iterable)
            return
        raise NotApplicable(f"line {iterable.lineno}: loop over `{ast.unparse(iterable)}` with target "
                            f"`{ast.unparse(target)}` is not a form the vectoriser knows")

    def bind_columns(self, target: ast.Tuple, iterable: ast.AST) -> None:
        """`for a, b in pairs` (loop_rows.RowsAndColumns implements it for the Translator)."""
        raise NotApplicable(f"line {iterable.lineno}: tuple targets are not vectorised here")

    def row_comprehension(self, node: ast.ListComp) -> Val:
        """`[f(v) for v in row]` of a loop value (loop_rows.RowsAndColumns implements it)."""
        raise NotApplicable(f"line {node.lineno}: comprehensions inside a loop are not vectorised here")
