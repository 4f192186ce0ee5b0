"""Whether a statement gives the same value on every pass of a loop: the analysis behind hoist.py.

What a loop binds, changes or hands on (`changed_in`, with aliases followed through views, items and
the target's own functions, `shares`); which calls compute from their arguments only (`Calls`: numpy,
torch, math... by import path, read-only builtins, methods returning a new value, and the target's
own functions, or the methods of the class the code is in called as `self.name(...)`, whose bodies pass
the same test); and the loop's code as units a name flows through
(`units`: simple statements, and compound statements' headers as assignments). Conservative where
it cannot see: a value handed to code it does not read counts as changed. Objects kept inside other
objects (a dataset holding the labels) are not followed; the verify stage's checks of every batch,
the loss and the logged values are what would see a change made through them.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.hot_function import functions
from perfloop.tools.change.codemods.imports import full_name, import_paths
from perfloop.tools.change.codemods.loop_checks import GENERATOR_CALL, IMPURE_CALL, PURE_MODULES, is_random_call
from perfloop.tools.change.codemods.loops import dotted
from perfloop.tools.change.codemods.reorder import (
    FRESH_ATTRS,
    READS_ONLY,
    WRITES_INTO,
    comprehension_names_apart,
    plain_read,
)

# Methods that return a new value (or a view: the names computed from it are then judged as its base's).
NEW_VALUE_METHODS = FRESH_ATTRS | frozenset({
    "float", "double", "long", "int", "half", "bool", "to", "cpu", "numpy", "astype", "reshape", "view", "flatten",
    "unsqueeze", "squeeze", "transpose", "permute", "contiguous", "detach", "max", "min", "abs", "sqrt", "exp", "log",
    "softmax", "log_softmax", "cumsum", "keys", "values", "items", "get", "join", "replace", "unique", "nonzero",
    "t", "norm", "pow", "clamp", "clip", "any", "all", "expand", "repeat", "eq", "ne", "gt", "lt", "ge", "le",
    "type", "most_common", "rstrip", "lstrip", "isdigit", "isalpha"})
# Methods that read their arguments into a new value (their receiver's own use is judged apart).
_READING_METHODS = frozenset({"masked_fill", "where", "index_select", "gather", "matmul", "mm", "bmm", "mv", "dot",
                              "add", "sub", "mul", "div", "maximum", "minimum", "expand_as", "view_as", "reshape_as",
                              "type_as", "new_tensor", "masked_select", "take", "take_along_dim", "searchsorted"})
# Calls that build a new object, which a function may then change freely (`counts = np.zeros(k); counts[i] += 1`).
_FRESH_CALLS = frozenset({"zeros", "ones", "empty", "full", "eye", "arange", "linspace", "zeros_like", "ones_like",
                          "empty_like", "full_like", "array", "tensor", "list", "dict", "set", "Counter",
                          "defaultdict", "OrderedDict", "copy", "clone", "tolist", "deepcopy", "bytearray",
                          "len", "int", "float", "bool", "str", "sum", "round", "abs", "sorted"})
_FRESH_NODES = (ast.Constant, ast.List, ast.Dict, ast.Set, ast.Tuple, ast.ListComp, ast.DictComp, ast.SetComp,
                ast.GeneratorExp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.JoinedStr)
ITEMS = "__items__"
"""The call `units` writes a `for` header as (`for x in xs` binds x = __items__(xs)): x is an item of xs."""
# Module functions whose result may share memory with an argument.
_VIEW_FUNCTIONS = frozenset({"asarray", "asanyarray", "as_tensor", "from_numpy", "reshape", "ravel", "squeeze",
                             "unsqueeze", "transpose", "swapaxes", "moveaxis", "permute", "narrow", "select", "expand",
                             "broadcast_to", "atleast_1d", "atleast_2d", "atleast_3d", "flatten", "split", "chunk",
                             "unbind", "tensor_split", "array_split", "hsplit", "vsplit", "diagonal", "real", "imag",
                             "detach", "view_as_real", "view_as_complex", "frombuffer", "squeeze_copy"})
# Calls that return an iterator, used up by one pass.
_ONE_PASS = frozenset({"zip", "enumerate", "reversed", "map", "filter", "iter", "islice", "chain", "product",
                       "permutations", "combinations", "groupby", "accumulate", "starmap", "zip_longest", "cycle",
                       "finditer", "imap", "scandir", "iterdir", "glob", "rglob", "walk"})
class Calls:
    """Which calls compute from their arguments only, in the target's files (see the module docstring)."""

    def __init__(self, modules: dict[str, ast.Module]) -> None:
        self.owner: ast.ClassDef | None = None
        """The class whose method holds the code judged: its other methods, called as `self.name(...)`, are judged
        as the target's functions are, reading `self`'s attributes and writing none (see method_attributes)."""
        self.paths = import_paths(modules.values())
        self.top = {name: node for tree in modules.values() for node, name in functions(tree) if "." not in name}
        self.module_names = {t.id for tree in modules.values() for s in tree.body
                             if isinstance(s, (ast.Assign, ast.AnnAssign))
                             for target in (s.targets if isinstance(s, ast.Assign) else [s.target])
                             for t in ast.walk(target) if isinstance(t, ast.Name)}
        self.changed_attributes = _attributes_changed_by_methods(modules.values())
        self.classes = {n.name: n for tree in modules.values() for n in tree.body if isinstance(n, ast.ClassDef)}
        self.changing_classes = {name for name, cls in self.classes.items() if _attributes_changed_by_methods([cls])}
        self.shallow_copies: set[str] = set()
        """Names bound to a shallow copy made for a loop (`sorted(self.vocab)`): changing an item changes the
        source's item in the old code too, so only the copy itself must stay unchanged."""
        self._verdicts: dict[str, str | None] = {}
        self._globals: dict[str, set[str]] = {}
        self.changed_globals = self._globals_changed(modules.values())

    def refusal(self, node: ast.AST) -> str | None:
        """None when every call under `node` computes from its arguments only, else the first that may not."""
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            why = self._call(call)
            if why is not None:
                return why
        return None

    def globals_read(self, node: ast.AST) -> set[str]:
        """Module-level names read by the target's functions `node` calls, at any depth."""
        found: set[str] = set()
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            name = dotted(call.func)
            if name in self.top:
                found |= self._globals.get(name, set())
        return found

    def resolved(self, name: str) -> str:
        """`name` by the module path its first part was imported as (`np.zeros` -> `numpy.zeros`)."""
        return full_name(name, self.paths)

    def is_module(self, node: ast.AST) -> bool:
        """Whether `node` names an imported module or name (`np`, `torch.nn`), not a value."""
        root = dotted(node).split(".")[0]
        return bool(root) and root in self.paths

    def keeps_nothing(self, call: ast.Call) -> bool:
        """Whether `call` cannot keep its arguments to change them later: a reading builtin or module function, a
        function of the target that changes no argument, a target class none of whose methods but `__init__`
        changes its attributes, a method returning a new value."""
        name = dotted(call.func)
        if isinstance(call.func, ast.Name) and (name in READS_ONLY or self.pure_function(name)):
            return True
        if name in self.classes:
            return name not in self.changing_classes
        if name and self.resolved(name).startswith(PURE_MODULES):
            return not WRITES_INTO.search(name) and not any(k.arg == "out" for k in call.keywords)
        return isinstance(call.func, ast.Attribute) and call.func.attr in NEW_VALUE_METHODS

    def _globals_changed(self, modules) -> set[str]:
        """Module-level names some function of the target rebinds (`global`) or changes (`HISTORY.append(v)`)."""
        found = set()
        for tree in modules:
            for fn, _ in functions(tree):
                found |= {name for n in ast.walk(fn) if isinstance(n, ast.Global) for name in n.names}
                parents = {c: p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
                local = local_names(fn)
                found |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id in self.module_names
                          and n.id not in local and not _read_only(n, parents, self)}
        return found

    def pure_function(self, name: str) -> bool:
        return name in self.top and self._function(name) is None

    def _call(self, call: ast.Call) -> str | None:
        name = dotted(call.func)
        shown = ast.unparse(call.func)[:40]
        attr = call.func.attr if isinstance(call.func, ast.Attribute) else name
        if is_random_call(name) or IMPURE_CALL.search(name) \
                or GENERATOR_CALL.search(name):
            return f"`{shown}()` draws random numbers or reads the clock"
        if any(k.arg == "out" for k in call.keywords) or WRITES_INTO.search(name):
            return f"`{shown}()` writes into an argument"
        if isinstance(call.func, ast.Name):
            if name in self.top:
                why = self._function(name)
                return None if why is None else f"calls {name}(), which {why}"
            return None if name in READS_ONLY else f"calls `{shown}()`, whose code perfloop does not read"
        if (method := self._own_method(name)) is not None:
            why = self._method(method)
            return None if why is None else f"calls {name}(), which {why}"
        if name and (self.resolved(name).startswith(PURE_MODULES) or name.startswith(PURE_MODULES)):
            return None
        if attr in NEW_VALUE_METHODS:
            return None
        return f"`{shown}()` may change its object or read state perfloop cannot see"

    def _own_method(self, name: str) -> ast.FunctionDef | None:
        """The method of `owner` that `self.<name>` calls, when it is a plain one (no decorator)."""
        if self.owner is None or not name.startswith("self.") or name.count(".") != 1:
            return None
        found = [m for m in self.owner.body if isinstance(m, ast.FunctionDef) and m.name == name[5:]]
        return found[0] if len(found) == 1 and not found[0].decorator_list else None

    def _method(self, method: ast.FunctionDef) -> str | None:
        """None when `method` computes from its arguments and `self`'s attributes only, writing none of them."""
        key = f"{self.owner.name}.{method.name}"
        if key not in self._verdicts:
            self._verdicts[key] = None  # a recursive call is judged by the rest of the body
            self._verdicts[key] = _function_refusal(method, self)
        return self._verdicts[key]

    def own_code(self, call: ast.Call) -> bool:
        """Whether `call` runs a function of the target's files (`helper(...)`, `self.method(...)`)."""
        name = dotted(call.func)
        return (isinstance(call.func, ast.Name) and name in self.top) or self._own_method(name) is not None

    def method_attributes(self, node: ast.AST) -> set[str]:
        """Attribute names the owner's methods that `node` calls (`self.name(...)`) read, at any depth."""
        found: set[str] = set()
        todo = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
        seen: set[str] = set()
        while todo:
            method = self._own_method(dotted(todo.pop().func))
            if method is None or method.name in seen:
                continue
            seen.add(method.name)
            found |= attributes_read(method)
            todo += [n for n in ast.walk(method) if isinstance(n, ast.Call)]
        return found

    def _function(self, name: str) -> str | None:
        """None when the target's function `name` computes from its arguments only (module docstring)."""
        if name in self._verdicts:
            return self._verdicts[name]
        self._verdicts[name] = None  # a recursive call is judged by the rest of the body
        fn = self.top[name]
        why = _function_refusal(fn, self)
        reads = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        self._globals[name] = (reads & self.module_names) - local_names(fn)
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
            if dotted(call.func) in self.top and dotted(call.func) != name:
                self._globals[name] |= self._globals.get(dotted(call.func), set())
        self._verdicts[name] = why
        return why


