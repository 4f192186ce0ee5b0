"""The calls the translator knows on loop values (a mixin of ``Translator``): math, abs, float, int, min/max.

Reductions and sorts of a row (`sum`, `sorted`, ... of a generator or row) are ``AxisRules.row_call``;
everything else is refused with the call's name.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.axes import ROW_CALLS
from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import EXACT_MATH, INEXACT_MATH, Val, dotted


class CallRules:
    """``call``: a call on loop values as numpy (the Translator's names, hoists and notes are its state)."""

    def call(self, node: ast.Call) -> Val:
        name = dotted(node.func)
        if len(node.args) == 1 and name in ROW_CALLS:
            reduced = self.row_call(node, name)
            if reduced is not None:
                return reduced
        args = [self.expr(a) for a in node.args]
        depth = max((a.depth for a in args), default=0)
        if depth == 0 and self.invariant(node):
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
