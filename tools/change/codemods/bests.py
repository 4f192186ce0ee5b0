"""A running best and where it was (a mixin of ``Translator``): `if v > best: best, at = v, j` as one argmax.

Matchers, decoders and metrics keep the largest (or smallest) value seen and its position in a loop: `best_j, best =
0, row[0]`, then `for j in range(1, len(row)): if row[j] > best: best_j, best = j, row[j]`. The two names carry
from pass to pass, so the loop was refused as a loop-carried dependency. Read together they are one reduction: the
start value, then the terms in the loop's order; the strict `>` keeps the first of equal values, the start value
before any term (a term equal to it never replaces it), which is `np.argmax` over the start and the terms, the
start first. A NaN never replaces anything in Python (every comparison with it is false), and a NaN start is never
replaced: the terms' NaNs are read as -inf (+inf for `<`) by the argmax, a term chosen is compared with the start
as Python compares it, and where it does not win (equal, smaller, NaN on either side) the start and its position
stay. Taken where the `if` has no `else` and its body sets exactly the two names (one tuple assignment or two
assignments), one of them to the compared term, the other (the position) to an expression with no call and no
subscript, which Python reads only where the test holds.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import Val


class BestRules:
    """``best_pair`` reads the update, ``reduce_best`` writes it (the Translator's names and lines are its state)."""

    best_positions: dict[str, tuple[str, str, str]]  # best -> (won, chosen position, terms) names

    def best_pair(self, stmt: ast.stmt, accs: set[str]) -> list[tuple[str, str, Val]] | None:
        """(best, "best>" or "best<", term) and (position, "at:<best>", index) for `if term > best: best, at = term,
        index` (either side of the comparison, `<` for the least); None where `stmt` is not that."""
        if not (isinstance(stmt, ast.If) and not stmt.orelse and isinstance(stmt.test, ast.Compare)
                and len(stmt.test.ops) == 1 and isinstance(stmt.test.ops[0], (ast.Gt, ast.Lt))):
            return None
        sets = _names_set(stmt.body)
        if sets is None or len(sets) != 2 or not set(sets) <= accs:
            return None
        left, right, op = stmt.test.left, stmt.test.comparators[0], stmt.test.ops[0]
        for best, term, largest in ((right, left, isinstance(op, ast.Gt)), (left, right, isinstance(op, ast.Lt))):
            if not (isinstance(best, ast.Name) and best.id in sets and ast.dump(sets[best.id]) == ast.dump(term)):
                continue
            [(at, index)] = [(name, value) for name, value in sets.items() if name != best.id]
            if any(isinstance(node, (ast.Call, ast.Subscript)) for node in ast.walk(index)) \
                    or at in {n.id for n in ast.walk(term) if isinstance(n, ast.Name)}:
                return None
            return [(best.id, "best>" if largest else "best<", self.expr(term)), (at, f"at:{best.id}", self.expr(index))]
        return None

    def reduce_best(self, acc: str, kind: str, term: Val, start: str, mask: str | None) -> None:
        """Emit the best (the start, or the first term that beats every earlier value) or its position."""
        if mask is not None:
            raise NotApplicable(f"`{acc}` keeps a best over a ragged range")
        if term.depth != self.depth + 1:
            raise NotApplicable(f"the value `{acc}` takes does not vary along the loop")
        start = self.atom(start)

        def picked(values: str, cand: str) -> str:  # each row's entry at its chosen position
            return f"np.take_along_axis({values}, {cand}[..., None], axis=-1)[..., 0]"

        if kind.startswith("at:"):
            if kind[3:] not in self.best_positions:
                raise NotApplicable(f"`{acc}` is the position of `{kind[3:]}`, which is not read as a best")
            won, cand, terms = self.best_positions[kind[3:]]
            chosen = picked(f"np.broadcast_to({term.src}, {terms}.shape)", cand)
        else:
            terms, cand, won = self.fresh(f"{acc}_terms"), self.fresh(f"{acc}_cand"), self.fresh(f"{acc}_won")
            fill, pick = ("-np.inf", "np.argmax") if kind == "best>" else ("np.inf", "np.argmin")
            beats = ">" if kind == "best>" else "<"
            key = f"np.where(np.isnan({terms}), {fill}, {terms}) if {terms}.dtype.kind == 'f' else {terms}"
            self.lines += [f"{terms} = np.asarray({term.src})",
                           f"{cand} = {pick}({key}, axis=-1) if {terms}.shape[-1] else "
                           f"np.zeros({terms}.shape[:-1], dtype=np.int64)",
                           f"{won} = ({picked(terms, cand)} {beats} {start}) "
                           f"if {terms}.shape[-1] else np.zeros({terms}.shape[:-1], dtype=bool)"]
            self.best_positions[acc] = (won, cand, terms)
            chosen = picked(terms, cand)
        if self.depth == 0:
            # Python's own values: the start as the loop left it, or the chosen term as a Python number.
            expr = f"{chosen}.item() if {won} else {start}"
        else:
            # np.where reads both sides: an empty loop chooses nothing, and every row keeps its start.
            expr = f"np.where({won}, {chosen} if {terms}.shape[-1] else {start}, {start})"
        target = self.target_name(acc)
        self.lines.append(f"{target} = {expr}")
        self.env[acc] = Val(target, self.depth)


def _names_set(body: list[ast.stmt]) -> dict[str, ast.AST] | None:
    """{name: value} of a body of assignments to names (`a, b = x, y` or `a = x` `b = y`); None for anything else,
    or where a value reads a name the body sets before it."""
    sets: dict[str, ast.AST] = {}
    for stmt in body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            return None
        target, value = stmt.targets[0], stmt.value
        pairs = list(zip(target.elts, value.elts)) if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) \
            and len(target.elts) == len(value.elts) else [(target, value)]
        for name, val in pairs:
            if not isinstance(name, ast.Name) or name.id in sets \
                    or {n.id for n in ast.walk(val) if isinstance(n, ast.Name)} & set(sets):
                return None
        sets.update((name.id, val) for name, val in pairs)
    return sets
