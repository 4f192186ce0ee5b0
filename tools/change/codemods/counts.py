"""Counts into a list made before a loop (a mixin of ``Translator``): `hist[v] += 1` as one `np.add.at`.

Histograms, confusion matrices and co-occurrence counts written as `counts[i] += w` into a list of
zeros become, after the loop's other statements, one `np.add.at` on an array copy of the list and
the list again. `np.add.at` adds element by element in C order, which is the loop's order (the
nested loops' order for an update inside an inner loop), so float sums are the loop's bit for bit.

Below, the loop as the checks read it: its counts and the `.tolist()` it iterates read, not written.
"""
from __future__ import annotations

import ast
import copy

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.eager_iterables import eager_call
from perfloop.tools.change.codemods.loop_checks import is_random_call
from perfloop.tools.change.codemods.loops import Val, dotted, names_loaded, names_stored, without_guards, zeros_array


class CountRules:
    """``scatter`` records one update, ``scatter_lines`` emits them (the Translator's names and lines are its state)."""

    def scatter(self, stmt: ast.stmt, keep: str | None) -> bool:
        """`counts[v] += w` or `cm[t][p] += w` into a list made before the loop: one np.add.at after it.

        np.add.at adds element by element in the loop's order, so float sums are the loop's bit for
        bit; negative indices wrap and out-of-range ones raise IndexError, as the list did. Returns
        False when `stmt` is not such an update.
        """
        if not (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add)
                and isinstance(stmt.target, ast.Subscript)):
            return False
        indices, node = [], stmt.target
        while isinstance(node, ast.Subscript):
            indices[:0] = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            node = node.value
        if not (isinstance(node, ast.Name) and node.id in self.scatter_names):
            return False
        where = f"line {stmt.lineno}"
        if self.scatter_names[node.id] != ARRAY and any(isinstance(n, ast.Tuple) for n in ast.walk(stmt.target)):
            raise NotApplicable(f"{where}: `{ast.unparse(stmt.target)}` indexes a list by a tuple")
        if self.depth not in (1, 2):
            raise NotApplicable(f"{where}: `{node.id}` is counted into inside a loop nested twice")
        vals = [self.expr(index) for index in indices]
        if not any(val.depth == self.depth for val in vals) and not (self.depth == 2 and any(v.depth for v in vals)):
            raise NotApplicable(f"{where}: `{ast.unparse(stmt.target)}` is the same slot for every element")
        if self.depth == 2:
            # Counted into inside an inner loop (a histogram over every pixel of every row): the index and
            # term arrays are 2-D, added in C order, which is the nested loops' order; a ragged inner range's
            # padding and any guard are left out by their mask.
            masks = [m for m in (self.mask, keep) if m]
            keep = masks[0] if len(masks) == 1 else f"np.logical_and({masks[0]}, {masks[1]})" if masks else None
            if keep is None:
                keep = self.fresh("slots")
                self.lines.append(f"{keep} = np.ones(np.broadcast_shapes("
                                  + ", ".join(f"np.shape({v.src})" for v in vals if v.depth) + "), dtype=bool)")
        term = self.expr(stmt.value)
        if self.scatter_names[node.id] == "np.int64" and not (isinstance(stmt.value, ast.Constant)
                                                             and type(stmt.value.value) is int):
            raise NotApplicable(f"{where}: `{node.id}` holds ints and `{ast.unparse(stmt.value)}` may not be one "
                                "(only counts by an integer constant are vectorised into an int list)")
        self.scatters.setdefault(node.id, []).append((vals, term, keep))
        return True

    def counted_if(self, stmt: ast.stmt, keep: str | None) -> bool:
        """`if cond: counts[i] += w` (counts alone in its body, no `else`): each count taken where `cond` holds, by
        the mask a guard `if not cond: continue` would leave, while the statements after it still see every
        element. Returns False when `stmt` is not such an `if`."""
        if not (isinstance(stmt, ast.If) and not stmt.orelse and counted_block(stmt, self.scatter_names)):
            return False
        skip = ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=stmt.test), stmt.test)
        with self.under(keep):  # the test is read only where the guards above it let the pass on
            held = self.guard(ast.copy_location(ast.If(test=skip, body=[ast.Continue()], orelse=[]), stmt), keep)
        for count in stmt.body:
            with self.under(held):
                self.scatter(count, held)
        return True

    def scatter_lines(self) -> None:
        """Emit each counted list's np.add.at, in the loop's order, and the list it becomes."""
        for name, updates in self.scatters.items():
            in_place = self.scatter_names[name] == ARRAY
            acc = name if in_place else self.fresh(f"{name}_arr")
            if not in_place:
                self.lines.append(f"{acc} = np.array({name}, dtype={self.scatter_names[name]})")
            if len(updates) > 1:
                self.interleaved(acc, updates, in_place)
            for vals, term, keep in updates if len(updates) == 1 else []:
                def part(val: Val) -> str:
                    src = self.atom(val.src)
                    if val.depth == 0 or keep is None:
                        return src
                    return f"np.broadcast_to({src}, np.shape({keep}))[{keep}]"
                index = ", ".join(f"{part(v)}.astype(np.int64)" if v.depth else part(v) for v in vals)
                first = next(part(v) for v in vals if v.depth)
                added = part(term)
                if in_place:
                    added = self.in_array_terms(acc, added)
                # No element, no update: an empty list counted into by an empty loop stays as it was.
                self.lines.append(f"if len({first}):\n    np.add.at({acc}, ({index},), {added})")
            if not in_place:
                self.lines.append(f"{name} = {acc}.tolist()")

    def interleaved(self, acc: str, updates: list, in_place: bool) -> None:
        """Several updates per pass into one list (`grid[lo] += a; grid[lo + 1] += b`): one np.add.at of them
        stacked pass by pass, so the adds come in the loop's order (update after update within a pass), as float
        sums need; an update a guard or its `if` leaves out is masked where it was not made."""
        if len({len(vals) for vals, _, _ in updates}) > 1:
            raise NotApplicable(f"`{acc}` is counted into with different numbers of subscripts")
        passes, kept = self.fresh("passes"), self.fresh("made")
        width = len(updates[0][0]) + 2  # per update: its subscripts, its term, where it was made
        parts = [src for vals, term, keep in updates for src in [*(self.atom(v.src) for v in vals), self.atom(term.src),
                                                                  keep or "True"]]
        self.lines.append(f"{passes} = np.broadcast_arrays({', '.join(parts)})")  # each part computed once

        def stacked(at: int) -> str:
            return f"np.stack([{', '.join(f'{passes}[{u * width + at}]' for u in range(len(updates)))}], axis=-1)"
        self.lines.append(f"{kept} = {stacked(width - 1)}")
        index = ", ".join(f"{stacked(p)}[{kept}].astype(np.int64)" for p in range(width - 2))
        added = f"{stacked(width - 2)}[{kept}]"
        if in_place:
            added = self.in_array_terms(acc, added)
        self.lines.append(f"if np.any({kept}):\n    np.add.at({acc}, ({index},), {added})")

    def in_array_terms(self, array: str, terms: str) -> str:
        """The terms added into an array in place, in the dtype the loop's `array[i] += v` computes in: an element
        of the array plus a Python number of the term's kind (float32 under numpy 2's rules, float64 under the older
        value-based ones), so each add rounds as the loop's did."""
        held = self.fresh("terms")
        self.lines.append(f"{held} = np.asarray({terms})")
        self.notes.append(f"`{array}[...] += v` → np.add.at({array}, ...) in place, each term cast to the type an "
                          "element plus a Python number gives, so the adds round as the loop's; an index out of range "
                          "raises IndexError as the loop did, with other updates made before it")
        return f"{held}.astype(type({array}.dtype.type(0) + {held}.dtype.type(0).item()))"


