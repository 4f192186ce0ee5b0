"""Inner reduction loops: their values along the last axis, as ranges or sliding windows.

A mixin for `loop_body.Translator` (`Translator.inner_loop` binds the inner loop's
target here); the axis convention is the one in `loops.py`.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import Val, additive_terms, dotted, is_atomic, names_loaded


class InnerLoops:
    """Bind an inner loop's target to values along the last axis."""

    def bind_inner(self, target: ast.AST, iterable: ast.AST) -> None:
        """Bind the target(s) of an inner reduction loop to values along the last axis."""
        call = iterable if isinstance(iterable, ast.Call) and not iterable.keywords else None
        name = dotted(call.func) if call else ""
        if name == "range" and isinstance(target, ast.Name):
            if len(call.args) == 1 and self.expr(call.args[0]).depth == 0:
                self.env[target.id] = Val(f"np.arange({ast.unparse(call.args[0])})", 2)
                return
            if len(call.args) == 2:
                width = self._offset(call.args[0], call.args[1])
                if width is not None:
                    low = self.expr(call.args[0])
                    self.env[target.id] = Val(f"{self.atom(low.src)} + np.arange({width})", 2)
                    return
        if name == "zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(call.args) \
                and all(isinstance(e, ast.Name) for e in target.elts):
            for elt, arg in zip(target.elts, call.args):
                self.env[elt.id] = self.window_value(arg)
            return
        if isinstance(target, ast.Name) and not call:
            if isinstance(iterable, ast.Subscript) and isinstance(iterable.slice, ast.Slice):
                self.env[target.id] = self.window_value(iterable)
                return
            if self.expr(iterable).depth == 0:  # the same values for every outer element
                self.env[target.id] = Val(self.as_array(iterable), 2)
                return
        raise NotApplicable(f"line {iterable.lineno}: inner loop over `{ast.unparse(iterable)}` is not a "
                            "range, a window slice of the outer index or a fixed array")

    def _offset(self, low: ast.AST, high: ast.AST) -> str | None:
        """Return the source of `high - low` when high is written `low + w`, else None."""
        if isinstance(high, ast.BinOp) and isinstance(high.op, ast.Add) \
                and ast.dump(high.left) == ast.dump(low) and self.expr(high.right).depth == 0:
            return ast.unparse(high.right)
        return None

    def window_value(self, node: ast.AST) -> Val:
        """Name the windows once (a view, no copy) so every use reads the same rows."""
        src = self.window(node)
        if src not in self.hoisted:
            name = self.fresh("windows")
            self.lines.append(f"{name} = {src}")
            self.hoisted[src] = name
        return Val(self.hoisted[src], 2)

    def window(self, node: ast.AST) -> str:
        """Spell `x[s + a:s + b]` (s the outer range variable) as rows of a sliding window view."""
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)
                and node.slice.step is None and self.outer_range):
            raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` is not a slice of a loop-invariant "
                                "array at the outer range index")
        var, start, stop, step = self.outer_range
        low = self._shift(node.slice.lower, var)
        high = self._shift(node.slice.upper, var)
        if low is None or high is None:
            raise NotApplicable(f"line {node.lineno}: slice `{ast.unparse(node.slice)}` is not `{var} + a:{var} + b`")
        width = high if low == "0" else f"{self.atom(high)} - {self.atom(low)}"
        first = start if low == "0" else low if start == "0" else f"{self.atom(start)} + {self.atom(low)}"
        last = stop if low == "0" else f"{self.atom(stop)} + {self.atom(low)}"
        step_text = "" if step == "1" else f":{step}"
        first_text = "" if first == "0" else first
        array = self.as_array(node.value)
        return f"np.lib.stride_tricks.sliding_window_view({array}, {width})[{first_text}:{last}{step_text}]"

    @staticmethod
    def _shift(node: ast.AST | None, var: str) -> str | None:
        """Return the offset c when `node` is `var + c` written as any chain of + and -; else None."""
        if node is None:
            return None
        terms = additive_terms(node, 1)
        hits = [term for term in terms if isinstance(term[1], ast.Name) and term[1].id == var]
        if len(hits) != 1 or hits[0][0] != 1:
            return None
        rest = [term for term in terms if term is not hits[0]]
        if any(var in names_loaded(n) for _, n in rest):
            return None
        text = ""
        for sign, n in rest:
            part = ast.unparse(n)
            part = part if is_atomic(part) else f"({part})"
            text += f" {'+' if sign > 0 else '-'} {part}"
        return "0" if not text else (text[3:] if text.startswith(" + ") else "-" + text[3:])
