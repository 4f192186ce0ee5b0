"""Remember a pure helper's results per argument: `memoize_pure_helper`.

A per-sample path often calls one small function many times with arguments that repeat: a
tokenizer's per-word `wordpiece(word)`, a parser's per-token `parse_field(tok)`, a lookup
`code_to_features(code)`. When that function computes from its arguments alone, its result for
an argument it has seen can be handed out again. The codemod picks, among the profile's hot
function, the helpers it sampled under it and then the rest of the per-sample path it sampled (the hot
function's callers: a memo of a per-word `word_trigrams(word)` saves the byte loop of the hash it calls per
trigram, where a memo of that hash costs what it saves), in the target's files, the first module-level function
(or method) that reads as pure, renames it `_<name>_uncached`, and puts a function of the old name in
its place that looks the arguments up in a dict first. Functions called per element (in a loop or
comprehension of any function of their files) come first: their arguments repeat within an epoch, where
the caller's (a whole, perhaps augmented, text) may never repeat. Among those, one that calls another of
them outside loops over parts of its own arguments comes before it: a per-word `porter_stem(word)` before
the `_measure(stem)` it calls in loops over fixed suffix tables (its memo saves the callee's work too, where
a memo of a cheap callee alone costs more than it saves), while `encode(text)` stays behind the
`wordpiece(word)` it calls per word of the text. Where replay refuses the one chosen, the proposer asks
again with it in ``params["skip"]`` (agent/proposers/codemod.py, MEMO_TRIES). A candidate the profile saw on the stack in
under a tenth of its phase goes last (`hot_function.small_shares_last`): a memo saves at most the time under it.

With ``params["target"] == "main"`` (`memoize_step_helper`) the candidates are the training loop's own sampled
functions in the target's files (ProfileFacts.main_hot_functions, by inclusive time) instead of the per-sample
path: a metric callback that recomputes, every step, a curve of a cohort that never changes. Its replay captures
three steps and refuses a memo whose calls never repeat an argument (``ReplayTarget.per_step``).

Safety, by construction and then by evidence:
- Pure by reading: no random draws, no clock, no `global`/`nonlocal`, no `yield`, no writes to
  anything but its own local names (no `x[i] = ...` or `x.attr = ...` on a name it did not
  bind), no calls other than the target's own pure functions, builtins that compute, methods of
  values it computed or was given, and modules that compute from their arguments (numpy, math,
  re, ...; a name bound by `from <module> import` is judged as that module's). Built-in exceptions are
  made to be raised, and a call that raises is not remembered. `.time()` of a value (`stamp.time()`,
  `datetime.min.time()`) is a datetime's time of day; on the `time` module, under any name, it is the clock.
  Refused otherwise, naming the construct.
- Keys are exact: only arguments that are str, bytes, int, bool, None, float (keyed by its bits,
  so -0.0 and 0.0, 1 and 1.0 and True stay apart), dates, times, datetimes and timedeltas (every field, the fold,
  and the zone: an aware datetime equals one of another zone at the same instant) and tuples/frozensets of them
  are remembered; lists of them
  and numpy arrays of numbers too, by their contents, where nothing the function runs can change an object it
  was given (`kept_arguments.py`); any other argument (a tensor, an object) calls the original, as before.
- An object of one of the target's classes that nothing changes once its `__init__` returns (`frozen.py`: a
  vocabulary whose `itos` and `stoi` only its constructor builds and only its methods read) keys by its class and
  its fields' contents, read once per object (`memo_runtime._memo_state_key`; the file gains `_MEMO_FROZEN`).
- A function an earlier memo wrapped is judged by the original it renamed, and the memo's own helpers as pure:
  the caller of a remembered helper can be remembered in turn.
- Results are handed out as copies where they could be changed by the caller: lists, dicts and
  sets are rebuilt, arrays and tensors copied, immutable values shared (the builtin scalars, and `datetime`,
  `Decimal`, `Fraction` and `UUID` values, which a deep copy once made as dear as a parse). Each part of a result
  is judged once, when stored: a tuple nothing can change is handed out as the one object, a list or dict of
  such items copied in one call (memo_runtime.py, where the cost of a hit is measured).
- At most 2**18 results are kept; past that, new arguments are computed every time.
- A method's call of an object its class's `__init__` made from a class of the same file (`self.bandpass(x)`
  after `self.bandpass = BandPass(...)`) is read in that class's `__call__`, as the method's own helpers are.
- Then replay (the function on captured real calls, old against new; it must be at least x2 faster
  there, where each call is timed over several rounds: `agent/proposers/codemod.py`,
  MEMO_MIN_REPLAY_SPEEDUP) and the pipeline runs
  (every batch, loss and side output compared) decide: a helper that reads state which changes
  between calls (a vocabulary that grows) shows a changed batch there and is rejected.
- A function no other of the path calls per element, directly or through its callers (``ReplayTarget.per_element``
  False), whose captured calls never
  repeat an argument serves per record, from the second epoch: the proposer declares so, and verify times it
  there (agent/proposers/codemod.py, ``_per_record``).
"""
from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable, ReplayTarget
from perfloop.tools.change.codemods.frozen import frozen_in_target
from perfloop.tools.change.codemods.hot_function import (
    called_per_element,
    functions_in_target,
    helpers_in_target,
    load_hot_function,
    path_in_target,
    qualname_of,
    small_shares_last,
)
from perfloop.tools.change.codemods.imports import add_import, after_imports_text, import_paths
from perfloop.tools.change.codemods.kept_arguments import MUTATING_METHODS, changes_what_it_was_given
from perfloop.tools.change.codemods.loop_checks import IMPURE_CALL, PURE_MODULES, RANDOM_CALL, is_random_call
from perfloop.tools.change.codemods.loops import dotted, name_apart
from perfloop.tools.change.codemods.memo_runtime import HELPER_SOURCE, HELPERS
from perfloop.tools.change.codemods.record_types import record_constructors

