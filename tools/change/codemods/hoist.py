"""Move what every pass of a loop recomputes out of it: the training loop's and the hot function's (offline).

Training loops often recompute, each step, a value that cannot change between steps: class weights
from the dataset's labels, an identity matrix for one-hot targets, a normalisation's mean and std, a
lookup table. This codemod moves such statements from the top level of the training loop's body to
just before the loop, or before an enclosing epoch loop when they stay the same there too:

    for x, y in loader:                              weights = class_weights(train_labels)
        weights = class_weights(train_labels)   ->   for x, y in loader:
        loss = F.cross_entropy(out, y, weight=weights)   loss = F.cross_entropy(out, y, weight=weights)

A statement leaves a loop only when all of this holds (`_Hoist.invariant`):

- it binds plain names (`a = ...`, `a, b = ...`) at the top level of the loop's body;
- every call in it computes from its arguments only (`Calls`): a numpy/torch/math/... function,
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
Statements without a call or a comprehension are moved only when a moved statement reads them, and
a value one pass may use up (a generator, `zip(...)`, `iter(...)`) never moves.

`hoist_loop_invariants` does the same inside the profile's hot function (and the same-file functions
it calls), for every loop in it, per_sample_tokenization, transform_hotspot and the like: a tokeniser
that sorts its vocabulary at every character position, a scale computed from fixed settings per
pixel. There the iterable of a loop nested in another is a candidate too: `for tok in
sorted(self.vocab, key=len)` inside `while i < len(text)` becomes `for tok in _loop_invariant_1` with
`_loop_invariant_1 = sorted(self.vocab, key=len)` before the `while`, when it is a new list, tuple,
array or tensor (iterated again on every pass, never used up). The rewrite is replayed on captured
calls of the hot function before any pipeline run (verify's function-level replay).

A statement of an inner loop that reads, of what the loops bind, only that loop's counter (`k` of
`for k in range(n)` or `for k, v in enumerate(row)`: an int) gives the same value for the same counter on
every pass of an enclosing loop when the rest of the tests above hold for that loop. It stays where it is,
and its value is kept in a dict made before the outermost such loop (`_per_counter_1`), computed the first
time each counter comes: `pc = self.pitch_class(k)` per bin of every frame of a spectrogram. It is evaluated
where it was, on the same values, so a value or an exception is the one the old code gave. Only work worth a
dict lookup is kept this way: a call of the target's own code (a function, or a method of the class, judged
as the functions are: reading `self`'s attributes, none of which a method but `__init__` changes, and
writing none), or two calls; and one counter only (a tuple key costs about what a small helper does).
"""
from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable, ReplayTarget
from perfloop.tools.change.codemods.hot_function import (
    functions,
    load_hot_function,
    python_files,
    qualname_of,
    sampled_helpers,
)
from perfloop.tools.change.codemods.imports import after_imports_text
from perfloop.tools.change.codemods.invariance import (
    Calls,
    apart,
    attributes_read,
    blocks,
    changed_in,
    loaded,
    local_names,
    one_pass,
    stored_names,
    units,
)
from perfloop.tools.change.codemods.loop_checks import PURE_MODULES
from perfloop.tools.change.codemods.loops import dotted
from perfloop.tools.change.codemods.training_step import one_step

MARK = "# perfloop: moved out of the training loop (the same value every step)"
LOOP_MARK = "# perfloop: moved out of the loop (the same value on every pass)"
# The iterable of a nested loop may move when it is a new container that can be iterated again.
_REITERABLE_CALLS = frozenset({"sorted", "list", "tuple", "set", "frozenset", "dict"})
_REITERABLE_METHODS = frozenset({"tolist", "split", "splitlines", "copy"})

