"""The record types a module defines whose construction only stores its arguments, for the purity reader.

`Reading = namedtuple("Reading", ["t", "values"])` and then `return Reading(t, values)`: calling the type builds a
tuple of what it was given, as `tuple(...)` would, so a parser that returns one computes from its arguments alone
(blind22 p4's feed-line parser was refused with "calls Snapshot(), which perfloop cannot read").
``record_constructors`` names them, for ``memoize._Purity``:

- a module-level `X = namedtuple(...)` (`collections.namedtuple`, under any import name) or `X =
  NamedTuple("X", [...])` (`typing.NamedTuple`);
- a module-level `class X(NamedTuple)` with no `__new__` or `__init__` of its own;
- a module-level `@dataclass` class (`dataclasses.dataclass`, called or not) with no `__init__`, `__post_init__`,
  `__new__` or `__setattr__` of its own, whose `field(default_factory=...)` factories are only `list`, `dict`, `set` or `tuple`.

A name bound twice at module level, or defined in a class with a base other than these, is not one.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.imports import full_name, import_paths
from perfloop.tools.change.codemods.loops import dotted

_FACTORIES = frozenset({"list", "dict", "set", "tuple"})


def record_constructors(tree: ast.Module, paths: dict[str, str] | None = None) -> frozenset[str]:
    """The names of `tree`'s record types whose call only stores its arguments (see the module's docstring);
    `paths`: `imports.import_paths([tree])`, where the caller has it."""
    paths = import_paths([tree]) if paths is None else paths

    def origin(node: ast.AST) -> str:
        return full_name(dotted(node), paths)

    bound: dict[str, int] = {}
    found: set[str] = set()
    for node in tree.body:
        names = [t.id for t in node.targets if isinstance(t, ast.Name)] if isinstance(node, ast.Assign) else \
            [node.name] if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) else []
        for name in names:
            bound[name] = bound.get(name, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call) \
                and origin(node.value.func) in ("collections.namedtuple", "typing.NamedTuple"):
            found.add(node.targets[0].id)
        elif isinstance(node, ast.ClassDef) and _plain_record(node, origin):
            found.add(node.name)
    return frozenset(name for name in found if bound.get(name) == 1)


def _plain_record(cls: ast.ClassDef, origin) -> bool:
    """Whether constructing `cls` only stores its fields: a NamedTuple subclass or a dataclass, without its own
    constructor code."""
    own = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if own & {"__new__", "__init__", "__post_init__", "__setattr__"} or cls.keywords:
        return False
    bases = [origin(b) for b in cls.bases]
    if bases == ["typing.NamedTuple"]:
        return True
    decorators = [origin(d.func if isinstance(d, ast.Call) else d) for d in cls.decorator_list]
    if bases or decorators != ["dataclasses.dataclass"]:
        return False
    for stmt in cls.body:
        value = stmt.value if isinstance(stmt, ast.AnnAssign) else None
        if isinstance(value, ast.Call) and origin(value.func) == "dataclasses.field":
            factory = next((k.value for k in value.keywords if k.arg == "default_factory"), None)
            if factory is not None and not (isinstance(factory, ast.Name) and factory.id in _FACTORIES):
                return False
    return True