MAX_ENTRIES = 1 << 18
"""Results kept per function; arguments first seen after that are computed every time."""
MAX_DATA_ENTRIES = 1 << 14
"""... for a memo keyed on lists and arrays too (keys of up to 16 KiB each: `memo_runtime._memo_key_data`)."""
UNCACHED = "_{name}_uncached"  # the name without its leading underscores: `_stats` gives `_stats_uncached`
"""What the original function is renamed to."""
MEMO = "_{name}_memo"
"""The module-level dict of remembered results."""

# Builtins that compute from their arguments only (broader than loop_checks.PURE_BUILTINS, which lists what the
# element-wise translator reads).
COMPUTING_BUILTINS = frozenset({
    "abs", "all", "any", "bool", "bytes", "chr", "dict", "divmod", "enumerate", "filter", "float", "format",
    "frozenset", "hash", "int", "isinstance", "len", "list", "map", "max", "min", "ord", "pow", "range", "repr",
    "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple", "type", "zip", "iter", "next",
}) | frozenset(name for name, value in vars(builtins).items() if isinstance(value, type)
                and issubclass(value, Exception))
"""... and the built-in exceptions, which a pure function makes to raise (`raise KeyError(name)`): a raised call
is not remembered, it raises again the next time."""
# Containers of the standard library a function makes for itself (`queue = deque([seed])`), by the names
# `from collections import ...` binds; changing one is allowed only on a value the function made.
CONTAINERS = frozenset({"deque", "Counter", "defaultdict", "OrderedDict"})



