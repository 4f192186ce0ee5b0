"""Translate loop bodies: assignments, if/elif/else, appends, reductions and inner loops.

Statements are emitted in order as straight-line numpy code; see `loops.py` for the
axis convention and for expressions.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loop_rows import RowsAndColumns
from perfloop.tools.change.codemods.loop_windows import InnerLoops
from perfloop.tools.change.codemods.loops import (
    ExpressionTranslator,
    Val,
    dotted,
    is_inf,
    is_number_literal,
    names_stored,
)


class Translator(RowsAndColumns, InnerLoops, ExpressionTranslator):
    """Translate one top-level loop (or comprehension) of a function."""

    # statements -------------------------------------------------------------------
    def statements(self, stmts: list[ast.stmt], lists: set[str], appended: dict[str, Val]) -> None:
        """Translate a loop body at the current depth, emitting numpy statements in order."""
        for stmt in stmts:
            if isinstance(stmt, ast.Pass):
                continue
            if self._append(stmt, lists, appended):
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                self.init_nodes[name] = stmt.value
                if is_number_literal(stmt.value) or is_inf(stmt.value):
                    # A start value (acc = 0.0): inlined where read, never an array.
                    self.env[name] = Val(ast.unparse(stmt.value), 0)
                    self.carried.discard(name)
                else:
                    self.assign(name, self.expr(stmt.value))
                continue
            if isinstance(stmt, ast.If):
                for name, val in self.branches(stmt, lists).items():
                    if name.startswith("\0"):
                        appended[name[1:]] = val
                    else:
                        self.assign(name, val)
                continue
            if isinstance(stmt, ast.For) and self.depth == 1 and not stmt.orelse:
                self.inner_loop(stmt)
                continue
            raise NotApplicable(f"line {stmt.lineno}: statement `{ast.unparse(stmt).splitlines()[0]}` is not "
                                "an assignment, an append or an if/elif/else of them")

    def assign(self, name: str, val: Val) -> None:
        if self.depth == 2 and val.depth < 2:
            raise NotApplicable(f"`{name}` is set inside the inner loop but does not vary along it")
        target = self.target_name(name)
        self.lines.append(f"{target} = {val.src}")
        self.env[name] = Val(target, val.depth)
        self.carried.discard(name)

    def target_name(self, name: str) -> str:
        """Keep `name` for its first array; a second one gets a fresh name, since earlier values may read the first."""
        if name in self.written:
            return self.fresh(name)
        self.written.add(name)
        return name

    def _append(self, stmt: ast.stmt, lists: set[str], appended: dict[str, Val]) -> bool:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
                and isinstance(call.func.value, ast.Name) and call.func.value.id in lists):
            return False
        name = call.func.value.id
        if self.depth != 1 or len(call.args) != 1 or name in appended:
            raise NotApplicable(f"line {stmt.lineno}: `{name}` is appended more than once per element or "
                                "inside an inner loop")
        appended[name] = self.expr(call.args[0])
        return True

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
                if self._append(sub, lists, appended):
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
        merged = {}
        for name in dict.fromkeys([*results[0], *results[1]]):
            sides = []
            for values in results:
                if name in values:
                    sides.append(values[name])
                elif name in self.env:
                    sides.append(self.env[name])
                else:
                    raise NotApplicable(f"line {stmt.lineno}: `{name.lstrip(chr(0))}` is not set on every branch "
                                        "of the if/elif/else")
            merged[name] = Val(f"np.where({test.src}, {sides[0].src}, {sides[1].src})",
                               max(test.depth, sides[0].depth, sides[1].depth, 1))
        return merged

    # reductions -------------------------------------------------------------------
    def reduction(self, stmt: ast.stmt, accs: set[str]) -> tuple[str, str, Val] | None:
        """Recognise `acc += t`, `acc = acc + t`, `acc *= t`, `acc = max(acc, t)`, `if t > acc: acc = t`."""
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id in accs:
            ops = {ast.Add: "sum", ast.Sub: "sum", ast.Mult: "prod"}
            if type(stmt.op) not in ops:
                return None
            term = self.expr(stmt.value)
            if isinstance(stmt.op, ast.Sub):
                term = Val(f"-{self.atom(term.src)}", term.depth)
            return stmt.target.id, ops[type(stmt.op)], term
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id in accs:
            acc, value = stmt.targets[0].id, stmt.value
            if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Mult)):
                kind = "sum" if isinstance(value.op, ast.Add) else "prod"
                for mine, other in ((value.left, value.right), (value.right, value.left)):
                    if isinstance(mine, ast.Name) and mine.id == acc:
                        return acc, kind, self.expr(other)
            if isinstance(value, ast.Call) and dotted(value.func) in ("max", "min") and len(value.args) == 2:
                for mine, other in ((value.args[0], value.args[1]), (value.args[1], value.args[0])):
                    if isinstance(mine, ast.Name) and mine.id == acc:
                        return acc, dotted(value.func), self.expr(other)
        if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1 \
                and isinstance(stmt.body[0], ast.Assign) and isinstance(stmt.test, ast.Compare) \
                and len(stmt.test.ops) == 1 and isinstance(stmt.body[0].targets[0], ast.Name):
            acc = stmt.body[0].targets[0].id
            left, right, op = stmt.test.left, stmt.test.comparators[0], stmt.test.ops[0]
            new = ast.dump(stmt.body[0].value)
            if acc in accs and isinstance(op, (ast.Gt, ast.Lt)):
                if isinstance(right, ast.Name) and right.id == acc and ast.dump(left) == new:
                    return acc, "max" if isinstance(op, ast.Gt) else "min", self.expr(left)
                if isinstance(left, ast.Name) and left.id == acc and ast.dump(right) == new:
                    return acc, "min" if isinstance(op, ast.Gt) else "max", self.expr(right)
        return None

    def reduce(self, acc: str, kind: str, term: Val, init: ast.AST | None, init_val: Val | None) -> None:
        """Emit the statement that replaces a loop's accumulation into `acc` (at depth self.depth)."""
        if term.depth != self.depth + 1:
            raise NotApplicable(f"the term added to `{acc}` does not vary along the loop")
        last = "[-1]" if self.depth == 0 else "[:, -1]"
        where = f"`{acc}`"
        if kind in ("sum", "prod"):
            unit = 0 if kind == "sum" else 1
            if init is None or not is_number_literal(init) or ast.literal_eval(init) != unit:
                raise NotApplicable(f"{where} starts at {ast.unparse(init) if init else 'a computed value'}; "
                                    f"only {'sums from 0' if unit == 0 else 'products from 1'} keep the loop's "
                                    "order of operations")
            is_float = isinstance(ast.literal_eval(init), float)
            dtype = ", dtype=np.float64" if is_float else ""
            if kind == "sum" and not self.exact:
                self.inexact.append(f"the sum into {where} is reordered (pairwise)")
                expr = f"{self.atom(term.src)}.sum(axis=-1{dtype})"
            else:
                func = "np.cumsum" if kind == "sum" else "np.cumprod"
                # cumsum adds left to right like the loop, so the last column is bit-identical.
                expr = f"{func}({term.src}, axis=-1{dtype}){last}"
            if self.depth == 0:
                terms = self.fresh(f"{acc}_terms")
                self.lines.append(f"{terms} = {term.src}")
                expr = expr.replace(term.src, terms, 1)
                expr = f"{expr} if {terms}.shape[-1] else {ast.unparse(init)}"
        else:
            func = "np.max" if kind == "max" else "np.min"
            if init is not None and is_inf(init):
                expr = f"{func}({term.src}, axis=-1, initial={ast.unparse(init)})"
            elif init_val is not None:
                pair = "np.maximum" if kind == "max" else "np.minimum"
                expr = f"{pair}({init_val.src}, {func}({term.src}, axis=-1))"
            else:
                raise NotApplicable(f"{where} has no starting value the vectoriser can read")
        target = self.target_name(acc)
        self.lines.append(f"{target} = {expr}")
        self.env[acc] = Val(target, self.depth)

    def inner_loop(self, loop: ast.For) -> None:
        """Translate a reduction loop nested in the outer loop: its values live on the last axis."""
        stored = names_stored(loop.body) | names_stored([loop.target])
        accs = {name for name in stored if name in self.env}
        saved = {name: self.env.pop(name) for name in accs}
        self.carried |= stored
        self.depth = 2
        self.bind_inner(loop.target, loop.iter)
        found: dict[str, tuple[str, Val]] = {}
        for stmt in loop.body:
            hit = self.reduction(stmt, accs)
            if hit:
                if hit[0] in found:
                    raise NotApplicable(f"line {stmt.lineno}: `{hit[0]}` is updated twice per element")
                found[hit[0]] = hit[1:]
            else:
                self.statements([stmt], set(), {})
        for name in stored - set(found):
            self.env.pop(name, None)
            self.dead.add(name)
        self.depth = 1
        missing = accs - set(found)
        if missing:
            raise NotApplicable(f"line {loop.lineno}: loop-carried dependency on `{sorted(missing)[0]}`")
        for acc, (kind, term) in found.items():
            self.reduce(acc, kind, term, self.init_nodes.get(acc), saved[acc])
        self.carried -= stored
