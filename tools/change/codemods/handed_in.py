"""Whether a list an `__init__` keeps (`self.vocab = vocab`) is one its callers make once and then only read.

A dataset is often handed its vocabulary by the script that built it:

    vocab = build_vocab(corpus[:400])          # a list made by the target's own function
    ds = SMSDataset(corpus, vocab, ...)        # kept as self.vocab
    model = SpamLR(len(vocab) + 1)             # and only read afterwards

`lookup_index.py` answers `self.vocab.index(g)` from a dict built once only for a list the target makes once and
never changes. Bound to a parameter, the list is the caller's object, so the caller is read too: every place the
target's files build the class must pass, for that parameter, a name its scope binds once to a new list (a
literal, a comprehension, `list(...)`/`sorted(...)`, or a call of the target's own module-level function whose
every `return` hands back such a list it made and only filled), and every other mention of that name in the scope
must only read it (`len(vocab)`, `set(vocab)`, a loop over it, `in`, a subscript, `.index`). Any other mention
(an alias, an argument of other code, a store) or a class built where this reading cannot see its arguments
(`*args`, `**kwargs`, no construction at all) keeps the scan, and the reason names it.
"""
from __future__ import annotations

import ast

FRESH_BUILDERS = frozenset({"list", "tuple", "sorted"})
HAND_ON = 2
"""How many `__init__`s a list may be handed on through, each keeping or passing its parameter."""
BUILDING_METHODS = frozenset({"append", "extend", "insert", "sort", "reverse"})
"""What a function may do to the list it makes before handing it back (it is its own until then)."""


def handed_in_refusal(cls: ast.ClassDef, init: ast.FunctionDef, param: str, modules: dict[str, ast.Module],
                      reading, depth: int = 0) -> str | None:
    """Why the list passed to `cls(...)` as `param` may be shared or changed by its callers, or None where every
    construction in `modules` passes a new list its scope only reads. `reading(node, parent, parents)`: whether a
    mention only reads (lookup_index's reading of a mention). A caller that is another class's `__init__` handing
    on a parameter of its own (`self.featurize = Featurizer(rows)`) is read the same way, up to HAND_ON deep: that
    `__init__` may only read it, pass it on, or keep it as `self.<attr>` (which `lookup_index` then checks is only
    read, as it checks the list's own attribute), and its own callers must make it."""
    params = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
    if param not in params or init.args.vararg or init.args.kwarg:
        return f"`{param}` is not a plain parameter of {cls.name}.__init__"
    position = params.index(param)
    functions = {fn.name: fn for tree in modules.values() for fn in tree.body if isinstance(fn, ast.FunctionDef)}
    built = 0
    for file, tree in modules.items():
        parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for scope in _scopes(tree):
            for call in _nodes(scope):
                if not (isinstance(call, ast.Call) and _names_class(call.func, cls.name)):
                    continue
                built += 1
                where = f"{file}:{call.lineno}"
                arg = next((k.value for k in call.keywords if k.arg == param), None)
                if arg is None and position < len(call.args) \
                        and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
                    arg = call.args[position]
                if arg is None or any(k.arg is None for k in call.keywords):
                    return f"{where}: {cls.name}(...) is built without a `{param}` this reading can follow"
                if not isinstance(arg, ast.Name):
                    return f"{where}: `{ast.unparse(arg)[:40]}` is passed as `{param}`, not a name bound to a new list"
                why = _made_and_read(arg.id, scope, call, functions, parents, reading)
                owner = _init_owner(scope, modules) if why and depth < HAND_ON else None
                if owner is not None and arg.id in _params(scope):
                    why = _handed_on(arg.id, scope, call, parents, reading) \
                        or handed_in_refusal(owner, scope, arg.id, modules, reading, depth + 1)
                if why:
                    return f"{where}: {why}"
    return None if built else f"{cls.name} is built nowhere in the target's files this reading can see"


def _params(fn: ast.FunctionDef) -> list[str]:
    return [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]


def _init_owner(scope: ast.AST, modules: dict[str, ast.Module]) -> ast.ClassDef | None:
    """The class whose `__init__` `scope` is, else None."""
    if not (isinstance(scope, ast.FunctionDef) and scope.name == "__init__"):
        return None
    return next((c for tree in modules.values() for c in ast.walk(tree)
                 if isinstance(c, ast.ClassDef) and scope in c.body), None)


