"""What a dataset's sample depends on, read from the target's code: `Determinism`, and what follows from it.

- `Determinism` walks `__getitem__` and everything it calls in the target's files (module functions,
  methods, the target's own modules through their import, transform objects made where the target
  makes them) and refuses anything that may differ between two accesses of one index: random draws,
  generators kept on `self`, the clock, writes to `self`, attributes another method changes, code of
  other packages it cannot read. `cache_samples` asks it before caching a sample.
- `carried_draws` says whether every dataset draws from a stream that carries from sample to sample, or a
  transform object or collate function the workers run does (`worker_draws`): `set_num_workers` does not
  split such draws over worker processes.
- `dataset_class` finds the dataset whose `__getitem__` reaches the profile's hot function.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.classmethods import decorated, method_of, own_class, own_static
from perfloop.tools.change.codemods.hot_function import functions, python_files
from perfloop.tools.change.codemods.imports import import_paths
from perfloop.tools.change.codemods.kept_arguments import MUTATING_METHODS
from perfloop.tools.change.codemods.loop_checks import (
    GENERATOR_CALL,
    IMPURE_CALL,
    PURE_MODULES,
    RANDOM_CALL,
    is_random_call,
)
from perfloop.tools.change.codemods.loops import dotted
from perfloop.tools.change.codemods.worker_draws import callable_draws, init_generators, iterable_datasets


def carried_draws(root) -> str | None:
    """See `_carried_draws`; code it was not written for (an error reading it) says nothing, so verification decides."""
    try:
        return _carried_draws(root)
    except (RecursionError, ValueError, KeyError, AttributeError, TypeError, IndexError):
        return None


def _carried_draws(root) -> str | None:
    """Why more (or fewer) DataLoader workers would change every dataset's samples, or None.

    A dataset whose `__getitem__` (or what it calls in the target) draws from a stream that carries
    over from one sample to the next, a generator kept on `self` or the global `random`/`np.random`/
    torch generators, hands out other draws when the samples are split over worker processes: each
    worker starts its own copy or its own seed. Said only when every dataset class of the target
    draws so, and no function but an `__init__` makes a generator (a generator seeded per index is
    the same in any process); otherwise None, and verification decides. Transform objects handed to the
    pipeline and collate functions that draw so are read first (`worker_draws.callable_draws`)."""
    modules = {}
    for f in python_files(root):
        try:
            modules[f] = ast.parse((root / f).read_text())
        except (SyntaxError, UnicodeDecodeError, OSError):
            return None
    handed = iterable_datasets(modules) or callable_draws(modules)  # what the workers run besides __getitem__
    if handed is not None:
        return handed
    defined = _defined(modules)
    reasons = []
    for file, tree in modules.items():
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            # A dataset with `__getitems__` hands the loader whole batches through it (torch calls it first).
            getitem = method_of(cls, "__getitems__") or method_of(cls, "__getitem__")
            if getitem is None:
                continue
            if any(isinstance(c, ast.Call) and GENERATOR_CALL.search(dotted(c.func))
                   for fn in _reachable(getitem, defined) if fn.name != "__init__" for c in ast.walk(fn)):
                return None  # a generator made per call (seeded per index, say): verification decides
            checker = Determinism(cls, file, modules)
            checker.draws_only = True  # past a cache perfloop added (it writes self.__dict__) to the draws under it
            try:
                checker.check(getitem, f"{cls.name}.{getitem.name}")
            except NotApplicable as refused:
                reasons.append(str(refused).split(": a cached sample")[0])  # the draw and where, not the cache's why
                continue
            return None
    return reasons[0] if reasons else None


def _defined(modules: dict[str, ast.Module]) -> dict[str, list[ast.FunctionDef]]:
    """Every function and method of the target by its name (several where names repeat)."""
    defined: dict[str, list[ast.FunctionDef]] = {}
    for tree in modules.values():
        for node, _ in functions(tree):
            defined.setdefault(node.name, []).append(node)
    return defined


def dataset_class(modules: dict[str, ast.Module], hot_name: str, hot_file: str) -> tuple[str, ast.ClassDef]:
    """(file, class) of the class with a `__getitem__` that is, or calls, the hot function (its own file first).

    "Calls" is through any chain of the target's own functions and methods (by name): a per-sample path spread
    over helpers (`__getitem__` → `qrs.detect` → `integrate`) leads to its dataset as a direct call does. What the
    cache may take is judged afterwards, on everything `__getitem__` reaches (``Determinism``)."""
    short = hot_name.split(".")[-1]
    owner = hot_name.split(".")[-2] if "." in hot_name else None
    files = [hot_file] * (hot_file in modules) + [f for f in modules if f != hot_file]
    defined = _defined(modules)
    for file in files:
        for cls in (n for n in ast.walk(modules[file]) if isinstance(n, ast.ClassDef)):
            if method_of(cls, "__getitem__") is None:
                continue
            if (file == hot_file and cls.name == owner) or _reaches(cls, short, defined):
                return file, cls
    raise NotApplicable(f"no dataset class in the target has a __getitem__ that is or calls {hot_name}, directly "
                        "or through the target's own functions")


def reaches_function(node: ast.FunctionDef, short: str, modules: dict[str, ast.Module]) -> bool:
    """Whether ``node`` is, or calls through the target's own functions (`__call__`s too), a function named
    ``short``."""
    defined = _defined(modules)
    return node.name == short or _reaches(node, short, defined)


def _reaches(node: ast.AST, short: str, defined: dict[str, list[ast.FunctionDef]]) -> bool:
    """Whether ``node`` calls a function named ``short``, itself or through functions the target defines.

    A call of a name the target defines no function for may be a call of an instance of one of its
    classes (`self.align(rec, t)`, `self.transform(img)` with a Compose of transform objects): the
    `__call__` methods the target defines are followed then, so a hot `Compose.__call__` is reached by
    `self.transform(img)` although no code names `__call__`."""
    return any(short in _called_names(fn) or (fn is not node and fn.name == short) for fn in _reachable(node, defined))


def _is_draw(reason: str) -> bool:
    return "random draw" in reason or "a random generator" in reason


def _reachable(node: ast.FunctionDef, defined: dict[str, list[ast.FunctionDef]]) -> list[ast.FunctionDef]:
    """``node`` and every function of the target it calls, by name, through any chain (`__call__`s of the
    target's classes too, where a call names no function of it)."""
    found, todo, seen = [node], [node], set()
    while todo:
        for name in _called_names(todo.pop()):
            if name in defined:
                targets = defined[name]
            elif "__call__" in defined:
                targets, name = defined["__call__"], "__call__"
            else:
                continue
            if name not in seen:
                seen.add(name)
                found += targets
                todo += targets
    return found


def _called_names(node: ast.AST) -> set[str]:
    """The last name of every call (`fixes` of `TrackReader(log).fixes()` too)."""
    return {c.func.attr if isinstance(c.func, ast.Attribute) else dotted(c.func)
            for c in ast.walk(node) if isinstance(c, ast.Call)}


# Methods of lists, tuples, dicts, sets and strings that read and never change their object.
READ_METHODS = frozenset({
    "index", "count", "get", "keys", "values", "items", "copy", "startswith", "endswith", "find", "rfind",
    "split", "rsplit", "strip", "lstrip", "rstrip", "lower", "upper", "casefold", "join", "format", "replace",
    "partition", "rpartition", "isdigit", "isalpha", "isalnum", "isspace", "issubset", "issuperset",
    "isdisjoint", "union", "intersection", "difference", "__contains__", "__getitem__", "__len__",
})
# Calls that change a table: the memo's changing methods, and item assignment spelled as a call.
_MUTATORS = MUTATING_METHODS | {"__setitem__", "__delitem__"}
_BUILDERS = frozenset({"tuple", "list", "dict", "set", "frozenset", "sorted", "str", "range", "enumerate", "zip"})


def constant_table(name: str, import_paths: dict[str, str], modules: dict[str, ast.Module]) -> ast.expr | None:
    """The value of the module-level table `name` stands for, where it is one the target defines once and never
    changes; else None.

    `name` is imported from one of the target's modules (`from zones import BOROUGHS`, relatively too). The
    table is bound once at that module's top level to a literal, a comprehension or a builtin constructor of
    them (`tuple(...)`, `{z["id"]: z for z in ZONES}`), and no code of the target stores into it, deletes
    from it, calls a changing method on it (`.append`, `.update`, ...) or declares it `global`."""
    path = import_paths.get(name)
    if path is None:
        return None
    module, _, bound = path.rpartition(".")
    trees = [tree for file, tree in modules.items()
             if not module or file.removesuffix(".py").replace("/", ".").endswith(module)]
    values = [node.value for tree in trees for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
              and node.value is not None and any(isinstance(t, ast.Name) and t.id == bound
                                                 for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))]
    if len(values) != 1 or not _table_literal(values[0]):
        return None
    for tree in modules.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Global) and bound in node.names:
                return None
            target = node.value if isinstance(node, (ast.Subscript, ast.Attribute)) else None
            if isinstance(target, ast.Name) and target.id in (name, bound) and isinstance(node.ctx, (ast.Store, ast.Del)):
                return None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in (name, bound):
                return None
    return values[0]


