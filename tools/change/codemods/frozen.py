"""Classes of the target whose objects nothing changes once `__init__` returns: a memo may key such an object by
its state, read once per object.

A pure function is often handed an object that only holds lookup state: `parse_transcript(raw, vocab)` with a
vocabulary whose `__init__` builds `itos` and `stoi` and whose one method reads them. Keyed by `_memo_key`, the
object had no key, so every call was computed (blind18 g2). A class is frozen here where, by reading the target's
files:
- it is a module-level class with no base class (or `object`), no decorator, no class-level values other than
  constants, and no `__setattr__`, `__setstate__` or `__slots__`; no class of the target derives from it;
- its `__init__` binds each field (`self.x = ...`) either to a container made there (a display, a comprehension,
  `list(...)`, `dict(...)`, `sorted(...)`, ...: a "made" field) or to anything else (a "given" field, keyed by its
  value at run time, which must then be a value nothing can change: str, numbers, tuples of them);
- its other methods never bind or delete a field, never call a changing method on one (`append`, `update`, ...),
  never write into one, and mention a made field only to read it (a subscript, `in`, a reading method such as
  `.get`, `len()`, a loop): a method that hands the container itself out (`return self.itos`) is refused, since its
  caller could change it;
- outside the class, the target's files mention a made field's name only to read it.
The memo then keys such an object by its class and the contents of its fields (`memo_runtime._memo_state_key`;
a made field must hold only values nothing can change, since `list(rows)` copies the outer list only),
computed once per object and kept with a reference to it, so a later object at the same address is not mistaken
for it.
"""
from __future__ import annotations

import ast
from pathlib import Path

from perfloop.tools.change.codemods.hot_function import python_files
from perfloop.tools.change.codemods.kept_arguments import CHANGING_METHODS
from perfloop.tools.change.codemods.lookup_index import only_reads

MADE_BUILDERS = frozenset({"list", "dict", "set", "tuple", "frozenset", "sorted", "Counter", "OrderedDict", "deque"})
"""Calls that make a new container (not `defaultdict`: reading a missing key adds it)."""


def frozen_in_target(root: Path, sources: dict[str, tuple[str, ast.Module]]) -> dict:
    """`frozen_classes` over all the target's files (those in `sources`, file -> (text, parse), as parsed there)."""
    modules = {}
    for file in python_files(root):
        try:
            modules[file] = sources[file][1] if file in sources else ast.parse((Path(root) / file).read_text())
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
    return frozen_classes(modules)


def frozen_classes(modules: dict[str, ast.Module], reading=only_reads
                   ) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """qualname -> (given fields, method names) of each frozen class in `modules` (file -> parse);
    `reading(node, parent, parents)`: whether a mention only reads (lookup_index's `only_reads`)."""
    classes = [(file, node) for file, tree in modules.items() for node in tree.body if isinstance(node, ast.ClassDef)]
    derived = {base.id if isinstance(base, ast.Name) else base.attr for tree in modules.values()
               for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for base in c.bases
               if isinstance(base, (ast.Name, ast.Attribute))}
    found = {}
    for file, cls in classes:
        fields = _fields(cls) if cls.name not in derived else None
        if fields is None:
            continue
        made, given = fields
        if _methods_only_read(cls, made, given, reading) and _read_elsewhere_only(cls, made, modules, reading):
            methods = tuple(sorted(n.name for n in cls.body if isinstance(n, ast.FunctionDef)))
            found[cls.name] = (tuple(sorted(given)), methods)
    return found


def _fields(cls: ast.ClassDef) -> tuple[set[str], set[str]] | None:
    """(made fields, given fields) of a class that may be frozen, or None."""
    if cls.decorator_list or any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases) \
            or cls.keywords:
        return None
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef):
            if stmt.name in ("__setattr__", "__delattr__", "__setstate__", "__set_name__"):
                return None
        elif isinstance(stmt, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id == "__slots__" for t in stmt.targets) \
                    or not isinstance(stmt.value, ast.Constant):
                return None
        elif not (isinstance(stmt, (ast.Pass, ast.AnnAssign)) or (isinstance(stmt, ast.Expr)
                                                                   and isinstance(stmt.value, ast.Constant))):
            return None
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        return None
    made, given = set(), set()
    for node in ast.walk(init):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if _self_field(target):
                    is_made = isinstance(node, ast.Assign) and len(node.targets) == 1 and _made(node.value)
                    (made if is_made and target.attr not in given else given).add(target.attr)
                    if not is_made:
                        made.discard(target.attr)
    return made, given


def _self_field(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _made(value: ast.expr) -> bool:
    """A new container: a display, a comprehension, a builder's call, or `+`/`*` on anything (`list(a) + list(b)`,
    `[0] * n`: a new object, or a number)."""
    if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Mult)):
        return True
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in MADE_BUILDERS


def _methods_only_read(cls: ast.ClassDef, made: set[str], given: set[str], reading) -> bool:
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef) or method.name == "__init__":
            continue
        parents = {id(child): node for node in ast.walk(method) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(method):
            if isinstance(node, ast.Name) and node.id in ("setattr", "delattr", "vars", "__dict__"):
                return False
            if not _self_field(node):
                continue
            if not isinstance(node.ctx, ast.Load) or node.attr == "__dict__":
                return False
            if node.attr in made and not reading(node, parents.get(id(node)), parents):
                return False
            parent = parents.get(id(node))
            if node.attr in given and isinstance(parent, ast.Attribute) and parent.attr in CHANGING_METHODS:
                return False
    return True


def _read_elsewhere_only(cls: ast.ClassDef, made: set[str], modules: dict[str, ast.Module], reading) -> bool:
    """Whether every mention of a made field's name outside the class only reads it; `self.<name>` in another
    class's methods is that class's own field (no class derives from this one), and left out."""
    inside = {id(n) for n in ast.walk(cls)}
    for tree in modules.values():
        for other in ast.walk(tree):
            if isinstance(other, ast.ClassDef) and other is not cls:
                inside |= {id(n) for n in ast.walk(other) if _self_field(n)}
        parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in made and id(node) not in inside \
                    and not reading(node, parents.get(id(node)), parents):
                return False
    return True
