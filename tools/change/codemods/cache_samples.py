"""Compute each sample once: a dataset's `__getitem__` result per index, cached on first access.

A map-style dataset whose samples depend only on the index and on state fixed at
construction (no random draws, nothing that changes between epochs) recomputes the same
sample every epoch: tokenising the same text, normalising the same window, decoding the
same record. This codemod keeps the original body as `_uncached_getitem` and wraps it:

    def __getitem__(self, index):
        try:
            key = operator.index(index)
        except TypeError:  # a list of indices (a batch sampler), a slice: not cached
            return self._uncached_getitem(index)
        cache = self.__dict__.setdefault("_cached_samples", {})
        if key not in cache:
            cache[key] = self._uncached_getitem(index)
        return self._fresh_copy(cache[key])

The copy makes every access hand out fresh objects, as the old code did, so a caller that
changes a sample in place never changes the next epoch's: `_fresh_copy` (a method
added beside it, FRESH_COPY) clones plain tensors and arrays (a memcpy), rebuilds lists, tuples
and dicts, returns ints, floats and strings as they are, and hands anything else to
`copy.deepcopy`, one memo for the whole sample so an object met twice is copied once. On a
sample of two small tensors `copy.deepcopy` alone costs about 50 us, more than many parses it
would save (blind4's claims_csv_dates measured the deepcopying cache slower than no cache). The
cache fills during the first epoch, so the first epoch costs what it did and the gain comes
from the second on; verification measures the whole run.

Where the whole sample may differ per access but its first statements may not (a decode, then a
random crop), those statements are cached instead (`_cached_first_part`, see `_cache_prefix`).

With ``params["fill"] == "construction"`` (the knowledge base's `precompute_samples`) every index of
``range(len(self))`` is computed once at the end of `__init__` instead: the dataset is built in the
training process before any worker starts, so the cache survives DataLoader workers that restart
every epoch (which the first-access cache is refused for), and the steady state starts with the
first batch. It costs one epoch's sample work before the first batch (a declared one-off cost that
verification weighs against the whole run) and is refused where that would exceed
PRECOMPUTE_MAX_S by the profile's figures, where the class has no `__init__` or `__len__` of its own,
and where the loader has fewer than two workers (see `_refuse_precompute`).
Refused, with the construct and line, when a sample may differ between two accesses of one
index and nothing before that can be cached: a random draw (`random.*`, `np.random.*`, `torch.rand*`, `.normal_()`, ...) in
`__getitem__` or anything it calls in the target's files, or any use of a random generator `__init__`
keeps on `self` (`self.rng = np.random.default_rng(...)`, `random.Random`, `torch.Generator`); a call perfloop cannot see into
(an object stored on `self` that is not one of the target's own classes made where perfloop can read it; a
function of another package other than numpy/torch/math/json/... numerics). An object on `self` is read when
`__init__` sets it to `C(...)` of a class of the target with a `__call__`, a list or tuple of such (a Compose's
transforms, called as `for t in self.transforms: x = t(x)`), or a parameter that every place the target
constructs the dataset passes such a value (or a name its function sets once to one): each `__call__` is
checked like the rest, so a Compose holding a random flip is refused and one of deterministic steps is cached; a read of an attribute
of `self` that a method other than `__init__` sets (`set_epoch`); a write to `self`, a
`global`, the clock or the worker info. Also refused when the loader starts its workers
every epoch (workers > 0 without persistent workers), since each worker's cache would be
thrown away with it.
"""
from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable

import libcst as cst

from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable
from perfloop.tools.change.codemods.hot_function import functions, hot_function_of, is_docstring_stmt, python_files
from perfloop.tools.change.codemods.imports import add_import, import_paths
from perfloop.tools.change.codemods.loop_checks import GENERATOR_CALL, IMPURE_CALL, PURE_MODULES, RANDOM_CALL
from perfloop.tools.change.codemods.loops import dotted
from perfloop.tools.change.codemods.reorder import alias_statements, can_move_before, comprehension_names_apart, stored