def _assigned(target: ast.expr, value: ast.expr, attr: str) -> list[ast.expr]:
    """What `target = value` stores in `self.<attr>`: `value`, or its element where both are tuples of one length
    (`self.rows, self.transform = rows, transform`); [] where it stores nothing there, [target] where perfloop
    cannot tell what (an unpacked call: the target itself, which is no constructor call)."""
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return [value] if target.attr == attr else []
    if isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
                and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts)):
            return [v for t, e in zip(target.elts, value.elts) for v in _assigned(t, e, attr)]
        return [target] if any(_assigned(t, t, attr) for t in target.elts) else []
    return []


def _alternatives(expr: ast.expr, scope: list[ast.stmt], depth: int = 0) -> list[list[ast.expr]] | None:
    """The lists of objects `expr` may stand for, read in the scope `scope` (a function's body): a literal list or
    tuple (`*more` spliced), `a + b`, `a if c else b` (both), `list(a)`, a name the scope binds once to one of
    these; anything else is one object. None where a name cannot be read; at most 16 alternatives."""
    if depth > 8:
        return None
    if isinstance(expr, ast.Constant) and expr.value is None:
        return [[]]
    if isinstance(expr, ast.Name):
        sets = [n.value for stmt in scope for n in ast.walk(stmt) if isinstance(n, ast.Assign)
                and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == expr.id]
        return _alternatives(sets[0], scope, depth + 1) if len(sets) == 1 else None
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("list", "tuple") \
            and len(expr.args) == 1 and not expr.keywords:
        return _alternatives(expr.args[0], scope, depth + 1)
    if isinstance(expr, ast.IfExp):
        body, orelse = _alternatives(expr.body, scope, depth + 1), _alternatives(expr.orelse, scope, depth + 1)
        return None if body is None or orelse is None or len(body) + len(orelse) > 16 else body + orelse
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = _alternatives(expr.left, scope, depth + 1), _alternatives(expr.right, scope, depth + 1)
        if left is None or right is None or len(left) * len(right) > 16:
            return None
        return [a + b for a in left for b in right]
    if isinstance(expr, (ast.List, ast.Tuple)):
        found: list[list[ast.expr]] = [[]]
        for item in expr.elts:
            if isinstance(item, ast.Starred):
                more = _alternatives(item.value, scope, depth + 1)
            elif isinstance(item, ast.Name):
                single = _alternatives(item, scope, depth + 1)
                more = single if single is not None and all(len(s) == 1 for s in single) else None
            else:
                more = [[item]] if not (isinstance(item, ast.Constant) and item.value is None) else [[]]
            if more is None or len(found) * len(more) > 16:
                return None
            found = [a + b for a in found for b in more]
        return found
    return [[expr]]


