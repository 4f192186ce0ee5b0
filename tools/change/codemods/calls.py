"""The calls the translator knows on loop values (a mixin of ``Translator``): math, abs, float, int, min/max.

Reductions and sorts of a row (`sum`, `sorted`, ... of a generator or row) are ``AxisRules.row_call``;
everything else is refused with the call's name.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.axes import ROW_CALLS
from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.draws import array_draw, is_draw
from perfloop.tools.change.codemods.loop_checks import BISECT_CALLS
from perfloop.tools.change.codemods.loops import EXACT_MATH, INEXACT_MATH, INT_MATH, Val, dotted


class CallRules:
    """``call``: a call on loop values as numpy (the Translator's names, hoists and notes are its state)."""

    def keyed_call(self, node: ast.Call) -> Val:
        """Positions of a row ordered by its values: argmax, argmin and argsort as Python writes them.

        `max(range(len(row)), key=lambda j: row[j])` (or `key=row.__getitem__`) is the first position
        of the largest value, as `np.argmax`; `min` likewise; `sorted(range(len(row)), key=...,
        reverse=...)` is a stable argsort (descending: of the negated values, which keeps equal values
        in their order as `reverse=True` does). A key `-row[j]` reverses the order. Rows holding NaN
        differ (Python's comparisons put NaN where they happen to), and the rewrite's notes say so.
        """
        name = dotted(node.func)
        where = f"line {node.lineno}"
        keywords = {k.arg: k.value for k in node.keywords}
        if name not in ("max", "min", "sorted") or len(node.args) != 1 or "key" not in keywords \
                or set(keywords) - {"key", "reverse"} or (name != "sorted" and "reverse" in keywords):
            raise NotApplicable(f"{where}: `{ast.unparse(node)}` has keyword arguments the vectoriser does not know")
        row_node, negate, count = self._keyed_row(node.args[0], keywords["key"])
        if row_node is None:
            raise NotApplicable(f"{where}: `{ast.unparse(node)}` orders by a key other than the values of the row "
                                "it ranges over (`range(len(row))` with `key=lambda j: row[j]`)")
        row = self.row_of(row_node) if self.depth == 1 else None
        if row is None or row.mask is not None:
            raise NotApplicable(f"{where}: `{ast.unparse(node)}` ranks `{ast.unparse(row_node)}`, which is not a "
                                "row of the loop's values")
        reverse = keywords.get("reverse")
        if reverse is not None and not (isinstance(reverse, ast.Constant) and isinstance(reverse.value, bool)):
            raise NotApplicable(f"{where}: `reverse={ast.unparse(reverse)}` is not True or False")
        descending = negate != bool(reverse is not None and reverse.value)
        self.notes.append(f"`{ast.unparse(node)}` → np.arg{'sort' if name == 'sorted' else name}: the first of equal "
                          "values first, as Python; a row holding NaN is ordered differently")
        values = self.atom(row.src)
        if count is not None:
            # range(n) over the first n positions (n past the row's end made row[j] raise).
            values = f"{values}[:, :{self.atom(count)}]"
        if name == "sorted":
            key = f"-{values}" if descending else values
            return Val(f"np.argsort({key}, axis=-1, kind='stable')", 1, row=True)
        pick = {("max", False): "argmax", ("max", True): "argmin", ("min", False): "argmin",
                ("min", True): "argmax"}[(name, negate)]
        return Val(f"np.{pick}({values}, axis=-1)", 1)

    def _keyed_row(self, positions: ast.AST, key: ast.AST) -> tuple[ast.AST | None, bool, str | None]:
        """The row that `range(len(row))` (or `range(n)`, n fixed) with this key ranks, whether the key
        negates it, and n (None: the whole row)."""
        if not (isinstance(positions, ast.Call) and dotted(positions.func) == "range" and len(positions.args) == 1
                and not positions.keywords):
            return None, False, None
        bound = positions.args[0]
        whole = isinstance(bound, ast.Call) and dotted(bound.func) == "len" and len(bound.args) == 1
        if not whole and not self.invariant(bound):
            return None, False, None
        if isinstance(key, ast.Attribute) and key.attr == "__getitem__":
            row_node, negate = key.value, False
        elif isinstance(key, ast.Lambda) and len(key.args.args) == 1 and not key.args.vararg \
                and not key.args.kwarg and not key.args.kwonlyargs and not key.args.defaults:
            var, body, negate = key.args.args[0].arg, key.body, False
            if isinstance(body, ast.UnaryOp) and isinstance(body.op, ast.USub):
                body, negate = body.operand, True
            if not (isinstance(body, ast.Subscript) and isinstance(body.slice, ast.Name) and body.slice.id == var):
                return None, False, None
            row_node = body.value
        else:
            return None, False, None
        if whole and ast.dump(bound.args[0]) != ast.dump(row_node):
            return None, False, None
        return row_node, negate, None if whole else ast.unparse(bound)

    def row_index(self, node: ast.Call) -> Val | None:
        """`row.index(v)`: the first position holding v (Python raised ValueError where there is none;
        the rewrite gives 0 there). None when the receiver is not a row of the loop's values."""
        receiver = node.func.value
        row = self._whole_rows(receiver)
        if row is None:
            return None
        value = self.expr(node.args[0])
        if value.depth > 1 or value.row:
            raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` looks up something other than one "
                                "number per element")
        self.notes.append(f"`{ast.unparse(node)}` → np.argmax(row == v): the first position of v, as list.index; "
                          "where v is missing list.index raised and the rewrite gives 0")
        return Val(f"np.argmax({self.atom(row.src)} == {self._per_row(value)}, axis=-1)", 1)

    def _per_row(self, value: Val) -> str:
        """A number per element, broadcast along its row (a constant as it is)."""
        return f"{self.atom(value.src)}[:, None]" if value.depth == 1 else value.src

    def _whole_rows(self, node: ast.AST) -> Val | None:
        """`node` as rows of numbers (one per element) that `index`/`in` search, else None.

        A loop element read from a list of lists is a row only if the list was one: the rewrite
        checks that its array is 2-D (a list of strings, where `in` means a substring, is not), so
        a rewrite on values of another shape raises on the captured calls instead of computing
        something else.
        """
        if self.depth != 1 or (isinstance(node, ast.Name) and node.id not in self.env):
            return None
        row = self.row_of(node)
        if row is None or row.mask is not None:
            return None
        if not row.row:
            self.lines.append(f"if np.ndim({row.src}) != 2 or {row.src}.dtype.kind not in 'biuf':\n"
                              f"    raise TypeError('perfloop: {ast.unparse(node)} is not a row of numbers per element')")
        return row

    def array_draw(self, node: ast.Call) -> Val:
        """The loop's one draw per element, as one array draw of the loop's length (the same numbers in order)."""
        if self.depth != 1 or self.mask is not None:
            raise NotApplicable(f"line {node.lineno}: a draw inside an inner axis or under a mask is not vectorised")
        if self.drawn is None:
            line, self.drawn = array_draw(node, self.draw_axis, self.fresh("draws"))
            self.lines.append(line)
            self.notes.append(f"`{ast.unparse(node)}` once per element → one array draw of the loop's length: numpy "
                              "fills it with the same numbers in the same order (replay compares both versions from "
                              "the same random state)")
        return self.drawn

    def list_count(self, node: ast.Call) -> Val | None:
        """`items.count(v)`: how many entries equal v, for a list the loop does not change searched for each
        element's value (`[basket.count(s) for s in catalogue]`), or each element's row searched for one value.
        list.count also counts the very object v (a NaN counts itself); numbers and strings compare by value
        in both. None when it is neither form."""
        receiver, value = node.func.value, self.expr(node.args[0])
        if self.depth != 1 or value.row or value.depth > 1:
            return None
        if self.invariant(receiver) and value.depth == 1:
            items = self.as_array(receiver)
            self.lines.append(f"if np.ndim({items}) != 1 or {items}.dtype.kind not in 'biufU':\n"
                              f"    raise TypeError('perfloop: {ast.unparse(receiver)} is not a list of numbers or "
                              "strings')")
            self.notes.append(f"`{ast.unparse(node)}` → a count of equal entries (a NaN is not equal to itself: "
                              "list.count counted the same NaN object)")
            return Val(f"np.count_nonzero({items}[None, :] == {self.atom(value.src)}[:, None], axis=-1)", 1)
        row = self._whole_rows(receiver) if value.depth == 0 else None
        if row is None:
            return None
        return Val(f"np.count_nonzero({self.atom(row.src)} == {value.src}, axis=-1)", 1)

    def binary_search(self, node: ast.Call, name: str) -> Val:
        """`bisect.bisect_left(edges, v)` per element, `edges` a list the loop does not change: np.searchsorted.

        Both search the same way only in a sorted table of numbers without NaN (elsewhere bisect's answer
        depends on where its halving happens to look), so the rewrite checks the table where it runs and
        raises rather than compute something else. A NaN searched for goes first in bisect_left (no entry is
        below it) and last in bisect_right, where searchsorted puts it last in both: the left search gives 0
        there, as bisect did.
        """
        table, value = node.args
        where = f"line {node.lineno}"
        found = self.expr(value)
        if found.depth == 0 and self.invariant(node):
            return Val(ast.unparse(node), 0)
        if not self.invariant(table):
            raise NotApplicable(f"{where}: `{ast.unparse(node)}` searches `{ast.unparse(table)}`, which the loop "
                                "binds or changes; only a list fixed for the whole loop is searched as an array")
        if found.row or found.mask is not None or (found.depth > 1 and self.depth == 1):
            raise NotApplicable(f"{where}: `{ast.unparse(node)}` searches for something other than one number "
                                "per element")
        items = self.as_array(table)
        self.lines.append(f"if np.ndim({items}) != 1 or {items}.dtype.kind not in 'biuf' or "
                          f"bool(np.any({items}[1:] < {items}[:-1])) or bool(np.any({items} != {items})):\n"
                          f"    raise TypeError('perfloop: {ast.unparse(table)} is not a sorted list of numbers "
                          "without NaN')")
        left = name == "bisect.bisect_left"
        self.notes.append(f"`{ast.unparse(node)}` → np.searchsorted(side='{'left' if left else 'right'}'): the same "
                          "position in a sorted list of numbers (checked where it runs); numbers past 2**53 are "
                          "compared as float64")
        search = f"np.searchsorted({items}, {found.src}, side='{'left' if left else 'right'}')"
        if left:
            search = f"np.where({self.atom(found.src)} != {self.atom(found.src)}, 0, {search})"
        return Val(search, found.depth)

    def row_contains(self, node: ast.Compare) -> Val | None:
        """`v in row` / `v not in row` for a row of the loop's values: any equal entry (None: not that form)."""
        if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.In, ast.NotIn)) or self.depth != 1:
            return None
        row = self._whole_rows(node.comparators[0])
        if row is None:
            return None
        value = self.expr(node.left)
        if value.depth > 1 or value.row:
            return None
        found = f"np.any({self.atom(row.src)} == {self._per_row(value)}, axis=-1)"
        return Val(found if isinstance(node.ops[0], ast.In) else f"np.logical_not({found})", 1)

    def int_math(self, node: ast.Call, fname: str, src: str, depth: int) -> Val:
        """`math.floor/ceil/trunc(x)` → `np.floor/ceil/trunc(x).astype(np.int64)`: the same int for every finite
        float (each is exact in float64); ints pass through float64."""
        if self.float_ctx and src in self.hoisted.values():
            raise NotApplicable(f"line {node.lineno}: math.{fname}() of values read as float64 (the loop computes "
                                "in floats) would round integers beyond 2**53")
        self.notes.append(f"math.{fname}() → np.{INT_MATH[fname]}(...).astype(np.int64): the same int for finite "
                          f"floats; where math.{fname}() raised (nan, inf) or gave an int beyond int64 the array "
                          "cast does not, and integers beyond 2**53 pass through float64")
        return Val(f"np.{INT_MATH[fname]}({src}).astype(np.int64)", depth)

    def call(self, node: ast.Call) -> Val:
        name = dotted(node.func)
        if self.draw is not None and (node.lineno, node.col_offset) == self.draw and is_draw(node):
            return self.array_draw(node)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "index" and len(node.args) == 1:
            found = self.row_index(node)
            if found is not None:
                return found
        if isinstance(node.func, ast.Attribute) and node.func.attr == "count" and len(node.args) == 1:
            found = self.list_count(node)
            if found is not None:
                return found
        if name in BISECT_CALLS and len(node.args) == 2:
            return self.binary_search(node, name)
        if len(node.args) == 1 and name in ROW_CALLS:
            reduced = self.record_call(node, name) or self.row_call(node, name)
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
            if fname in INT_MATH and len(args) == 1:
                return self.int_math(node, fname, srcs[0], depth)
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
        if name == "round" and len(args) == 1:
            # round(x) of a float is the nearest int, ties to even: np.rint, then int64 (round(x, n) rounds the
            # decimal digits Python prints, which np.round does not: refused below).
            self.notes.append("round() → np.rint(...).astype(np.int64): nearest, ties to even, like round(); where "
                              "round() raised (nan, inf) or gave an int beyond int64 the array cast does not, and "
                              "integers beyond 2**53 pass through float64")
            return Val(f"np.rint({srcs[0]}).astype(np.int64)", depth)
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