def memoize_pure_helper(ctx: CodemodContext) -> CodemodResult:
    """Remember the results of the first pure function among the hot function, its sampled helpers and the rest of
    the sampled per-sample path, those called per element (in a loop or comprehension of another) first; ``params["skip"]`` names functions
    (qualified names) already tried and refused by replay."""
    per_step = ctx.params.get("target") == "main"
    sources: dict[str, tuple[str, ast.Module]] = {}
    if per_step:
        # The training loop's own host time: its sampled functions in the target's files, by inclusive time.
        candidates = functions_in_target(ctx, ctx.profile.main_hot_functions, sources)
        if not candidates:
            raise NotApplicable("memoize_pure_helper: the profile names no function of the training loop's own host "
                                "time in the target's files")
    else:
        file, text, tree, hot = load_hot_function(ctx)
        sources[file] = (text, tree)
        candidates = [(file, hot)]
    for where, fn in [] if per_step else [*helpers_in_target(ctx, sources), *path_in_target(ctx, sources)]:
        if all(fn is not other for _, other in candidates):
            candidates.append((where, fn))
    skip = set(ctx.params.get("skip", ()))
    refusals = []
    ordered = small_shares_last(per_element_first(candidates, [tree for _, tree in sources.values()]),
                                ctx.profile.inclusive_shares, lambda file, fn: qualname_of(sources[file][1], fn))
    for where, fn in ordered:
        where_text, where_tree = sources[where]
        qualname = qualname_of(where_tree, fn)
        if qualname in skip:
            refusals.append(f"{qualname}: tried before at this head, and refused (by replay, or by verification)")
            continue
        module_level = {node.name: node for node in where_tree.body if isinstance(node, ast.FunctionDef)}
        cls = next((node for node in where_tree.body if isinstance(node, ast.ClassDef) and fn in node.body), None)
        classes = {node.name: node for node in where_tree.body if isinstance(node, ast.ClassDef)}
        paths = import_paths([where_tree])
        reason = _refusal(fn, module_level, cls, imported_functions(ctx.root, where, where_tree), classes, paths,
                          record_constructors(where_tree, paths))
        if reason is None:
            # Keys of lists and arrays too, where nothing it calls changes what it was given (a hit skips the call).
            methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)} if cls is not None else {}
            changes = changes_what_it_was_given(fn, module_level, methods,
                                                imported_functions(ctx.root, where, where_tree))
            result = _rewrite(where, where_text, where_tree, fn, cls, data_keys=changes is None,
                              frozen=frozen_in_target(ctx.root, sources))
            result.replay.per_element = id(fn) in ordered.per_element
            result.replay.per_step = per_step
            if changes:
                result.notes.append(f"keyed on str, bytes, numbers and tuples of them only, not lists or arrays: "
                                    f"{changes}")
            return result
        refusals.append(f"{qualname}: {reason}")
    path = "the training loop's per-step work" if per_step else "the per-sample path"
    raise NotApplicable(f"memoize_pure_helper: no function of {path} in " + ", ".join(sources)
                        + " computes from its arguments alone by what perfloop can read: " + "; ".join(refusals[:4]))


class Ordered(list):
    """Candidates in the order to try them; ``per_element``: the ids of those another candidate calls per element."""

    per_element: frozenset[int] = frozenset()


def per_element_first(candidates: list[tuple[str, ast.FunctionDef]],
                      trees: list[ast.Module] = ()) -> Ordered:
    """The candidates with those a function of ``trees`` (or another candidate) calls per element (inside a loop
    or a comprehension, or through `map`) moved ahead, each group in its own order (but `_callers_first`); the
    result's ``per_element`` also holds those called, anywhere, by a function called per element: a
    per-word `wordpiece(word)` repeats its arguments within one epoch, where the `tokenize(text)` that loops
    over the words sees each text once an epoch (and never again when the text was augmented first).

    A method is known by how it is called: `self.m(...)` from its own class, `self.<attr>.m(...)` where an
    `__init__` of ``trees`` sets `self.<attr> = C(...)` of its class (BERT's `self.wordpiece_tokenizer.tokenize`
    is per word, `self.basic_tokenizer.tokenize` is not, though both are `tokenize`), and by its name alone on
    anything else (a local object, a module)."""
    owner, attrs = _classes_and_attributes(trees)
    # Who calls per element: every function of the candidates' files, not only the candidates (the stemmer that the
    # profile names hot is called per word by a caller the sampler did not list under it).
    callers = [fn for _, fn in candidates] + [node for tree in trees for node in ast.walk(tree)
                                             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                                             and all(node is not c for _, c in candidates)]
    looped = [called_per_element(fn, spelled=True) for fn in callers]

    def called(fn: ast.FunctionDef, call: str) -> bool:
        cls = owner.get(id(fn))
        if cls is None:
            return call == fn.name or (call.endswith("." + fn.name) and not call.startswith("self."))
        if call.startswith("self."):
            return call == f"self.{fn.name}" or any(call == f"self.{a}.{fn.name}" for a in attrs.get(cls, ()))
        return call.rsplit(".", 1)[-1] == fn.name

    inner = [any(called(fn, call) for other, calls in zip(callers, looped) if other is not fn for call in calls)
             for _, fn in candidates]
    indices = [k for k, is_inner in enumerate(inner) if is_inner]
    same_argument = {(a, b) for a in indices for b in indices if a != b and _calls_on_the_same_argument(
        candidates[a][1], lambda call, b=b: called(candidates[b][1], call))}
    group = _callers_first(indices, lambda a, b: (a, b) in same_argument)
    ordered = Ordered([candidates[k] for k in group]
                      + [c for c, is_inner in zip(candidates, inner) if not is_inner])
    # Called per element through a caller, too: blind13 b1's `upper_hull(x, y)` is called once by `continuum_removed`,
    # which a loop calls per pixel of overlapping patches; its arguments repeat within an epoch as the caller's do.
    through = {id(g) for g in callers
               if any(called(g, call) for other, calls in zip(callers, looped) if other is not g for call in calls)}
    todo = [g for g in callers if id(g) in through]
    while todo:
        caller = todo.pop()
        spelled = {dotted(n.func) for n in ast.walk(caller) if isinstance(n, ast.Call)}
        for g in callers:
            if id(g) not in through and g is not caller and any(called(g, call) for call in spelled if call):
                through.add(id(g))
                todo.append(g)
    ordered.per_element = frozenset(id(fn) for _, fn in candidates if id(fn) in through)
    return ordered


