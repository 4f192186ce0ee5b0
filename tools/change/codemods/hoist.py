"""Move what every step recomputes out of the training loop (per_step_python_overhead, offline).

Training loops often recompute, each step, a value that cannot change between steps: class weights
from the dataset's labels, an identity matrix for one-hot targets, a normalisation's mean and std, a
lookup table. This codemod moves such statements from the top level of the training loop's body to
just before the loop, or before an enclosing epoch loop when they stay the same there too:

    for x, y in loader:                              weights = class_weights(train_labels)
        weights = class_weights(train_labels)   ->   for x, y in loader:
        loss = F.cross_entropy(out, y, weight=weights)   loss = F.cross_entropy(out, y, weight=weights)

A statement leaves a loop only when all of this holds (`_Hoist.invariant`):

- it binds plain names (`a = ...`, `a, b = ...`) at the top level of the loop's body;
- every call in it computes from its arguments only (`_Calls`): a numpy/torch/math/... function,
  judged by the module its name was imported from, that is not a random draw, the clock, or a
  function writing into an argument (`out=`, `np.copyto`, a name ending in `_`); a read-only builtin;
  a method returning a new value (`.float()`, `.sum()`, `.tolist()`, ...); or a function of the
  target's own files whose body passes the same test, changes no argument and no global, and whose
  module-level reads count as the statement's;
- nothing it reads is bound in the loop, and the loop only reads it: each name it reads, and every
  name the loop computes from one, is used in the loop as an operand, an index or an argument of a
  reading call (reorder.plain_read), never stored into, called, or handed to other code; no method
  of the target's classes but `__init__` sets or changes an attribute it reads (`ds.labels`);
- the names it binds are bound in the loop by it alone, read neither by the loop's header nor before
  it in the body nor anywhere outside the loop, and the loop only reads their value (so one object
  serves every step where each step had a fresh one).

What the loop computes is the same, so data, loss and logged values stay bit-identical (verify
checks all three). If the loop runs no step the moved work still runs once: only its time is added.
Statements without a call or a comprehension are moved only when a moved statement reads them.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable
from perfloop.tools.change.codemods.hot_function import functions, python_files
from perfloop.tools.change.codemods.imports import import_paths
from perfloop.tools.change.codemods.loop_checks import GENERATOR_CALL, IMPURE_CALL, PURE_MODULES, RANDOM_CALL
from perfloop.tools.change.codemods.loops import dotted
from perfloop.tools.change.codemods.reorder import (
    FRESH_ATTRS,
    READS_ONLY,
    WRITES_INTO,
    comprehension_names_apart,
    plain_read,
)
from perfloop.tools.change.codemods.training_step import one_step

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
                          "defaultdict", "OrderedDict", "copy", "clone", "tolist", "deepcopy", "bytearray"})
_FRESH_NODES = (ast.Constant, ast.List, ast.Dict, ast.Set, ast.Tuple, ast.ListComp, ast.DictComp, ast.SetComp,
                ast.GeneratorExp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.JoinedStr)
# Module functions whose result may share memory with an argument.
_VIEW_FUNCTIONS = frozenset({"asarray", "asanyarray", "as_tensor", "from_numpy", "reshape", "ravel", "squeeze",
                             "unsqueeze", "transpose", "swapaxes", "moveaxis", "permute", "narrow", "select", "expand",
                             "broadcast_to", "atleast_1d", "atleast_2d", "atleast_3d", "flatten", "split", "chunk",
                             "unbind", "tensor_split", "array_split", "hsplit", "vsplit", "diagonal", "real", "imag",
                             "detach", "view_as_real", "view_as_complex", "frombuffer", "squeeze_copy"})
MARK = "# perfloop: moved out of the training loop (the same value every step)"


def hoist_step_invariants(ctx: CodemodContext) -> CodemodResult:
    """Move the training loop's per-step statements that compute the same value every step before the loop."""
    files = python_files(ctx.root)
    step = one_step(ctx, files, "hoist_step_invariants")
    if step.loop is None:
        raise NotApplicable("hoist_step_invariants: the training step is in no loop of its file")
    file = step.src.rel
    text = (ctx.root / file).read_text()
    modules = {}
    for rel in files:
        try:
            modules[rel] = ast.parse((ctx.root / rel).read_text())
        except (SyntaxError, UnicodeDecodeError):
            continue
    tree = modules.get(file) or ast.parse(text)
    hoist = _Hoist(tree, step.src.line(step.loop), modules)
    moves = hoist.moves()
    if not moves:
        raise NotApplicable(f"hoist_step_invariants: no statement of the training loop ({file}:{hoist.loops[0].lineno}) "
                            "computes the same value every step by what perfloop can show: "
                            + ("; ".join(hoist.refusals[:4]) or "none binds a name from a call"))
    new_text = _splice(text, moves, hoist.loops)
    moved = [f"{file}:{stmt.lineno} `{ast.unparse(stmt)[:60]}`" for stmt, _ in moves]
    first = min(stmt.lineno for stmt, _ in moves)
    return CodemodResult(
        files={file: new_text},
        summary=f"move {len(moves)} statement(s) that give the same value every step out of the training loop "
                f"({file}:{hoist.loops[0].lineno})",
        knob="loop-invariant statements", old_value="computed every step",
        new_value="computed once, before the loop", location=f"{file}:{first}",
        notes=[f"moved: {', '.join(moved)}",
               "each reads nothing the loop binds or changes, calls only code that computes from its arguments, "
               "and its names are only read in the loop; data, loss and logged values stay bit-identical",
               *[f"left in the loop: {why}" for why in hoist.refusals[:6]]],
    )


