"""Which statements of a dataset's `__getitem__` may run earlier, and which names only alias its state.

`cache_samples` caches the part of a sample that cannot differ between accesses; where a random
draw comes first, later work that does not read it may still be cached, moved before the draw, when
`can_move_before` shows the move changes nothing either side sees (see its docstring). Conservative by
construction: a value handed to a call perfloop does not know, or bound to another name, counts as
possibly changed, and objects are told apart by the names they were computed from.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Callable

from perfloop.tools.change.codemods.loops import dotted


def stored(statements: list[ast.stmt]) -> list[str]:
    """Names the statements bind, in order (with repeats)."""
    return [n.id for s in statements for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


# Builtins that read their arguments without changing them (what they return may hold the argument's items:
# `_sharing` counts a name bound to it as computed from the argument).
READS_ONLY = frozenset({"int", "float", "bool", "len", "abs", "round", "min", "max", "str", "repr", "isinstance",
                         "range", "divmod", "pow", "hash", "type", "sum", "sorted", "any", "all", "list", "tuple",
                         "set", "frozenset", "dict", "zip", "enumerate", "reversed"})
# Functions of these modules read their arguments without changing them, except those named in WRITES_INTO and
# any call given `out=` (torch's in-place methods end in `_`: also refused).
READING_MODULES = ("np.", "numpy.", "torch.", "math.", "F.", "json.", "statistics.", "re.", "struct.")
WRITES_INTO = re.compile(r"(^|\.)(copyto|put|place|putmask|fill_diagonal|at|shuffle|put_along_axis|\w+_)$")
# Attributes and methods that describe a value or return a new one that shares nothing with it.
FRESH_ATTRS = frozenset({"shape", "dtype", "ndim", "device", "size", "numel", "dim", "copy", "clone", "tolist",
                          "item", "sum", "mean", "std", "var", "prod", "argmin", "argmax", "count", "index",
                          "split", "strip", "lower", "upper", "startswith", "endswith", "encode", "decode",
                          "format"})


def can_move_before(stmt: ast.stmt, skipped: list[ast.stmt], body: list[ast.stmt], index: str) -> bool:
    """Whether `stmt` may run before the `skipped` statements of `body` (which came before it) with the same
    effect on both: it reads no name they bind and binds no name they read or bind, and no object either side
    may change or hand on (`_changed_or_handed_on`: a call that gets `self.images[i]` may flip it in place,
    `view = x[:4]` shares x) may be one the other side uses. Objects are told apart by the names and `self`
    attributes they were computed from (`_sharing`: a name bound in a statement may hold objects of every name
    and attribute that statement reads), so a view bound earlier counts as its base."""
    def names(nodes, kind):
        return {n.id for s in nodes for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, kind)}

    scoped = [comprehension_names_apart(s, k) for k, s in enumerate(body)]
    stmt, skipped, body = scoped[body.index(stmt)], [scoped[body.index(s)] for s in skipped], scoped
    bound_before = names(skipped, ast.Store)
    if names([stmt], ast.Load) & bound_before or names([stmt], ast.Store) & (bound_before | names(skipped, ast.Load)):
        return False
    group = _sharing(body, index)

    def objects(nodes, uses) -> set[str]:
        return {root for node in nodes for name in uses(node) for root in group(name)}

    mentioned = lambda node: _values(node, group)  # noqa: E731
    changed = lambda node: _changed_or_handed_on(node, group)  # noqa: E731
    return not (objects(skipped, changed) & objects([stmt], mentioned)
                or objects([stmt], changed) & objects(skipped, mentioned))


def comprehension_names_apart(stmt: ast.stmt, tag: int) -> ast.stmt:
    """A copy of `stmt` in which each comprehension's own names are its alone (`t` becomes `t@<tag>.<n>`): `[ids.count(t)
    for t in ...]` and a later `[... for t, k in zip(ids, keep)]` do not share a `t`."""
    copy = ast.parse(ast.unparse(stmt)).body[0]
    comps = [n for n in ast.walk(copy) if isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp))]
    for number, comp in enumerate(comps):
        own = {n.id for g in comp.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        outer = {id(n) for n in ast.walk(comp.generators[0].iter)}  # evaluated in the enclosing scope
        for n in ast.walk(comp):
            if isinstance(n, ast.Name) and n.id in own and id(n) not in outer:
                n.id = f"{n.id}@{tag}.{number}"
    return copy


def _sharing(body: list[ast.stmt], index: str) -> Callable[[str], frozenset[str] | None]:
    """A function from a local name or `self.attr` to the values it may hold objects of: itself and every local
    name and `self` attribute it was computed from, directly or not, in `__getitem__`'s `body` (a name bound in
    a statement may hold objects of whatever that statement reads: a view, an item, the value itself). Two
    uses may touch one object when these sets meet. Other names (modules, builtins, globals) and the index
    map to None."""
    local = {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local.discard(index)
    sources: dict[str, set[str]] = {}
    for stmt in body:
        read = {name for name in _mentions(stmt) if name in local or name.startswith("self.")}
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in local:
                sources.setdefault(n.id, set()).update(read - {n.id})

    def roots(name: str) -> frozenset[str] | None:
        if name not in local and not name.startswith("self."):
            return None
        seen, todo = {name}, [name]
        while todo:
            for source in sources.get(todo.pop(), ()):
                if source not in seen:
                    seen.add(source)
                    todo.append(source)
        return frozenset(seen)

    return roots


def _mentions(node: ast.AST) -> set[str]:
    """Every name `node` uses, and every `self` attribute as `self.<attr>`."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        f"self.{n.attr}" for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"}


def _values(root: ast.stmt, group) -> set[str]:
    """The local names and `self` attributes `root` mentions (those `group` knows)."""
    return {name for name in _mentions(root) if group(name) is not None}


def _changed_or_handed_on(root: ast.stmt, group) -> set[str]:
    """The local names and `self` attributes `root` uses other than as a plain read: stored or bound to another
    name, handed to a call, a method called on them, an in-place operator. A plain read is an operand, a
    subscript read into arithmetic, a read-only builtin (`len`, `float`, ...), `.shape`, `.copy()`, ..."""
    parents = {child: parent for parent in ast.walk(root) for child in ast.iter_child_nodes(parent)}
    found = set()
    for node in ast.walk(root):
        if isinstance(node, ast.Name) and group(node.id) is not None:
            name = node.id
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
                and group(f"self.{node.attr}") is not None:
            name = f"self.{node.attr}"
        else:
            continue
        if not plain_read(node, parents):
            found.add(name)
    return found


def plain_read(node: ast.AST, parents: dict) -> bool:
    """Whether this use of a name or `self` attribute only reads it (see _changed_or_handed_on)."""
    used = node
    while True:  # x[i], x.attr, x[i][j] are x's data still
        if not isinstance(getattr(used, "ctx", ast.Load()), ast.Load):
            return False
        parent = parents.get(used)
        if isinstance(parent, ast.Attribute) and parent.value is used:
            if parent.attr in FRESH_ATTRS:
                return True  # x.shape, x.copy(), x.tolist(): what follows holds nothing of x
            used = parent
        elif isinstance(parent, ast.Subscript) and parent.value is used:
            used = parent
        elif isinstance(parent, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Starred)):
            used = parent  # (x, y) handed on hands on x
        else:
            break
    parent = parents.get(used)
    if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and parent.value is used:
        return True  # bound to another name: `_sharing` counts it as computed from this, and that name's own uses are judged
    if isinstance(parent, (ast.BinOp, ast.Compare, ast.UnaryOp, ast.BoolOp, ast.FormattedValue, ast.IfExp)):
        return True
    if isinstance(parent, ast.AugAssign):
        return parent.value is used
    if isinstance(parent, ast.Subscript) and parent.slice is used:
        return True
    if isinstance(parent, (ast.comprehension, ast.For)) and parent.iter is used:
        return True  # the loop's names share its items: `_sharing` counts them as computed from it, and their own uses are judged
    if isinstance(parent, ast.keyword):
        parent, keyword = parents.get(parent), parent.arg
        if keyword == "out":
            return False
    if isinstance(parent, ast.Call) and parent.func is not used:
        name = dotted(parent.func)
        if isinstance(parent.func, ast.Name) and name in READS_ONLY:
            return True
        if name.startswith(READING_MODULES) and not WRITES_INTO.search(name) \
                and not any(k.arg == "out" for k in parent.keywords):
            return True
    return False  # handed to another call, bound to a name, a method called on it, stored, ...


def alias_statements(prefix: list[ast.stmt], index: str) -> dict[str, ast.stmt]:
    """`name = self.a[index]`-like statements of the prefix: a name set once to a chain of attributes and
    subscripts of self, the index, constants and earlier such names (the dataset's own objects, not copies)."""
    found: dict[str, ast.stmt] = {}
    counts: dict[str, int] = {}
    for stmt in prefix:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                counts[n.id] = counts.get(n.id, 0) + 1

    def chain(node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in ("self", index) or node.id in found
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Attribute):
            return chain(node.value)
        if isinstance(node, ast.Subscript):
            return chain(node.value) and chain(node.slice)
        return False

    for stmt in prefix:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and counts[stmt.targets[0].id] == 1 and isinstance(stmt.value, (ast.Attribute, ast.Subscript)) \
                and chain(stmt.value):
            found[stmt.targets[0].id] = stmt
    return found
