"""Whether a function leaves alone every object it was given: the condition for a memo keyed on lists and arrays.

A memo keyed on strings and numbers only sees arguments nothing can change. Keyed on a list or an array (a
pixel's spectrum, a window of readings, a sentence's tokens), it also relies on the function never changing what
it was given: a hit skips the call, so a change the call made to its argument would be missing. `memoize.py`'s
purity reading allows changes to any name the function binds, which may be an alias (`row = rows[0]`,
`for row in rows`). This module reads more strictly, and says why where it refuses:

- A change to an object (`x.append(v)`, `x[i] = v`, `x.a = v`, `x += v`, `x.add_(v)`, `np.copyto(x, v)`,
  `bisect.insort(x, v)`, a call with `out=x`) is allowed only where the function made `x` itself, by every binding
  of that name: a literal, a display or comprehension, arithmetic, or a call that returns a new object
  (`list(...)`, `sorted(...)`, `np.zeros(...)`, `s.split()`, `a.copy()`, ...; `FRESH_CALLS`, `FRESH_METHODS`).
- A change inside an object (`grid[i][j] = v`, `rows[k].append(v)`) is allowed only where the outer object was
  made of new objects all the way down (`[[0.0] * w for _ in range(h)]`), so no part of it can be an argument.
- The target's own functions it calls (by name, or `self.<method>`) are read the same way, their parameters being
  what they were given.

Anything else keeps the memo to keys nothing can change (str, bytes, numbers, tuples of them), as before.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.loops import dotted

FRESH_CALLS = frozenset({
    "list", "dict", "set", "tuple", "frozenset", "sorted", "bytearray", "bytes", "str", "int", "float", "bool",
    "complex", "len", "sum", "abs", "round", "range", "enumerate", "zip", "map", "filter", "reversed", "repr",
    "format", "chr", "ord", "hash", "divmod", "pow", "deque", "Counter", "defaultdict", "OrderedDict",
})
"""Builtins and collections that hand back a new object (or an immutable one), never one they were given."""
FRESH_METHODS = frozenset({
    "copy", "split", "rsplit", "splitlines", "strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title",
    "join", "replace", "format", "encode", "decode", "tolist", "astype", "partition", "rpartition", "count",
    "index", "find", "rfind", "startswith", "endswith", "isdigit", "isalpha", "isalnum", "isspace", "hex",
    "items", "keys", "values", "get_text", "zfill", "ljust", "rjust", "center", "expandtabs", "translate",
})
"""Methods that return a new object (or an immutable one): never the object they were called on, nor a view of it
(`reshape`, `view`, `T`, slicing an array are views, and not here)."""
NEW_ARRAYS = frozenset({
    "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "array", "copy",
    "arange", "linspace", "concatenate", "stack", "vstack", "hstack", "tensor", "clone",
})
"""numpy / torch functions that make a new array (not `asarray`, `as_tensor` or `from_numpy`, which may hand back
the one they were given)."""
IN_PLACE_FUNCTIONS = frozenset({"copyto", "put", "place", "putmask", "fill_diagonal", "insort", "insort_left",
                                "insort_right", "heappush", "heappop", "heapify", "heapreplace", "heappushpop",
                                "setitem", "delitem", "shuffle"})
"""Module functions that change their first argument."""
# Methods that change the object they are called on: memoize.py allows them only on values the function made itself.
MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem", "add", "discard",
    "sort", "reverse", "fill", "resize", "put", "write", "writelines", "seek", "close", "send",
})
CHANGING_METHODS = MUTATING_METHODS | frozenset({"itemset", "setflags", "appendleft", "extendleft", "popleft",
                                                "rotate", "subtract"})
"""... and those of numpy arrays and `collections` containers that change them, for the stricter reading here."""


def changes_what_it_was_given(fn: ast.FunctionDef, module_level: dict[str, ast.FunctionDef],
                              methods: dict[str, ast.FunctionDef] | None = None,
                              imported: dict | None = None) -> str | None:
    """Why `fn` (or a function of the target it calls) may change an object it was given, or None where it
    cannot by this reading. `imported`: the target's functions the file imports by name (`memoize.imported_functions`:
    name -> (that module's functions, the function))."""
    return _Reader(methods or {}, imported or {}).why(fn, module_level)


class _Reader:
    def __init__(self, methods: dict[str, ast.FunctionDef], imported: dict) -> None:
        self.methods, self.imported = methods, imported
        self.seen: set[int] = set()

    def why(self, fn: ast.FunctionDef, module_level: dict[str, ast.FunctionDef]) -> str | None:
        if id(fn) in self.seen:
            return None
        self.seen.add(id(fn))
        top, deep = _made_names(fn)
        for node in ast.walk(fn):
            line = f"{fn.name} line {getattr(node, 'lineno', fn.lineno)}"
            for changed in _changed_objects(node):
                if not _made(changed, top, deep):
                    return f"{line}: changes `{ast.unparse(changed)}`, which may be an object it was given"
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
                if func.attr not in self.methods:
                    return f"{line}: calls self.{func.attr}(), whose code this reading does not follow"
                inner = self.why(self.methods[func.attr], module_level)
            elif isinstance(func, ast.Name) and func.id in module_level:
                inner = self.why(module_level[func.id], module_level)
            elif isinstance(func, ast.Name) and func.id in self.imported:
                functions, imported = self.imported[func.id]
                inner = self.why(imported, functions)
            else:
                continue
            if inner:
                return inner
        return None


def _changed_objects(node: ast.AST) -> list[ast.expr]:
    """The objects `node` changes in place."""
    if isinstance(node, (ast.Assign, ast.Delete)):
        return [part.value for target in node.targets for part in _parts(target)
                if isinstance(part, (ast.Subscript, ast.Attribute))]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, (ast.Subscript, ast.Attribute)):
        return [node.target.value]
    if isinstance(node, ast.AugAssign):
        # `x += v` changes a list or an array in place; `x[i] += v` changes x.
        return [node.target.value if isinstance(node.target, (ast.Subscript, ast.Attribute)) else node.target]
    if not isinstance(node, ast.Call):
        return []
    changed = [k.value for k in node.keywords
               if k.arg == "out" and not (isinstance(k.value, ast.Constant) and k.value.value is None)]
    func = node.func
    if isinstance(func, ast.Attribute):
        in_place = func.attr.endswith("_") and not func.attr.startswith("_")  # torch's `x.add_(v)`, `F.relu_(x)`
        if dotted(func).startswith(_MODULES):
            if (in_place or func.attr in IN_PLACE_FUNCTIONS) and node.args:
                changed.append(node.args[0])
        elif func.attr in CHANGING_METHODS or in_place:
            changed.append(func.value)
    elif isinstance(func, ast.Name) and func.id in IN_PLACE_FUNCTIONS and node.args:  # `from bisect import insort`
        changed.append(node.args[0])
    return changed


