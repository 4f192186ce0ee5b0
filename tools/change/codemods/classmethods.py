"""`cls` in a classmethod of the target's own class, read as that class (the sample's code calls it).

`return cls(*chars[:6])` makes an object of the class the method is defined on, as `ServiceStringAdvice(...)` would,
unless a subclass calls the method: then `cls` is the subclass. So it is read as the class only where no class of the
target derives from it (`own_class`); `cls.parse_number(v)` is then that class's static or class method
(`own_static`). `determinism.Determinism` reads both as the sample's code (blind25 v4: a cache was refused at
"calls `cls`, a value perfloop cannot read the code of").
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.loops import dotted


def own_class(fn: ast.FunctionDef | None, cls: ast.ClassDef | None, file: str, modules: dict[str, ast.Module],
              name: str) -> tuple[str, ast.ClassDef] | None:
    """(file, class) where `name` is the first parameter of `fn`, a classmethod of `cls`, and no class of the
    target derives from `cls`; else None."""
    if fn is None or cls is None or not fn.args.args or fn.args.args[0].arg != name \
            or not decorated(fn, ("classmethod",)) or method_of(cls, fn.name) is not fn:
        return None
    derived = [c for tree in modules.values() for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
               and any(dotted(b).rpartition(".")[2] == cls.name for b in c.bases)]
    return None if derived else (file, cls)


def own_static(fn: ast.FunctionDef | None, cls: ast.ClassDef | None, file: str, modules: dict[str, ast.Module],
               base: ast.expr | None, attr: str) -> tuple[str, ast.ClassDef, ast.FunctionDef] | None:
    """(file, class, method) where `base.attr` is `cls.other(...)` in such a classmethod and names a static or class
    method of the class; else None."""
    own = own_class(fn, cls, file, modules, base.id) if isinstance(base, ast.Name) else None
    method = method_of(own[1], attr) if own is not None else None
    if method is None or not decorated(method, ("staticmethod", "classmethod")):
        return None
    return own[0], own[1], method


def method_of(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    """The method `name` defined in the class's own body, or None."""
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name), None)


def decorated(fn: ast.FunctionDef, names: tuple[str, ...]) -> bool:
    """Whether `fn` carries one of these decorators by bare name (`@classmethod`, `@staticmethod`)."""
    return any(isinstance(d, ast.Name) and d.id in names for d in fn.decorator_list)
