"""A tuple or list of numbers per element (a mixin of ``Translator``): `(a, b)` or `[r, g, b]` built per pass.

`conc = [(dot(p0, o), dot(p1, o)) for o in od]` or `px = [e0, e1, e2]; out.append(px)` make one small
record per element. Each field that varies along the loop is computed as one array; the records are
then made again in Python from the fields' `.tolist()`, zipped, so each field keeps its own type
(an int field stays int beside a float one) and the container is the one written (a tuple, or a new
list per element). A field that does not vary is written as it was, evaluated per element as the loop
did. Such a value is only stored, appended or made the comprehension's element: anything that reads
it (arithmetic, indexing) is refused.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import Val


class RecordRules:
    """``record`` translates a display, ``record_list`` writes the list of records (the Translator's state)."""

    def record(self, node: ast.AST) -> Val | None:
        """The Val of a tuple or list display of per-element numbers, or None where `node` is not one that varies."""
        if not isinstance(node, (ast.Tuple, ast.List)) or not node.elts or self.depth != 1 \
                or any(isinstance(e, ast.Starred) for e in node.elts):
            return None
        fields = []
        for elt in node.elts:
            val = self.expr(elt)
            if val.row or val.mask is not None or val.record:
                raise NotApplicable(f"line {node.lineno}: a field of `{ast.unparse(node)}` is a whole row, not one "
                                    "number")
            if val.depth == 0:
                if not self.invariant(elt):
                    raise NotApplicable(f"line {node.lineno}: `{ast.unparse(elt)}` reads the loop but does not "
                                        "vary along it")
                fields.append((ast.unparse(elt), False))
            else:
                fields.append((val.src, True))
        if not any(varies for _, varies in fields):
            return None
        return Val("", 1, record=(isinstance(node, ast.Tuple), tuple(fields)))

    def record_list(self, val: Val, mask: str | None = None) -> str:
        """Python source of the list of records: a comprehension over the varying fields' values, zipped."""
        is_tuple, fields = val.record
        names, iters, parts = [], [], []
        for src, varies in fields:
            if varies:
                name = self.fresh("field")
                names.append(name)
                iters.append(f"{self.atom(src)}{f'[{mask}]' if mask else ''}.tolist()")
                parts.append(name)
            else:
                parts.append(src)
        elt = f"({parts[0]},)" if is_tuple and len(parts) == 1 else \
            f"({', '.join(parts)})" if is_tuple else f"[{', '.join(parts)}]"
        source = iters[0] if len(iters) == 1 else f"zip({', '.join(iters)})"
        return f"[{elt} for {', '.join(names)} in {source}]"

    def unrecorded(self, node: ast.Name) -> Val:
        """The loop value `node` names; NotApplicable where it holds a record (only stored or appended)."""
        if self.env[node.id].record is not None:
            raise NotApplicable(f"line {node.lineno}: `{node.id}` holds a tuple or list per element; it is only "
                                "stored or appended, not read")
        return self.env[node.id]