def _calls_on_the_same_argument(fn: ast.FunctionDef, is_callee) -> bool:
    """Whether `fn` calls the callee (`is_callee(dotted name)`), and only outside loops over parts of its own
    arguments: `porter_stem(word)` calls `_measure(stem)` in loops over fixed suffix tables, so the stems come from
    the one word and repeat no more often than it does; `encode(text)` calls `wordpiece(word)` in a loop over the
    text's words, which repeat far more often than texts do."""
    derived = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} - {"self", "cls"}
    grew = True
    while grew:  # names computed from the arguments, through assignments and loop targets
        grew = False
        for node in ast.walk(fn):
            pairs = []
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                pairs = [(t, node.value) for t in (node.targets if isinstance(node, ast.Assign) else [node.target])]
            elif isinstance(node, (ast.For, ast.comprehension)):
                pairs = [(node.target, node.iter)]
            for target, value in pairs:
                if {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} & derived:
                    new = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)} - derived
                    grew |= bool(new)
                    derived |= new
    parents = {child: parent for parent in ast.walk(fn) for child in ast.iter_child_nodes(parent)}
    found = False
    for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call) and is_callee(dotted(n.func))):
        found, node = True, call
        while (node := parents.get(node)) is not None:
            heads = [node.iter] if isinstance(node, ast.For) else [node.test] if isinstance(node, ast.While) else \
                [g.iter for g in node.generators] if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp,
                                                                      ast.GeneratorExp)) else []
            if any({n.id for n in ast.walk(h) if isinstance(n, ast.Name)} & derived for h in heads):
                return False
    return found


def _callers_first(group: list[int], calls) -> list[int]:
    """`group` (candidates called per element) with each one that calls another of the group on the same argument
    (`calls(a, b)`: not in a loop over the argument's parts) ahead of it, else in its own order: a per-word
    `porter_stem(word)` remembered saves the `_measure(stem)` calls it makes too, where a memo of the cheap callee
    alone costs more than it saves. A cycle keeps the order."""
    left, out = list(group), []
    while left:
        top = next((k for k in left if not any(calls(other, k) for other in left if other != k)), left[0])
        out.append(top)
        left.remove(top)
    return out


def _classes_and_attributes(trees) -> tuple[dict[int, str], dict[str, set[str]]]:
    """(id of each method -> its class's name, class name -> the attributes an `__init__` sets to one of it)."""
    owner: dict[int, str] = {}
    attrs: dict[str, set[str]] = {}
    for tree in trees:
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            for item in cls.body:
                if isinstance(item, ast.FunctionDef):
                    owner[id(item)] = cls.name
            for attr, func in _made_in_init(cls).items():
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if name:
                    attrs.setdefault(name, set()).add(attr)
    return owner, attrs