# the loop as the checks read it ----------------------------------------------------------------

ARRAY = "array"
"""``count_list``'s answer for a numpy array of zeros: counted into in place, in its own dtype."""

def count_list(value: ast.AST) -> str | None:
    """The numpy dtype of a list of zeros made to count into (`[0] * k`, `[0.0] * k`, `[[0] * k for _ in
    range(m)]`, or written as comprehensions: `[0 for _ in range(k)]`, `[[0 for _ in range(k)] for _ in
    range(m)]`), ``ARRAY`` for a numpy array of zeros (`np.zeros(shape, dtype=...)`, `np.zeros_like(x)`, not of
    bools), else None."""
    if zeros_array(value):
        return ARRAY
    if isinstance(value, ast.ListComp) and len(value.generators) == 1 and not value.generators[0].ifs \
            and isinstance(value.generators[0].iter, ast.Call) and dotted(value.generators[0].iter.func) == "range" \
            and not names_loaded(value.elt) & names_stored([value.generators[0].target]):
        value = value.elt
        if isinstance(value, ast.Constant) and value.value == 0 and type(value.value) in (int, float):
            return "np.int64" if type(value.value) is int else "np.float64"
        if isinstance(value, ast.ListComp):
            return count_list(value)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult) and isinstance(value.left, ast.List) \
            and len(value.left.elts) == 1 and isinstance(value.left.elts[0], ast.Constant):
        zero = value.left.elts[0].value
        if zero == 0 and type(zero) in (int, float):
            return "np.int64" if type(zero) is int else "np.float64"
    return None


