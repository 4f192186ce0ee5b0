"""Loop values that are rows: tuples unpacked into columns, comprehensions over one element's row.

A mixin for `loop_body.Translator`: `ExpressionTranslator.bind_outer` hands it a
`for a, b in pairs` header and `ExpressionTranslator.expr` a list comprehension met
inside a loop; the axis convention is the one in `loops.py`.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import Val, dotted, names_loaded


class RowsAndColumns:
    """Column reads for tuple targets and whole-row expressions for comprehensions."""

    def bind_columns(self, target: ast.Tuple, iterable: ast.AST) -> None:
        """`for a, b in pairs`: each position of the tuples is a column array, read with its own dtype.

        `zip(*pairs, strict=True)` unpacks like the loop did (a tuple of another length
        raises); each column keeps its element type (ints stay ints), so `float()` of one
        converts explicitly. An empty `pairs` raises where the loop did nothing: the
        rewrite's notes say so.
        """
        text = ast.unparse(iterable)
        if names_loaded(iterable) & (set(self.env) | self.carried):
            raise NotApplicable(f"line {iterable.lineno}: `{text}` changes inside the loop")
        columns = [self.fresh(f"{elt.id}_col") for elt in target.elts]
        self.hoists.append((", ".join(columns) + ("," if len(columns) == 1 else ""),
                            f"zip(*{text}, strict=True)"))
        for elt, column in zip(target.elts, columns):
            name = self.fresh(f"{elt.id}_arr")
            self.hoists.append((name, f"np.asarray({column})"))
            self.env[elt.id] = Val(name, 1)
        names = ", ".join(elt.id for elt in target.elts)
        self.notes.append(f"`for {names} in {text}` reads columns with zip(*{text}): "
                          f"assumes {text} is never empty")

    def row_comprehension(self, node: ast.ListComp) -> Val:
        """`[f(v) for v in row]` over a loop value's row is `f` of the whole row, element by element.

        Every loop value is an array whose first axis is the loop, so iterating one
        element's row walks the trailing axes; `f` may read only the comprehension's own
        variables and constants (anything else could broadcast differently).
        """
        gen = node.generators[0] if len(node.generators) == 1 else None
        if gen is None or gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name):
            raise NotApplicable(f"line {node.lineno}: only `[f(v) for v in row]` comprehensions (one `for`, "
                                "no `if`) of a loop value are vectorised")
        row = self.expr(gen.iter)
        if row.depth != 1:
            raise NotApplicable(f"line {node.lineno}: the comprehension iterates `{ast.unparse(gen.iter)}`, "
                                "which is not a row of the loop's values")
        own = {n.id for c in ast.walk(node) if isinstance(c, ast.comprehension)
               for n in ast.walk(c.target) if isinstance(n, ast.Name)}
        called = {dotted(c.func).split(".")[0] for c in ast.walk(node.elt) if isinstance(c, ast.Call)}
        others = names_loaded(node.elt) - own - called
        if others:
            raise NotApplicable(f"line {node.lineno}: the comprehension reads `{sorted(others)[0]}`; only "
                                "element-wise functions of the row itself are vectorised")
        saved = self.env.get(gen.target.id)
        self.env[gen.target.id] = row
        try:
            value = self.expr(node.elt)
        finally:
            if saved is None:
                self.env.pop(gen.target.id, None)
            else:
                self.env[gen.target.id] = saved
        if value.depth != 1:
            raise NotApplicable(f"line {node.lineno}: the comprehension's value does not vary along the row")
        return value
