"""Conditional work in a loop (a mixin of ``Translator``): if/elif/else, `if cond: continue` guards, masked sums.

Each is computed for every element and masked afterwards: an if/elif/else's assignments and appends
become `np.where` of both sides, a guard's mask keeps the elements that get past it (sums add 0 and
products multiply by 1 for the others), and an `if cond:` block made only of sums adds its terms
where `cond` holds.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import Val


class ConditionRules:
    """if/elif/else merged into np.where, guards and masked sums (the Translator's state)."""

    def branches(self, stmt: ast.If, lists: set[str]) -> dict[str, Val]:
        """Merge if/elif/else assignments (and appends) into np.where values."""
        test = self.expr(stmt.test)
        saved_env, saved_lines = dict(self.env), list(self.lines)
        results = []
        for block in (stmt.body, stmt.orelse):
            self.env, self.lines = dict(saved_env), []
            if len(block) == 1 and isinstance(block[0], ast.If):
                results.append(self.branches(block[0], lists))
                continue
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
            results.append(values)
        self.env, self.lines = saved_env, saved_lines
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

    def guarded(self, hit: tuple[str, str, Val], keep: str, stmt: ast.stmt) -> tuple[str, Val]:
        """A reduction's term with the guarded-out elements made neutral: 0 for a sum, 1 for a product."""
        acc, kind, term = hit
        if kind not in ("sum", "prod"):
            raise NotApplicable(f"line {stmt.lineno}: `{acc}` takes a {kind} after a `continue` guard (only sums, "
                                "counts and products are masked)")
        if term.depth > self.depth:
            raise NotApplicable(f"the term added to `{acc}` varies along an inner loop")
        # A constant term (a count: `n += 1`) is broadcast along the loop by the mask.
        return kind, Val(f"np.where({keep}, {term.src}, {0 if kind == 'sum' else 1})", self.depth)

    def masked_reductions(self, stmt: ast.stmt, accs: set[str]) -> list[tuple[str, str, Val]] | None:
        """The reductions of `stmt`: one, or those of an `if cond:` block made only of sums (nested too),
        each masked by the tests above it; None when `stmt` is not that."""
        hit = self.reduction(stmt, accs)
        if hit is not None:
            return [hit]
        if not (isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) > 1):
            return None
        found = []
        for sub in stmt.body:
            hits = self.masked_reductions(sub, accs)
            if hits is None or any(kind != "sum" for _, kind, _ in hits):
                return None
            found += hits
        test = self.expr(stmt.test)
        return [(acc, kind, Val(f"np.where({test.src}, {term.src}, 0)", max(test.depth, term.depth)))
                for acc, kind, term in found]