def _table_literal(value: ast.expr) -> bool:
    """A literal container or string, a comprehension, a builtin constructor (`tuple(...)`) of such values, or a `+`
    or `*` of them (with a name on one side)."""
    if isinstance(value, ast.Call):
        return isinstance(value.func, ast.Name) and value.func.id in _BUILDERS and not value.keywords \
            and all(_table_literal(arg) or isinstance(arg, ast.Name) for arg in value.args)
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Mult)):
        # `["other"] + [name for name, _ in RULES]`, `[0] * 8`: a new container made of such values
        return all(_table_literal(side) or isinstance(side, ast.Name) for side in (value.left, value.right)) \
            and (_table_literal(value.left) or _table_literal(value.right))
    return isinstance(value, (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.DictComp,
                              ast.SetComp, ast.GeneratorExp))


class Determinism:
    """Walk `__getitem__` and what it calls in the target's files; refuse anything that may differ per access."""

    def __init__(self, cls: ast.ClassDef, file: str, modules: dict[str, ast.Module]) -> None:
        self.cls, self.file, self.modules = cls, file, modules
        self.methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
        self.top = {name: node for tree in modules.values() for node, name in functions(tree) if "." not in name}
        self.changing = self._attributes_set_outside_init()
        self.generators = self._generators()
        self.import_paths = import_paths(modules.values())
        self.imported = self._imported()
        self.own_modules = self._own_modules()
        self.seen: list[str] = []
        self.notes: list[str] = []
        self.current: ast.FunctionDef | None = None
        self.draws_only = False  # carried_draws: look past everything but random draws
        self.fresh = False  # an object the sample's code makes (`TrackReader(log).fixes()`): it may write itself
        # Methods of the class already judged by the caller (`chain_head`'s head and tail): None, it draws
        # nothing and reads nothing that changes; a string, why it may differ per access.
        self.known: dict[str, str | None] = {}

    def _attributes_set_outside_init(self) -> dict[str, str]:
        found = {}
        for name, method in self.methods.items():
            if name == "__init__":
                continue
            for node in ast.walk(method):
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                        and isinstance(node.value, ast.Name) and node.value.id == "self":
                    found.setdefault(node.attr, name)
        return found

    def _generators(self) -> dict[str, str]:
        """Attributes `__init__` sets to a random generator (`np.random.default_rng(...)`, `random.Random(...)`,
        `torch.Generator()`, ...): every use of one draws from state that moves on with each sample."""
        return init_generators(self.methods.get("__init__"))

    def check(self, fn: ast.FunctionDef, label: str) -> None:
        if label in self.seen:
            return
        self.seen.append(label)
        outer, self.current = self.current, fn
        try:
            self._check_body(fn, label)
        finally:
            self.current = outer

    def _check_body(self, fn: ast.FunctionDef, label: str) -> None:
        local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} | {
            n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for node in ast.walk(fn):
            try:
                self._check_node(node, fn, label, local)
            except NotApplicable as refused:
                if self.draws_only and not _is_draw(str(refused)):
                    continue
                raise

    def _check_node(self, node: ast.AST, fn: ast.FunctionDef, label: str, local: set[str]) -> None:
        where = f"{label} ({self.file}:{getattr(node, 'lineno', fn.lineno)})"
        if isinstance(node, (ast.Global, ast.Nonlocal)) or (
                isinstance(node, (ast.Yield, ast.YieldFrom)) and fn.name in ("__getitem__", "__getitems__")):
            raise NotApplicable(f"{where}: `{type(node).__name__.lower()}`: the sample may depend on more than "
                                "its index")
        # A helper that yields (`yield from flatten(item["children"])`) makes a new generator on each call,
        # which the sample's code runs through: its items follow from its arguments as a return value would.
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
                and not self.fresh:
            if isinstance(node.ctx, ast.Store):
                raise NotApplicable(f"{where}: writes self.{node.attr}: computing a sample changes the dataset")
            if node.attr in self.generators:
                raise NotApplicable(f"{where}: uses self.{node.attr}, a random generator "
                                    f"({self.generators[node.attr]}() in __init__): a cached sample would repeat "
                                    "the first epoch's draw")
            if node.attr in self.changing:
                raise NotApplicable(f"{where}: reads self.{node.attr}, which {self.changing[node.attr]}() "
                                    "changes: the sample may differ between epochs")
        if isinstance(node, ast.Call):
            self._call(node, where, local)

    def _call(self, call: ast.Call, where: str, local: set[str]) -> None:
        name = dotted(call.func)
        attr = call.func.attr if isinstance(call.func, ast.Attribute) else name
        if is_random_call(name) or RANDOM_CALL.search(attr.rstrip("_")):
            raise NotApplicable(f"{where}: random draw `{ast.unparse(call.func)}()`: a cached sample would "
                                "repeat the first epoch's draw")
        if IMPURE_CALL.search(name):
            raise NotApplicable(f"{where}: `{ast.unparse(call.func)}()` differs between calls")
        if isinstance(call.func, ast.Name):
            if name in self.top:
                self.check(self.top[name], name)
            elif (made := self._target_class(name) or self._own(name)) is not None:
                self._check_made(*made, None)  # `TrackReader(log)`, or `cls(...)`: its __init__ runs per sample
            elif name in local:
                # `for t in self.transforms: x = t(x)`: the objects the attribute holds, where the target makes them.
                attr = self._loop_over_self(name)
                if attr is None or not self._check_objects(self.held_objects(attr)):
                    raise NotApplicable(f"{where}: calls `{name}`, a value perfloop cannot read the code of")
            return  # a builtin or an imported name: its module is judged below when dotted
        base = call.func.value if isinstance(call.func, ast.Attribute) else None
        if isinstance(base, ast.Name) and base.id == "self":
            if attr in self.known:
                if self.known[attr] is not None:
                    raise NotApplicable(f"{where}: {self.known[attr]}")
                return
            if attr in self.methods:
                self.check(self.methods[attr], f"{self.cls.name}.{attr}")
                return
            if self._check_objects(self.held_objects(attr)):
                return
            raise NotApplicable(f"{where}: calls self.{attr}(), an object perfloop cannot read the code of "
                                "(a transform pipeline may draw random numbers)")
        made = self._made_here(base)
        if made is not None:
            # `TrackReader(log).fixes()`, or `reader = TrackReader(log)` then `reader.fixes()`: an object of the
            # target's own class made per sample; its __init__ and the method are read as the sample's code.
            if method_of(made[1], attr) is None:
                raise NotApplicable(f"{where}: calls {made[1].name}(...).{attr}(), which the class does not define "
                                    "(inherited): perfloop cannot read its code")
            self._check_made(*made, attr)
            return
        static = self._static_method(base, attr) or own_static(self.current, self.cls, self.file, self.modules, base, attr)
        if static is not None:
            # `RawFrameCodec.decode(buf)`: a static or class method of the target's own class, read as its code.
            self._check_in(*static, f"{static[1].name}.{attr}")
            return
        own = self.own_modules.get(dotted(base)) if base is not None else None
        if own is not None and attr in own:
            # `g711.decode(...)`: a module of the target itself, imported by name: its code is read.
            self.check(own[attr], f"{dotted(base)}.{attr}")
            return
        root = name.split(".")[0]
        resolved = self.import_paths.get(root, root) + name[len(root):]
        if resolved.startswith(PURE_MODULES) or name.startswith(PURE_MODULES) \
                or (base is not None and dotted(base) not in self.imported):
            # numpy/torch/math/... functions, or a method of a value computed here (x.mean(), text.split()).
            if name.startswith(("open", "np.load", "torch.load")) or attr in ("read", "open"):
                self.notes.append(f"{where}: reads a file; a cached sample assumes the file does not change")
            return
        if isinstance(base, ast.Name) and attr in READ_METHODS and constant_table(base.id, self.import_paths,
                                                                                  self.modules) is not None:
            return  # `BOROUGHS.index(b)`: a read of a table the target defines once and never changes
        raise NotApplicable(f"{where}: calls `{ast.unparse(call.func)}()` of another package, whose code "
                            "perfloop does not read")

    # objects the dataset calls (`self.transform(x)`): read where the target makes them -------------------
    def held_objects(self, attr: str) -> list[ast.Call] | None:
        """The constructor calls of the target's own classes that `self.<attr>` holds, or None if unknown.

        `__init__` sets it to `C(...)`, a list or tuple of them (a Compose's transforms, `list(transforms)` of
        a parameter too), or to one of its parameters; then every place the target's code constructs this
        class must pass such a value (or a name its function sets once to one, or None). Anything else is
        unknown."""
        lists = self.held_lists(attr)
        return None if lists is None else [call for calls in lists for call in calls]

    def held_lists(self, attr: str) -> list[list[ast.Call]] | None:
        """`held_objects` per value `self.<attr>` may hold, in order: one list per construction site and branch (a
        Compose's steps as the site lists them: `steps + [Flip()] if train else steps` gives two)."""
        init = self.methods.get("__init__")
        if init is None or any(isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.ctx, ast.Store)
                               and dotted(n.value) != "self" for tree in self.modules.values() for n in ast.walk(tree)):
            return None  # set from outside too (`dataset.transform = build_transform(cfg)`): unknown
        params = [a.arg for a in init.args.args] + ([init.args.vararg.arg] if init.args.vararg else [])
        values = [value for node in ast.walk(init) if isinstance(node, ast.Assign)
                  for target in node.targets for value in _assigned(target, node.value, attr)]
        if not values:
            return None
        found: list[list[ast.Call]] = []
        for value in values:
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("list", "tuple") \
                    and len(value.args) == 1 and not value.keywords:
                value = value.args[0]  # `self.transforms = list(transforms)`: the same objects
            sites = [(value, init.body)]
            if isinstance(value, ast.Name) and value.id in params:
                sites = self._passed(init, value.id)
            if sites is None:
                return None
            for expr, scope in sites:
                for items in _alternatives(expr, scope) or [None]:
                    if items is None or not all(isinstance(i, ast.Call) and self.callable_class(i) is not None
                                                for i in items):
                        return None
                    found.append(items)
        return found

    def _passed(self, init: ast.FunctionDef, param: str) -> list[tuple[ast.expr, list[ast.stmt]]] | None:
        """What the target passes for `param` wherever it constructs this class, with the body of the scope it
        does so in (None: a site is unreadable). A `*param` gets the tuple of the remaining positional arguments."""
        names = [a.arg for a in init.args.args]
        vararg = init.args.vararg is not None and init.args.vararg.arg == param
        index = len(names) - 1 if vararg else names.index(param) - 1  # after self
        defaults = dict(zip(names[-len(init.args.defaults):], init.args.defaults)) if init.args.defaults else {}
        found: list[tuple[ast.expr, list[ast.stmt]]] = []
        for tree in self.modules.values():
            for scope in [tree] + [fn for fn, _ in functions(tree)]:
                for call in (n for stmt in scope.body for n in ast.walk(stmt) if isinstance(n, ast.Call)):
                    if dotted(call.func).split(".")[-1] != self.cls.name:
                        continue
                    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                        return None
                    if vararg:
                        given = ast.Tuple(elts=call.args[index:], ctx=ast.Load())
                    else:
                        given = next((k.value for k in call.keywords if k.arg == param), None)
                        if given is None and 0 <= index < len(call.args):
                            given = call.args[index]
                        if given is None:
                            given = defaults.get(param)
                    if given is None:
                        return None
                    found.append((given, scope.body))
        return found or None

    def callable_class(self, call: ast.Call) -> tuple[str, ast.ClassDef, ast.FunctionDef] | None:
        """(file, class, its __call__) of the target's own class that `call` constructs, else None."""
        name = dotted(call.func).split(".")[-1]
        for file, tree in self.modules.items():
            for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name):
                method = method_of(cls, "__call__")
                if method is not None:
                    return file, cls, method
        return None

    def _check_objects(self, calls: list[ast.Call] | None) -> bool:
        """Check the `__call__` of every object in `calls` as part of the sample (False: unknown objects)."""
        if calls is None:
            return False
        for call in calls:
            file, cls, method = self.callable_class(call)
            self._check_in(file, cls, method, f"{cls.name}.__call__")
        return True

    def _check_in(self, file: str, cls: ast.ClassDef, method: ast.FunctionDef, label: str) -> None:
        """Check `method` of another class of the target as part of this sample (what it has seen and noted is
        this walk's)."""
        sub = Determinism(cls, file, self.modules)
        sub.seen, sub.notes, sub.draws_only = self.seen, self.notes, self.draws_only
        sub.check(method, label)

    def _target_class(self, name: str) -> tuple[str, ast.ClassDef] | None:
        """(file, class) where `name` is a class the target defines once under that name, imported from one of its
        own modules (or defined beside the caller)."""
        found = [(file, cls) for file, tree in self.modules.items() for cls in tree.body
                 if isinstance(cls, ast.ClassDef) and cls.name == name]
        if len(found) != 1:
            return None
        file, cls = found[0]
        path = self.import_paths.get(name)
        module = file.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        if path is not None and path != name and not module.endswith(path.rpartition(".")[0]):
            return None  # the name is imported from somewhere else
        return file, cls

    def _made_here(self, base: ast.expr | None) -> tuple[str, ast.ClassDef] | None:
        """The target's class of `base` where it is made here: `Cls(...)`, or a name the function being checked
        binds only to `Cls(...)` of one class."""
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name):
            return self._target_class(base.func.id) or self._own(base.func.id)
        if not isinstance(base, ast.Name) or self.current is None:
            return None
        stores = [n for n in ast.walk(self.current) if isinstance(n, ast.Name) and n.id == base.id
                  and isinstance(n.ctx, ast.Store)]
        values = [n.value for n in ast.walk(self.current) if isinstance(n, ast.Assign) and len(n.targets) == 1
                  and isinstance(n.targets[0], ast.Name) and n.targets[0].id == base.id]
        calls = [v.func.id for v in values if isinstance(v, ast.Call) and isinstance(v.func, ast.Name)]
        made = stores and len(calls) == len(values) == len(stores) and len(set(calls)) == 1
        return (self._target_class(calls[0]) or self._own(calls[0])) if made else None

    def _check_made(self, file: str, cls: ast.ClassDef, attr: str | None) -> None:
        """Check `cls.__init__` and its method `attr` as the sample's code, on an object made per sample (it may
        write itself; the draws and the packages it calls are judged as everywhere)."""
        sub = Determinism(cls, file, self.modules)
        sub.seen, sub.notes, sub.draws_only, sub.fresh = self.seen, self.notes, self.draws_only, True
        for name in ("__init__", attr):
            if name is not None and (method := method_of(cls, name)) is not None:
                sub.check(method, f"{cls.name}.{name}")

    def _static_method(self, base: ast.expr | None, attr: str) -> tuple[str, ast.ClassDef, ast.FunctionDef] | None:
        """(file, class, method) where `base.attr` names a `@staticmethod` or `@classmethod` of a class the target
        defines once under that name, imported from one of its own modules (or defined beside the caller)."""
        found = self._target_class(base.id) if isinstance(base, ast.Name) else None
        if found is None:
            return None
        file, cls = found
        method = method_of(cls, attr)
        if method is None or not decorated(method, ("staticmethod", "classmethod")):
            return None
        return file, cls, method

    def _own(self, name: str) -> tuple[str, ast.ClassDef] | None:
        return own_class(self.current, self.cls, self.file, self.modules, name)

    def _loop_over_self(self, name: str) -> str | None:
        """`attr` when the function being checked binds `name` only by `for name in self.attr`."""
        fn = self.current
        loops = [n for n in ast.walk(fn) if isinstance(n, (ast.For, ast.comprehension))
                 and isinstance(n.target, ast.Name) and n.target.id == name] if fn is not None else []
        other = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name
                 and isinstance(n.ctx, ast.Store)] if fn is not None else []
        if len(loops) != 1 or len(other) != 1:
            return None
        it = loops[0].iter
        if isinstance(it, ast.Attribute) and isinstance(it.value, ast.Name) and it.value.id == "self":
            return it.attr
        return None

    def _own_modules(self) -> dict[str, dict[str, ast.FunctionDef]]:
        """The target's own modules by the name the files call them by (`import g711`, `import a.b as c`,
        `from a import b`), each with its module-level functions."""
        by_dotted = {path.removesuffix(".py").replace("/", "."): tree for path, tree in self.modules.items()}
        found: dict[str, dict[str, ast.FunctionDef]] = {}
        for file, tree in self.modules.items():
            for node in tree.body:
                pairs = []
                if isinstance(node, ast.Import):
                    pairs = [(alias.asname or alias.name, alias.name) for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    pairs = [(alias.asname or alias.name, f"{node.module}.{alias.name}") for alias in node.names]
                elif isinstance(node, ast.ImportFrom):  # `from . import codec` in audio/data.py: audio.codec
                    package = file.removesuffix(".py").split("/")[:-node.level]
                    prefix = ".".join(package + ([node.module] if node.module else []))
                    pairs = [(alias.asname or alias.name, f"{prefix}.{alias.name}".lstrip(".")) for alias in node.names]
                for bound, name in pairs:
                    module = by_dotted.get(name)
                    if module is not None:
                        found[bound] = {n.name: n for n in module.body if isinstance(n, ast.FunctionDef)}
        return found

    def _imported(self) -> set[str]:
        return set(self.import_paths)
