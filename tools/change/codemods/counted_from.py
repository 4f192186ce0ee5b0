"""`enumerate(seq, s)`: a loop's counter that starts somewhere other than 0, for the translator.

`for i, x in enumerate(series.tolist(), start_index)` is the loop over `enumerate(series.tolist())` with every
counter raised by `start_index`. ``StartedCounters`` binds it so, ahead of ``axes.AxisRules`` in
``translator.Translator``'s bases: the outer loop's counter becomes `np.arange(n) + s`, an inner loop's the
same along its axis. Everything else about the loop is the plain `enumerate`'s.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import Val, dotted


def enumerate_start(node: ast.AST) -> tuple[ast.Call, ast.expr] | None:
    """(`enumerate(seq)`, the start) of `enumerate(seq, s)` or `enumerate(seq, start=s)`, else None. A literal
    start that is not an int (enumerate raises on it) is None too."""
    if not (isinstance(node, ast.Call) and dotted(node.func) == "enumerate"):
        return None
    if len(node.args) == 2 and not node.keywords:
        seq, start = node.args
    elif len(node.args) == 1 and len(node.keywords) == 1 and node.keywords[0].arg == "start":
        seq, start = node.args[0], node.keywords[0].value
    else:
        return None
    if isinstance(seq, ast.Starred) or isinstance(start, ast.Starred) \
            or (isinstance(start, ast.Constant) and type(start.value) is not int):
        return None
    return ast.copy_location(ast.Call(func=node.func, args=[seq], keywords=[]), node), start


def start_source(start: ast.expr) -> str:
    """The start as the int enumerate counts from: an int literal as written, anything else through
    `operator.index()`, which raises the TypeError enumerate raises for a float (numpy would count on in floats);
    `splice_loops.splice` imports `operator` where a rewrite reads it."""
    if isinstance(start, ast.Constant):
        return repr(start.value)
    return f"operator.index({ast.unparse(start)})"


class StartedCounters:
    """Loop headers `enumerate(seq, s)`: bound as `enumerate(seq)`, then the counter raised by `s`."""

    def bind_outer(self, target: ast.AST, iterable: ast.AST) -> None:
        plain = self._started(target, iterable)
        if plain is None:
            super().bind_outer(target, iterable)
            return
        call, start = plain
        super().bind_outer(target, call)
        index = target.elts[0].id
        self.hoists.append((index, f"{index} + {start_source(start)}"))

    def bind_inner(self, target: ast.AST, iterable: ast.AST) -> None:
        plain = self._started(target, iterable)
        if plain is None:
            super().bind_inner(target, iterable)
            return
        call, start = plain
        super().bind_inner(target, call)
        index = target.elts[0].id
        self.env[index] = Val(f"{self.atom(self.env[index].src)} + {start_source(start)}", 2)

    def _started(self, target: ast.AST, iterable: ast.AST) -> tuple[ast.Call, ast.expr] | None:
        """(the plain `enumerate`, the start) for a counted loop `for i, x in enumerate(seq, s)`, else None. enumerate
        reads the start once, before the first pass, as the rewrite's hoist does: it must not change in the loop."""
        parts = enumerate_start(iterable)
        if parts is None or not (isinstance(target, ast.Tuple) and len(target.elts) == 2
                                 and isinstance(target.elts[0], ast.Name)):
            return None
        if "operator" in self.taken and not isinstance(parts[1], ast.Constant):
            raise NotApplicable(f"line {iterable.lineno}: the function has a name `operator`, which the rewrite's "
                                "`operator.index` of the start would read")
        if not self.invariant(parts[1]):
            raise NotApplicable(f"line {iterable.lineno}: the start of `{ast.unparse(iterable)}` changes inside the "
                                "loop")
        return parts