ITERABLE_STEM = "_loop_invariant_"
"""Names given to nested loops' iterables bound before the loop (`_loop_invariant_1`)."""
TABLE_STEM = "_per_counter_"
"""Names given to the dicts that keep a value computed per inner counter across an outer loop's passes."""
LOOKUP_STEM = "_lookup_"
"""Names given to the sets membership tests read (`_lookup_1`)."""
LOOKUP_HELPER = "_membership_lookup"
"""The helper the file gains. Never named after perfloop: a patch whose added lines mention `perfloop_`
reads as touching the probe (tools/change/patching.py, PROBE_REFERENCES) and is refused before it runs."""
LOOKUP_SOURCE = f'''def {LOOKUP_HELPER}(items):
    """`items` as a frozenset when `x in items` answers the same from it: a list or tuple of ints, floats,
    strings, bytes, None or tuples of them (added by perfloop: membership tests in a loop hash instead of scan)."""
    def plain(value):
        return value is None or type(value) in (int, float, str, bytes, bool) or (
            type(value) is tuple and all(plain(v) for v in value))

    if type(items) not in (list, tuple) or not all(plain(v) for v in items):
        return items
    return frozenset(items)
'''

Move = tuple[ast.stmt, ast.AST, str | None]
"""(statement, the loop it is put before, its text when it is new: a nested loop's iterable bound to a name)."""


def hoist_step_invariants(ctx: CodemodContext) -> CodemodResult:
    """Move the training loop's per-step statements that compute the same value every step before the loop."""
    files = python_files(ctx.root)
    step = one_step(ctx, files, "hoist_step_invariants")
    if step.loop is None:
        raise NotApplicable("hoist_step_invariants: the training step is in no loop of its file")
    file, line = step.src.rel, step.src.line(step.loop)
    text = (ctx.root / file).read_text()

    def step_loop(tree: ast.Module) -> list[ast.AST]:
        found = [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While)) and n.lineno == line]
        if not found:
            raise NotApplicable(f"hoist_step_invariants: no loop at line {line} of {file}")
        return found[:1]

    moves, edits, refusals = _plan(ctx, file, text, step_loop, iterables=False)
    if not moves:
        raise NotApplicable(f"hoist_step_invariants: no statement of the training loop ({file}:{line}) computes the "
                            "same value every step by what perfloop can show: "
                            + ("; ".join(refusals[:4]) or "none binds a name from a call"))
    return CodemodResult(
        files={file: _splice(text, moves, edits, MARK)},
        summary=f"move {len(moves)} statement(s) that give the same value every step out of the training loop "
                f"({file}:{line})",
        knob="loop-invariant statements", old_value="computed every step",
        new_value="computed once, before the loop", location=f"{file}:{min(s.lineno for s, _, _ in moves)}",
        notes=_notes(file, moves, refusals, "the loop"),
    )


def hoist_loop_invariants(ctx: CodemodContext) -> CodemodResult:
    """Move what every pass of a loop in the hot function (and the same-file functions it calls) recomputes
    before that loop; the hot function is replayed on captured calls before any pipeline run."""
    file, text, tree, hot = load_hot_function(ctx)
    qualname = qualname_of(tree, hot)
    scanned = {qualname} | _same_file_callees(hot, qualname, tree) | {
        qualname_of(tree, helper) for helper in sampled_helpers(ctx, file, tree)}

    def scanned_loops(fresh: ast.Module) -> list[ast.AST]:
        picked = [node for node, qual in functions(fresh) if qual in scanned]
        return [n for fn in picked for n in ast.walk(fn) if isinstance(n, (ast.For, ast.While))]

    moves, edits, refusals = _plan(ctx, file, text, scanned_loops, iterables=True)
    if not moves:
        raise NotApplicable(f"hoist_loop_invariants: nothing in {qualname} ({file}:{hot.lineno}) or the functions it "
                            "calls in its file gives the same value on every pass of a loop by what perfloop can "
                            "show: " + ("; ".join(refusals[:4]) or "no loop recomputes a value from a call"))
    tabled = sum(_table(new) for _, _, new in moves)
    return CodemodResult(
        files={file: _splice(text, moves, edits, LOOP_MARK)},
        summary=(f"move {len(moves) - tabled} computation(s) that give the same value on every pass out of the loops "
                 f"of {qualname} ({file})" if tabled < len(moves) else
                 f"compute {tabled} value(s) of {qualname} ({file}) once per inner-loop counter, kept across the "
                 "outer loop's passes"),
        knob="loop-invariant code", old_value="computed on every pass",
        new_value="computed once, before the loop", location=f"{file}:{min(s.lineno for s, _, _ in moves)}",
        replay=ReplayTarget(file=file, function=qualname),
        notes=_notes(file, moves, refusals, "its loop"),
    )