def _made_in_init(cls: ast.ClassDef | None) -> dict[str, ast.expr]:
    """The attributes `cls.__init__` sets to a call's result (`self.bandpass = BandPass(...)`), each with what it
    calls (the call's `func`)."""
    init = next((i for i in cls.body if isinstance(i, ast.FunctionDef) and i.name == "__init__"), None) \
        if cls is not None else None
    made = {}
    for node in ast.walk(init) if init is not None else ():
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Attribute) and isinstance(node.targets[0].value, ast.Name) \
                and node.targets[0].value.id == "self":
            made[node.targets[0].attr] = node.value.func
    return made


def imported_functions(root, file: str, tree: ast.Module) -> dict[str, tuple[dict[str, ast.FunctionDef], ast.FunctionDef]]:
    """Functions `file` imports by name from the target's own modules (`from pieces import wordpiece`,
    `from .text import clean as tidy`), each with its module's module-level functions; bound name -> pair."""
    found = {}
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            folder = (Path(root) / file).parent
            for _ in range(node.level - 1):
                folder = folder.parent
        else:
            folder = Path(root)
        path = folder.joinpath(*(node.module or "").split(".")).with_suffix(".py") if node.module else None
        if path is None or not path.is_file():
            continue
        try:
            other = ast.parse(path.read_text())
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        functions = {n.name: n for n in other.body if isinstance(n, ast.FunctionDef)}
        found.update((alias.asname or alias.name, (functions, functions[alias.name]))
                     for alias in node.names if alias.name in functions)
    return found


def _refusal(fn: ast.FunctionDef, module_level: dict[str, ast.FunctionDef], cls: ast.ClassDef | None,
             imported: dict | None = None, classes: dict[str, ast.ClassDef] | None = None,
             aliases: dict[str, str] | None = None, records: frozenset[str] = frozenset()) -> str | None:
    """Why `fn` is not remembered per argument, or None. `records`: the file's record types whose call only stores
    its arguments (`record_types.record_constructors`)."""
    if module_level.get(fn.name) is not fn and cls is None:
        return "neither a module-level function nor a method of a module-level class"
    if fn.decorator_list:
        return "decorated"
    args = fn.args
    params = args.posonlyargs + args.args
    if cls is not None and (not params or params[0].arg != "self"):
        return "a method whose first parameter is not self"
    if not (params[1 if cls is not None else 0:] or args.kwonlyargs or args.vararg):
        return "takes no arguments"
    if any(not isinstance(d, ast.Constant) for d in args.defaults + [d for d in args.kw_defaults if d]):
        return "a default that is not a constant (shared between calls)"
    names = {n.name for n in (cls.body if cls is not None else module_level.values()) if isinstance(n, ast.FunctionDef)}
    if UNCACHED.format(name=fn.name.lstrip("_")) in names:
        return "already remembered"
    if any(UNCACHED.format(name=name.lstrip("_")) == fn.name for name in names):
        # blind11 b5: the original kept behind a memo perfloop added (`_parse_time_uncached`) was remembered again.
        return "the original behind a memo perfloop added (already remembered)"
    if fn.name in HELPERS and cls is None:
        return "a helper of the memos perfloop adds"
    if cls is not None and fn.name.startswith("__"):
        return "a special method"
    return _Purity(module_level, cls, imported, classes, aliases, records).refusal(fn)


def _held_objects(cls: ast.ClassDef | None, classes: dict[str, ast.ClassDef]) -> dict[str, ast.ClassDef]:
    """The attributes `cls.__init__` binds to an object of a class of the same file (`self.bandpass =
    BandPass(...)`), each with that class: calling one (`self.bandpass(x)`) runs its `__call__`."""
    return {attr: classes[func.id] for attr, func in _made_in_init(cls).items()
            if isinstance(func, ast.Name) and func.id in classes}