CACHE_ATTR = "_cached_samples"
UNCACHED = "_uncached_getitem"
PREFIX = "_cached_first_part"
PREFIX_ATTR = "_cached_first_parts"
FRESH = "_fresh_copy"
FRESH_COPY = f'''
def {FRESH}(self, value, memo=None):
    """A copy of a cached sample with fresh objects, as the uncached code handed out (added by perfloop).

    Plain tensors (not views, no autograd) and arrays of numbers are cloned (a Python attribute
    set on a tensor is not copied), lists, tuples and dicts rebuilt, ints, floats and strings
    returned as they are; anything else goes through copy.deepcopy. One memo for the whole
    sample: an object met twice is copied once.
    """
    memo = {{}} if memo is None else memo
    if id(value) in memo:
        return memo[id(value)]
    kind = type(value)
    if value is None or kind in (bool, int, float, complex, str, bytes):
        return value
    if kind is list or kind is dict:  # in the memo before its items: a list that holds itself
        copied = memo[id(value)] = kind()
        if kind is list:
            copied.extend(self.{FRESH}(item, memo) for item in value)
        else:
            copied.update((key, self.{FRESH}(item, memo)) for key, item in value.items())
        return copied
    if kind is tuple:
        copied = tuple(self.{FRESH}(item, memo) for item in value)
    elif (kind.__module__, kind.__name__) == ("torch", "Tensor") and value._base is None and not value.requires_grad:
        copied = value.clone()
    elif (kind.__module__, kind.__name__) == ("numpy", "ndarray") and not value.dtype.hasobject:
        copied = value.copy()
    else:
        return copy.deepcopy(value, memo)
    memo[id(value)] = copied
    return copied
'''
"""The method every cached sample is handed out through (see the module docstring)."""
FILL_KEY = "fill"
"""Remedy parameter: "first_access" (the default: each index cached when first read) or "construction"."""
PRECOMPUTE_MAX_S = 60.0
"""At most this long (s, estimated from the profile) may computing every sample at construction take."""


def cache_samples(ctx: CodemodContext) -> CodemodResult:
    """Cache `__getitem__`'s result per index in the dataset class that builds the profile's hot samples."""
    hot = hot_function_of(ctx)
    texts = {f: (ctx.root / f).read_text() for f in python_files(ctx.root)}
    modules = {f: ast.parse(text) for f, text in texts.items()}
    file, cls = _dataset_class(modules, hot.defining_name, hot.file)
    text, tree = texts[file], modules[file]
    getitem = _method(cls, "__getitem__")
    if getitem is None or len(getitem.args.args) != 2 or getitem.args.vararg or getitem.args.kwonlyargs:
        raise NotApplicable(f"{cls.name} ({file}:{cls.lineno}) has no __getitem__(self, index)")
    if _method(cls, FRESH) is not None:
        raise NotApplicable(f"{cls.name} ({file}:{cls.lineno}) already has a method named {FRESH}")
    if _method(cls, UNCACHED) is not None or any(isinstance(n, ast.Attribute) and n.attr == CACHE_ATTR
                                                  for n in ast.walk(tree)):
        raise NotApplicable(f"{cls.name} already caches its samples ({UNCACHED} or {CACHE_ATTR} exists)")
    at_construction = ctx.params.get(FILL_KEY, "first_access") == "construction"
    if at_construction:
        _refuse_precompute(ctx, cls, file)
    else:
        _refuse_restarting_workers(ctx)
    if _method(cls, PREFIX) is not None or any(isinstance(n, ast.Attribute) and n.attr == PREFIX_ATTR
                                               for n in ast.walk(tree)):
        raise NotApplicable(f"{cls.name} already caches its samples' first part ({PREFIX} or {PREFIX_ATTR} exists)")
    checker = _Determinism(cls, file, modules)
    try:
        checker.check(getitem, f"{cls.name}.__getitem__")
    except NotApplicable as whole:
        return _cache_prefix(text, file, cls, getitem, modules, str(whole), at_construction)
    new_text = _splice(text, cls.name, getitem.args.args[1].arg, at_construction)
    when = ("every index computed once at the end of __init__" if at_construction
            else "computed on first access")
    return CodemodResult(
        files={file: new_text},
        summary=f"cache {cls.name}'s samples per index ({file}:{getitem.lineno}): {when}, handed out as a copy "
                f"afterwards",
        knob="precompute_samples" if at_construction else "cache_samples",
        old_value="every sample recomputed every epoch",
        new_value="each sample computed once", location=f"{file}:{getitem.lineno}",
        notes=[f"every sample is held in memory{_where_held(at_construction)}; "
               f"checked deterministic: {', '.join(checker.seen)} draw nothing random, read no state that changes "
               "after __init__ and call nothing perfloop cannot read",
               _when_it_pays(ctx, at_construction),
               f"samples are handed out as a copy of the cached one ({FRESH}: tensors and arrays cloned, containers "
               "rebuilt, anything else deep-copied; fresh objects, as before)",
               *checker.notes],
    )