_MODULES = ("np.", "numpy.", "torch.", "F.", "math.", "bisect.", "heapq.", "operator.", "random.")


def _parts(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [p for elt in target.elts for p in _parts(elt)]
    if isinstance(target, ast.Starred):
        return _parts(target.value)
    return [target]


def _made(obj: ast.expr, top: set[str], deep: set[str]) -> bool:
    """Whether the object `obj` names is one the function made: a name it bound only to new objects (`top`), or
    a part of one made of new objects all the way down (`deep`)."""
    if isinstance(obj, ast.Name):
        return obj.id in top
    root = obj
    while isinstance(root, (ast.Subscript, ast.Attribute)):
        root = root.value
    return isinstance(root, ast.Name) and root.id in deep


def _made_names(fn: ast.FunctionDef) -> tuple[set[str], set[str]]:
    """The names every binding of which is a new object (top), and those made of new objects all the way down
    (deep), to a fixed point (a name bound to another such name is one too)."""
    bindings: dict[str, list[ast.expr | None]] = {}
    for a in ast.walk(fn.args):
        if isinstance(a, ast.arg):
            bindings.setdefault(a.arg, []).append(None)
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bindings.setdefault(target.id, []).append(node.value)
                elif _paired(target, node.value):  # `curve, g = [], 1.0`: each name its own value
                    for part, value in zip(target.elts, node.value.elts):
                        bindings.setdefault(part.id, []).append(value)
                else:
                    for part in _parts(target):
                        if isinstance(part, ast.Name):
                            bindings.setdefault(part.id, []).append(None)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name):
            bindings.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, (ast.For, ast.comprehension, ast.withitem)):
            target = node.optional_vars if isinstance(node, ast.withitem) else node.target
            for name in (n for n in ast.walk(target) if isinstance(n, ast.Name)) if target is not None else ():
                bindings.setdefault(name.id, []).append(None)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bindings.setdefault(node.name, []).append(None)
        elif isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Lambda)) \
                and node is not fn:
            names = [a.asname or a.name for a in node.names] if isinstance(node, (ast.Import, ast.ImportFrom)) \
                else [getattr(node, "name", None)]
            for name in names:
                if name:
                    bindings.setdefault(name.split(".")[0], []).append(None)
    top: set[str] = set()
    deep: set[str] = set()
    grew = True
    while grew:
        new_top = {n for n, values in bindings.items()
                   if all(v is not None and _new_object(v, top) for v in values)}
        new_deep = {n for n, values in bindings.items()
                    if all(v is not None and _new_throughout(v, deep) for v in values)}
        grew = new_top != top or new_deep != deep
        top, deep = new_top, new_deep
    return top, deep


