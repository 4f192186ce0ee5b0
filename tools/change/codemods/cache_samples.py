"""Compute each sample once: a dataset's `__getitem__` result per index, cached on first access.

A map-style dataset whose samples depend only on the index and on state fixed at
construction (no random draws, nothing that changes between epochs) recomputes the same
sample every epoch: tokenising the same text, normalising the same window, decoding the
same record. This codemod keeps the original body as `_uncached_getitem` and wraps it:

    def __getitem__(self, index):
        try:
            key = operator.index(index) if type(index) is not tuple else tuple(map(operator.index, index))
        except TypeError:  # a list of indices (a batch sampler), a slice: not cached
            return self._uncached_getitem(index)
        cache = self.__dict__.setdefault("_cached_samples", {})
        if key not in cache:
            cache[key] = self._uncached_getitem(index)
        return self._fresh_copy(cache[key])

The copy makes every access hand out fresh objects, as the old code did, so a caller that
changes a sample in place never changes the next epoch's: `_fresh_copy` (a method
added beside it, FRESH_COPY) clones plain tensors and arrays (a memcpy), rebuilds lists, tuples
and dicts (a list of scalars is copied in one call, a tuple of them shared: blind13 a3 cached a decoded
recording of 7,500 readings per window, and copying them one by one ran x0.16), returns ints, floats and
strings as they are, and hands anything else to
`copy.deepcopy`, one memo for the whole sample so an object met twice is copied once. On a
sample of two small tensors `copy.deepcopy` alone costs about 50 us, more than many parses it
would save (blind4's claims_csv_dates measured the deepcopying cache slower than no cache). The
cache fills during the first epoch, so the first epoch costs what it did and the gain comes
from the second on; verification measures the whole run.

Where the whole sample may differ per access but its first statements may not (a decode, then a
random crop), those statements are cached instead (`_cached_first_part`, see `_cache_prefix`); a call of a
transform chain whose leading steps draw nothing (`self.transform(raw)` on a Compose) is first split into
those steps and the rest (`chain_head.py`), so its head is cached with what comes before it.

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
from perfloop.tools.change.codemods.chain_head import HEAD, TAIL, split_chain
from perfloop.tools.change.codemods.determinism import Determinism, dataset_class, method_of
from perfloop.tools.change.codemods.hot_function import hot_function_of, is_docstring_stmt, python_files
from perfloop.tools.change.codemods.imports import add_import
from perfloop.tools.change.codemods.loop_checks import PURE_BUILTINS
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
    set on a tensor is not copied), lists, tuples and dicts rebuilt (a list of scalars copied in
    one call, a tuple of them shared), ints, floats and strings returned as they are; anything
    else goes through copy.deepcopy. One memo for the whole sample: an object met twice is
    copied once.
    """
    memo = {{}} if memo is None else memo
    if id(value) in memo:
        return memo[id(value)]
    kind = type(value)
    scalars = (bool, int, float, complex, str, bytes, type(None))
    if kind in scalars:
        return value
    # Lists and tuples of scalars only (a decoded recording's 7,500 readings): copied in one call, not item by item.
    if kind is tuple and set(map(type, value)).issubset(scalars):
        return value
    if kind is list and set(map(type, value)).issubset(scalars):
        copied = memo[id(value)] = value.copy()
        return copied
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
KEY = "operator.index({index}) if type({index}) is not tuple else tuple(map(operator.index, {index}))"
"""The cache's key: an index, or a tuple of them (blind13 b4 and blind14 b4: a batch sampler hands out
`(track, start)`); anything else (a list of indices, a slice) raises TypeError and is computed as before."""
CHEAP_CALLS = PURE_BUILTINS | {"range", "str", "isinstance", "tuple", "list", "dict", "getattr", "enumerate", "zip",
                               "operator.index"}
"""Calls too cheap to be worth a first-part cache on their own (the first part must make another call)."""