def _where_held(at_construction: bool) -> str:
    return (" from construction (DataLoader workers inherit it)" if at_construction
            else " after its first access (in each DataLoader worker)")


def _when_it_pays(ctx: CodemodContext, at_construction: bool) -> str:
    if not at_construction:
        return "the cache fills during the first epoch: the gain starts with the second"
    estimate = _precompute_estimate_s(ctx)
    cost = f" (about {estimate:.1f} s by the profile)" if estimate is not None else ""
    return (f"the first batch waits for every sample of the dataset to be computed once{cost}; from then on "
            "every step is served from the cache")


def _precompute_estimate_s(ctx: CodemodContext) -> float | None:
    facts = ctx.profile
    if facts.samples_per_epoch is None or facts.sample_build_ms is None:
        return None
    return facts.samples_per_epoch * facts.sample_build_ms / 1000.0


def _refuse_precompute(ctx: CodemodContext, cls: ast.ClassDef, file: str) -> None:
    """Computing every sample at construction needs two or more workers, the class's own __init__ and __len__, and
    an affordable cost.

    With no worker or one, the first-access cache computes each index once too, over any run length, and
    nothing for indices a short run never reads, so it is never worse by whole-run cost; with two or more,
    each worker's own cache is lost when workers restart and otherwise filled again by every worker (an
    index goes to another worker next epoch), while one built before the workers start is inherited by all.
    """
    workers = max(ctx.sites[0].kwargs.get("num_workers") or 0 if ctx.sites else 0, ctx.profile.num_workers or 0)
    if workers < 2:
        raise NotApplicable(f"the DataLoader has {workers} worker(s): the first-access cache computes each sample once "
                            "too and costs no more over any run length, so computing them all at construction is "
                            "not proposed")
    for name, why in (("__init__", "nowhere to compute the samples when the dataset is built"),
                      ("__len__", "the indices to compute are not known")):
        if _method(cls, name) is None:
            raise NotApplicable(f"{cls.name} ({file}:{cls.lineno}) has no {name} of its own: {why}")
    estimate = _precompute_estimate_s(ctx)
    if estimate is not None and estimate > PRECOMPUTE_MAX_S:
        raise NotApplicable(f"computing all {ctx.profile.samples_per_epoch} samples at construction would take about "
                            f"{estimate:.0f} s ({ctx.profile.sample_build_ms:.2f} ms each by the profile), more "
                            f"than {PRECOMPUTE_MAX_S:.0f} s before the first batch; the first-access cache spreads it")