def _paired(target: ast.expr, value: ast.expr) -> bool:
    """Whether `target = value` binds names of a tuple (or list) target to the values of a display of the same
    length, one each (no starred part)."""
    return isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
        and len(target.elts) == len(value.elts) and all(isinstance(t, ast.Name) for t in target.elts) \
        and not any(isinstance(v, ast.Starred) for v in value.elts)


def _new_object(value: ast.expr, top: set[str]) -> bool:
    """Whether `value` evaluates to an object made there and then (its parts may be older)."""
    if isinstance(value, (ast.Constant, ast.List, ast.Dict, ast.Set, ast.Tuple, ast.ListComp, ast.SetComp,
                          ast.DictComp, ast.GeneratorExp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.JoinedStr)):
        return True
    if isinstance(value, ast.Name):
        return value.id in top
    if isinstance(value, ast.IfExp):
        return _new_object(value.body, top) and _new_object(value.orelse, top)
    if isinstance(value, ast.Call):
        name = dotted(value.func)
        if isinstance(value.func, ast.Name):
            return name in FRESH_CALLS
        if isinstance(value.func, ast.Attribute):
            if name.startswith(("np.", "numpy.", "torch.")):
                return value.func.attr in NEW_ARRAYS
            if name.startswith("math."):
                return True  # numbers
            return value.func.attr in FRESH_METHODS
    return False


def _new_throughout(value: ast.expr, deep: set[str]) -> bool:
    """Whether `value` is a new object whose parts are new (or immutable) too, all the way down."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Name):
        return value.id in deep
    if isinstance(value, (ast.List, ast.Set, ast.Tuple)):
        return all(_new_throughout(e, deep) for e in value.elts)
    if isinstance(value, ast.Dict):
        return all(_new_throughout(v, deep) for v in value.values)
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return _new_throughout(value.elt, deep)
    if isinstance(value, ast.DictComp):
        return _new_throughout(value.value, deep)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        # `[0.0] * w`, `w * [0.0]`: references to the same new (or immutable) parts, repeated.
        return any(_container(a, deep) and _scalar_like(b)
                   for a, b in ((value.left, value.right), (value.right, value.left)))
    if isinstance(value, ast.BinOp):  # `a + b` of two such lists
        return _container(value.left, deep) and _container(value.right, deep)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and dotted(value.func).startswith(("np.", "numpy.", "torch.")):
        return value.func.attr in NEW_ARRAYS and value.func.attr not in ("array", "tensor", "concatenate", "stack",
                                                                         "vstack", "hstack")
    return False


def _container(value: ast.expr, deep: set[str]) -> bool:
    """A list, tuple or comprehension (or a name bound only to such) made of new parts: not a bare number, and
    not a name the function was given."""
    return not isinstance(value, ast.Constant) and _new_throughout(value, deep)


def _scalar_like(value: ast.expr) -> bool:
    """A count or size beside a list in `[0] * n`: a name, a number, `len(...)`, arithmetic of those."""
    if isinstance(value, (ast.Name, ast.Constant)):
        return True
    if isinstance(value, ast.BinOp):
        return _scalar_like(value.left) and _scalar_like(value.right)
    return isinstance(value, ast.Call) and dotted(value.func) in ("len", "int", "max", "min")


__all__ = ["CHANGING_METHODS", "MUTATING_METHODS", "changes_what_it_was_given"]