def counts_into(stmt: ast.stmt, scattered: dict[str, str]) -> bool:
    """`name[...] += w` (at any depth of subscripts) into one of the lists counted into."""
    node = stmt.target if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) else None
    while isinstance(node, ast.Subscript):
        node = node.value
    return isinstance(node, ast.Name) and node.id in scattered


def counted_block(stmt: ast.If, scattered) -> bool:
    """Whether every statement of the `if`'s body counts into one of the lists counted into."""
    return all(counts_into(s, scattered) for s in stmt.body)


def as_checked(loop: ast.For, scattered: set[str]) -> ast.For:
    """The loop as refuse_effects reads it: guards without their `continue`, counts into a list made
    before the loop without their write (their index and value are still read)."""
    checked = without_guards(loop)
    checked.iter = listed_once(checked.iter)
    counted = dict.fromkeys(scattered, "")

    def read_only(stmt: ast.stmt) -> ast.stmt:
        if counts_into(stmt, counted):
            reads = [stmt.value]
            node = stmt.target
            while isinstance(node, ast.Subscript):
                reads.append(node.slice)
                node = node.value
            return ast.copy_location(ast.Expr(value=ast.Tuple(elts=reads, ctx=ast.Load())), stmt)
        if isinstance(stmt, ast.For) or (isinstance(stmt, ast.If) and not stmt.orelse
                                         and counted_block(stmt, counted)):
            # an inner loop counting into the list (a histogram of every row's values), or counts under an `if`
            stmt = copy.copy(stmt)
            stmt.body = [read_only(s) for s in stmt.body]
        return stmt

    checked.body = [read_only(stmt) for stmt in checked.body]
    return checked


def without_counts(body: list[ast.stmt], scattered) -> list[ast.stmt]:
    """The statements with every count into a scattered list left out, in inner loops too."""
    kept = []
    for stmt in body:
        if counts_into(stmt, scattered):
            continue
        if isinstance(stmt, ast.If) and not stmt.orelse and counted_block(stmt, scattered):
            stmt = ast.copy_location(ast.Expr(value=stmt.test), stmt)  # its test is still read
        if isinstance(stmt, ast.For):
            stmt = copy.copy(stmt)
            stmt.body = without_counts(stmt.body, scattered) or [ast.Pass()]
        kept.append(stmt)
    return kept