def _cache_prefix(text: str, file: str, cls: ast.ClassDef, getitem: ast.FunctionDef, modules: dict[str, ast.Module],
                  whole: str, at_construction: bool = False) -> CodemodResult:
    """Cache what `__getitem__` computes that may not differ per access (a decode before a random crop, a
    target encoded after a random flip it does not read): that part once per index, the rest every time, as before.

    The part cached is the leading statements the determinism check passes, with no `return`, and any later
    statement that passes it too and can run before the statements it skips (`reorder.can_move_before`: it reads
    nothing they set, sets nothing they read or set, and shares no object with them that either side could
    change); it draws nothing, so every random draw of the rest keeps its order. The names the part sets that
    the rest reads come back from the cache as copies. Names that only alias the dataset's state
    (`row = self.rows[i]`) are set again before the rest, so the rest still sees the dataset's own objects.
    Refused (with the whole-sample reason) where no such statement does work.
    """
    body = getitem.body[1:] if is_docstring_stmt(getitem.body[0]) else getitem.body
    offset = len(getitem.body) - len(body)
    index = getitem.args.args[1].arg
    refused = f"{whole}; and nothing before it can be cached"
    if len({stmt.lineno for stmt in body}) < len(body):
        raise NotApplicable(f"{refused} (statements of {cls.name}.__getitem__ share a line)")
    prefix, rest, moved, stop = _split_body(cls, file, getitem, modules, body, whole)
    if not prefix or not rest or not any(isinstance(n, ast.Call) for s in prefix for n in ast.walk(s)):
        raise NotApplicable(refused)
    if index in stored(prefix):
        raise NotApplicable(f"{refused} (it sets `{index}` again)")
    aliases = alias_statements(prefix, index)
    # A comprehension's own names are not the function's: `[... for t in ...]` on both sides shares no `t`.
    apart = {id(stmt): comprehension_names_apart(stmt, k) for k, stmt in enumerate(body)}
    read_later = {n.id for s in rest for n in ast.walk(apart[id(s)]) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, ast.Load)}
    live = [name for name in dict.fromkeys(stored([apart[id(s)] for s in prefix]))
            if name in read_later and name not in aliases]
    if not live:
        raise NotApplicable(f"{refused} (the rest reads nothing it computes)")
    checker = _Determinism(cls, file, modules)
    checker.check(ast.FunctionDef(name=getitem.name, args=getitem.args, body=prefix, decorator_list=[], returns=None,
                                  type_comment=None, lineno=getitem.lineno, col_offset=0), f"{cls.name}.__getitem__")
    first_rest = rest[0].lineno
    new_text = _splice_prefix(text, cls.name, index, offset, [body.index(stmt) + offset for stmt in prefix],
                              [body.index(stmt) + offset for stmt in rest], live,
                              [body.index(stmt) + offset for stmt in prefix if stmt in aliases.values()],
                              at_construction)
    when = "computed once per index at the end of __init__" if at_construction else "computed on first access"
    pays = ("the first batch waits for every index's first part to be computed once" if at_construction
            else "the cache fills during the first epoch: the gain starts with the second")
    where = f"{file}:{prefix[0].lineno}-{prefix[-1].end_lineno}"
    lines = (f"lines {', '.join(map(str, sorted(moved)))} move" if len(moved) > 1 else f"line {min(moved, default=0)} moves")
    runs = (f"from line {first_rest} on it runs every time" if not moved else
            f"{lines} before line {first_rest}, and lines {', '.join(str(s.lineno) for s in rest)} run every time, "
            "in their order")
    return CodemodResult(
        files={file: new_text},
        summary=f"cache the first part of {cls.name}.__getitem__ per index ({where}: {', '.join(live)}), {when} "
                f"and handed out as a copy; {runs}",
        knob="precompute_samples" if at_construction else "cache_samples",
        old_value="every sample recomputed every epoch",
        new_value=f"{', '.join(live)} computed once per index", location=f"{file}:{prefix[0].lineno}",
        notes=[f"line {first_rest} is not cached: {stop}",
               *([f"lines {', '.join(map(str, sorted(moved)))} are cached although they come after line "
                  f"{first_rest}: they draw nothing, read nothing the lines they skip set, set nothing those read "
                  "or set, and share no object with them that either side could change, so the draws keep their "
                  "order"] if moved else []),
               f"checked deterministic: {', '.join(checker.seen)} (the cached lines) draw nothing "
               "random, read no state that changes after __init__ and call nothing perfloop cannot read",
               f"{pays}; every value cached is held in memory{_where_held(at_construction)} and handed out as a "
               f"copy ({FRESH})",
               *(f"`{name}` aliases the dataset's state and is set again before the rest" for name in aliases),
               *checker.notes],
    )