class _Purity:
    """Read a function (and the target's functions it calls in its file) for anything but computing.

    A method's calls of objects its class's `__init__` made from a class of the same file (`self.bandpass(x)`)
    are read in that class (its `__call__`), as its own methods are: a per-record `process(self, blob)` that
    filters through such an object is pure when the object's code is."""

    def __init__(self, module_level: dict[str, ast.FunctionDef], cls: ast.ClassDef | None,
                 imported: dict | None = None, classes: dict[str, ast.ClassDef] | None = None,
                 aliases: dict[str, str] | None = None, records: frozenset[str] = frozenset()) -> None:
        self.module_level = module_level
        self.records = records
        self.imported = imported or {}
        self.classes = classes or {}
        self.methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)} if cls is not None else {}
        self.held = _held_objects(cls, self.classes)
        self.aliases = aliases or {}
        """The names the file imports -> what they stand for (`imports.import_paths`: `bisect_right` is
        `bisect.bisect_right`)."""
        self.seen: set[int] = set()

    def refusal(self, fn: ast.FunctionDef) -> str | None:
        if id(fn) in self.seen:
            return None
        self.seen.add(id(fn))
        own = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)} | {
            n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        made = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for node in ast.walk(fn):
            line = f"line {getattr(node, 'lineno', fn.lineno)}"
            if isinstance(node, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await)):
                return f"{line}: `{type(node).__name__.lower()}`"
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                for target in targets:
                    written = _written(target, made)
                    if written is not None:
                        return f"{line}: writes `{ast.unparse(written)}`, which it did not make"
            if isinstance(node, ast.Call):
                reason = self._call(node, own, made)
                if reason:
                    return f"{line}: {reason}"
        return None

    def _call(self, call: ast.Call, own: set[str], made: set[str]) -> str | None:
        name = dotted(call.func)
        attr = call.func.attr if isinstance(call.func, ast.Attribute) else name
        if is_random_call(name) or RANDOM_CALL.search(attr):
            return f"random draw `{ast.unparse(call.func)}()`"
        if (IMPURE_CALL.search(name) and not self._time_of_a_value(call)) \
                or name in ("open", "print", "input", "exec", "eval", "setattr", "delattr"):
            return f"`{ast.unparse(call.func)}()` is not a computation on its arguments"
        if isinstance(call.func, ast.Name):
            if name in HELPERS and name in self.module_level:
                return None  # a memo's own key and copy functions (memo_runtime)
            if name in self.module_level:
                # A function an earlier memo wraps is judged by what it wraps (the wrapper writes its own dict).
                inner = self.refusal(_wrapped(self.module_level, name))
                return f"calls {name}(), which is not pure ({inner})" if inner else None
            if name in self.imported:  # the target's own function in another module: read there, one level deep
                functions, imported = self.imported[name]
                inner = _Purity(functions, None).refusal(imported)
                return f"calls {name}(), which is not pure ({inner})" if inner else None
            if (name in COMPUTING_BUILTINS or name in CONTAINERS or name in self.records) and name not in own:
                return None  # a builtin that computes, or a record type that stores what it is given
            if name in own:
                return f"calls `{name}`, a value perfloop cannot read the code of"
            origin = self.aliases.get(name)  # `from bisect import bisect_right`: judged as `bisect.bisect_right`
            if origin is not None and (is_random_call(origin) or IMPURE_CALL.search(origin)):
                return f"calls {name}(), which is `{origin}()`: not a computation on its arguments"
            if origin is not None and origin.startswith(PURE_MODULES):
                return None
            return f"calls {name}(), which perfloop cannot read"
        base = call.func.value if isinstance(call.func, ast.Attribute) else None
        if isinstance(base, ast.Name) and base.id == "self" and self.methods:
            method = self.methods.get(attr)
            if method is None and attr in self.held:
                return self._held_call(attr)
            if method is None:
                return f"calls self.{attr}(), which perfloop cannot read"
            inner = self.refusal(_wrapped(self.methods, attr))
            return f"calls self.{attr}(), which is not pure ({inner})" if inner else None
        if name.startswith(PURE_MODULES):
            return None
        if attr in MUTATING_METHODS and not (isinstance(base, ast.Name) and base.id in made):
            return f"`{ast.unparse(call.func)}()` may change `{ast.unparse(base)}`, which it did not make"
        # A method that only reads (text.split(), VOCAB.get(piece), self.vocab.get(...)): a value that changes
        # between calls (a vocabulary that grows elsewhere) shows as a changed batch in verification.
        return None

    def _time_of_a_value(self, call: ast.Call) -> bool:
        """`d.time()` of a value (a datetime's time of day, `datetime.min.time()`), not the clock: `.time()` without
        arguments on a name that is neither the `time` module (imported under any name) nor `self`."""
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "time" and not call.args
                and not call.keywords):
            return False
        root = call.func.value
        while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
            root = root.func if isinstance(root, ast.Call) else root.value
        return isinstance(root, ast.Name) and root.id != "self" \
            and self.aliases.get(root.id, root.id).split(".")[0] != "time"

    def _held_call(self, attr: str) -> str | None:
        """Why calling the object `self.<attr>` (its class's `__call__`) is not pure, or None."""
        held = self.held[attr]
        call = next((n for n in held.body if isinstance(n, ast.FunctionDef) and n.name == "__call__"), None)
        if call is None:
            return f"calls self.{attr}(), a {held.name} without a __call__ perfloop can read"
        reader = _Purity(self.module_level, held, self.imported, self.classes, self.aliases, self.records)
        reader.seen = self.seen  # objects holding each other are read once
        inner = reader.refusal(call)
        return f"calls self.{attr}(), whose {held.name}.__call__ is not pure ({inner})" if inner else None


