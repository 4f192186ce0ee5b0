"""Scans of a fixed table by one key (`[r for r in self.rows if r["customer_id"] == cid and ...]`), walked over the
rows with that key only.

Per-sample code often finds a record's history by scanning every row of a table it was given: a comprehension
or a loop over the rows whose test starts with `row[KEY] == value` (or `row.attr == value`). Each sample then costs
the whole table. `keyed_scan_edits` rewrites the scan's iterable only, `self.rows` becoming
`_rows_where(self.rows, "customer_id", cid)`: a module-level helper that groups the rows by key once per list
(`_KEYED_ROWS`, kept while the list lives and has the same length) and hands back the rows of that key, in the
table's order. The test stays as written, so every row the scan keeps passes it exactly as before, and the rows
the dict leaves out are ones it would have rejected: the grouping is used only where hashes agree with ==
(`lookup_index._plain`: every key and the value exactly a str, int, float, bool, bytes or None, a numpy number or
string scalar, or a tuple of them; a NaN value, a short table, anything else scans the whole table as before).
Building the groups reads every row's key, as the first scan did (a missing key raises there too).

Taken only where:
- the table is one the target makes once and never changes (`lookup_index._refusal`: `self.<attr>` bound once in
  `__init__` to a new list or to a list every caller makes and only reads, or a module-level table);
- the key is a literal (`r["id"]`, `r[0]`) or an attribute (`r.id`) of the scan's own name, the test is the first
  thing the scan evaluates (the comprehension's first `if`, or the first operand of its `and`; the `if`, without an
  `else`, that is a loop's whole body), and the value compared reads no name the scan binds, calls nothing and, in
  a loop, is not set in its body (a generator is taken only as the argument of a builtin that consumes it there,
  `sum(...)`, `any(...)`: one kept for later would read the value when it runs);
- nothing in the target's files writes that key of any row (`x["id"] = ...`, `del x["id"]`, `.pop("id")`,
  `.setdefault("id", ...)`, `x.id = ...`, `setattr(x, "id", ...)`): the groups would go stale. A row changed by
  other means (`row.update(other)`) is not seen here; every batch is still compared by the pipeline's run.
"""
from __future__ import annotations

import ast

KEYED = "_rows_where"
SMALL = 8
"""Tables this short are scanned as before."""
MAX_TABLES = 64
"""Tables grouped at once (each keeps its list alive); past that, new tables are scanned as before."""

KEYED_SOURCE = f'''_KEYED_ROWS = {{}}


def {KEYED}(items, key, value, by_attr=False):
    """The rows of `items` whose `key` (an attribute where `by_attr`) may equal `value`, in order: the rows of that
    key, grouped once per list or tuple (added by perfloop: it is one the target makes once and never changes, and
    the scan's own test still decides each row), or `items` itself where a dict would not answer as == does."""
    if type(items) not in (list, tuple) or len(items) <= {SMALL} or not _plain(value) or value != value:
        return items
    entry = _KEYED_ROWS.get((id(items), key, by_attr))
    if entry is None or entry[0] is not items or entry[1] != len(items):
        if entry is None and len(_KEYED_ROWS) >= {MAX_TABLES}:
            return items
        table = {{}}
        for row in items:
            found = getattr(row, key) if by_attr else row[key]
            if not _plain(found):
                table = None
                break
            table.setdefault(found, []).append(row)
        entry = _KEYED_ROWS[(id(items), key, by_attr)] = (items, len(items), table)
    return items if entry[2] is None else entry[2].get(value, ())
'''

_WRITING_METHODS = frozenset({"pop", "setdefault"})
_CONSUMERS = frozenset({"sum", "any", "all", "list", "tuple", "set", "frozenset", "sorted", "max", "min", "dict"})