def _function_refusal(fn: ast.FunctionDef, calls: Calls) -> str | None:
    """Why the target's function `fn` may not compute from its arguments only; None when it does."""
    if any(isinstance(n, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom)) for n in ast.walk(fn)):
        return "has a `global`, `nonlocal` or `yield`"
    fresh = _fresh_locals(fn)
    parents = {child: parent for parent in ast.walk(fn) for child in ast.iter_child_nodes(parent)}
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            method = node.func.attr if isinstance(node.func, ast.Attribute) else None
            base = _base_name(node.func.value) if method else None
            if method and base in fresh:
                continue  # a method of an object this function built (`out.append(x)`)
            why = calls._call(node)
            if why is not None:
                return why
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            if _base_name(node) not in fresh:
                return f"writes into `{ast.unparse(node)[:40]}` (line {node.lineno}), an object it did not build"
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                and node.target.id not in fresh:
            return f"changes `{node.target.id}` in place (line {node.lineno}), an object it did not build"
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in calls.top \
                and not (isinstance(parents.get(node), ast.Call) and parents[node].func is node):
            return f"hands on the function {node.id} (line {node.lineno})"
    return None


def _fresh_locals(fn: ast.FunctionDef) -> set[str]:
    """Local names every binding of which is a new object: a display, a comprehension, arithmetic, a constant,
    or a call in _FRESH_CALLS (`np.zeros`, `list`, `.copy()`)."""
    kinds: dict[str, bool] = {}
    params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    for node in ast.walk(fn):
        targets, value = [], None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets, value = [node.target], node.value
        elif isinstance(node, (ast.For, ast.comprehension, ast.With, ast.withitem)):
            targets = [getattr(node, "target", None) or getattr(node, "optional_vars", None)]
        for target in targets:
            if target is None:
                continue
            new = isinstance(target, ast.Name) and value is not None and _fresh_value(value)
            if isinstance(node, ast.AugAssign):
                continue  # `n += 1` keeps what `n` was; judged by its other bindings
            for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                kinds[name] = kinds.get(name, True) and new
    return {name for name, new in kinds.items() if new and name not in params}