class _Hoist:
    """The training loop, the loops around it up to its function or module, and what may leave them."""

    def __init__(self, tree: ast.Module, loop_line: int, modules: dict[str, ast.Module]) -> None:
        self.parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
        inner = next((n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While)) and n.lineno == loop_line), None)
        if inner is None:
            raise NotApplicable(f"hoist_step_invariants: no loop at line {loop_line} of the training step's file")
        self.loops, node = [inner], inner
        while (node := self.parents.get(node)) is not None and not isinstance(node, (ast.FunctionDef,
                                                                                      ast.AsyncFunctionDef,
                                                                                      ast.ClassDef, ast.Lambda)):
            if isinstance(node, (ast.For, ast.While)):
                self.loops.append(node)
        self.scope = node if node is not None else tree
        self.calls = _Calls(modules)
        own = _local_names(self.scope) if isinstance(self.scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else set()
        self.values = (own | self.calls.module_names) - set(self.calls.paths) - set(self.calls.top) \
            - set(self.calls.classes)
        self.refusals: list[str] = []

    def moves(self) -> list[tuple[ast.stmt, int]]:
        """(statement, index in self.loops of the outermost loop it leaves), in body order. Each move is made in
        the tree as it is found, so later statements are judged against the loop as it will be."""
        found: list[tuple[ast.stmt, int]] = []
        inner = self.loops[0]
        for stmt in list(inner.body):
            if not (isinstance(stmt, ast.Assign) and all(_plain_targets(t) for t in stmt.targets)):
                continue
            each_step = {n.id for k, u in enumerate(_units(inner)) if u is not stmt for n in ast.walk(_apart(u, k))
                         if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            if _loaded(stmt) & each_step:
                continue  # computed from the step's own values: per-step work by nature, not worth a note
            why, level = self.calls.refusal(stmt), -1
            if why is None:
                for outer in range(len(self.loops)):
                    if (problem := self.invariant(stmt, outer)) is not None:
                        why = problem if level < 0 else None
                        break
                    level = outer
            if level >= 0:
                found.append((stmt, level))
                self._move(stmt, level)
            elif why and _does_work(stmt):
                self.refusals.append(f"line {stmt.lineno} `{ast.unparse(stmt)[:50]}`: {why}")
        return _worth_moving(found)

    def invariant(self, stmt: ast.Assign, level: int) -> str | None:
        """None when `stmt` (in the training loop's body) gives the same value on every pass of
        self.loops[level], else why not."""
        loop, inner = self.loops[level], self.loops[0]
        units = [_apart(u, k) for k, u in enumerate(_units(loop)) if u is not stmt]
        if any(isinstance(n, (ast.Global, ast.Nonlocal, ast.NamedExpr, ast.Delete)) for u in units for n in ast.walk(u)):
            return "the loop has a `global`, `nonlocal`, `del` or `:=`"
        binds = _stored(stmt)
        # Values only: modules, functions, classes and builtins are not what a loop changes.
        reads = {n for n in _loaded(stmt) if n in self.values or n.startswith("self.")} | self.calls.globals_read(stmt)
        stores = {n.id for u in units for n in ast.walk(u) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if bound := sorted(reads & stores):
            return f"reads {', '.join(bound)}, which the loop binds"
        if again := sorted(binds & stores):
            return f"{', '.join(again)} is bound elsewhere in the loop too"
        header = [inner.test] if isinstance(inner, ast.While) else [inner.target, inner.iter]
        early = header + inner.body[:inner.body.index(stmt)]
        if seen := sorted(binds & {n.id for s in early for n in ast.walk(s) if isinstance(n, ast.Name)}):
            return f"{', '.join(seen)} is read in the loop before this statement"
        if elsewhere := sorted(binds & self._mentioned_outside(loop)):
            return f"{', '.join(elsewhere)} is used outside the loop too"
        scope = [_apart(u, k) for k, u in enumerate(
            unit for top in self.scope.body for unit in _units(top)) if u is not stmt]
        changed = _changed_in(units, scope, self.calls) | self.calls.changed_globals
        if "self" in changed:  # the object itself handed on: any of its attributes may change
            changed |= {name for name in reads if name.startswith("self.")}
        if touched := sorted((reads | binds) & changed):
            return f"the loop may change {', '.join(touched)} (stored into, called or handed to other code)"
        if attrs := sorted(_attributes_read(stmt) & self.calls.changed_attributes):
            return f"reads .{', .'.join(attrs)}, which a method other than __init__ sets or changes"
        if held := sorted(reads & self._handed_outside(loop)):
            return f"{', '.join(held)} is handed to code that may keep and change it (outside the loop)"
        return None

    def _move(self, stmt: ast.stmt, level: int) -> None:
        """Move `stmt` in the tree, from the training loop's body to just before self.loops[level]."""
        self.loops[0].body.remove(stmt)
        loop = self.loops[level]
        block = next(b for b in _blocks(self.parents.get(loop, self.scope)) if loop in b)
        block.insert(block.index(loop), stmt)
        self.parents[stmt] = self.parents.get(loop, self.scope)

    def _mentioned_outside(self, loop: ast.AST) -> set[str]:
        inside = {id(n) for n in ast.walk(loop)}
        return {n.id for n in ast.walk(self.scope) if isinstance(n, ast.Name) and id(n) not in inside}

    def _handed_outside(self, loop: ast.AST) -> set[str]:
        """Names the scope hands, outside `loop`, to code that may keep them and change them later: a call of
        code perfloop does not read, or of a target class some method of which changes its own attributes."""
        inside = {id(n) for n in ast.walk(loop)}
        found = set()
        for call in (n for n in ast.walk(self.scope) if isinstance(n, ast.Call) and id(n) not in inside):
            if self.calls.keeps_nothing(call):
                continue
            found |= {n.id for a in [*call.args, *(k.value for k in call.keywords)] for n in ast.walk(a)
                      if isinstance(n, ast.Name)}
        return found


class _Calls:
    """Which calls compute from their arguments only, in the target's files (see the module docstring)."""

    def __init__(self, modules: dict[str, ast.Module]) -> None:
        self.paths = import_paths(modules.values())
        self.top = {name: node for tree in modules.values() for node, name in functions(tree) if "." not in name}
        self.module_names = {t.id for tree in modules.values() for s in tree.body
                             if isinstance(s, (ast.Assign, ast.AnnAssign))
                             for target in (s.targets if isinstance(s, ast.Assign) else [s.target])
                             for t in ast.walk(target) if isinstance(t, ast.Name)}
        self.changed_attributes = _attributes_changed_by_methods(modules.values())
        self.classes = {n.name: n for tree in modules.values() for n in tree.body if isinstance(n, ast.ClassDef)}
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

    def is_module(self, node: ast.AST) -> bool:
        """Whether `node` names an imported module or name (`np`, `torch.nn`), not a value."""
        root = dotted(node).split(".")[0]
        return bool(root) and root in self.paths

    def keeps_nothing(self, call: ast.Call) -> bool:
        """Whether `call` cannot keep its arguments to change them later: a reading builtin or module function, a
        function of the target that changes no argument, a target class none of whose methods but `__init__`
        changes its attributes, a method returning a new value."""
        name = dotted(call.func)
        root = name.split(".")[0]
        if isinstance(call.func, ast.Name) and (name in READS_ONLY or self.pure_function(name)):
            return True
        if name in self.classes:
            return not _attributes_changed_by_methods([ast.Module(body=[self.classes[name]], type_ignores=[])])
        if name and (self.paths.get(root, root) + name[len(root):]).startswith(PURE_MODULES):
            return not WRITES_INTO.search(name) and not any(k.arg == "out" for k in call.keywords)
        return isinstance(call.func, ast.Attribute) and call.func.attr in NEW_VALUE_METHODS

    def _globals_changed(self, modules) -> set[str]:
        """Module-level names some function of the target rebinds (`global`) or changes (`HISTORY.append(v)`)."""
        found = set()
        for tree in modules:
            for fn, _ in functions(tree):
                found |= {name for n in ast.walk(fn) if isinstance(n, ast.Global) for name in n.names}
                parents = {c: p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
                local = _local_names(fn)
                found |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id in self.module_names
                          and n.id not in local and not _read_only(n, parents, self)}
        return found

    def pure_function(self, name: str) -> bool:
        return name in self.top and self._function(name) is None

    def _call(self, call: ast.Call) -> str | None:
        name = dotted(call.func)
        shown = ast.unparse(call.func)[:40]
        attr = call.func.attr if isinstance(call.func, ast.Attribute) else name
        if RANDOM_CALL.search(name) or ".random." in f".{name}." or IMPURE_CALL.search(name) \
                or GENERATOR_CALL.search(name):
            return f"`{shown}()` draws random numbers or reads the clock"
        if any(k.arg == "out" for k in call.keywords) or WRITES_INTO.search(name):
            return f"`{shown}()` writes into an argument"
        if isinstance(call.func, ast.Name):
            if name in self.top:
                why = self._function(name)
                return None if why is None else f"calls {name}(), which {why}"
            return None if name in READS_ONLY else f"calls `{shown}()`, whose code perfloop does not read"
        root = name.split(".")[0]
        resolved = self.paths.get(root, root) + name[len(root):]
        if name and (resolved.startswith(PURE_MODULES) or name.startswith(PURE_MODULES)):
            return None
        if attr in NEW_VALUE_METHODS:
            return None
        return f"`{shown}()` may change its object or read state perfloop cannot see"

    def _function(self, name: str) -> str | None:
        """None when the target's function `name` computes from its arguments only (module docstring)."""
        if name in self._verdicts:
            return self._verdicts[name]
        self._verdicts[name] = None  # a recursive call is judged by the rest of the body
        fn = self.top[name]
        why = _function_refusal(fn, self)
        reads = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        self._globals[name] = (reads & self.module_names) - _local_names(fn)
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
            if dotted(call.func) in self.top and dotted(call.func) != name:
                self._globals[name] |= self._globals.get(dotted(call.func), set())
        self._verdicts[name] = why
        return why


def _function_refusal(fn: ast.FunctionDef, calls: _Calls) -> str | None:
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


def _changed_in(loop_units: list[ast.AST], scope_units: list[ast.AST], calls: _Calls) -> set[str]:
    """Names the loop uses other than as a read, and every name such a name may be a view or an item of, by
    the bindings anywhere in the scope (`y = labels[i]` then `y += 1` in the loop changes labels)."""
    changed: set[str] = set()
    for unit in loop_units:
        parents = {child: parent for parent in ast.walk(unit) for child in ast.iter_child_nodes(parent)}
        changed |= {n.id for n in ast.walk(unit) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                    and not _read_only(n, parents, calls)}
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


def _shares(value: ast.AST, calls: _Calls) -> set[str]:
    """Names whose objects `value` may be, or be a view or an item of: itself for a name, the base of an
    attribute or subscript, a container display's items, the receiver of a method other than one returning a
    new value (`.float()` may return its tensor), the arguments of a view function (`np.asarray`, `torch.as_tensor`,
    `reshape`) or of the target's own functions. A numpy/torch function's or arithmetic's result is new.
    Objects kept inside other objects (a dataset holding the labels) are not followed: verify's checks of every
    batch, the loss and the logged values are what would see a change made through them."""
    if isinstance(value, ast.Name):
        return {value.id}
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


def _read_only(node: ast.AST, parents: dict, calls: _Calls) -> bool:
    """Whether this use of a name only reads it: reorder.plain_read, an argument of the target's own function
    that changes no argument, or an item of a comprehension's result or of a returned value (read here; where
    the new value goes is judged by the names bound to it, see _shares)."""
    if plain_read(node, parents) or _handed_to_pure(node, parents, calls):
        return True
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


def _handed_to_pure(node: ast.Name, parents: dict, calls: _Calls) -> bool:
    """An argument of a call of the target's own function that changes no argument."""
    parent = parents.get(node)
    if isinstance(parent, ast.keyword):
        parent = parents.get(parent)
    return isinstance(parent, ast.Call) and parent.func is not node and calls.pure_function(dotted(parent.func))


def _attributes_changed_by_methods(modules) -> set[str]:
    """Attribute names a method other than `__init__` stores or changes on `self`, in the target's classes."""
    found = set()
    for tree in modules:
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            for method in (m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name != "__init__"):
                parents = {c: p for p in ast.walk(method) for c in ast.iter_child_nodes(p)}
                for node in ast.walk(method):
                    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                            and node.value.id == "self" and not plain_read(node, parents):
                        found.add(node.attr)
    return found


def _attributes_read(stmt: ast.stmt) -> set[str]:
    return {n.attr for n in ast.walk(stmt) if isinstance(n, ast.Attribute)}


def _base_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _local_names(fn: ast.FunctionDef) -> set[str]:
    return {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} | {
        n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _plain_targets(target: ast.AST) -> bool:
    return isinstance(target, ast.Name) or (isinstance(target, (ast.Tuple, ast.List))
                                            and all(isinstance(e, ast.Name) for e in target.elts))


def _stored(stmt: ast.stmt) -> set[str]:
    """Names `stmt` binds, leaving out each comprehension's own names."""
    return {n.id for n in ast.walk(_apart(stmt, 0)) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            and "@" not in n.id}


class _SelfAttributes(ast.NodeTransformer):
    """`self.x` as one name, "self.x": a trainer's attributes are values of their own (`self.model(x)` in the loop
    changes self.model, not self.dim); what a method changes is judged by _attributes_changed_by_methods."""

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            return ast.copy_location(ast.Name(id=f"self.{node.attr}", ctx=node.ctx), node)
        return self.generic_visit(node)


def _apart(unit: ast.AST, tag: int) -> ast.AST:
    """A copy of `unit` with each comprehension's names its own and `self.x` as one name."""
    return _SelfAttributes().visit(comprehension_names_apart(unit, tag))


def _loaded(stmt: ast.stmt) -> set[str]:
    """Names `stmt` reads (`self.x` as one), leaving out each comprehension's own names."""
    apart = _apart(stmt, 0)
    return {n.id for n in ast.walk(apart) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and "@" not in n.id}


def _units(node: ast.AST) -> list[ast.AST]:
    """The loop's code as units a name flows through: each simple statement, and each compound statement's
    header as an assignment (`for x in xs` binds x from xs; `with f() as h` binds h) or an expression."""
    if isinstance(node, (ast.For, ast.AsyncFor)):
        head = [ast.Assign(targets=[node.target], value=node.iter)]
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
    return head + [unit for block in _blocks(node) for child in block for unit in _units(child)]


def _blocks(node: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists directly under `node`: a body, an else, handlers' bodies, cases' bodies."""
    blocks = [getattr(node, name) for name in ("body", "orelse", "finalbody") if isinstance(getattr(node, name, None), list)]
    blocks += [h.body for h in getattr(node, "handlers", [])] + [c.body for c in getattr(node, "cases", [])]
    return blocks


def _does_work(stmt: ast.stmt) -> bool:
    return any(isinstance(n, (ast.Call, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp))
               for n in ast.walk(stmt.value))


def _worth_moving(found: list[tuple[ast.stmt, int]]) -> list[tuple[ast.stmt, int]]:
    """The moves that do work, and the plain ones those read (`n = K` before `w = f(n)`)."""
    keep: list[tuple[ast.stmt, int]] = []
    needed: set[str] = set()
    for stmt, level in reversed(found):
        if _does_work(stmt) or _stored(stmt) & needed:
            keep.append((stmt, level))
            needed |= _loaded(stmt)
    return list(reversed(keep)) if any(_does_work(s) for s, _ in keep) else []


def _splice(text: str, moves: list[tuple[ast.stmt, int]], loops: list[ast.AST]) -> str:
    """Cut each moved statement's lines out of the loop and put them, dedented, before the loop they leave."""
    lines = text.splitlines(keepends=True)
    cut: set[int] = set()
    before: dict[int, list[str]] = {}
    for stmt, level in moves:
        loop = loops[level]
        shift = stmt.col_offset - loop.col_offset
        chunk = lines[stmt.lineno - 1:stmt.end_lineno]
        head, tail = lines[stmt.lineno - 1].encode(), lines[stmt.end_lineno - 1].encode()  # offsets are in bytes
        rest = tail[stmt.end_col_offset:].decode(errors="replace").strip()
        if any(line.strip() and not line.startswith(" " * shift) for line in chunk) \
                or head[:stmt.col_offset].strip() or (rest and not rest.startswith("#")):
            raise NotApplicable(f"hoist_step_invariants: line {stmt.lineno} shares its lines with other code or is "
                                "not indented with spaces: it cannot be moved as whole lines")
        cut.update(range(stmt.lineno - 1, stmt.end_lineno))
        where = before.setdefault(loop.lineno - 1, [" " * loop.col_offset + MARK + "\n"])
        where.extend(line[shift:] if line.strip() else line for line in chunk)
    out = []
    for number, line in enumerate(lines):
        out.extend(before.get(number, []))
        if number not in cut:
            out.append(line)
    return "".join(out)