def keyed_scans(fn: ast.FunctionDef) -> list[tuple[ast.expr, ast.expr, ast.expr, bool, ast.AST]]:
    """(the table, the key, the value, by attribute, the scan node) of each keyed scan in `fn`."""
    found = []
    # A generator reads its test's names when it runs: taken only where a builtin consumes it on the spot.
    consumed = {id(arg) for call in ast.walk(fn) if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id in _CONSUMERS for arg in call.args}
    for node in ast.walk(fn):
        if isinstance(node, ast.GeneratorExp) and id(node) not in consumed:
            continue
        table = node.generators[0].iter if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) \
            and node.generators else node.iter if isinstance(node, ast.For) else None
        if isinstance(table, ast.Call) and isinstance(table.func, ast.Name) and table.func.id == KEYED:
            continue  # a scan this codemod wrote before
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) and len(node.generators) == 1:
            gen = node.generators[0]
            test = _first_test(gen.ifs[0]) if gen.ifs and not gen.is_async else None
            bound = {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
            hit = _key_test(test, gen.target, bound) if test is not None else None
            if hit is not None:
                found.append((gen.iter, *hit, node))
        elif isinstance(node, ast.For) and not node.orelse and len(node.body) == 1 \
                and isinstance(node.body[0], ast.If) and not node.body[0].orelse:  # an `else` runs for the others
            stored = {n.id for s in node.body for n in ast.walk(s) if isinstance(n, ast.Name)
                      and isinstance(n.ctx, ast.Store)}
            # a name whose attribute or item the body sets (`state.cid = ...`) may change the value compared too
            stored |= {n.id for s in node.body for t in ast.walk(s) if isinstance(t, (ast.Attribute, ast.Subscript))
                       and isinstance(t.ctx, ast.Store) for n in ast.walk(t.value) if isinstance(n, ast.Name)}
            bound = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)} | stored
            hit = _key_test(_first_test(node.body[0].test), node.target, bound)
            if hit is not None:
                found.append((node.iter, *hit, node))
    return found


def _first_test(test: ast.expr) -> ast.expr:
    return test.values[0] if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else test


def _key_test(test: ast.expr, target: ast.AST, bound: set[str]) -> tuple[ast.expr, ast.expr, bool] | None:
    """(key, value, by attribute) of `row[KEY] == value` (either side) on the scan's name `row`, else None."""
    if not (isinstance(target, ast.Name) and isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)):
        return None
    for side, other in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
        key = _row_key(side, target.id)
        if key is None or not _plain_read(other, bound):
            continue
        return key[0], other, key[1]
    return None


def _row_key(node: ast.expr, row: str) -> tuple[ast.expr, bool] | None:
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == row \
            and isinstance(node.slice, ast.Constant) and type(node.slice.value) in (str, int):
        return node.slice, False
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == row:
        return ast.Constant(node.attr), True
    return None


def _plain_read(node: ast.expr, bound: set[str]) -> bool:
    """A value read without a call, from names the scan does not bind (`cid`, `self.user`, `row_in["id"]`)."""
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Call, ast.NamedExpr, ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom,
                            ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            return False
        if isinstance(sub, ast.Name) and sub.id in bound:
            return False
    return True


def key_written(key: ast.Constant, by_attr: bool, modules: dict[str, ast.Module]) -> str | None:
    """Where the target's files may write that key of a row (a store, a `del`, `.pop`/`.setdefault`/`.update` naming
    it, `setattr`), or None."""
    def named(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and type(node.value) is type(key.value) and node.value == key.value

    for file, tree in modules.items():
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            hit = any(isinstance(t, ast.Attribute) and t.attr == key.value if by_attr else
                      isinstance(t, ast.Subscript) and named(t.slice) for t in targets)
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else \
                    node.func.id if isinstance(node.func, ast.Name) else ""
                if by_attr:
                    hit = name == "setattr" and len(node.args) > 1 and named(node.args[1])
                elif name in ("pop", "setdefault"):
                    hit = bool(node.args) and named(node.args[0])
                elif name == "update":
                    hit = any(k.arg == key.value for k in node.keywords) or any(
                        isinstance(a, ast.Dict) and any(named(k) for k in a.keys) for a in node.args)
            if hit:
                return f"{file}:{node.lineno} `{ast.unparse(node)[:60]}` may write the key of a row"
    return None


def keyed_edit(text: str, table: ast.expr, key: ast.expr, value: ast.expr, by_attr: bool) -> tuple:
    """The edit (line, col, end line, end col, new text) writing the scan's table through `_rows_where`."""
    segment = ast.get_source_segment(text, table)
    call = f"{KEYED}({segment}, {ast.unparse(key)}, {ast.get_source_segment(text, value)}" \
           f"{', by_attr=True' if by_attr else ''})"
    return table.lineno, table.col_offset, table.end_lineno, table.end_col_offset, call
