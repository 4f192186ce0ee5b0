"""A tuple or list of numbers per element (a mixin of ``Translator``): `(a, b)` or `[r, g, b]` built per pass.

`conc = [(dot(p0, o), dot(p1, o)) for o in od]` or `px = [e0, e1, e2]; out.append(px)` make one small
record per element. Each field that varies along the loop is computed as one array; the records are
then made again in Python from the fields' `.tolist()`, zipped, so each field keeps its own type
(an int field stays int beside a float one) and the container is the one written (a tuple, or a new
list per element). A field that does not vary is written as it was, evaluated per element as the loop
did. Such a value is only stored, appended, made the comprehension's element, or sorted (`sorted`,
`statistics.median`, `.sort()` restated as `sorted`: `record_call`, `record_index`): anything else that reads
it (arithmetic, indexing) is refused.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import Val, dotted, names_loaded


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

    def record_call(self, node: ast.Call, name: str) -> Val | None:
        """`sorted(rec)` or `statistics.median(rec)` of a small list or tuple of numbers made per element (a display,
        or a name bound to one: a 3x3 neighbourhood, `[up[l], up[j], up[r], ...]`), else None.

        The values are stacked on a last axis and sorted as Python's stable sort orders them: equal values keep
        their order, -0.0 beside 0.0 included (`kind='stable'` where a zero is negative). The median is the middle of that row, or
        for an even count `(a + b) / 2` of the two middles, as `statistics.median` computes it. Every value must
        vary along the loop (a fixed one would take the array's type, where Python kept its own). Inner axes
        too: in a comprehension over both axes of a grid each value is a 2-D array.
        """
        if name not in ("sorted", "statistics.median") or node.keywords or self.depth == 0:
            return None
        arg = node.args[0]
        held = self.env.get(arg.id) if isinstance(arg, ast.Name) else None
        if held is not None and held.record:
            srcs = [src if varies else "" for src, varies in held.record[1]]
        elif isinstance(arg, (ast.List, ast.Tuple)) and arg.elts and not any(isinstance(e, ast.Starred)
                                                                              for e in arg.elts):
            values = [self.expr(e) for e in arg.elts]
            if any(v.row or v.mask is not None or v.record for v in values):
                raise NotApplicable(f"line {node.lineno}: a value `{ast.unparse(node)}` sorts is a whole row, not "
                                    "one number")
            srcs = [v.src if v.depth else "" for v in values]
        else:
            return None
        if not all(srcs):
            raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` sorts values some of which do not vary "
                                "along the loop")
        text = ast.unparse(node)
        shown = text if len(text) <= 80 else text[:77] + "..."
        self.notes.append(f"`{shown}` → np.sort(kind='stable') of its {len(srcs)} values per element: the "
                          "same order for equal values; NaN are ordered differently (sorted() leaves them where "
                          "comparisons put them)")
        stacked = self.fresh("stacked")
        self.lines.append(f"{stacked} = np.stack(np.broadcast_arrays({', '.join(srcs)}), axis=-1)")
        stacked = self.sorted_rows(stacked)
        if name == "sorted":
            return Val(stacked, self.depth, row=True)
        middle = len(srcs) // 2
        if len(srcs) % 2:
            return Val(f"{stacked}[..., {middle}]", self.depth)
        return Val(f"({stacked}[..., {middle - 1}] + {stacked}[..., {middle}]) / 2", self.depth)

    def unpacked_items(self, target: ast.AST, iterable: ast.AST) -> bool:
        """`for oy, ox in other` inside the loop: the items of a list the loop never changes, each unpacked into as
        many names, one column each along the inner axis (a list of no items has no columns; items of another length
        raise ValueError, as unpacking did). False where the loop is not that."""
        if not (isinstance(target, ast.Tuple) and target.elts and all(isinstance(e, ast.Name) for e in target.elts)
                and not names_loaded(iterable) & (set(self.env) | self.carried | self.dead)):
            return False
        arr, items, k = self.as_array(iterable), self.fresh("items"), len(target.elts)
        self.lines += [f"{items} = {arr}.reshape(0, {k}) if {arr}.size == 0 else {arr}",
                       f"if {items}.ndim != 2 or {items}.shape[1] != {k}: raise ValueError('perfloop: the items of "
                       f"{ast.unparse(iterable)} do not unpack into {k} names')"]
        for column, elt in enumerate(target.elts):
            self.env[elt.id] = Val(f"{items}[:, {column}]", 2)
        return True

    def item_field(self, node: ast.Subscript) -> Val | None:
        """`g[2]` of an inner loop's item, where that loop walks a list the loop never changes (`for g in gt_boxes`,
        a box per item, inside a loop over anchors): the field's column of the list's 2-D array, along the inner
        axis; None where `node` is not that. A list of numbers has no column: numpy raises IndexError where Python
        raised TypeError, and replay sees the two differ."""
        keys, base = [], node
        while isinstance(base, ast.Subscript) and isinstance(base.slice, ast.Constant) and type(base.slice.value) is str:
            keys[:0], base = [base.slice.value], base.value
        if keys and isinstance(base, ast.Name) and base.id in self.fixed_items and self.env[base.id].depth == 2:
            # `ev["ts"]`, `ev["payload"]["rssi"]` of a list of records: the field's column, made once from the list (a
            # record without the key raises KeyError there, where the loop raised it only for the records it read)
            path = "".join(f"[{key!r}]" for key in keys)
            made = f"np.asarray([item{path} for item in {ast.unparse(self.fixed_items[base.id])}])"
            if made not in self.hoisted:  # one column per field, however often the loop reads it
                self.hoisted[made] = self.fresh(f"{keys[-1]}_col")
                self.hoists.append((self.hoisted[made], made))
            return Val(self.hoisted[made], 2)
        if not (isinstance(node.value, ast.Name) and node.value.id in self.fixed_items
                and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int):
            return None
        val = self.env[node.value.id]
        return Val(f"{self.atom(val.src)}[:, {node.slice.value}]", 2) if val.depth == 2 and not val.row else None

    def sorted_rows(self, src: str) -> str:
        """A name bound to `src` sorted along its last axis as Python's stable `sorted` orders each row.

        Equal ints, bools and strings cannot be told apart, and equal floats are the same bits except for -0.0
        beside 0.0, so the faster default sort gives the stable sort's row there; the stable sort (slower on many
        short rows) is taken for floats holding a negative zero and for anything else (objects)."""
        rows = self.fresh("rows")
        self.lines += [f"{rows} = np.asarray({src})",
                       f"{rows} = np.sort({rows}, axis=-1, kind=None if {rows}.dtype.kind in 'biuSU' or "
                       f"({rows}.dtype.kind == 'f' and not np.any(np.signbit({rows}) & ({rows} == 0))) else 'stable')"]
        return rows

    def record_index(self, node: ast.Subscript) -> Val | None:
        """`sorted(rec)[k]` with `k` a literal int: the k-th smallest of the values (`record_call`), else None."""
        index = node.slice
        if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
            index = index.operand
        if not (isinstance(node.value, ast.Call) and dotted(node.value.func) == "sorted" and len(node.value.args) == 1
                and isinstance(index, ast.Constant) and type(index.value) is int):
            return None
        row = self.record_call(node.value, "sorted")
        if row is None:
            return None
        return Val(f"{row.src}[..., {ast.unparse(node.slice)}]", self.depth)