def _notes(file: str, moves: list[Move], refusals: list[str], where: str) -> list[str]:
    moved = [f"{file}:{stmt.lineno} `{(new or ast.unparse(stmt))[:60]}`" for stmt, _, new in moves if not _table(new)]
    kept = [f"{file}:{stmt.lineno} `{ast.unparse(stmt.value)[:60]}` (in {new.split(' ')[0]})"
            for stmt, _, new in moves if _table(new)]
    return [*([f"moved: {', '.join(moved)}"] if moved else []),
            *([f"computed once per value of the inner loop's counter and kept across the outer loop's passes: "
               f"{', '.join(kept)}; computed where it was, the first time each counter comes, so what it raises "
               "and when stays the same"] if kept else []),
            f"each reads nothing {where} binds or changes (but the counter), calls only code that computes from its "
            "arguments, and its names are only read in the loop; every value computed stays bit-identical",
            *[f"left in {where}: {why}" for why in refusals[:6]]]


def _table(new: str | None) -> bool:
    return bool(new) and new.startswith(TABLE_STEM)


def _same_file_callees(fn: ast.FunctionDef, qualname: str, tree: ast.Module) -> set[str]:
    """Qualified names of the module functions (`helper(...)`) and methods of its own class (`self.helper(...)`)
    of this file that `fn` calls."""
    defined = {qual for _, qual in functions(tree)}
    owner = qualname.rsplit(".", 1)[0] + "." if "." in qualname else ""
    called = set()
    for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
        name = dotted(call.func)
        called.add(owner + name.removeprefix("self.") if name.startswith("self.") else name)
    return called & defined


def _plan(ctx: CodemodContext, file: str, text: str, loops_of: Callable[[ast.Module], list[ast.AST]],
          iterables: bool) -> tuple[list[Move], list[tuple[ast.AST, str]], list[str]]:
    """The moves, in two passes: the first finds every statement that may move (moving each in its tree as it
    goes, so later ones are judged against the loops as they will be); the second, on a fresh tree, moves only
    those that do work and the plain ones they read (_worth_moving), so the text and the judged tree agree."""
    first, _, refusals = _pass(ctx, file, text, loops_of, iterables, None)
    keep = {_key(stmt) for stmt, _, _ in _worth_moving(first)}
    if not keep:
        return [], [], refusals
    moves, edits, _ = _pass(ctx, file, text, loops_of, iterables, keep)
    return moves, edits, refusals


def _key(stmt: ast.stmt) -> tuple[int, ...]:
    """Where a statement is, the same in both passes; a made one also by the loop it was made for."""
    return getattr(stmt, "hoist_order_key", (stmt.lineno, stmt.col_offset))


def _pass(ctx: CodemodContext, file: str, text: str, loops_of, iterables: bool, keep: set | None):
    modules = {}
    for rel in python_files(ctx.root):
        try:
            modules[rel] = ast.parse(text if rel == file else (ctx.root / rel).read_text())
        except (SyntaxError, UnicodeDecodeError):
            continue
    tree = modules[file] if file in modules else ast.parse(text)
    calls = Calls(modules)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    moves: list[Move] = []
    edits: list[tuple[ast.AST, str]] = []  # (an expression as it was in the text, the name that replaces it)
    refusals: list[str] = []
    for loop in loops_of(tree):
        made = [*_iterables_as_statements(loop, used, text), *_lookups_as_statements(loop, used, text)] \
            if iterables else []
        calls.shallow_copies = {synth.name for synth in made if _shallow_copy(synth.stmt.value)}
        hoist = _Hoist(tree, loop, calls)
        found = hoist.moves(keep)
        for stmt, outer, counters in hoist.tables:
            if any(stmt is s for s, _, _ in moves) or (source := ast.get_source_segment(text, stmt.value)) is None:
                continue
            name = _new_name(used, TABLE_STEM)
            [key] = counters
            moves.append((stmt, outer, f"{name} = {{}}  # per {key}: computed the first time it comes, then kept"))
            edits.append((stmt.value, f"({name}[{key}] if {key} in {name} else {name}.setdefault({key}, {source}))"))
        moved = {id(stmt) for stmt, _ in found}
        for synth in made:
            if id(synth.stmt) in moved:
                edits += [(original, synth.name) for original in synth.originals]
            else:  # stays: the loop as it was
                synth.undo()
        texts = {id(synth.stmt): synth.text for synth in made}
        moves += [(stmt, target, texts.get(id(stmt))) for stmt, target in found]
        refusals += hoist.refusals
    return moves, edits, refusals