def _handed_on(name: str, scope: ast.FunctionDef, call: ast.Call, parents: dict, reading) -> str | None:
    """Why `__init__` may change or share its parameter `name` other than by the call `call` or `self.<attr> =
    name`, or None."""
    for node in _nodes(scope):
        if not (isinstance(node, ast.Name) and node.id == name) or node in call.args \
                or any(k.value is node for k in call.keywords):
            continue
        parent = parents.get(id(node))
        if not isinstance(node.ctx, ast.Load):
            return f"line {node.lineno}: `{name}` is bound again in {scope.name}"
        if kept_on_self(node, parent) or reading(node, parent, parents):
            continue
        return f"line {node.lineno}: `{ast.unparse(parent or node)[:50]}` may change or share `{name}`"
    return None


def kept_on_self(node: ast.AST, parent: ast.AST | None) -> bool:
    """`self.<attr> = name`: the object keeps the list, which `lookup_index` checks is only read."""
    return isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1 \
        and isinstance(parent.targets[0], ast.Attribute) and isinstance(parent.targets[0].value, ast.Name) \
        and parent.targets[0].value.id == "self"


def _names_class(func: ast.expr, name: str) -> bool:
    return (isinstance(func, ast.Name) and func.id == name) or (isinstance(func, ast.Attribute) and func.attr == name)


def _scopes(tree: ast.Module) -> list[ast.AST]:
    """The module (its statements outside functions and classes) and every function of it."""
    return [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]


def _nodes(scope: ast.AST):
    """The nodes of `scope`, not those of functions, classes and lambdas inside it (their own scopes)."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def _made_and_read(name: str, scope: ast.AST, call: ast.Call, functions: dict[str, ast.FunctionDef],
                   parents: dict, reading) -> str | None:
    binds = [n for n in _nodes(scope) if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)]
    args = scope.args if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if args is not None and name in {a.arg for a in ast.walk(args) if isinstance(a, ast.arg)}:
        return f"`{name}` is a parameter of {scope.name}, a list its callers made"
    assign = parents.get(id(binds[0])) if len(binds) == 1 else None
    if not (isinstance(assign, ast.Assign) and len(assign.targets) == 1 and assign.targets[0] is binds[0]):
        return f"`{name}` is not bound once, by a plain assignment"
    if not new_list(assign.value, functions):
        return f"`{name}` is bound to `{ast.unparse(assign.value)[:40]}`, not a list made there"
    for node in _nodes(scope):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) \
                and not (node in call.args or any(k.value is node for k in call.keywords)) \
                and not reading(node, parents.get(id(node)), parents):
            return f"line {node.lineno}: `{ast.unparse(parents.get(id(node), node))[:50]}` may change or share `{name}`"
    return None


def new_list(value: ast.expr, functions: dict[str, ast.FunctionDef] | None = None) -> bool:
    """A new list or tuple: a literal, a comprehension, list(...)/tuple(...)/sorted(...), or (with `functions`) a call
    of the target's function that hands back a list it made."""
    if isinstance(value, (ast.List, ast.Tuple, ast.ListComp)):
        return True
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
        return False
    if value.func.id in FRESH_BUILDERS:
        return True
    fn = (functions or {}).get(value.func.id)
    return fn is not None and _returns_its_own_list(fn)


def _returns_its_own_list(fn: ast.FunctionDef) -> bool:
    """Whether every `return` of `fn` hands back a new list: made there, or a local name bound only to new lists and
    only filled (`append`, `extend`, ...) or read before it is returned."""
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
    if not returns or any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)) for n in ast.walk(fn)):
        return False
    parents = {id(child): node for node in ast.walk(fn) for child in ast.iter_child_nodes(node)}
    for ret in returns:
        value = ret.value
        if value is not None and new_list(value):
            continue
        if not isinstance(value, ast.Name):
            return False
        stores = [parents.get(id(n)) for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == value.id
                  and isinstance(n.ctx, ast.Store)]
        if not stores or not all(isinstance(s, ast.Assign) and len(s.targets) == 1 and new_list(s.value)
                                 for s in stores):
            return False
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and node.id == value.id and isinstance(node.ctx, ast.Load) \
                    and not _filled_or_read(node, parents):
                return False
    return True


def _filled_or_read(node: ast.Name, parents: dict) -> bool:
    parent = parents.get(id(node))
    if isinstance(parent, ast.Return):
        return True
    if isinstance(parent, ast.Attribute) and parent.attr in BUILDING_METHODS | {"index", "count"}:
        return isinstance(parents.get(id(parent)), ast.Call)
    if isinstance(parent, ast.Call):
        return isinstance(parent.func, ast.Name) and parent.func.id in ("len", "set", "sorted") and node in parent.args
    if isinstance(parent, ast.Compare):
        return node in parent.comparators and all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
    return isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node