def cache_samples(ctx: CodemodContext) -> CodemodResult:
    """Cache `__getitem__`'s result per index in the dataset class that builds the profile's hot samples."""
    hot = hot_function_of(ctx)
    texts = {f: (ctx.root / f).read_text() for f in python_files(ctx.root)}
    modules = {f: ast.parse(text) for f, text in texts.items()}
    file, cls = dataset_class(modules, hot.defining_name, hot.file)
    text, tree = texts[file], modules[file]
    getitem = method_of(cls, "__getitem__")
    if getitem is None or len(getitem.args.args) != 2 or getitem.args.vararg or getitem.args.kwonlyargs:
        raise NotApplicable(f"{cls.name} ({file}:{cls.lineno}) has no __getitem__(self, index)")
    if method_of(cls, FRESH) is not None:
        raise NotApplicable(f"{cls.name} ({file}:{cls.lineno}) already has a method named {FRESH}")
    if method_of(cls, UNCACHED) is not None or any(isinstance(n, ast.Attribute) and n.attr == CACHE_ATTR
                                                  for n in ast.walk(tree)):
        raise NotApplicable(f"{cls.name} already caches its samples ({UNCACHED} or {CACHE_ATTR} exists)")
    at_construction = ctx.params.get(FILL_KEY, "first_access") == "construction"
    if at_construction:
        _refuse_precompute(ctx, cls, file)
    else:
        _refuse_restarting_workers(ctx)
    if method_of(cls, PREFIX) is not None or any(isinstance(n, ast.Attribute) and n.attr == PREFIX_ATTR
                                               for n in ast.walk(tree)):
        raise NotApplicable(f"{cls.name} already caches its samples' first part ({PREFIX} or {PREFIX_ATTR} exists)")
    checker = Determinism(cls, file, modules)
    try:
        checker.check(getitem, f"{cls.name}.__getitem__")
    except NotApplicable as whole:
        return _cache_part(text, file, cls, getitem, modules, str(whole), at_construction, hot.defining_name)
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
        if method_of(cls, name) is None:
            raise NotApplicable(f"{cls.name} ({file}:{cls.lineno}) has no {name} of its own: {why}")
    estimate = _precompute_estimate_s(ctx)
    if estimate is not None and estimate > PRECOMPUTE_MAX_S:
        raise NotApplicable(f"computing all {ctx.profile.samples_per_epoch} samples at construction would take about "
                            f"{estimate:.0f} s ({ctx.profile.sample_build_ms:.2f} ms each by the profile), more "
                            f"than {PRECOMPUTE_MAX_S:.0f} s before the first batch; the first-access cache spreads it")


def _cache_part(text: str, file: str, cls: ast.ClassDef, getitem: ast.FunctionDef, modules: dict[str, ast.Module],
                whole: str, at_construction: bool, hot_name: str) -> CodemodResult:
    """The first part of each sample cached, where the whole sample may differ per access: with a transform chain's
    call split into the steps that draw nothing and the rest (`chain_head`) where `__getitem__` calls one, else
    as written. Where the chain cannot be split and nothing else can be cached, the refusal says both why."""
    try:
        split = split_chain(text, file, cls, getitem, modules, hot_name)
    except NotApplicable as unsplit:
        try:
            return _cache_prefix(text, file, cls, getitem, modules, whole, at_construction)
        except NotApplicable as refused:
            raise NotApplicable(f"{refused}; {unsplit}") from None
    except (ValueError, KeyError, AttributeError, TypeError, IndexError, StopIteration, RecursionError):
        split = None  # code the split was not written for: the statements are cached as written, where they can be
    if split is None:
        return _cache_prefix(text, file, cls, getitem, modules, whole, at_construction)
    tree = ast.parse(split.text)
    new_cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.name)
    result = _cache_prefix(split.text, file, new_cls, method_of(new_cls, "__getitem__"), {**modules, file: tree},
                           whole, at_construction, known={HEAD: None, TAIL: split.tail_reason})
    steps = ", ".join(split.head)
    return result.model_copy(update=dict(
        summary=f"{result.summary}; self.{split.attr}'s steps of {steps} are split off into the cached part",
        notes=[f"self.{split.attr} ({file}:{split.line}) is split in two: its leading steps of the classes "
                f"{steps} draw nothing and read nothing that changes, so they run once per index in the cached "
                f"part; the steps from the first of another class on run on every access, in their order "
                f"({split.tail_reason}). Which steps lead is checked on every call by their class, so another "
                "chain of the same classes is split where its own first other step is", *result.notes]))


def _cache_prefix(text: str, file: str, cls: ast.ClassDef, getitem: ast.FunctionDef, modules: dict[str, ast.Module],
                  whole: str, at_construction: bool = False, known: dict[str, str | None] | None = None
                  ) -> CodemodResult:
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
    prefix, rest, moved, stop = _split_body(cls, file, getitem, modules, body, whole, known or {})
    if not prefix or not rest or not any(isinstance(n, ast.Call) and dotted(n.func) not in CHEAP_CALLS
                                         for s in prefix for n in ast.walk(s)):
        # Nothing worth a cache: only reads of the dataset's state and cheap builtins (blind11 a5: `n = len(...)`).
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
    checker = Determinism(cls, file, modules)
    checker.known = known or {}
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
                body: list[ast.stmt], whole: str, known: dict[str, str | None]
                ) -> tuple[list[ast.stmt], list[ast.stmt], dict[int, int], str]:
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
        checker = Determinism(cls, file, modules)
        checker.known = known
        try:
            checker.check(trial, f"{cls.name}.__getitem__")
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
            f"    key = {KEY.format(index=index)}\n"
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
            f"    key = {KEY.format(index=index)}\n"
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


def _refuse_restarting_workers(ctx: CodemodContext) -> None:
    for site in ctx.sites:
        workers, persistent = site.kwargs.get("num_workers") or 0, site.kwargs.get("persistent_workers")
        if workers > 0 and not persistent:
            raise NotApplicable(f"the DataLoader ({site.file}:{site.line}) starts {workers} workers every epoch "
                                "(persistent_workers is off): each worker's cache would go with it; make the "
                                "workers persistent first")


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
        f"        key = {KEY.format(index=index)}\n"
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