@dataclass
class _Synth:
    """A statement made in the tree to be judged as any other: a value the loop computes inside an expression,
    bound to `name` (`text` is what the file will say); `undo` puts the loop back as it was."""

    stmt: ast.Assign
    name: str
    text: str
    originals: list[ast.AST]
    undo: Callable[[], None]


def _new_name(used: set[str], stem: str) -> str:
    number = 1 + sum(name.startswith(stem) for name in used)
    used.add(f"{stem}{number}")
    return f"{stem}{number}"


def _bind(loop: ast.AST, at: int, name: str, value: ast.AST, where: ast.AST) -> ast.Assign:
    stmt = ast.fix_missing_locations(ast.copy_location(
        ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value), where))
    stmt.hoist_order_key = (where.lineno, where.col_offset, loop.lineno, loop.col_offset)
    loop.body.insert(at, stmt)
    return stmt


def _iterables_as_statements(loop: ast.AST, used: set[str], text: str) -> list[_Synth]:
    """For each loop nested at the top of `loop`'s body whose iterable is a new container built by a call
    (`sorted(self.vocab, key=len)`), bind it to a new name in a statement just before the nested loop, in the
    tree, and iterate the name."""
    made = []
    for nested in [s for s in loop.body if isinstance(s, ast.For)]:
        source = ast.get_source_segment(text, nested.iter)
        if not (_reiterable_work(nested.iter) and source and nested.iter.lineno == nested.iter.end_lineno):
            continue
        name, original = _new_name(used, ITERABLE_STEM), nested.iter
        stmt = _bind(loop, loop.body.index(nested), name, original, original)
        nested.iter = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), original)

        def undo(stmt=stmt, nested=nested, original=original) -> None:
            loop.body.remove(stmt)
            nested.iter = original
        made.append(_Synth(stmt, name, f"{name} = {source}", [original], undo))
    return made


def _lookups_as_statements(loop: ast.AST, used: set[str], text: str) -> list[_Synth]:
    """For each container the loop's body tests membership in (`cand in known`, `w not in self.stopwords`; a
    name or an attribute of self), one statement at the top of the body binding `frozenset(container)` (what
    the analysis judges; the file calls LOOKUP_HELPER, which keeps anything but a list or tuple of plain values
    as it is), and the tests read the new name."""
    groups: dict[str, list[ast.Compare]] = {}
    for node in (n for stmt in loop.body for n in ast.walk(stmt)):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and _container(node.comparators[0]) and node.comparators[0].lineno == node.comparators[0].end_lineno:
            groups.setdefault(ast.get_source_segment(text, node.comparators[0]) or "", []).append(node)
    made = []
    for source, tests in groups.items():
        if not source:
            continue
        name, originals = _new_name(used, LOOKUP_STEM), [test.comparators[0] for test in tests]
        value = ast.Call(func=ast.Name(id="frozenset", ctx=ast.Load()), args=[originals[0]], keywords=[])
        stmt = _bind(loop, 0, name, value, originals[0])
        for test in tests:
            test.comparators = [ast.copy_location(ast.Name(id=name, ctx=ast.Load()), test.comparators[0])]

        def undo(stmt=stmt, tests=tests, originals=originals) -> None:
            loop.body.remove(stmt)
            for test, original in zip(tests, originals):
                test.comparators = [original]
        made.append(_Synth(stmt, name, f"{name} = {LOOKUP_HELPER}({source})", originals, undo))
    return made


def _container(node: ast.AST) -> bool:
    if isinstance(node, ast.Name) and node.id.startswith((LOOKUP_STEM, ITERABLE_STEM)):
        return False  # an outer loop's own replacement
    return isinstance(node, ast.Name) or (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                                          and node.value.id == "self")