def _split_body(cls: ast.ClassDef, file: str, getitem: ast.FunctionDef, modules: dict[str, ast.Module],
                body: list[ast.stmt], whole: str) -> tuple[list[ast.stmt], list[ast.stmt], dict[int, int], str]:
    """(the statements to cache, the rest in their order, moved line -> the line it moves before, why the first
    statement of the rest cannot be cached) for `_cache_prefix`."""
    index = getitem.args.args[1].arg
    prefix: list[ast.stmt] = []
    skipped: list[ast.stmt] = []
    moved: dict[int, int] = {}  # line of a statement moved before the skipped ones -> line of the first skipped
    stop = whole
    for k, stmt in enumerate(body):
        if any(isinstance(n, ast.Return) for n in ast.walk(stmt)):
            if not skipped:
                stop = f"line {stmt.lineno} returns"
            skipped += body[k:]
            break
        if skipped and any(isinstance(n, (ast.Raise, ast.Assert)) for s in (stmt, *skipped) for n in ast.walk(s)):
            skipped += body[k:]  # nothing moves past a raise: what follows it may never have run
            break
        trial = ast.FunctionDef(name=getitem.name, args=getitem.args, body=prefix + [stmt], decorator_list=[],
                                returns=None, type_comment=None, lineno=getitem.lineno, col_offset=0)
        try:
            _Determinism(cls, file, modules).check(trial, f"{cls.name}.__getitem__")
        except NotApplicable as error:
            if not skipped:
                stop = str(error)
            skipped.append(stmt)
            continue
        if skipped and not can_move_before(stmt, skipped, body, index):
            skipped.append(stmt)
            continue
        if skipped:
            moved[stmt.lineno] = skipped[0].lineno
        prefix.append(stmt)
    return prefix, skipped, moved, stop