def _wrapped(functions: dict[str, ast.FunctionDef], name: str) -> ast.FunctionDef:
    """`name`'s function, or, where an earlier memo wrapped it, the original it renamed (`_<name>_uncached`)."""
    return functions.get(UNCACHED.format(name=name.lstrip("_") or name), functions[name])


def _written(target: ast.expr, made: set[str]) -> ast.expr | None:
    """The part of an assignment target that writes into something the function did not make (`x[i]`, `x.a`,
    `x.a[i]` where `x` is not its own), or None; a slice's index (`words[len(words) // 2]`) is read, not written."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return next((w for w in (_written(e, made) for e in target.elts) if w is not None), None)
    if isinstance(target, ast.Starred):
        return _written(target.value, made)
    if isinstance(target, (ast.Subscript, ast.Attribute)):
        base = target.value
        while isinstance(base, (ast.Subscript, ast.Attribute)):
            base = base.value
        return None if isinstance(base, ast.Name) and base.id in made else target
    return None


def _rewrite(file: str, text: str, tree: ast.Module, fn: ast.FunctionDef, cls: ast.ClassDef | None,
             data_keys: bool = False, frozen: dict | None = None) -> CodemodResult:
    name = fn.name
    # A file memoised by an earlier perfloop holds its helpers without `_memo_key_data`: keys as those had.
    data_keys = data_keys and ("def _memo_key(" not in text or "def _memo_key_data(" in text)
    # `_stats` becomes `_stats_uncached`, not `__stats_uncached`, which a class body would mangle.
    base = name.lstrip("_") or name
    uncached, memo = UNCACHED.format(name=base), MEMO.format(name=base)
    lines = text.splitlines(keepends=True)
    start = fn.lineno - 1
    header = lines[start]
    if not re.match(rf"\s*def\s+{re.escape(name)}\s*\(", header):
        raise NotApplicable(f"memoize_pure_helper: the definition of {name} ({file}:{fn.lineno}) does not start "
                            "its line")
    lines[start] = re.sub(rf"def\s+{re.escape(name)}\s*\(", f"def {uncached}(", header, count=1)
    end = fn.end_lineno
    params = ast.unparse(fn.args)
    forward = _forward(fn.args, method=cls is not None)
    indent = re.match(r"\s*", header).group(0)
    # The wrapper's own locals, named apart from its parameters (a parameter called `key` once took the memo key's
    # place in the call it passes on).
    taken = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    key, value, table = (name_apart(stem, taken) for stem in ("memo_key", "memo_value", "memo_table"))
    if cls is None:
        store, call, lookup = f"{memo} = {{}}\n\n\n", uncached, memo
        fetch = ""
    else:
        # Remembered per object: its own dict, set on first use (a class with __slots__ is computed as before).
        store, call, lookup = "", f"self.{uncached}", table
        fetch = f"        {table} = self.__dict__.setdefault({memo!r}, {{}})\n"
    body = (
        f"def {name}({params}):\n"
        f'    """{name} with its results remembered per argument (added by perfloop: it computes from its arguments\n'
        f'    alone; results are handed out as copies, arguments without an exact key are computed as before)."""\n'
        f"    try:\n"
        f"        {key} = {'_memo_key_data' if data_keys else '_memo_key'}({forward.key})\n"
        f"{fetch}"
        f"    except (TypeError, AttributeError):\n"
        f"        return {call}({forward.call})\n"
        f"    if {key} in {lookup}:\n"
        f"        return _memo_copy({lookup}[{key}])\n"
        f"    {value} = {call}({forward.call})\n"
        f"    if len({lookup}) < {MAX_DATA_ENTRIES if data_keys else MAX_ENTRIES}:\n"
        f"        {lookup}[{key}] = _memo_store({value})\n"
        f"        return _memo_copy({lookup}[{key}])\n"
        f"    return {value}\n"
    )
    wrapper = "\n" + ("\n\n" if cls is None else "") + store + "".join(
        indent + line if line.strip() else line for line in body.splitlines(keepends=True))
    new = "".join(lines[:end]).rstrip("\n") + "\n" + wrapper + "".join(lines[end:])
    if "def _memo_key(" not in new:
        new = after_imports_text(new, HELPER_SOURCE)
    if frozen and "_MEMO_FROZEN = " not in new:
        # Objects of these classes key by their state (memo_runtime._memo_state_key; frozen.py read them).
        new = after_imports_text(new, f"_MEMO_FROZEN = {dict(sorted(frozen.items()))!r}\n")
    new = add_import(add_import(new, "copy"), "struct")
    ast.parse(new)
    qualname = qualname_of(tree, fn)
    return CodemodResult(
        files={file: new},
        summary=f"remember {qualname}'s results per argument ({file}:{fn.lineno}): it computes from its arguments "
                "alone, and the calls repeat them",
        knob="memoize", old_value="computed on every call", new_value="remembered per argument",
        location=f"{file}:{fn.lineno}",
        replay=ReplayTarget(file=file, function=qualname, keys_data=data_keys),
        notes=[f"{name} reads as pure (no draws, no writes to what it did not make, calls only what computes); a "
               "helper that reads state which changes between calls shows a changed batch in verification",
               f"at most {MAX_ENTRIES} results kept; arguments other than str/bytes/int/bool/None/float and tuples "
               + ("or lists of them and numpy arrays (by their contents) " if data_keys else "of them ")
               + "are computed every time"],
    )