def _shallow_copy(node: ast.AST) -> bool:
    """`sorted(x)`, `list(x)`, `tuple(x)`, `set(x)`, `frozenset(x)`, `x.copy()`: a new container of x's items."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name):
        return node.func.id in _REITERABLE_CALLS - {"dict"}
    return isinstance(node.func, ast.Attribute) and node.func.attr == "copy"


def _reiterable_work(node: ast.AST) -> bool:
    """A list, set or dict comprehension, or a call that returns a new container: `sorted`, `list`, ..., a
    numpy or torch function, `.tolist()`, `.split()`."""
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp)):
        return True
    if not isinstance(node, ast.Call):
        return False
    name = dotted(node.func)
    if isinstance(node.func, ast.Name):
        return name in _REITERABLE_CALLS
    if isinstance(node.func, ast.Attribute) and node.func.attr in _REITERABLE_METHODS:
        return True
    return name.startswith(PURE_MODULES) and name.split(".")[0] in ("np", "numpy", "torch")

class _Hoist:
    """A loop, the loops around it up to its function or module, and what may leave them."""

    def __init__(self, tree: ast.Module, inner: ast.AST, calls: Calls) -> None:
        self.parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
        self.loops, node = [inner], inner
        while (node := self.parents.get(node)) is not None and not isinstance(node, (ast.FunctionDef,
                                                                                      ast.AsyncFunctionDef,
                                                                                      ast.ClassDef, ast.Lambda)):
            if isinstance(node, (ast.For, ast.While)):
                self.loops.append(node)
        self.scope = node if node is not None else tree
        self.calls = calls
        owner = self.parents.get(self.scope)
        calls.owner = owner if isinstance(owner, ast.ClassDef) else None
        self.tables: list[tuple[ast.stmt, ast.AST, list[str]]] = []
        """(statement, the outermost loop it gives the same value in for the same counters, the counters)."""
        own = local_names(self.scope) if isinstance(self.scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else set()
        self.values = (own | self.calls.module_names) - set(self.calls.paths) - set(self.calls.top) \
            - set(self.calls.classes)
        self.refusals: list[str] = []
        self._scope: list[tuple[ast.AST, ast.AST]] | None = None

    def moves(self, keep: set[tuple[int, int]] | None = None) -> list[tuple[ast.stmt, ast.AST]]:
        """(statement, the outermost loop it leaves), in body order; with `keep`, only statements at those
        (line, column). Each move is made in the tree as it is found, so later statements are judged against
        the loops as they will be."""
        found: list[tuple[ast.stmt, ast.AST]] = []
        inner = self.loops[0]
        for stmt in list(inner.body):
            if not (isinstance(stmt, ast.Assign) and all(_plain_targets(t) for t in stmt.targets)):
                continue
            if keep is not None and _key(stmt) not in keep:
                continue
            each_step = {n.id for k, u in enumerate(units(inner)) if u is not stmt for n in ast.walk(apart(u, k))
                         if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            if per_pass := loaded(stmt) & each_step:
                self._table(stmt, per_pass)  # the same value for the same inner counters, perhaps
                continue  # else computed from the step's own values: per-step work by nature, not worth a note
            why, level = one_pass(stmt.value) or self.calls.refusal(stmt), -1
            if why is None:
                for outer in range(len(self.loops)):
                    if (problem := self.invariant(stmt, outer)) is not None:
                        why = problem if level < 0 else None
                        break
                    level = outer
            if level >= 0:
                found.append((stmt, self.loops[level]))
                self._move(stmt, level)
            elif why and _does_work(stmt):
                self.refusals.append(f"line {stmt.lineno} `{ast.unparse(stmt)[:50]}`: {why}")
        return found

    def _table(self, stmt: ast.Assign, per_pass: set[str]) -> None:
        """Note `stmt` in self.tables when what it reads of the loops' own values is only counters of the loops
        around it (`for k in range(n)`, `for k, v in enumerate(row)`: ints) and it gives the same value for the
        same counter on every pass of an enclosing loop: `pc = self.pitch_class(k)` per bin of every frame. Only
        work worth a dict lookup: a call of the target's own code, or two calls; one counter (a tuple key costs
        about what a small helper does)."""
        if len(self.loops) < 2 or not per_pass <= _counters(self.loops[0]) \
                or stmt.value.lineno != stmt.value.end_lineno or one_pass(stmt.value) or self.calls.refusal(stmt):
            return
        found = [n for n in ast.walk(stmt.value) if isinstance(n, ast.Call)]
        if len(found) < 2 and not any(self.calls.own_code(c) for c in found):
            return
        level, counters, reads = 0, set(), loaded(stmt)
        for outer in range(1, len(self.loops)):
            counters |= _counters(self.loops[outer - 1])
            given = per_pass | (reads & counters)
            bound = [n for u in units(self.loops[outer]) for n in ast.walk(u)
                     if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in given]
            # A counter bound elsewhere too (`k += 2`) may hold another kind of key.
            # One counter: a tuple of two costs about what a small helper does (measured: x0.9 on a per-pixel polar).
            if len(given) == len(bound) == 1 and self.invariant(stmt, outer, given=given) is None:
                level, key = outer, given
        if level:
            self.tables.append((stmt, self.loops[level], sorted(key)))

    def invariant(self, stmt: ast.Assign, level: int, given: set[str] = frozenset()) -> str | None:
        """None when `stmt` (in the training loop's body) gives the same value on every pass of
        self.loops[level], else why not; with `given` (counters of the loop around it, ints), the same value for
        the same values of those, the statement staying where it is."""
        loop, inner = self.loops[level], self.loops[0]
        inside = [apart(u, k) for k, u in enumerate(units(loop)) if u is not stmt]
        if any(isinstance(n, (ast.Global, ast.Nonlocal, ast.NamedExpr, ast.Delete)) for u in inside for n in ast.walk(u)):
            return "the loop has a `global`, `nonlocal`, `del` or `:=`"
        binds = stored_names(stmt)
        # Values only: modules, functions, classes and builtins are not what a loop changes.
        reads = {n for n in loaded(stmt) if n in self.values or n.startswith("self.")} | self.calls.globals_read(stmt)
        reads -= given
        stores = {n.id for u in inside for n in ast.walk(u) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if bound := sorted(reads & stores):
            return f"reads {', '.join(bound)}, which the loop binds"
        if not given:
            if again := sorted(binds & stores):
                return f"{', '.join(again)} is bound elsewhere in the loop too"
            header = [inner.test] if isinstance(inner, ast.While) else [inner.target, inner.iter]
            early = header + inner.body[:inner.body.index(stmt)]
            if seen := sorted(binds & {n.id for s in early for n in ast.walk(s) if isinstance(n, ast.Name)}):
                return f"{', '.join(seen)} is read in the loop before this statement"
            if elsewhere := sorted(binds & self._mentioned_outside(loop)):
                return f"{', '.join(elsewhere)} is used outside the loop too"
        scope = [copy for unit, copy in self._scope_units() if unit is not stmt]
        changed = changed_in(inside, scope, self.calls) | self.calls.changed_globals
        if "self" in changed:  # the object itself handed on: any of its attributes may change
            changed |= {name for name in reads if name.startswith("self.")}
        if touched := sorted((reads | binds) & changed):
            return f"the loop may change {', '.join(touched)} (stored into, called or handed to other code)"
        if attrs := sorted((attributes_read(stmt) | self.calls.method_attributes(stmt)) & self.calls.changed_attributes):
            return f"reads .{', .'.join(attrs)}, which a method other than __init__ sets or changes"
        if held := sorted(reads & self._handed_outside(loop)):
            return f"{', '.join(held)} is handed to code that may keep and change it (outside the loop)"
        return None

    def _scope_units(self) -> list[tuple[ast.AST, ast.AST]]:
        """Each unit of the scope with its `apart` copy, made once per shape of the tree (a move changes it)."""
        if self._scope is None:
            found = [unit for top in self.scope.body for unit in units(top)]
            self._scope = [(unit, apart(unit, k)) for k, unit in enumerate(found)]
        return self._scope

    def _move(self, stmt: ast.stmt, level: int) -> None:
        """Move `stmt` in the tree, from the training loop's body to just before self.loops[level]."""
        self._scope = None
        self.loops[0].body.remove(stmt)
        loop = self.loops[level]
        block = next(b for b in blocks(self.parents.get(loop, self.scope)) if loop in b)
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


def _counters(loop: ast.AST) -> set[str]:
    """The names `loop`'s header binds to ints counting its passes: `k` of `for k in range(...)` and of
    `for k, v in enumerate(...)` (no `start=` or an int one)."""
    if not (isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name)):
        return set()
    call, target = loop.iter, loop.target
    if call.func.id == "range" and isinstance(target, ast.Name) and not call.keywords:
        return {target.id}
    if call.func.id == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
            and isinstance(target.elts[0], ast.Name) and len(call.args) + len(call.keywords) <= 2 \
            and all(isinstance(a, ast.Constant) and type(a.value) is int for a in [*call.args[1:],
                                                                                   *(k.value for k in call.keywords)]):
        return {target.elts[0].id}
    return set()


