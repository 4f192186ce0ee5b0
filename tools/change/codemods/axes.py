"""How a loop's axes are bound: loop headers, rows of loop values, reductions and sorts of a row.

`AxisRules`, half of `translator.Translator`, decides what each loop axis is: the outer loop's values (ranges, zips,
enumerates, tuple columns, `x.tolist()`), an inner loop's (fixed ranges, ragged ranges with a mask, rows of the outer
values, sliding windows), and calls that open an axis and close it again (`sum`, `min`, `max`, `any`, `all`, `sorted`,
`statistics.median`, `len` of a row or a generator). Its state is the Translator's (`env`, `depth`, `hoists`, `mask`).
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import (
    Val,
    columns_of,
    dotted,
    is_number_literal,
    listed,
    names_loaded,
    names_stored,
)
from perfloop.tools.change.codemods.window_bounds import shift, whole_windows

ROW_CALLS = {"sum", "min", "max", "sorted", "len", "statistics.median", "any", "all"}
"""Calls the translator reads as one more axis, reduced or sorted away."""


def is_tolist(node: ast.AST) -> bool:
    """`x.tolist()`: a copy of x as Python numbers, which numpy reads as the same values."""
    return listed(node) is not None


SHORT_LOOP = 16
"""A loop of at most this many passes fixed in the code (`range(5)`, a literal tuple) stays Python: numpy costs more."""


def literal_passes(iterable: ast.AST) -> int | None:
    """Passes of a loop whose length the code fixes: `range(<ints>)`, a literal list or tuple; None otherwise."""
    if isinstance(iterable, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in iterable.elts):
        return len(iterable.elts)
    if isinstance(iterable, ast.Call) and dotted(iterable.func) == "range" and not iterable.keywords \
            and 1 <= len(iterable.args) <= 3 and all(isinstance(a, ast.Constant) and type(a.value) is int
                                                     for a in iterable.args):
        return len(range(*(a.value for a in iterable.args)))
    return None


class AxisRules:
    """Loop headers and row axes of one loop's translation (mixed into `Translator`)."""

    def raw(self, node: ast.AST) -> Val | None:
        """The unrendered value of a loop value named by `node` (its array: loop axis first), else None."""
        if isinstance(node, ast.Name) and node.id in self.env and self.env[node.id].depth == 1:
            return self.unrecorded(node)
        return None

    def row_of(self, node: ast.AST) -> Val | None:
        """`node` as a row per outer element (a loop value iterated, or a row-valued result), else None."""
        raw = self.raw(node)
        if raw is not None:
            return raw
        if self.depth == 1 and self.is_ragged_slice(node):
            return self.ragged_slice(node)
        if self.depth == 1 and not isinstance(node, (ast.GeneratorExp, ast.ListComp)):
            val = self.expr(node)
            if val.row:
                return val
        return None

    def chained_subscript(self, node: ast.Subscript) -> Val | None:
        """`table[i][k]` of a fixed nested list or `img[y, x, 2]` of a fixed array: one index per axis (None: not that)."""
        indices, base = [], node
        while isinstance(base, ast.Subscript):
            if not (parts := base.slice.elts if isinstance(base.slice, ast.Tuple) else [base.slice]) \
                    or any(isinstance(p, (ast.Slice, ast.Starred)) for p in parts):
                return None
            indices[:0] = parts
            base = base.value
        if not self.invariant(base) or all(self.invariant(i) for i in indices):
            return None
        vals = [self.index(i) for i in indices]
        return Val(f"{self.as_array(base)}[{', '.join(v.src for v in vals)}]", max(v.depth for v in vals))

    def index(self, node: ast.AST) -> Val:
        """A subscript's index: cast back to ints where read as float64; 0 where its conditions fail (`guarded_index`)."""
        val = self.expr(node)
        if val.depth and self.float_ctx:
            val = Val(f"{self.atom(val.src)}.astype(np.int64)", val.depth)
        return self.guarded_index(val)

    def subscript(self, node: ast.Subscript) -> Val:
        """`x[i]`, `row[k]`, `table[i][k]`, `sorted(...)[:k]`: an index of an array, of a row, or of a row-valued
        result; a slice whose bounds move with the loop only where it is reduced (`row_call`, loops over it)."""
        if isinstance(node.value, ast.Name) and node.value.id in self.elements:
            # `[t[0] for t in row]`: each element of the row is itself a sequence (a tuple per pixel), an axis the
            # row's array may or may not have; only rows of numbers are read element by element.
            raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` indexes an element of a row; only rows "
                                "of numbers are vectorised element by element")
        if self.depth == 1 and (self.is_ragged_slice(node) or self.is_ragged_slice(node.value)):
            node = node if self.is_ragged_slice(node) else node.value
            raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` is a slice whose length varies along the "
                                "loop; only sum(), len() and loops over it are vectorised")
        if self.depth == 1 and isinstance(node.value, (ast.Call, ast.ListComp)) \
                and names_loaded(node.value) & set(self.env):
            # `sorted(...)[:k]`, `np-able(row)[0]`: a row-valued result indexed like a named row.
            value = self.expr(node.value)
            if value.row and value.mask is None:
                return self.row_subscript(node, value)
            raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` indexes a value that is not a row")
        if isinstance(node.slice, ast.Constant) and type(node.slice.value) is str \
                and (field := self.item_field(node)) is not None:  # a record's field by its key
            return field
        if self.raw(node.value) is not None:
            return self.row_subscript(node, self.raw(node.value))
        if isinstance(node.value, ast.Subscript) or isinstance(node.slice, ast.Tuple):
            chained = self.chained_subscript(node)
            if chained is not None:
                return chained
        index = self.expr(node.slice) if not isinstance(node.slice, ast.Slice) else None
        if index is None or index.depth == 0:
            if (field := self.item_field(node)) is not None:
                return field
            if names_loaded(node) & (set(self.env) | self.carried | self.dead):
                raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` indexes a loop value")
            return Val(ast.unparse(node), 0)
        index, array = self.index(node.slice), self.as_array(node.value)
        self.row_picks[f"{array}[{index.src}]"] = (array, index.src)  # `src[y0]`: a row of a fixed array each
        return Val(f"{array}[{index.src}]", index.depth)

    def row_subscript(self, node: ast.Subscript, row: Val) -> Val:
        """`row[k]`, `row[a:b]` of a loop value that is a row: index its trailing axis (`arr[:, k]`)."""
        if row.mask is not None:
            raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` indexes a slice whose length varies "
                                "along the loop (only sum(), len() and loops over it are vectorised)")
        if isinstance(node.slice, ast.Slice):
            parts = [node.slice.lower, node.slice.upper, node.slice.step]
            if any(p is not None and self.expr(p).depth for p in parts):
                raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` slices each row differently")
            return Val(f"{self.atom(row.src)}[:, {ast.unparse(node.slice)}]", 1, row=True)
        if isinstance(node.slice, ast.Tuple) or (isinstance(node.slice, ast.Constant)
                                                 and not isinstance(node.slice.value, int)):
            raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` reads a field or a tuple index of "
                                "each element; only rows of numbers are indexed")
        index = self.expr(node.slice)
        if index.depth == 1 and (self.depth != 1 or row.depth != 1):
            raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` reads each row at its own index")
        if index.depth == 1:
            # `r0 = src[y0]` then `r0[x0]`: each element's row at its own index, gathered (a negative index wraps
            # and one out of range raises, as the list's did; under a condition, index 0 where it does not hold).
            index = self.index(node.slice)
            if row.src in self.row_picks:  # rows picked from a fixed array: one element each, not the whole row
                return Val("{}[{}, {}]".format(*self.row_picks[row.src], index.src), 1)
            return Val(f"np.take_along_axis({self.atom(row.src)}, {self.atom(index.src)}[:, None], axis=1)[:, 0]", 1)
        val = Val(f"{self.atom(row.src)}[:, {index.src}]", max(1, index.depth))
        return Val(self.render(val), 1) if val.depth == 1 else val  # an outer row's field, read in an inner loop

    def row_call(self, node: ast.Call, name: str) -> Val | None:
        """sum/min/max/any/all/sorted/len/statistics.median of a row, a generator or a comprehension.

        Each opens one more loop axis (the row's), reduces or sorts it away and returns a value of the enclosing axis;
        None when the argument does not vary with the loop. `sum` adds left to right from 0 (`np.cumsum` with a
        leading 0): the loop's bits; `sorted` is stable; `any`/`all` compute every element (an error is a warning).
        """
        arg = node.args[0]
        if self.depth > 0 and self.invariant(arg):
            return None
        inner = {n for n, v in self.env.items() if v.depth == 2}
        if self.depth == 2 and not names_loaded(arg) & inner:
            # A reduction of the outer element's own row, written inside an inner loop: computed
            # once per outer element, read broadcast along the inner axis.
            self.depth = 1
            try:
                value = self.row_call(node, name)
            finally:
                self.depth = 2
            return Val(self.render(value), value.depth) if value is not None else None
        if name == "len":
            row = self.row_of(arg)
            if row is None and self.depth == 1:
                val = self.expr(arg)
                row = val if val.depth == 1 else None
            if row is not None and row.mask is not None:
                return Val(f"np.count_nonzero({row.mask}, axis=-1)", 1)
            # shape[1], not shape[-1]: a 1-D array (numbers or strings, where len() means something
            # else or raised) fails loudly instead of giving the loop's length.
            return Val(f"{self.atom(row.src)}.shape[1]", 0) if row is not None else None
        if self.depth == 2 or (self.depth == 0 and not isinstance(arg, (ast.GeneratorExp, ast.ListComp))):
            raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` nests a reduction inside an inner "
                                "loop (one inner axis is vectorised)")
        term, mask = self.axis_values(arg, node)
        if name == "sum" and mask is not None and term.depth <= self.depth \
                and isinstance(arg, (ast.GeneratorExp, ast.ListComp)) and is_number_literal(arg.elt):
            # A count, `sum(1 for ... if cond)`: np.where below broadcasts the constant along the filter's axis.
            term = Val(term.src, self.depth + 1)
        if term.depth != self.depth + 1:
            raise NotApplicable(f"line {node.lineno}: the values `{ast.unparse(node)}` reads do not vary along its own loop")
        if name == "sorted" or name == "statistics.median":
            if mask is not None:
                raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` sorts a filtered or ragged row")
            self.notes.append(f"{name}() → np.sort(kind='stable'): the same order for equal values; rows holding "
                              "NaN are ordered differently (sorted() leaves them where comparisons put them)")
            if name == "sorted":
                return self.at_depth(self.sorted_rows(term.src), row=True)
            return self.at_depth(f"np.median({term.src}, axis=-1)")
        if name in ("any", "all"):  # in any order; a number's truth is Python's (NaN is true); no early stop
            truths = term.src if mask is None else f"np.where({mask}, {term.src}, {name == 'all'})"
            return self.at_depth(f"np.{name}({truths}, axis=-1)")
        if name == "sum" and mask is not None and term.src == "1":  # a count: ints add up the same in any order
            return self.at_depth(f"np.count_nonzero(np.where({mask}, 1, 0), axis=-1)")
        if name == "sum":
            terms = term.src if mask is None else f"np.where({mask}, {term.src}, 0)"
            # (0 + t0) + t1 + ...: the leading 0 makes an empty row 0 and -0.0 terms +0.0, as sum() does.
            return self.at_depth(f"np.cumsum(np.insert({terms}, 0, 0, axis=-1), axis=-1)[..., -1]")
        if mask is not None and not isinstance(arg, (ast.GeneratorExp, ast.ListComp)) and term.depth == self.depth + 1:
            # A slice whose length varies: its real entries come first, so the padding takes the row's
            # first entry and never changes the min or max (an empty slice made min()/max() raise).
            self.notes.append(f"{name}() → np.{name}: a row holding NaN gives NaN (Python's {name}() depends on "
                              "where the NaN is)")
            return self.at_depth(f"np.{name}(np.where({mask}, {term.src}, {self.atom(term.src)}[..., :1]), axis=-1)")
        if mask is not None:
            raise NotApplicable(f"line {node.lineno}: {name}() of a filtered or ragged row")
        self.notes.append(f"{name}() → np.{name}: a row holding NaN gives NaN (Python's {name}() depends on where "
                          "the NaN is)")
        return self.at_depth(f"np.{name}({term.src}, axis=-1)")

    def at_depth(self, src: str, row: bool = False) -> Val:
        """A value of the enclosing axis: a Python scalar at the function's top level (as sum() returns)."""
        if self.depth == 0:
            return Val(f"{self.atom(src)}.tolist()" if row else f"{self.atom(src)}.item()", 0)
        return Val(src, self.depth, row=row)

    def axis_values(self, arg: ast.AST, node: ast.AST) -> tuple[Val, str | None]:
        """The values a row call reads, one axis deeper, and the mask of entries that exist (None: all)."""
        if not isinstance(arg, (ast.GeneratorExp, ast.ListComp)):
            row = self.row_of(arg)
            if row is None:
                raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` reads `{ast.unparse(arg)}`, "
                                    "which is not a row of the loop's values")
            return Val(row.src, self.depth + 1), row.mask
        gen = arg.generators[0] if len(arg.generators) == 1 else None
        if gen is None or gen.is_async:
            raise NotApplicable(f"line {node.lineno}: a generator with several `for` is not vectorised")
        own = names_stored([gen.target])
        saved = (dict(self.env), self.depth, self.mask, set(self.carried), set(self.dead))
        for name in own:
            self.env.pop(name, None)
        self.carried -= own
        self.dead -= own
        try:
            if self.depth == 0:
                self.depth = 1
                self.bind_outer(gen.target, gen.iter)
            else:
                self.depth = 2
                self.mask = None
                self.bind_inner(gen.target, gen.iter)
            masks = [m for m in [self.mask] if m] + [self.truth(c).src for c in gen.ifs]
            mask = masks[0] if len(masks) == 1 else self.combine("np.logical_and", [Val(m, 1) for m in masks]).src \
                if masks else None
            with self.under(mask):  # the element is read only where the filters let it through
                term = self.expr(arg.elt)
        finally:
            self.env, depth, self.mask, self.carried, self.dead = saved
            self.depth = depth
        return term, mask

    def bind_outer(self, target: ast.AST, iterable: ast.AST) -> None:
        """Bind the loop target(s) of a depth-1 loop or comprehension to 1-D arrays."""
        call = iterable if isinstance(iterable, ast.Call) and not iterable.keywords else None
        name = dotted(call.func) if call else ""
        passes = literal_passes(iterable)
        if passes is not None and passes <= SHORT_LOOP:
            raise NotApplicable(f"line {iterable.lineno}: `{ast.unparse(iterable)}` makes {passes} passes, written in "
                                f"the code: numpy's cost per call is more than {SHORT_LOOP} passes of Python")
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
                and len(call.args) == 1 and isinstance(target.elts[0], ast.Name) \
                and isinstance(target.elts[1], ast.Tuple):
            # `for i, (a, b) in enumerate(zip(x, y))` (or of pairs): the inner target as its own loop,
            # the counter over as many elements as it has.
            self.bind_outer(target.elts[1], call.args[0])
            first = self.env[target.elts[1].elts[0].id].src if target.elts[1].elts else "[]"
            index = target.elts[0].id
            self.hoists.append((index, f"np.arange(len({first}))"))
            self.env[index] = Val(index, 1)
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
            arrays = [self.as_array(arg) for arg in call.args]
            if len(arrays) > 1:
                # zip stops at the shortest; numpy would broadcast a length-1 array instead.
                common = self.fresh("common")
                self.hoists.append((common, f"min({', '.join(f'len({a})' for a in arrays)})"))
                arrays = [f"{a}[:{common}]" for a in arrays]
            for elt, array in zip(target.elts, arrays):
                self.env[elt.id] = Val(array, 1)
            return
        if isinstance(target, ast.Name) and (not call or is_tolist(iterable)):
            self.env[target.id] = Val(self.as_array(iterable), 1)
            return
        if isinstance(target, ast.Tuple) and target.elts and all(isinstance(e, ast.Name) for e in target.elts) \
                and (not call or is_tolist(iterable)):
            self.bind_columns(target, iterable)
            return
        raise NotApplicable(f"line {iterable.lineno}: loop over `{ast.unparse(iterable)}` with target "
                            f"`{ast.unparse(target)}` is not a form the vectoriser knows")

    def bind_columns(self, target: ast.Tuple, iterable: ast.AST) -> None:
        """`for a, b in pairs` (or `in xyz.tolist()`): each position of the tuples is a column, of its own dtype.

        `zip(*pairs, strict=True)` unpacks like the loop did (a tuple of another length
        raises); each column keeps its element type (ints stay ints), so `float()` of one
        converts explicitly. An empty `pairs` gives empty columns, as the loop did nothing.
        """
        text = ast.unparse(iterable)
        if names_loaded(iterable) & (set(self.env) | self.carried):
            raise NotApplicable(f"line {iterable.lineno}: `{text}` changes inside the loop")
        columns = [self.fresh(f"{elt.id}_col") for elt in target.elts]
        self.hoists.append((", ".join(columns) + ("," if len(columns) == 1 else ""), columns_of(iterable, len(columns))))
        for elt, column in zip(target.elts, columns):
            name = self.fresh(f"{elt.id}_arr")
            self.hoists.append((name, f"np.asarray({column})"))
            self.env[elt.id] = Val(name, 1)

    def row_comprehension(self, node: ast.ListComp) -> Val:
        """`[f(v) for v in row]` over a loop value's row: `f` of the whole row, one axis deeper.

        The row's elements live on a trailing axis, so the outer loop's numbers read in `f`
        broadcast as `x[:, None]`, like an inner loop's; an `if` filter would make the rows
        ragged and is refused.
        """
        gen = node.generators[0] if len(node.generators) == 1 else None
        if gen is None or gen.ifs or gen.is_async:
            raise NotApplicable(f"line {node.lineno}: only `[f(v) for v in row]` comprehensions (one `for`, "
                                "no `if`) of a loop value are vectorised")
        own = {n.id for c in ast.walk(node) if isinstance(c, ast.comprehension)
               for n in ast.walk(c.target) if isinstance(n, ast.Name)}
        called = {dotted(c.func).split(".")[0] for c in ast.walk(node.elt) if isinstance(c, ast.Call)}
        source = self.row_of(gen.iter) if not names_loaded(node.elt) - own - called else None
        if source is not None and source.mask is not None:
            raise NotApplicable(f"line {node.lineno}: the comprehension walks a slice whose length varies along "
                                "the loop; its rows would differ in length")
        if source is not None:
            # Element-wise on the row alone (nested comprehensions too): the row's whole array, as it is.
            saved = self.env.get(gen.target.id) if isinstance(gen.target, ast.Name) else None
            if not isinstance(gen.target, ast.Name):
                raise NotApplicable(f"line {node.lineno}: the comprehension unpacks `{ast.unparse(gen.target)}`")
            self.env[gen.target.id] = Val(self.row_of(gen.iter).src, 1)
            self.elements.add(gen.target.id)
            try:
                value = self.expr(node.elt)
            finally:
                self.elements.discard(gen.target.id)
                if saved is None:
                    self.env.pop(gen.target.id, None)
                else:
                    self.env[gen.target.id] = saved
            if value.depth != 1:
                raise NotApplicable(f"line {node.lineno}: the comprehension's value does not vary along the row")
            return Val(value.src, 1, row=True)
        value, mask = self.axis_values(node, node)
        if mask is not None:
            raise NotApplicable(f"line {node.lineno}: the comprehension walks a ragged range; its rows would differ in length")
        if value.depth != 2:
            raise NotApplicable(f"line {node.lineno}: the comprehension's value does not vary along the row")
        return Val(value.src, 1, row=True)

    def bind_inner(self, target: ast.AST, iterable: ast.AST) -> None:
        """Bind the target(s) of an inner reduction loop to values along the last axis."""
        call = iterable if isinstance(iterable, ast.Call) and not iterable.keywords else None
        name = dotted(call.func) if call else ""
        if name == "range" and isinstance(target, ast.Name):
            if len(call.args) in (1, 2, 3) and all(self.expr(a).depth == 0 for a in call.args):  # a fixed range
                self.env[target.id] = Val(f"np.arange({', '.join(self.expr(a).src for a in call.args)})", 2)
                return
            if len(call.args) == 2:
                width = self._offset(call.args[0], call.args[1])
                if width is not None:
                    low = self.expr(call.args[0])
                    self.env[target.id] = Val(f"{self.atom(low.src)} + np.arange({width})", 2)
                    return
                self.ragged_range(target.id, call)
                return
        if name == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
                and len(call.args) == 1 and isinstance(target.elts[0], ast.Name) \
                and isinstance(target.elts[1], ast.Tuple):
            # `for i, (a, b) in enumerate(zip(x, y))` (or of pairs): the inner target as its own loop,
            # the counter over as many elements as it has.
            self.bind_outer(target.elts[1], call.args[0])
            first = self.env[target.elts[1].elts[0].id].src if target.elts[1].elts else "[]"
            index = target.elts[0].id
            self.hoists.append((index, f"np.arange(len({first}))"))
            self.env[index] = Val(index, 1)
            return
        if name == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
                and len(call.args) == 1 and all(isinstance(e, ast.Name) for e in target.elts):
            values = self.inner_values(call.args[0])
            if values.mask is not None:
                self.mask = values.mask
            self.env[target.elts[0].id] = Val(f"np.arange({self.atom(values.src)}.shape[-1])", 2)  # inner axis: last
            self.env[target.elts[1].id] = values
            return
        if name == "zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(call.args) \
                and all(isinstance(e, ast.Name) for e in target.elts):
            values = [self.window_value(arg) if self._is_window(arg) else self.inner_values(arg) for arg in call.args]
            if any(v.mask is not None for v in values):
                raise NotApplicable(f"line {iterable.lineno}: `{ast.unparse(iterable)}` zips a slice whose length "
                                    "varies along the loop")
            if len(values) > 1 and not all(self._is_window(arg) for arg in call.args):
                # zip stops at the shortest; numpy would broadcast a length-1 row instead.
                common = self.fresh("common")
                self.lines.append(f"{common} = min({', '.join(f'{self.atom(v.src)}.shape[-1]' for v in values)})")
                values = [Val(f"{self.atom(v.src)}[..., :{common}]", 2) for v in values]
            for elt, value in zip(target.elts, values):
                self.env[elt.id] = value
            return
        if isinstance(target, ast.Name) and not call:
            if self._is_window(iterable) and (self.is_fixed_window(iterable) or not self.is_ragged_slice(iterable)):
                self.env[target.id] = self.window_value(iterable)
                return
            fixed = not names_loaded(iterable) & (set(self.env) | self.carried | self.dead)
            values = self.inner_values(iterable)
            if values.mask is not None:
                self.mask = values.mask
            self.env[target.id] = Val(values.src, 2)
            if fixed:  # `g[2]`, `ev["ts"]`: records.item_field
                self.fixed_items[target.id] = iterable
            else:
                self.fixed_items.pop(target.id, None)
            return
        if not call and self.unpacked_items(target, iterable):  # `for gx, gy in gts` (records.py)
            return
        raise NotApplicable(f"line {iterable.lineno}: inner loop over `{ast.unparse(iterable)}` is not a "
                            "range, a row, a window slice of the outer index or a fixed array")

    def _is_window(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and self.raw(node.value) is None \
            and bool(names_loaded(node.slice) & set(self.env))

    def inner_values(self, node: ast.AST) -> Val:
        """The elements an inner loop walks: an outer value's row, or an array the same for every element."""
        row = self.raw(node)
        if row is None and not names_loaded(node) & (set(self.env) | self.carried | self.dead):
            return Val(self.as_array(node), 2)
        if row is None and self.is_ragged_slice(node):
            saved, self.depth = self.depth, 1
            try:
                row = self.ragged_slice(node)
            finally:
                self.depth = saved
        if row is None:
            saved, self.depth = self.depth, 1
            try:
                val = self.expr(node)
            finally:
                self.depth = saved
            if not val.row:
                raise NotApplicable(f"line {node.lineno}: inner loop over `{ast.unparse(node)}`, which is neither "
                                    "a row of the loop's values nor the same array for every element")
            row = val
        return Val(row.src, 2, mask=row.mask)

    def ragged_range(self, var: str, call: ast.Call) -> None:
        """`range(lo, hi)` with bounds that vary along the outer loop: padded to the widest, with a mask.

        Padded entries read index 0 and never reach a result: reductions add 0 (or multiply by 1)
        in their place, after the real terms, so sums keep the loop's order.
        """
        saved, self.depth = self.depth, 1
        try:
            low, high = self.expr(call.args[0]), self.expr(call.args[1])
        finally:
            self.depth = saved
        if max(low.depth, high.depth) != 1 or low.row or high.row:
            raise NotApplicable(f"line {call.lineno}: inner `{ast.unparse(call)}` is neither fixed nor bounded by "
                                "numbers of the outer loop")
        lo, hi, width, steps = self.fresh(f"{var}_lo"), self.fresh(f"{var}_hi"), self.fresh(f"{var}_width"), \
            self.fresh(f"{var}_steps")
        # range() takes ints only, so bounds read as float64 hold whole numbers: the cast is exact.
        # At least one column, so a reduction over all-empty ranges still has its start value.
        self.lines += [f"{lo} = np.broadcast_arrays(np.asarray({low.src}), np.asarray({high.src}))[0].astype(np.int64)",
                       f"{hi} = np.broadcast_arrays(np.asarray({high.src}), {lo})[0].astype(np.int64)",
                       f"{width} = int(np.maximum({hi} - {lo}, 0).max(initial=1))",
                       f"{steps} = {lo}[:, None] + np.arange({width})"]
        self.mask = f"({steps} < {hi}[:, None])"
        self.env[var] = Val(f"np.where({self.mask}, {steps}, 0)", 2)
        self.notes.append(f"ragged inner range `{ast.unparse(call)}`: rows padded to the widest with index 0, masked out of the reduction")

    def is_ragged_slice(self, node: ast.AST) -> bool:
        """`x[lo:hi]` of an array the loop does not change, with bounds that move with the outer loop
        (`x[max(0, i - w + 1):i + 1]`, `x[:i]`, `x[i - w:i]`, `x[starts[i]:ends[i]]`)."""
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.step is None
                and self.raw(node.value) is None and self.invariant(node.value)):
            return False
        bounds = [b for b in (node.slice.lower, node.slice.upper) if b is not None]
        if not any(names_loaded(b) & set(self.env) for b in bounds):
            return False
        return True

    def is_fixed_window(self, node: ast.Subscript) -> bool:
        """`x[s + a:s + b]` at the outer range variable s, every window whole: an inner loop over it reads a sliding
        window view. Else (a window the slice would cut at an end) the ragged slice, padded and masked, is exact."""
        if not (self.outer_range and node.slice.lower is not None and node.slice.upper is not None):
            return False
        var, start, stop, step = self.outer_range
        low, high = shift(node.slice.lower, var), shift(node.slice.upper, var)
        return low is not None and high is not None and whole_windows(ast.unparse(node.value), start, stop, step,
                                                                      low, high)

    def ragged_slice(self, node: ast.Subscript) -> Val:
        """`x[lo:hi]` per outer element as a row padded to the widest, with the mask of the real entries.

        The bounds follow Python's slice rules for a step of 1 (a negative bound counts from the end,
        both are clipped to [0, len(x)], hi <= lo is empty). Padding reads one extra 0 appended to the
        array, after the real entries, so a sum adds its terms in the loop's order and then zeros.
        Bounds must be ints, as slicing requires; read as float64 they hold whole numbers and the cast
        is exact.
        """
        array = self.as_array(node.value)
        padded = self.hoisted.get(f"\0padded:{array}")
        if padded is None:
            padded = self.fresh(f"{array}_padded")
            self.hoists.append((padded, f"np.concatenate(({array}, np.zeros(1, dtype={array}.dtype)))"))
            self.hoisted[f"\0padded:{array}"] = padded
        size = f"{array}.shape[0]"
        vals = []
        for bound, default in ((node.slice.lower, "0"), (node.slice.upper, size)):
            val = self.expr(bound) if bound is not None else Val(default, 0)
            if val.row or val.mask is not None or val.depth > 1:
                raise NotApplicable(f"line {node.lineno}: slice bound `{ast.unparse(bound)}` is not one number per element")
            vals.append(val)
        lo, hi, width, steps, mask = (self.fresh("slice_lo"), self.fresh("slice_hi"), self.fresh("slice_width"),
                                      self.fresh("slice_steps"), self.fresh("slice_mask"))
        for name, val in ((lo, vals[0]), (hi, vals[1])):
            raw = self.fresh(f"{name}_raw")
            self.lines.append(f"{raw} = np.broadcast_arrays(np.asarray({vals[0].src}), np.asarray({vals[1].src}))"
                              f"[{0 if name == lo else 1}].astype(np.int64)")
            self.lines.append(f"{name} = np.where({raw} < 0, np.maximum({raw} + {size}, 0), "
                              f"np.minimum({raw}, {size}))")
        self.lines += [f"{width} = int(np.maximum({hi} - {lo}, 0).max(initial=1))",
                       f"{steps} = {lo}[:, None] + np.arange({width})",
                       f"{mask} = {steps} < {hi}[:, None]"]
        self.notes.append(f"slice `{ast.unparse(node)}` with bounds that move along the loop: rows padded to the "
                          "widest with a 0 after the real entries, masked out of sums and lengths")
        return Val(f"{padded}[np.where({mask}, {steps}, {size})]", 1, row=True, mask=mask)

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
        low = shift(node.slice.lower, var)
        high = shift(node.slice.upper, var)
        if low is None or high is None:
            raise NotApplicable(f"line {node.lineno}: slice `{ast.unparse(node.slice)}` is not `{var} + a:{var} + b`")
        width = high if low == "0" else f"{self.atom(high)} - {self.atom(low)}"
        first = start if low == "0" else low if start == "0" else f"{self.atom(start)} + {self.atom(low)}"
        last = stop if low == "0" else f"{self.atom(stop)} + {self.atom(low)}"
        step_text = "" if step == "1" else f":{step}"
        first_text = "" if first == "0" else first
        array = self.as_array(node.value)
        # No window at all (an array shorter than one): no view, which would raise, but no rows.
        return (f"(np.lib.stride_tricks.sliding_window_view({array}, {width})[{first_text}:{last}{step_text}] "
                f"if len(range({first}, {last}, {step})) else np.empty((0, {width}), dtype={array}.dtype))")

