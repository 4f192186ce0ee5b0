"""Conditional work in a loop (a mixin of ``Translator``): if/elif/else, `if cond: continue` guards, masked sums.

Each is computed for every element and masked afterwards: an if/elif/else's assignments and appends
become `np.where` of both sides, a guard's mask keeps the elements that get past it (sums add 0 and
products multiply by 1 for the others), and an `if cond:` block made only of sums adds its terms
where `cond` holds.

Computing for every element reads values the loop did not read: `values[j]` under `if 0 <= j < n:` is
evaluated where `j` is out of range too. So an index read under conditions (`conditions`, a stack of
the tests above the value, and the inner axis's mask) is `np.where(cond, j, 0)`: where the conditions
hold the loop's own index is read, and raises where Python raised; elsewhere index 0, whose value the
mask discards.
"""
from __future__ import annotations

import ast
from contextlib import contextmanager

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import Val


class ConditionRules:
    """if/elif/else merged into np.where, guards and masked sums (the Translator's state)."""

    @contextmanager
    def under(self, test: Val | str | None, holds: bool = True):
        """Translate the enclosed values as read only where `test` holds (or, `holds=False`, where it does not).

        A test that does not vary along the loop adds nothing. One that does is kept in the shape of the depth
        it was translated at, and named (`cond_1 = ...`) only when an index reads under it.
        """
        if test is None or (isinstance(test, Val) and test.depth == 0):
            yield
            return
        src = test.src if isinstance(test, Val) else test
        self.conditions.append(Val(src if holds else f"np.logical_not({src})", self.depth))
        try:
            yield
        finally:
            self.conditions.pop()

    def truth(self, node: ast.AST) -> Val:
        """A filter or test as a boolean array: `if v` on numbers is `v != 0` (NaN true), as Python reads it;
        a comparison, `and`/`or` or `not` is one already. A mask of numbers would index instead of select."""
        val = self.expr(node)
        if val.row:
            raise NotApplicable(f"line {node.lineno}: the filter `{ast.unparse(node)}` tests a whole row (a list is "
                                "true when not empty), not a number")
        if val.depth == 0 or isinstance(node, (ast.Compare, ast.BoolOp)) \
                or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
            return val
        # A row per element (`for p in rows ... if p`) is true when not empty: refused where it runs, not flattened.
        name = self.fresh("truth")
        self.lines += [f"{name} = np.asarray({val.src}).astype(bool)",
                       f"if {name}.ndim > {self.depth}: raise TypeError('perfloop: a filter tests a whole row per "
                       "element, not a number')"]
        return Val(name, val.depth)

    def guarded_index(self, index: Val) -> Val:
        """`index` read only where the conditions above it hold: elsewhere 0 (see the module's docstring)."""
        if index.depth == 0 or self.depth == 0:
            return index
        # A test of an inner axis does not hold the outer values read at depth 1 (a reduction of the outer row).
        parts = []
        for k, cond in enumerate(self.conditions):
            if cond.depth <= self.depth:
                if not cond.src.isidentifier():
                    self.conditions[k] = cond = Val(self.named(cond.src), cond.depth)
                parts.append(Val(self.render(cond), cond.depth))
        if self.depth == 2 and self.mask is not None:
            parts.append(Val(self.mask, 2))
        if not parts:
            return index
        cond = self.combine("np.logical_and", parts)
        return Val(f"np.where({self.named(cond.src)}, {index.src}, 0)", max(index.depth, cond.depth))

    def named(self, src: str) -> str:
        """A name bound to `src` once in the loop's lines (the same name for the same text)."""
        if src.isidentifier():
            return src
        if src not in self.condition_names:
            self.condition_names[src] = self.fresh("cond")
            self.lines.append(f"{self.condition_names[src]} = {src}")
        return self.condition_names[src]

    def boolop(self, node: ast.BoolOp) -> Val:
        """`a and b` / `a or b` as np.logical_and/or; each operand is read only where the ones before it let
        Python go on (all true for `and`, all false for `or`)."""
        func = "np.logical_and" if isinstance(node.op, ast.And) else "np.logical_or"
        settled = self.settled_first(node)
        if settled is not None:
            return settled
        parts = [self.expr(node.values[0])]
        for value in node.values[1:]:
            with self.under(self.combine(func, parts), isinstance(node.op, ast.And)):
                parts.append(self.expr(value))
        if all(p.depth == 0 for p in parts) and self.invariant(node):
            return Val(ast.unparse(node), 0)
        return self.combine(func, parts)

    def settled_first(self, node: ast.BoolOp) -> Val | None:
        """`clip is not None and (x > clip or x < -clip)`: a first operand the loop does not change decides, once,
        whether Python reads the rest, which may raise without it (`x > None`). So the rest is computed only where
        the first lets Python go on, as a conditional: `(<rest> if <first> else <all false>)` for `and`, `(<all
        true> if <first> else <rest>)` for `or`, the all-false or all-true row shaped as a value of the loop.

        None where the first operand varies, where the whole test does not, outside the outer loop, or where the
        rest needs statements or hoists of its own (they would run whatever the first operand says)."""
        first = node.values[0]
        if self.depth != 1 or not self.invariant(first) or self.invariant(node):
            return None
        shape = next((v.src for v in self.env.values() if v.depth == 1 and not v.row and v.mask is None
                      and v.record is None and v.src.isidentifier()), None)
        if shape is None or any(isinstance(n, (ast.Call, ast.NamedExpr, ast.Await)) for n in ast.walk(first)):
            return None  # a call may give another value on every pass (a draw)
        rest = node.values[1] if len(node.values) == 2 else ast.BoolOp(op=node.op, values=node.values[1:])
        # What translating the rest may add, kept to be put back where it is refused (names it cached included).
        saved = (len(self.lines), list(self.hoists), dict(self.hoisted), dict(self.condition_names),
                 list(self.conditions))
        value = self.expr(rest)
        added = self.hoists[len(saved[1]):]
        if len(self.lines) != saved[0] or self.hoists[:len(saved[1])] != saved[1] \
                or not all(src.startswith("np.asarray(") for _, src in added) or value.depth != 1:
            del self.lines[saved[0]:]
            self.hoists[:], self.hoisted, self.condition_names, self.conditions[:] = saved[1:]
            return None
        # All false (true) along the loop's axis only: a value of the loop may be a row per element.
        test, flat = f"({ast.unparse(first)})", f"np.{{}}(np.shape({shape})[:1], dtype=bool)"
        if isinstance(node.op, ast.And):
            return Val(f"(np.asarray({value.src}, dtype=bool) if {test} else {flat.format('zeros')})", 1)
        return Val(f"({flat.format('ones')} if {test} else np.asarray({value.src}, dtype=bool))", 1)

    def ifexp(self, node: ast.IfExp) -> Val:
        """`a if cond else b` as np.where, each side read only where it is chosen."""
        test = self.expr(node.test)
        with self.under(test):
            body = self.expr(node.body)
        with self.under(test, holds=False):
            orelse = self.expr(node.orelse)
        return Val(f"np.where({test.src}, {body.src}, {orelse.src})", max(test.depth, body.depth, orelse.depth))

    def branches(self, stmt: ast.If, lists: set[str]) -> dict[str, Val]:
        """Merge if/elif/else assignments (and appends) into np.where values."""
        test = self.expr(stmt.test)
        saved_env = dict(self.env)
        results = []
        for block, holds in ((stmt.body, True), (stmt.orelse, False)):
            # A branch assigns no arrays (its values are merged below); its lines only name the tests it reads under.
            self.env = dict(saved_env)
            with self.under(test, holds):
                results.append(self.branch_values(block, lists))
        self.env = saved_env
        return self.merged(stmt, test, results)

    def branch_values(self, block: list[ast.stmt], lists: set[str]) -> dict[str, Val]:
        """What one side of an if/elif/else assigns and appends (an `elif` is a nested if/else)."""
        if len(block) == 1 and isinstance(block[0], ast.If):
            return self.branches(block[0], lists)
        values: dict[str, Val] = {}
        for sub in block:
            appended: dict[str, Val] = {}
            if self.append_stmt(sub, lists, appended):
                values.update({f"\0{k}": v for k, v in appended.items()})
            elif isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.targets[0], ast.Name):
                val = self.expr(sub.value)
                values[sub.targets[0].id] = val
                self.env[sub.targets[0].id] = val
            elif not isinstance(sub, ast.Pass):
                raise NotApplicable(f"line {sub.lineno}: only assignments and appends are vectorised "
                                    "inside if/elif/else")
        return values

    def merged(self, stmt: ast.If, test: Val, results: list[dict[str, Val]]) -> dict[str, Val]:
        """Each name either side sets, as np.where of the two sides (a side that does not set it keeps its value)."""
        if any(val.record for values in results for val in values.values()):
            raise NotApplicable(f"line {stmt.lineno}: a tuple or list per element is made inside an if/elif/else")
        merged = {}
        for name in dict.fromkeys([*results[0], *results[1]]):
            sides = []
            for values in results:
                if name in values:
                    sides.append(values[name])
                elif name in self.env:
                    sides.append(self.env[name])
                elif not name.startswith("\0") and name in self.carried:
                    # A name one branch sets for its own use (`rms` before `out.append(v / rms)`): a later read in
                    # the pass is a carried dependency, a read after the loop a leak, and both are refused there.
                    break
                else:
                    raise NotApplicable(f"line {stmt.lineno}: `{name.lstrip(chr(0))}` is not set on every branch "
                                        "of the if/elif/else")
            if len(sides) < 2:
                continue
            merged[name] = Val(f"np.where({test.src}, {sides[0].src}, {sides[1].src})",
                               max(test.depth, sides[0].depth, sides[1].depth, 1))
        return merged

    def guard(self, stmt: ast.If, keep: str | None) -> str:
        """Name the mask of the elements that get past `stmt` (and every guard before it)."""
        skip = self.expr(stmt.test)
        if skip.depth != self.depth:
            raise NotApplicable(f"line {stmt.lineno}: the guard `if {ast.unparse(stmt.test)}: continue` does not "
                                "vary along its loop")
        mask = self.fresh("keep")
        passed = f"np.logical_not({skip.src})"
        self.lines.append(f"{mask} = {passed if keep is None else f'np.logical_and({keep}, {passed})'}")
        self.guards += 1
        return mask

    def break_guard(self, stmt: ast.If) -> str:
        """Name the mask of the elements before the first where `if test: break`, first in the pass, holds: the
        passes the loop ran (the test is computed for the elements after it too, quietly)."""
        stop = self.expr(stmt.test)
        if stop.depth != self.depth:
            raise NotApplicable(f"line {stmt.lineno}: the test of `if {ast.unparse(stmt.test)}: break` does not "
                                "vary along its loop")
        mask = self.fresh("before_break")
        self.lines.append(f"{mask} = np.logical_and.accumulate(np.logical_not({stop.src}), axis=-1)")
        self.guards += 1
        return mask

    def guarded(self, hit: tuple[str, str, Val], keep: str, stmt: ast.stmt) -> tuple[str, Val]:
        """A reduction's term with the guarded-out elements made neutral: 0 for a sum, 1 for a product (a last value
        set under a test is set only where the guards let the pass on too)."""
        acc, kind, term = hit
        if kind == "last":
            self.last_tests[acc] = f"np.logical_and({keep}, {self.last_tests[acc]})"
            return kind, term
        if kind not in ("sum", "prod"):
            raise NotApplicable(f"line {stmt.lineno}: `{acc}` takes a {kind} after a `continue` guard (only sums, "
                                "counts and products are masked)")
        if term.depth > self.depth:
            raise NotApplicable(f"the term added to `{acc}` varies along an inner loop")
        # A constant term (a count: `n += 1`) is broadcast along the loop by the mask.
        return kind, Val(f"np.where({keep}, {term.src}, {0 if kind == 'sum' else 1})", self.depth)

    def masked_reductions(self, stmt: ast.stmt, accs: set[str]) -> list[tuple[str, str, Val]] | None:
        """The reductions of `stmt`: one, or those of an `if cond: ... elif ...: ... else: ...` made only of sums
        and counts (nested too), each masked by the tests above it (an `else` side by the test not holding); None
        when `stmt` is not that."""
        pair = self.best_pair(stmt, accs)  # `if v > best: best, at = v, j` (bests.py)
        if pair is not None:
            return pair
        hit = self.reduction(stmt, accs)
        if hit is not None:
            return [hit]
        if not (isinstance(stmt, ast.If) and _sums_only(stmt, accs)):
            return None
        found = []
        test = self.expr(stmt.test)
        for block, holds in ((stmt.body, True), (stmt.orelse, False)):
            with self.under(test, holds):
                for sub in block:
                    hits = [] if isinstance(sub, ast.Pass) else self.masked_reductions(sub, accs)
                    if hits is None or any(kind != "sum" for _, kind, _ in hits):
                        return None
                    side = test.src if holds else f"np.logical_not({test.src})"
                    found += [(acc, kind, Val(f"np.where({side}, {term.src}, 0)", max(test.depth, term.depth)))
                              for acc, kind, term in hits]
        return found


    def last_value(self, stmt: ast.stmt, accs: set[str]) -> tuple[str, str, Val] | None:
        """("acc", "last", value) for `if test: acc = value` where neither side reads `acc`: after the loop `acc` holds
        the value of the last pass whose test held, or its start where none did (`if snr > floor: noise = mean`);
        None where `stmt` is not that."""
        if not (isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1
                and isinstance(stmt.body[0], ast.Assign) and len(stmt.body[0].targets) == 1
                and isinstance(stmt.body[0].targets[0], ast.Name) and stmt.body[0].targets[0].id in accs):
            return None
        acc, value = stmt.body[0].targets[0].id, stmt.body[0].value
        if any(isinstance(n, ast.Name) and n.id == acc for n in (*ast.walk(stmt.test), *ast.walk(value))):
            return None
        test = self.truth(stmt.test)
        if test.depth != self.depth:
            raise NotApplicable(f"line {stmt.lineno}: `{acc}` is set under a test that does not vary along the loop")
        with self.under(test):
            term = self.expr(value)
        if term.row:
            raise NotApplicable(f"line {stmt.lineno}: `{acc}` keeps a whole row per element")
        self.last_tests[acc] = test.src
        return acc, "last", term

    def reduce_last(self, acc: str, term: Val, init: ast.AST | None, mask: str | None) -> None:
        """Emit `acc`: the term of the last element whose test held (a Python number, as the loop left it), else the
        start value, evaluated as the loop's start line was."""
        if self.depth != 0 or mask is not None or init is None:
            raise NotApplicable(f"`{acc}` keeps the last value set under a test in an inner loop or a ragged range")
        hits, start = self.fresh(f"{acc}_set_at"), self.fresh(f"{acc}_start")
        self.lines += [f"{start} = {ast.unparse(init)}", f"{hits} = np.flatnonzero({self.last_tests[acc]})"]
        value = term.src if term.depth == 0 else f"np.asarray({term.src})[{hits}[-1]].item()"
        target = self.target_name(acc)
        self.lines.append(f"{target} = {value} if {hits}.size else {start}")
        self.env[acc] = Val(target, 0)
        self.quiet = True  # the value was computed for every element, where the test fails too


def _sums_only(stmt: ast.If, accs: set[str]) -> bool:
    """Whether every statement under the `if`, on either side and in nested ifs, is `acc <op>= ...` of a reduction's
    name or `pass` (read before anything is translated, so that nothing is emitted for an `if` that is not that)."""
    for sub in stmt.body + stmt.orelse:
        if isinstance(sub, ast.If):
            if not _sums_only(sub, accs):
                return False
        elif not (isinstance(sub, ast.Pass)
                  or (isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name) and sub.target.id in accs)):
            return False
    return True