def _fresh_value(value: ast.AST) -> bool:
    if isinstance(value, _FRESH_NODES):
        return True
    if isinstance(value, ast.Call):
        name = dotted(value.func)
        return name.rsplit(".", 1)[-1] in _FRESH_CALLS and not name.endswith("asarray")
    return False


def changed_in(loop_units: list[ast.AST], scope_units: list[ast.AST], calls: Calls) -> set[str]:
    """Names the loop uses other than as a read, and every name such a name may be a view or an item of, by
    the bindings anywhere in the scope (`y = labels[i]` then `y += 1` in the loop changes labels)."""
    changed: set[str] = set()
    for unit in loop_units:
        parents = {child: parent for parent in ast.walk(unit) for child in ast.iter_child_nodes(parent)}
        changed |= {n.id for n in ast.walk(unit) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                    and not _read_only(n, parents, calls)}
        # `row += 1` changes a list or an array in place (an int or a string is only bound again).
        changed |= {n.target.id for n in ast.walk(unit) if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
    sources: dict[str, set[str]] = {}
    for unit in scope_units:
        if isinstance(unit, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and unit.value is not None:
            targets = unit.targets if isinstance(unit, ast.Assign) else [unit.target]
            shared = _shares(unit.value, calls)
            for name in (n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)):
                sources.setdefault(name, set()).update(shared)
    # A name the loop changes may hold objects of every name it was computed from.
    todo = list(changed)
    while todo:
        for source in sources.get(todo.pop(), ()):
            if source not in changed:
                changed.add(source)
                todo.append(source)
    return changed


def _shares(value: ast.AST, calls: Calls) -> set[str]:
    """Names whose objects `value` may be, or be a view or an item of: itself for a name, the base of an
    attribute or subscript, a container display's items, the receiver of a method other than one returning a
    new value (`.float()` may return its tensor), the arguments of a view function (`np.asarray`, `torch.as_tensor`,
    `reshape`) or of the target's own functions. A numpy/torch function's or arithmetic's result is new.
    Objects kept inside other objects (a dataset holding the labels) are not followed: verify's checks of every
    batch, the loss and the logged values are what would see a change made through them."""
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == ITEMS:
        # A loop's items: what they may change is the iterable's, unless it is a shallow copy made for the loop
        # (Calls.shallow_copies), whose items are its source's in the old code as well.
        source = value.args[0]
        return set() if isinstance(source, ast.Name) and source.id in calls.shallow_copies else _shares(source, calls)
    if isinstance(value, (ast.Attribute, ast.Subscript, ast.Starred, ast.NamedExpr)):
        return _shares(value.value, calls)
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        return {name for item in value.elts for name in _shares(item, calls)}
    if isinstance(value, ast.Dict):
        return {name for item in value.values for name in _shares(item, calls)}
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return _shares(value.elt, calls)
    if isinstance(value, ast.DictComp):
        return _shares(value.key, calls) | _shares(value.value, calls)
    if isinstance(value, (ast.IfExp, ast.BoolOp)):
        parts = [value.body, value.orelse] if isinstance(value, ast.IfExp) else value.values
        return {name for part in parts for name in _shares(part, calls)}
    if not isinstance(value, ast.Call):
        return set()
    name = dotted(value.func)
    args = {n for a in [*value.args, *(k.value for k in value.keywords)] for n in _shares(a, calls)}
    if isinstance(value.func, ast.Attribute) and not calls.is_module(value.func.value):
        return set() if value.func.attr in FRESH_ATTRS else _shares(value.func.value, calls) | args
    if name in calls.top:  # what it returns may be an argument or a module-level value it reads
        return args | calls.globals_read(value)
    if name.rsplit(".", 1)[-1] in _VIEW_FUNCTIONS:
        return args
    return set()


def _read_only(node: ast.AST, parents: dict, calls: Calls) -> bool:
    """Whether this use of a name only reads it: reorder.plain_read, an argument of the target's own function
    that changes no argument, or an item of a comprehension's result or of a returned value (read here; where
    the new value goes is judged by the names bound to it, see _shares)."""
    if plain_read(node, parents) or _handed_to_pure(node, parents, calls):
        return True
    parent = parents.get(node)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == ITEMS:
        return True  # iterated by a loop (units): its items' uses are judged through the loop's names
    call = parents.get(parents.get(node) if isinstance(parents.get(node), ast.keyword) else node)
    if isinstance(call, ast.Call) and call.func is not node and isinstance(call.func, ast.Attribute) \
            and call.func.attr in NEW_VALUE_METHODS | _READING_METHODS:
        return True  # an argument of `h.masked_fill(mask, ...)`: read into a new value
    used = node
    while isinstance(parent := parents.get(used), (ast.Attribute, ast.Subscript, ast.Tuple, ast.List, ast.Set,
                                                     ast.Dict, ast.Starred)):
        if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is not used:
            break
        call = parents.get(parent)
        if isinstance(parent, ast.Attribute) and parent.attr in NEW_VALUE_METHODS and isinstance(call, ast.Call) \
                and call.func is parent:
            return _read_only(call, parents, calls)  # `x.expand(...)`: a view or a new value, judged by where it goes
        used = parent
    if isinstance(parent, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return parent.elt is used
    if isinstance(parent, ast.DictComp):
        return used in (parent.key, parent.value)
    return isinstance(parent, ast.Return)


def _handed_to_pure(node: ast.Name, parents: dict, calls: Calls) -> bool:
    """An argument of a call of the target's own function that changes no argument."""
    parent = parents.get(node)
    if isinstance(parent, ast.keyword):
        parent = parents.get(parent)
    return isinstance(parent, ast.Call) and parent.func is not node and calls.pure_function(dotted(parent.func))


def _attributes_changed_by_methods(trees) -> set[str]:
    """Attribute names a method other than `__init__` stores or changes on `self`, in the classes under `trees`
    (modules or classes)."""
    found = set()
    for tree in trees:
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            own = {m.name for m in cls.body if isinstance(m, ast.FunctionDef)}
            for method in (m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name != "__init__"):
                parents = {c: p for p in ast.walk(method) for c in ast.iter_child_nodes(p)}
                for node in ast.walk(method):
                    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                            and node.value.id == "self" and not plain_read(node, parents) \
                            and not _calls_own_method(node, parents, own):
                        found.add(node.attr)
    return found


def _calls_own_method(node: ast.Attribute, parents: dict, own: set[str]) -> bool:
    """`self.name(...)` where `name` is a method the class defines: a call, not a change of the attribute (what
    the method changes is judged as its own)."""
    parent = parents.get(node)
    return node.attr in own and isinstance(parent, ast.Call) and parent.func is node


def attributes_read(stmt: ast.stmt) -> set[str]:
    return {n.attr for n in ast.walk(stmt) if isinstance(n, ast.Attribute)}


def _base_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def local_names(fn: ast.FunctionDef) -> set[str]:
    return {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} | {
        n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def stored_names(stmt: ast.stmt) -> set[str]:
    """Names `stmt` binds, leaving out each comprehension's own names."""
    return {n.id for n in ast.walk(apart(stmt, 0)) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            and "@" not in n.id}


class _SelfAttributes(ast.NodeTransformer):
    """`self.x` as one name, "self.x": a trainer's attributes are values of their own (`self.model(x)` in the loop
    changes self.model, not self.dim); what a method changes is judged by _attributes_changed_by_methods."""

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            return ast.copy_location(ast.Name(id=f"self.{node.attr}", ctx=node.ctx), node)
        return self.generic_visit(node)


def apart(unit: ast.AST, tag: int) -> ast.AST:
    """A copy of `unit` with each comprehension's names its own and `self.x` as one name."""
    return _SelfAttributes().visit(comprehension_names_apart(unit, tag))


def loaded(stmt: ast.stmt) -> set[str]:
    """Names `stmt` reads (`self.x` as one), leaving out each comprehension's own names."""
    copy = apart(stmt, 0)
    return {n.id for n in ast.walk(copy) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and "@" not in n.id}


def units(node: ast.AST) -> list[ast.AST]:
    """The loop's code as units a name flows through: each simple statement, and each compound statement's
    header as an assignment (`for x in xs` binds x from xs; `with f() as h` binds h) or an expression."""
    if isinstance(node, (ast.For, ast.AsyncFor)):
        items = ast.Call(func=ast.Name(id=ITEMS, ctx=ast.Load()), args=[node.iter], keywords=[])
        head = [ast.Assign(targets=[node.target], value=items)]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        head = [ast.Assign(targets=[i.optional_vars], value=i.context_expr) if i.optional_vars
                else ast.Expr(value=i.context_expr) for i in node.items]
    elif isinstance(node, (ast.While, ast.If)):
        head = [ast.Expr(value=node.test)]
    elif isinstance(node, ast.Try) or (hasattr(ast, "TryStar") and isinstance(node, ast.TryStar)):
        head = [ast.Assign(targets=[ast.Name(id=h.name, ctx=ast.Store())], value=h.type or ast.Constant(None))
                for h in node.handlers if h.name]
    else:  # a simple statement, a nested def or a `match`: one unit
        return [node]
    for unit in head:
        ast.copy_location(unit, node)
    return head + [unit for block in blocks(node) for child in block for unit in units(child)]


def blocks(node: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists directly under `node`: a body, an else, handlers' bodies, cases' bodies."""
    blocks = [getattr(node, name) for name in ("body", "orelse", "finalbody") if isinstance(getattr(node, name, None), list)]
    blocks += [h.body for h in getattr(node, "handlers", [])] + [c.body for c in getattr(node, "cases", [])]
    return blocks


def one_pass(value: ast.AST) -> str | None:
    """Why `value` may be an iterator that one pass uses up (a generator, `zip(...)`, `map(...)`, `iter(...)`):
    moved out of the loop, the second step would find it empty. None for anything else."""
    parts = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
    for part in parts:
        name = dotted(part.func) if isinstance(part, ast.Call) else ""
        if isinstance(part, ast.GeneratorExp) or name.rsplit(".", 1)[-1] in _ONE_PASS:
            return f"`{ast.unparse(part)[:40]}` is an iterator: one step would use it up"
    return None