def _plain_targets(target: ast.AST) -> bool:
    return isinstance(target, ast.Name) or (isinstance(target, (ast.Tuple, ast.List))
                                            and all(isinstance(e, ast.Name) for e in target.elts))


def _does_work(stmt: ast.stmt) -> bool:
    return any(isinstance(n, (ast.Call, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp))
               for n in ast.walk(stmt.value))


def _worth_moving(found: list[Move]) -> list[Move]:
    """The moves that do work, and the plain ones those read (`n = K` before `w = f(n)`); none when no move
    does work."""
    keep: list[Move] = []
    needed: set[str] = set()
    for move in sorted(found, key=lambda m: _key(m[0]), reverse=True):
        if _does_work(move[0]) or stored_names(move[0]) & needed:
            keep.append(move)
            needed |= loaded(move[0])
    return list(reversed(keep)) if any(_does_work(m[0]) for m in keep) else []


def _splice(text: str, moves: list[Move], edits: list[tuple[ast.AST, str]], mark: str) -> str:
    """Cut each moved statement's lines out of its loop and put them, dedented, before the loop it leaves (a new
    statement is written there); a nested loop whose iterable moved iterates the new name."""
    lines = text.splitlines(keepends=True)
    cut: set[int] = set()
    before: dict[int, list[str]] = {}
    for stmt, loop, new in moves:
        where = before.setdefault(loop.lineno - 1, [" " * loop.col_offset + mark + "\n"])
        if new is not None:
            where.append(" " * loop.col_offset + new + "\n")
            continue
        shift = stmt.col_offset - loop.col_offset
        chunk = lines[stmt.lineno - 1:stmt.end_lineno]
        head, tail = lines[stmt.lineno - 1].encode(), lines[stmt.end_lineno - 1].encode()  # offsets are in bytes
        rest = tail[stmt.end_col_offset:].decode(errors="replace").strip()
        if any(line.strip() and not line.startswith(" " * shift) for line in chunk) \
                or head[:stmt.col_offset].strip() or (rest and not rest.startswith("#")):
            raise NotApplicable(f"line {stmt.lineno} shares its lines with other code or is not indented with "
                                "spaces: it cannot be moved as whole lines")
        cut.update(range(stmt.lineno - 1, stmt.end_lineno))
        where.extend(line[shift:] if line.strip() else line for line in chunk)
    # Each replaced expression is on one line; right to left, so the offsets (in bytes) of a line's others hold.
    for original, name in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        row = lines[original.lineno - 1].encode()
        lines[original.lineno - 1] = (row[:original.col_offset] + name.encode() + row[original.end_col_offset:]).decode()
    out = []
    for number, line in enumerate(lines):
        out.extend(before.get(number, []))
        if number not in cut:
            out.append(line)
    new = "".join(out)
    return _with_lookup_helper(new) if f"{LOOKUP_HELPER}(" in new else new


def _with_lookup_helper(text: str) -> str:
    """`text` with LOOKUP_HELPER defined after its imports (once)."""
    if f"def {LOOKUP_HELPER}(" in text:
        return text
    return after_imports_text(text, LOOKUP_SOURCE)