def listed_once(iterable: ast.AST) -> ast.AST:
    """The loop's iterable as the effects check reads it: a `<expr>.tolist()` (or such a list zipped or
    enumerated) is evaluated once before the first pass, in the loop as in the rewrite, which hoists
    `np.asarray(<expr>.tolist())`; so the calls that make the tensor or array there (`p.grad.flatten()`,
    `x.detach().cpu()`) are let through, random draws are not."""
    def listed(node: ast.AST) -> ast.AST:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "tolist" \
                and not node.args and not node.keywords:
            for sub in ast.walk(node.func.value):
                if isinstance(sub, ast.Call) and is_random_call(dotted(sub.func)):
                    return node  # the check refuses it with its usual words
            return ast.copy_location(ast.Call(func=ast.Attribute(value=ast.Name(id="_listed", ctx=ast.Load()),
                                                                 attr="tolist", ctx=ast.Load()),
                                              args=[], keywords=[]), node)
        return node

    if eager_call(iterable) and not any(isinstance(sub, ast.Call) and is_random_call(dotted(sub.func))
                                        for sub in ast.walk(iterable)):
        return ast.copy_location(ast.Name(id="_listed", ctx=ast.Load()), iterable)  # eager_iterables
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id in ("zip",
                                                                                                      "enumerate"):
        return ast.copy_location(ast.Call(func=iterable.func, args=[listed(a) for a in iterable.args],
                                          keywords=iterable.keywords), iterable)
    return listed(iterable)


def counts_under_tail_ifs(body: list[ast.stmt], k: int) -> list[ast.stmt] | None:
    """The loop `body[k]` with a count under an `if` that ends a pass said as guards, or None where nothing changes.

    `if v: yy = y - shift[x]; if 0 <= yy < h: profile[yy] += 1`, the last statement of a pass (of the loop or
    of a `for` nested in it), is `if not v: continue`, `yy = ...`, `if not 0 <= yy < h: continue`,
    `profile[yy] += 1`: nothing follows it in the pass, so skipping the rest of the pass is skipping its body,
    and each test is evaluated once, where it was. The translator reads guards (`continue` leaves the element
    out of every count after it, by its mask) where it refuses a write inside an `if` block. Taken only where
    the block counts into a list made before the loop to count into (`count_list`) and holds no loop, `continue`,
    `break`, `return`, `with` or `try` of its own.
    """
    loop = body[k]
    if not isinstance(loop, ast.For) or loop.orelse:
        return None
    lists = {target.id: "" for stmt in body[:k] if isinstance(stmt, ast.Assign) and count_list(stmt.value)
             for target in stmt.targets if isinstance(target, ast.Name)}
    new = _tail_ifs_as_guards(loop, lists) if lists else loop
    return None if new is loop else [*body[:k], new, *body[k + 1:]]


def _tail_ifs_as_guards(loop: ast.For, lists: dict[str, str]) -> ast.For:
    body, changed = list(loop.body), False
    for j, stmt in enumerate(body):
        if isinstance(stmt, ast.For) and not stmt.orelse:
            inner = _tail_ifs_as_guards(stmt, lists)
            changed |= inner is not stmt
            body[j] = inner
    while body and _counts_in_tail_if(body[-1], lists):
        last = body.pop()
        skip = ast.copy_location(ast.Continue(), last)
        body.append(ast.copy_location(ast.If(test=ast.UnaryOp(op=ast.Not(), operand=last.test), body=[skip],
                                             orelse=[]), last))
        body.extend(last.body)
        changed = True
    if not changed:
        return loop
    new = copy.copy(loop)
    new.body = body
    return ast.fix_missing_locations(new)


def _counts_in_tail_if(stmt: ast.stmt, lists: dict[str, str]) -> bool:
    if not isinstance(stmt, ast.If) or stmt.orelse:
        return False
    inside = [node for s in stmt.body for node in ast.walk(s)]
    if any(isinstance(node, (ast.For, ast.While, ast.Continue, ast.Break, ast.Return, ast.With, ast.Try, ast.Yield,
                             ast.YieldFrom)) for node in inside):
        return False
    return any(isinstance(node, ast.AugAssign) and counts_into(node, lists) for node in inside)