class _Forward:
    def __init__(self, key: str, call: str) -> None:
        self.key, self.call = key, call


def _forward(args: ast.arguments, method: bool) -> _Forward:
    """What the key is made of and the call that passes the wrapper's parameters on, in their kinds (a method's
    self is passed through the bound call, not keyed). One positional parameter is its own key (`rec`: a str
    argument keys as `(str, rec)`, with no tuple around it to build and hash on every call); any other signature
    keys as the tuple of its parameters."""
    keys, passed = [], []
    for a in (args.posonlyargs + args.args)[1 if method else 0:]:
        keys.append(a.arg)
        passed.append(a.arg)
    if args.vararg:
        keys.append(args.vararg.arg)
        passed.append(f"*{args.vararg.arg}")
    for a in args.kwonlyargs:
        keys.append(a.arg)
        passed.append(f"{a.arg}={a.arg}")
    if args.kwarg:
        keys.append(f"frozenset({args.kwarg.arg}.items())")
        passed.append(f"**{args.kwarg.arg}")
    single = len(keys) == 1 and not args.vararg and not args.kwarg and not args.kwonlyargs
    return _Forward(keys[0] if single else "(" + "".join(f"{k}, " for k in keys) + ")", ", ".join(passed))


__all__ = ["memoize_pure_helper"]