def _splice_prefix(text: str, class_name: str, index: str, start: int, cached: list[int], rest: list[int],
                   live: list[str], alias_at: list[int], at_construction: bool = False) -> str:
    """Move __getitem__'s statements `cached` (indices into its body; those before `start` are its docstring)
    into PREFIX, returning `live`; __getitem__ gets them from the cache, sets the aliases (statements `alias_at`)
    again, and runs the statements `rest` as before, in their order (libcst). ``at_construction``: the cache is
    filled for every index at the end of __init__."""
    names = ", ".join(live) + ("," if len(live) == 1 else "")
    if at_construction:
        wrapper = cst.parse_module(
            f"try:\n"
            f"    key = operator.index({index})\n"
            f"except TypeError:  # a list of indices or a slice: computed as before, not cached\n"
            f"    key = None\n"
            f"cache = self.__dict__.get({PREFIX_ATTR!r})\n"
            f"if cache is not None and key in cache:\n"
            f"    # A copy per access: fresh objects, as the uncached code made.\n"
            f"    {names} = self.{FRESH}(cache[key])\n"
            f"else:  # before __init__ filled it, or an index outside range(len(self)): computed as before\n"
            f"    {names} = self.{PREFIX}({index})\n").body
    else:
        wrapper = cst.parse_module(
            f"try:\n"
            f"    key = operator.index({index})\n"
            f"except TypeError:  # a list of indices or a slice: computed as before, not cached\n"
            f"    {names} = self.{PREFIX}({index})\n"
            f"else:\n"
            f"    cache = self.__dict__.setdefault({PREFIX_ATTR!r}, {{}})\n"
            f"    if key not in cache:\n"
            f"        cache[key] = self.{PREFIX}({index})\n"
            f"    # A copy per access: fresh objects, as the uncached code made.\n"
            f"    {names} = self.{FRESH}(cache[key])\n").body
    returned = cst.parse_statement(f"return {', '.join(live)}{',' if len(live) == 1 else ''}\n")

    def split_in_two(stmt: cst.FunctionDef) -> list[cst.FunctionDef]:
        statements = list(stmt.body.body)
        again = [statements[k] for k in alias_at]
        getitem = stmt.with_changes(body=stmt.body.with_changes(
            body=[*statements[:start], *wrapper, *again, *(statements[k] for k in rest)]))
        part = stmt.with_changes(name=cst.Name(PREFIX), leading_lines=[cst.EmptyLine(indent=False)],
                                 body=stmt.body.with_changes(body=[*(statements[k] for k in cached), returned]))
        return [getitem, part]

    fill = _fill_statement(PREFIX_ATTR, PREFIX) if at_construction else None
    return _replace_getitem(text, class_name, split_in_two, fill)


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
    the same in any process); otherwise None, and verification decides."""
    modules = {}
    for f in python_files(root):
        try:
            modules[f] = ast.parse((root / f).read_text())
        except (SyntaxError, UnicodeDecodeError, OSError):
            return None
    defined: dict[str, list[ast.FunctionDef]] = {}
    for tree in modules.values():
        for node, _ in functions(tree):
            defined.setdefault(node.name, []).append(node)
    reasons = []
    for file, tree in modules.items():
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            getitem = _method(cls, "__getitem__")
            if getitem is None:
                continue
            if any(isinstance(c, ast.Call) and GENERATOR_CALL.search(dotted(c.func))
                   for fn in _reachable(getitem, defined) if fn.name != "__init__" for c in ast.walk(fn)):
                return None  # a generator made per call (seeded per index, say): verification decides
            checker = _Determinism(cls, file, modules)
            checker.draws_only = True  # past a cache perfloop added (it writes self.__dict__) to the draws under it
            try:
                checker.check(getitem, f"{cls.name}.__getitem__")
            except NotApplicable as refused:
                reasons.append(str(refused).split(": a cached sample")[0])  # the draw and where, not the cache's why
                continue
            return None
    return reasons[0] if reasons else None


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name), None)


def _dataset_class(modules: dict[str, ast.Module], hot_name: str, hot_file: str) -> tuple[str, ast.ClassDef]:
    """(file, class) of the class with a `__getitem__` that is, or calls, the hot function (its own file first).

    "Calls" is through any chain of the target's own functions and methods (by name): a per-sample path spread
    over helpers (`__getitem__` → `qrs.detect` → `integrate`) leads to its dataset as a direct call does. What the
    cache may take is judged afterwards, on everything `__getitem__` reaches (``_Determinism``)."""
    short = hot_name.split(".")[-1]
    owner = hot_name.split(".")[-2] if "." in hot_name else None
    files = [hot_file] * (hot_file in modules) + [f for f in modules if f != hot_file]
    defined: dict[str, list[ast.FunctionDef]] = {}
    for tree in modules.values():
        for node, _ in functions(tree):
            defined.setdefault(node.name, []).append(node)
    for file in files:
        for cls in (n for n in ast.walk(modules[file]) if isinstance(n, ast.ClassDef)):
            if _method(cls, "__getitem__") is None:
                continue
            if (file == hot_file and cls.name == owner) or _reaches(cls, short, defined):
                return file, cls
    raise NotApplicable(f"no dataset class in the target has a __getitem__ that is or calls {hot_name}, directly "
                        "or through the target's own functions")


def _reaches(node: ast.AST, short: str, defined: dict[str, list[ast.FunctionDef]]) -> bool:
    """Whether ``node`` calls a function named ``short``, itself or through functions the target defines.

    A call of a name the target defines no function for may be a call of an instance of one of its
    classes (`self.align(rec, t)`, `self.transform(img)` with a Compose of transform objects): the
    `__call__` methods the target defines are followed then."""
    seen: set[str] = set()
    todo = [node]
    while todo:
        for name in _called_names(todo.pop()):
            if name == short:
                return True
            if name not in seen:
                seen.add(name)
                todo.extend(defined.get(name, ()))
                if name not in defined and "__call__" not in seen:
                    seen.add("__call__")
                    todo.extend(defined.get("__call__", ()))
    return False


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
    return {dotted(c.func).split(".")[-1] for c in ast.walk(node) if isinstance(c, ast.Call)}


def _refuse_restarting_workers(ctx: CodemodContext) -> None:
    for site in ctx.sites:
        workers, persistent = site.kwargs.get("num_workers") or 0, site.kwargs.get("persistent_workers")
        if workers > 0 and not persistent:
            raise NotApplicable(f"the DataLoader ({site.file}:{site.line}) starts {workers} workers every epoch "
                                "(persistent_workers is off): each worker's cache would go with it; make the "
                                "workers persistent first")


class _Determinism:
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
        init = self.methods.get("__init__")
        found = {}
        for node in ast.walk(init) if init is not None else ():
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                    and GENERATOR_CALL.search(dotted(node.value.func)):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                            and target.value.id == "self":
                        found[target.attr] = dotted(node.value.func)
        return found

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
        if True:
            where = f"{label} ({self.file}:{getattr(node, 'lineno', fn.lineno)})"
            if isinstance(node, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom)):
                raise NotApplicable(f"{where}: `{type(node).__name__.lower()}`: the sample may depend on more than "
                                    "its index")
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
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
        if RANDOM_CALL.search(name) or ".random." in f".{name}." or RANDOM_CALL.search(attr.rstrip("_")):
            raise NotApplicable(f"{where}: random draw `{ast.unparse(call.func)}()`: a cached sample would "
                                "repeat the first epoch's draw")
        if IMPURE_CALL.search(name):
            raise NotApplicable(f"{where}: `{ast.unparse(call.func)}()` differs between calls")
        if isinstance(call.func, ast.Name):
            if name in self.top:
                self.check(self.top[name], name)
            elif name in local:
                # `for t in self.transforms: x = t(x)`: the objects the attribute holds, where the target makes them.
                attr = self._loop_over_self(name)
                if attr is None or not self._check_objects(self._held_objects(attr)):
                    raise NotApplicable(f"{where}: calls `{name}`, a value perfloop cannot read the code of")
            return  # a builtin or an imported name: its module is judged below when dotted
        base = call.func.value if isinstance(call.func, ast.Attribute) else None
        if isinstance(base, ast.Name) and base.id == "self":
            if attr in self.methods:
                self.check(self.methods[attr], f"{self.cls.name}.{attr}")
                return
            if self._check_objects(self._held_objects(attr)):
                return
            raise NotApplicable(f"{where}: calls self.{attr}(), an object perfloop cannot read the code of "
                                "(a transform pipeline may draw random numbers)")
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
        raise NotApplicable(f"{where}: calls `{ast.unparse(call.func)}()` of another package, whose code "
                            "perfloop does not read")

    # objects the dataset calls (`self.transform(x)`): read where the target makes them -------------------
    def _held_objects(self, attr: str) -> list[ast.Call] | None:
        """The constructor calls of the target's own classes that `self.<attr>` holds, or None if unknown.

        `__init__` sets it to `C(...)`, a list or tuple of them (a Compose's transforms), or to one of
        its parameters; then every place the target's code constructs this class must pass such a
        value (or a name its function sets once to one, or None). Anything else is unknown."""
        init = self.methods.get("__init__")
        if init is None:
            return None
        params = [a.arg for a in init.args.args]
        values = [node.value for node in ast.walk(init) if isinstance(node, ast.Assign)
                  and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                          and t.attr == attr for t in node.targets)]
        if not values:
            return None
        found: list[ast.Call] = []
        for value in values:
            exprs: list[ast.expr] | None = [value]
            if isinstance(value, ast.Name) and value.id in params:
                exprs = self._passed(init, value.id)
            if exprs is None:
                return None
            for expr in exprs:
                for item in expr.elts if isinstance(expr, (ast.List, ast.Tuple)) else [expr]:
                    if isinstance(item, ast.Constant) and item.value is None:
                        continue
                    if not (isinstance(item, ast.Call) and self._callable_class(item) is not None):
                        return None
                    found.append(item)
        return found

    def _passed(self, init: ast.FunctionDef, param: str) -> list[ast.expr] | None:
        """What the target passes for `param` wherever it constructs this class (None: a site is unreadable)."""
        index = [a.arg for a in init.args.args].index(param) - 1  # after self
        defaults = dict(zip([a.arg for a in init.args.args][-len(init.args.defaults):], init.args.defaults)) \
            if init.args.defaults else {}
        found: list[ast.expr] = []
        for tree in self.modules.values():
            scopes = [tree] + [fn for fn, _ in functions(tree)]
            for scope in scopes:
                body = scope.body
                for call in (n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Call)):
                    if dotted(call.func).split(".")[-1] != self.cls.name:
                        continue
                    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                        return None
                    given = next((k.value for k in call.keywords if k.arg == param), None)
                    if given is None and 0 <= index < len(call.args):
                        given = call.args[index]
                    if given is None:
                        given = defaults.get(param)
                    if given is None:
                        return None
                    if isinstance(given, ast.Name):
                        sets = [n.value for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Assign)
                                and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                                and n.targets[0].id == given.id]
                        if len(sets) != 1:
                            return None
                        given = sets[0]
                    found.append(given)
        return found or None

    def _callable_class(self, call: ast.Call) -> tuple[str, ast.ClassDef, ast.FunctionDef] | None:
        """(file, class, its __call__) of the target's own class that `call` constructs, else None."""
        name = dotted(call.func).split(".")[-1]
        for file, tree in self.modules.items():
            for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name):
                method = _method(cls, "__call__")
                if method is not None:
                    return file, cls, method
        return None

    def _check_objects(self, calls: list[ast.Call] | None) -> bool:
        """Check the `__call__` of every object in `calls` as part of the sample (False: unknown objects)."""
        if calls is None:
            return False
        for call in calls:
            file, cls, method = self._callable_class(call)
            sub = _Determinism(cls, file, self.modules)
            sub.seen, sub.notes, sub.draws_only = self.seen, self.notes, self.draws_only
            sub.check(method, f"{cls.name}.__call__")
        return True

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
        for tree in self.modules.values():
            for node in tree.body:
                pairs = []
                if isinstance(node, ast.Import):
                    pairs = [(alias.asname or alias.name, alias.name) for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    pairs = [(alias.asname or alias.name, f"{node.module}.{alias.name}") for alias in node.names]
                for bound, name in pairs:
                    module = by_dotted.get(name)
                    if module is not None:
                        found[bound] = {n.name: n for n in module.body if isinstance(n, ast.FunctionDef)}
        return found

    def _imported(self) -> set[str]:
        return set(self.import_paths)


def _fill_statement(attr: str, method: str) -> cst.BaseStatement:
    """The statement that ends __init__ when samples are computed at construction."""
    return cst.parse_statement(
        f"self.{attr} = {{key: self.{method}(key) for key in range(len(self))}}  # perfloop: every index once\n")


def _splice(text: str, class_name: str, index: str, at_construction: bool = False) -> str:
    """Rename __getitem__ to _uncached_getitem and add the caching __getitem__ before it (libcst);
    ``at_construction``: __init__ ends by computing every index, and __getitem__ only reads the cache."""
    if at_construction:
        lookup = (f"    cache = self.__dict__.get({CACHE_ATTR!r})\n"
                  f"    if cache is None or key not in cache:  # before __init__ filled it, or outside range(len(self))\n"
                  f"        return self.{UNCACHED}({index})\n")
    else:
        lookup = (f"    cache = self.__dict__.setdefault({CACHE_ATTR!r}, {{}})\n"
                  f"    if key not in cache:\n"
                  f"        cache[key] = self.{UNCACHED}({index})\n")
    wrapper = cst.parse_statement(
        f"def __getitem__(self, {index}):\n"
        f"    try:\n"
        f"        key = operator.index({index})\n"
        f"    except TypeError:  # a list of indices or a slice: computed as before, not cached\n"
        f"        return self.{UNCACHED}({index})\n"
        f"{lookup}"
        f"    # A copy per access: fresh objects, as the uncached code handed out.\n"
        f"    return self.{FRESH}(cache[key])\n")

    return _replace_getitem(text, class_name, lambda stmt: [
        wrapper.with_changes(leading_lines=stmt.leading_lines),
        stmt.with_changes(name=cst.Name(UNCACHED), leading_lines=[cst.EmptyLine(indent=False)])],
        _fill_statement(CACHE_ATTR, UNCACHED) if at_construction else None)


def _replace_getitem(text: str, class_name: str, new: Callable[[cst.FunctionDef], list],
                     init_tail: cst.BaseStatement | None = None) -> str:
    """Put ``new(__getitem__)`` and the FRESH method where `class_name`'s __getitem__ was (libcst), and import
    operator and copy; ``init_tail`` is appended to the class's __init__."""

    # Parsed inside a class so that the docstring's lines carry a method's indentation.
    fresh = cst.parse_statement("class _Holder:\n" + textwrap.indent(FRESH_COPY.lstrip(), "    ")).body.body[0]
    fresh = fresh.with_changes(leading_lines=[cst.EmptyLine(indent=False)])

    class Edit(cst.CSTTransformer):
        def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
            if updated.name.value != class_name:
                return updated
            body = []
            for stmt in updated.body.body:
                if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__getitem__":
                    body += [*new(stmt), fresh]
                    continue
                if init_tail is not None and isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
                    stmt = stmt.with_changes(body=stmt.body.with_changes(body=[*stmt.body.body, init_tail]))
                body.append(stmt)
            return updated.with_changes(body=updated.body.with_changes(body=body))

    edited = cst.parse_module(text).visit(Edit()).code
    return add_import(add_import(edited, "operator"), "copy")

