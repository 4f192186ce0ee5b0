"""`.index(v)` and `v in` on a list a function builds by appends: positions kept beside it (`growing_lists`).

Code that numbers things as it meets them keeps a list and searches it: a neighbour sampler's
`try: s = src_nodes.index(u)` / `except ValueError: src_nodes.append(u)`, a vocabulary grown with
`if w not in seen: seen.append(w)`. Each search scans from the front, so n items cost n * n / 2
comparisons. Where the list is a local name the function binds once (`[]`, a literal, a comprehension,
`list(...)`, `sorted(...)`) and, until its last search, only appends to, reads its length, indexes or
loops over it, `index_lookup_tables` keeps a dict of first positions beside it:

- `_pos_L = _kept_positions(L)` right after the binding;
- `L.append(x)` becomes `_append_kept(L, _pos_L, x)` (the first position of x is recorded, then appended);
- `L.index(v)` becomes `_index_kept(L, _pos_L, v)`, `v in L` `_in_kept(L, _pos_L, v)`.

The first occurrence wins, as `list.index` finds it, and a missing value raises the ValueError the list
gives (`'x' is not in list`). The dict answers only while every item and the value are `_plain` (hashes
that agree with ==); the first other item marks it stale and the list is searched as before from then on.
Refused, naming the mention: a list bound twice or a parameter; a closure that sees it; any other use
(`insert`, `remove`, `sort`, `extend`, `+=`, `del`, an alias, a call that receives it) before its last
search or inside a loop that searches it. Handing it on once the searches are done (`return L`) is fine.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from perfloop.tools.change.codemods.loops import within

POSITIONS = "_pos_{name}"
GROWING_HELPERS = '''

_KEPT_STALE = object()


def _kept_positions(items):
    """First positions of a list a function builds by appends (added by perfloop), marked stale by an item that is
    not `_plain`."""
    table = {}
    for position, item in enumerate(items):
        if not _plain(item):
            table[_KEPT_STALE] = True
            break
        table.setdefault(item, position)
    return table


def _append_kept(items, table, value):
    """`items.append(value)`, its first position recorded (added by perfloop)."""
    if _KEPT_STALE not in table:
        if _plain(value):
            table.setdefault(value, len(items))
        else:
            table[_KEPT_STALE] = True
    items.append(value)


def _index_kept(items, table, value):
    """`items.index(value)` from the kept positions; the same ValueError for a missing value (added by perfloop)."""
    if _KEPT_STALE in table or not _plain(value):
        return items.index(value)
    position = table.get(value)
    if position is None:
        raise ValueError(f"{value!r} is not in list")
    return position


def _in_kept(items, table, value):
    """`value in items` from the kept positions (added by perfloop)."""
    if _KEPT_STALE in table or not _plain(value):
        return value in items
    return value in table
'''

_READS = frozenset({"len"})
_BUILDERS = frozenset({"list", "sorted"})


@dataclass
class Growing:
    """One list a function builds by appends and searches: its binding, appends and searches."""

    name: str
    binding: ast.Assign
    appends: list[ast.Call] = field(default_factory=list)
    searches: list[ast.AST] = field(default_factory=list)


def growing_lists(fn: ast.FunctionDef) -> tuple[list[Growing], list[str]]:
    """The lists of `fn` whose searches can be answered from kept positions, and why others cannot."""
    parents = {child: node for node in ast.walk(fn) for child in ast.iter_child_nodes(node)}
    found, refusals = [], []
    searched = {_searched_name(node) for node in ast.walk(fn)} - {None}
    for name in sorted(searched):
        plan, why = _plan(fn, name, parents)
        if plan is not None:
            found.append(plan)
        elif why:
            refusals.append(f"{name}: {why}")
    return found, refusals


def _searched_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "index" \
            and isinstance(node.func.value, ast.Name) and len(node.args) == 1 and not node.keywords:
        return node.func.value.id
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
            and isinstance(node.comparators[0], ast.Name):
        return node.comparators[0].id
    return None


def _plan(fn: ast.FunctionDef, name: str, parents: dict) -> tuple[Growing | None, str | None]:
    if name in {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}:
        return None, None  # a parameter: the caller's list (index_lookup_tables reads those)
    bindings = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)]
    if len(bindings) != 1 or not isinstance(parents.get(bindings[0]), ast.Assign):
        return None, "bound more than once, or not by a plain assignment"
    binding = parents[bindings[0]]
    if len(binding.targets) != 1 or not _fresh_list(binding.value):
        return None, "not bound to a new list (`[]`, a literal, a comprehension, list(...) or sorted(...))"
    if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and n is not fn
           and any(isinstance(m, ast.Name) and m.id == name for m in ast.walk(n)) for n in ast.walk(fn)):
        return None, "a nested function or lambda sees it"
    plan, others = Growing(name, binding), []
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        use = _use(node, parents)
        if use == "append":
            plan.appends.append(parents[parents[node]])
        elif use == "search":
            plan.searches.append(parents[node] if isinstance(parents[node], ast.Compare) else parents[parents[node]])
        elif use != "read":
            others.append(node)
    if not plan.searches:
        return None, None
    last = max(n.lineno for n in plan.searches + plan.appends)
    loops = [n for n in ast.walk(fn) if isinstance(n, (ast.For, ast.While, ast.AsyncFor))
             and any(within(s, n) for s in plan.searches + plan.appends)]
    for node in others:
        if node.lineno <= last or any(within(node, loop) for loop in loops):
            return None, f"line {node.lineno} `{ast.unparse(parents.get(node, node))}` may change it or hand it on " \
                         "before its searches end"
    return plan, None


def _use(node: ast.Name, parents: dict) -> str:
    parent = parents.get(node)
    if isinstance(parent, ast.Attribute) and isinstance(parents.get(parent), ast.Call) \
            and parents[parent].func is parent:
        call = parents[parent]
        if parent.attr == "append" and len(call.args) == 1 and not call.keywords \
                and isinstance(parents.get(call), ast.Expr):
            return "append"
        if parent.attr == "index" and len(call.args) == 1 and not call.keywords:
            return "search"
        return "other"
    if isinstance(parent, ast.Compare) and len(parent.ops) == 1 and isinstance(parent.ops[0], (ast.In, ast.NotIn)) \
            and parent.comparators[0] is node:
        return "search"
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _READS:
        return "read"
    if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load):
        return "read"
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
        return "read"
    return "other"


def _fresh_list(value: ast.expr) -> bool:
    if isinstance(value, (ast.List, ast.ListComp)):
        return True
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _BUILDERS


def growing_edits(text: str, plans: list[Growing], taken: set[str]) -> list[tuple[int, int, int, int, str]]:
    """Text edits (line, col, end line, end col, new text) that keep positions beside each planned list."""
    edits = []
    for plan in plans:
        positions, k = POSITIONS.format(name=plan.name), 2
        while positions in taken:
            positions, k = f"{POSITIONS.format(name=plan.name)}_{k}", k + 1
        taken.add(positions)
        binding = plan.binding
        indent = " " * binding.col_offset
        edits.append((binding.end_lineno, binding.end_col_offset, binding.end_lineno, binding.end_col_offset,
                      f"\n{indent}{positions} = _kept_positions({plan.name})"))
        for call in plan.appends:
            value = ast.get_source_segment(text, call.args[0])
            edits.append((call.lineno, call.col_offset, call.end_lineno, call.end_col_offset,
                          f"_append_kept({plan.name}, {positions}, {value})"))
        for site in plan.searches:
            if isinstance(site, ast.Call):
                value = ast.get_source_segment(text, site.args[0])
                new = f"_index_kept({plan.name}, {positions}, {value})"
            else:
                value = ast.get_source_segment(text, site.left)
                new = f"_in_kept({plan.name}, {positions}, {value})"
                new = f"(not {new})" if isinstance(site.ops[0], ast.NotIn) else new
            edits.append((site.lineno, site.col_offset, site.end_lineno, site.end_col_offset, new))
    return edits
