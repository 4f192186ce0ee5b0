"""Vectorise the hot function the profile names: its loops and comprehensions become numpy.

`rewrite_function` decides per top-level loop (or statement holding a list comprehension) what replaces it, using the
translator; `splice` (`splice_loops.py`) writes the new statements into the file with libcst, leaving every other line
as it was."""
from __future__ import annotations

import ast
import copy
import re

from perfloop.contracts.tolerances import FP32
from perfloop.tools.change.codemods.axes import ROW_CALLS
from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable, ReplayTarget, Tolerance
from perfloop.tools.change.codemods.blocks import block_at, construct, runs_after, stmt_at, stored_by_loops
from perfloop.tools.change.codemods.chains import keep_arrays
from perfloop.tools.change.codemods.counts import ARRAY, as_checked, count_list, listed_once, without_counts
from perfloop.tools.change.codemods.draws import sole_draw
from perfloop.tools.change.codemods.gather import copy_loop, is_gather
from perfloop.tools.change.codemods.hot_function import (
    covered_by_one,
    functions,
    helpers_in_target,
    load_hot_function,
    per_element_left_out,
    python_files,
    qualname_of,
    sampled_helpers,
)
from perfloop.tools.change.codemods.inline import helpers_of, inline_helpers, with_math_names
from perfloop.tools.change.codemods.lifted import lift_grid
from perfloop.tools.change.codemods.list_grids import grids_as_rows
from perfloop.tools.change.codemods.loop_checks import PURE_BUILTINS, PURE_REDUCTIONS, refuse_effects
from perfloop.tools.change.codemods.loops import (
    FunctionRewrite,
    Held,
    LoopRewrite,
    Val,
    counter_start,
    dotted,
    float_context,
    held_kinds,
    hoisted_conversions,
    is_number_literal,
    names_loaded,
    names_stored,
    read_before_rebound,
    rebuilt_every_pass,
    stores,
    while_stop,
)
from perfloop.tools.change.codemods.nests import CONTINUE_AS_ELSE, for_rewrite
from perfloop.tools.change.codemods.roundtrip import remove_round_trips
from perfloop.tools.change.codemods.splice_loops import splice
from perfloop.tools.change.codemods.starts import simple_inits
from perfloop.tools.change.codemods.translator import Translator
from perfloop.tools.change.codemods.unroll import Unrolled, unroll_literal_loops
from perfloop.tools.change.codemods.windows import windows_first

_PURE = PURE_BUILTINS | PURE_REDUCTIONS
_GATHER_NOTES = ["gather: assumes the written arrays share no memory with the arrays read (the loop interleaved "
                 "reads and writes); values outside the target dtype's range raised in the loop, the array copy "
                 "wraps them"]


def vectorize_hot_function(ctx: CodemodContext) -> CodemodResult:
    """Rewrite the loops of the profile's hot function (or of the same-file functions it calls).

    Params: `exact`, `round_trip`, and `target`: `batch` (default: batch building's hot function)
    or `main` (the main process's per-step host work: each of its hot functions in turn, loop
    owner first, until one has a loop that can be rewritten).
    """
    target = ctx.params.get("target", "batch")
    if target not in ("batch", "main"):
        raise ValueError(f"vectorize_hot_function: params target must be batch or main, got {target!r}")
    if target == "main":
        return _vectorize_main(ctx)
    exact = ctx.params.get("exact", True)
    if not isinstance(exact, bool):
        raise ValueError(f"vectorize_hot_function: params exact must be true or false, got {exact!r}")
    file, text, tree, fn = load_hot_function(ctx)
    name, line = ctx.profile.hot_function.defining_name, ctx.profile.hot_function.line
    text, tree, fn = grids_as_rows(text, tree, fn, [fn] + _callees(tree, fn))
    candidates = [fn] + _callees(tree, fn)
    # A loop that only dispatches (`for t in self.transforms: x = t(x)`) calls its work by no name: the
    # functions the profile sampled under it are candidates too.
    candidates += [h for h in sampled_helpers(ctx, file, tree) if all(h is not c for c in candidates)]
    try:
        return _vectorize_file(ctx, file, text, tree, fn, candidates, exact)
    except NotApplicable as why:
        reasons = [f"nothing in {name} ({file}:{line}) can be vectorised: {why}"]
    # The per-sample work is often in another of the target's files (a Compose in one module calling the
    # transforms of another): the helpers the profile sampled there, file by file in the profile's order.
    sources: dict[str, tuple[str, ast.Module]] = {}
    elsewhere: dict[str, list[ast.FunctionDef]] = {}
    for other, helper in helpers_in_target(ctx, sources):
        if other != file:
            elsewhere.setdefault(other, []).append(helper)
    for other, helpers in elsewhere.items():
        other_text, other_tree = sources[other]
        other_text, other_tree, first = grids_as_rows(other_text, other_tree, helpers[0], helpers)
        helpers = [first] + [h for h in sampled_helpers(ctx, other, other_tree) if h is not first]
        helpers += [c for h in helpers for c in _callees(other_tree, h) if all(c is not k for k in helpers)]
        try:
            return _vectorize_file(ctx, other, other_text, other_tree, None, helpers, exact)
        except NotApplicable as why:
            reasons.append(f"nothing the profile sampled in {other} ({', '.join(h.name for h in helpers)}) can be "
                           f"vectorised: {why}")
    raise NotApplicable("; ".join(reasons))


def _vectorize_file(ctx: CodemodContext, file: str, text: str, tree: ast.Module, fn: ast.FunctionDef | None,
                    candidates: list[ast.FunctionDef], exact: bool) -> CodemodResult:
    """Rewrite the candidates' loops, all in `file`; `fn` is the hot function when it is in this file (its calls
    cover the others'), else None: then the sampled helper that calls the most of the others is replayed, and
    only what it calls is rewritten."""
    candidates = per_element_left_out(candidates, ctx.params.get("per_element", True))
    refusals: list[str] = []
    done: list[tuple[ast.FunctionDef, FunctionRewrite]] = []
    # The training loop's own function: only its loops that hold a sampled line can shorten a step.
    sampled = frozenset(ctx.params.get("sampled_lines") or ()) if fn is not None else frozenset()
    for candidate in candidates:
        found = rewrite_function(candidate, exact, tree, sampled if candidate is fn else frozenset())
        refusals += [f"{candidate.name}: {why}" for why in found.refusals]
        if found.rewrites:
            done.append((candidate, found))
    if not done:
        raise NotApplicable("; ".join(refusals) or "no loop or list comprehension at the top level of "
                            + ", ".join(c.name for c in candidates))
    replayed = None
    if fn is None:
        # No hot function here to replay: the sampled helper that reaches the most of those rewritten.
        found_in = {id(c): f for c, f in done}
        replayed, kept = covered_by_one(tree, candidates, [c for c, _ in done])
        refusals += [f"{c.name}: {qualname_of(tree, replayed)}, the function replayed, does not call it: left for "
                     "another change"
                     for c, _ in done if all(c is not k for k in kept)]
        done = [(c, found_in[id(c)]) for c in kept]
    # Every function of the per-sample path that has loops to rewrite, in one change: a helper's loop
    # is often a small part of the path, and rewriting it alone leaves the rest in Python.
    new_text = _splice_each(text, tree, [(candidate, sampled if candidate is fn else frozenset())
                                         for candidate, _ in done], exact)
    found = FunctionRewrite(rewrites=[r for _, f in done for r in f.rewrites],
                            inexact=[why for _, f in done for why in f.inexact])
    # Replay the hot function when it calls what was rewritten (its calls cover the helpers'); else the one
    # helper, or the helper elsewhere that calls the others.
    candidate = replayed if fn is None else fn if len(done) > 1 or done[0][0] is fn else done[0][0]
    return _result(ctx, file, new_text, tree, candidate, done, found, refusals)


def _result(ctx: CodemodContext, file: str, new_text: str, tree: ast.Module, candidate: ast.FunctionDef,
            done: list[tuple[ast.FunctionDef, FunctionRewrite]], found: FunctionRewrite,
            refusals: list[str]) -> CodemodResult:
    rules = sorted({r.rule for r in found.rewrites})
    lists_became_arrays = False
    round_trip = ctx.params.get("round_trip", True)
    if not isinstance(round_trip, bool):
        raise ValueError(f"vectorize_hot_function: params round_trip must be true or false, got {round_trip!r}")
    if round_trip:
        # The lists the loops built were often only copied into torch.tensor: hand over the arrays.
        others = "\n".join((ctx.root / f).read_text() for f in python_files(ctx.root) if f != file)
        removed = remove_round_trips(new_text, others)
        if removed is not None:
            new_text, plan = removed
            rules.append(f"{len(plan.as_tensor)} torch.tensor(list) → torch.as_tensor")
            lists_became_arrays = bool({c.name for c, _ in done} & set(plan.changed_functions))
    tolerance = None
    if found.inexact:
        # Where reordering is declared, batches are compared with the fp32 row of the dtype table.
        tolerance = Tolerance(atol=FP32.atol, rtol=FP32.rtol, reason="; ".join(dict.fromkeys(found.inexact)))
    qualname = qualname_of(tree, candidate)
    where = ", ".join(f"{qualname_of(tree, c)} ({file}:{c.lineno})" for c, _ in done)
    return CodemodResult(
        files={file: new_text},
        summary=f"vectorise {len(found.rewrites)} loop(s) in {where} with numpy: {', '.join(rules)}",
        knob="vectorize", old_value=f"Python loops in {qualname}", new_value="numpy array expressions",
        location=f"{file}:{candidate.lineno}", tolerance=tolerance,
        replay=ReplayTarget(file=file, function=qualname, lists_became_arrays=lists_became_arrays),
        notes=[*(f"not vectorised: {why}" for why in refusals), *_GATHER_NOTES * ("gather" in rules),
               *(note for rewrite in found.rewrites for note in rewrite.notes)],
    )


def _splice_each(text: str, tree: ast.Module, rewritten: list[tuple[ast.FunctionDef, frozenset[int]]],
                 exact: bool) -> str:
    """Splice each function's rewrites into the text, one function at a time, each found again in the text
    as the previous splice left it (the rewrites are the same: translation depends on the function, and the
    sampled lines it is given, only)."""
    # Which of the functions of that name (in `tree`, the text's parse) each one is: splicing keeps their order.
    ordinals = [[node for node, _ in functions(tree) if node.name == fn.name].index(fn) for fn, _ in rewritten]
    for (original, sampled), ordinal in zip(rewritten, ordinals):
        module = ast.parse(text)
        fn = [node for node, _ in functions(module) if node.name == original.name][ordinal]
        text = splice(text, fn, rewrite_function(fn, exact, module, sampled).rewrites)
    return text


def _vectorize_main(ctx: CodemodContext) -> CodemodResult:
    """Try the main process's hot functions in turn (the per-step metrics a training loop calls), leaving out
    those in ``params["skip"]``."""
    params = {k: v for k, v in ctx.params.items() if k not in ("target", "skip")}
    skip = set(ctx.params.get("skip", ()))  # functions whose rewrite replay refused
    reasons = []
    for ref in ctx.profile.main_hot_functions:
        if ref.defining_name in skip or ref.name in skip:
            continue
        # The helpers sampled under this one are later entries of the list: no search of other files here.
        facts = ctx.profile.model_copy(update={"hot_function": ref, "hot_helpers": []})
        sampled = ctx.profile.main_sampled_lines.get(f"{ref.file}:{ref.name}")
        try:
            return vectorize_hot_function(ctx.model_copy(update={
                "profile": facts, "params": {**params, "sampled_lines": sampled} if sampled else params}))
        except NotApplicable as why:
            reasons.append(str(why))
    if not reasons:
        raise NotApplicable("the profile names no hot function of the training loop's own host time")
    raise NotApplicable("; ".join(reasons))


def _callees(tree: ast.Module, fn: ast.FunctionDef) -> list[ast.FunctionDef]:
    """Module-level functions of the same file that `fn` calls by name, in call order."""
    top = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    called = [n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    return [top[name] for name in dict.fromkeys(called) if name in top and top[name] is not fn]


# deciding --------------------------------------------------------------------------
def rewrite_function(fn: ast.FunctionDef, exact: bool = True, module: ast.Module | None = None,
                     sampled: frozenset[int] = frozenset()) -> FunctionRewrite:
    """Translate every top-level loop and list-comprehension statement of `fn` that allows it.

    With `sampled` (the profile's most sampled lines of `fn`, given for the training loop's own function), a
    rewrite whose loop holds none of them is left out, and said so: it cannot shorten a step (blind13 b6: a
    comprehension that ran once, after the loop, was the one change tried).

    With `module` (the file's parse), calls to the file's own scalar helpers are inlined first
    (`inline.py`). A refusal names the construct it was about (`for` loop, `while` loop,
    comprehension or generator statement, with its line) and why; the codemod's notes carry it
    to the audit log.
    """
    # A loop over a few values written in the code, inside another loop, is written out first (unroll.py).
    original, unrolled = unroll_literal_loops(with_math_names(fn, module) if module is not None else fn)
    fn, inline_notes = original, []
    why_not: dict[str, str] = {}
    if module is not None:
        fn, inline_notes, why_not = inline_helpers(fn, helpers_of(module, fn))
    names = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} | {a.arg for a in ast.walk(fn.args)
                                                                      if isinstance(a, ast.arg)}
    result = FunctionRewrite()
    _block(fn, original, (), names, exact, held_kinds(fn), result, (inline_notes, why_not, unrolled))
    unrolled.annotate(fn, result.rewrites)
    if sampled:
        kept = []
        for rewrite in result.rewrites:
            stmt = block_at(fn.body, rewrite.block)[rewrite.end]
            if any(stmt.lineno <= line <= stmt.end_lineno for line in sampled):
                kept.append(rewrite)
            else:
                result.refusals.append(f"{construct(stmt)}: line {stmt.lineno}: none of the profile's most sampled "
                                       f"lines of {fn.name} ({', '.join(map(str, sorted(sampled)))}) is in it, so "
                                       "rewriting it cannot shorten a step")
        result.rewrites = kept
    keep_arrays(fn, result.rewrites)  # arrays passed from statement to statement (chains.py)
    return result


def _for_or_lifted(block: list[ast.stmt], k: int, names: set[str], path: tuple[int, ...], exact: bool, held: Held):
    """The `for` loop's rewrite element by element (`nests.for_rewrite`), else, for a loop of the function's own
    body, its array code lifted over the loop's grid (`lifted.lift_grid`); NotApplicable with both reasons."""
    try:
        return for_rewrite(block, k, names, lambda b: _loop(b, k, names, exact, held),
                           lambda s: _comprehension(s, k, names, exact, held))
    except NotApplicable as refused:
        if path:
            raise
        try:
            rewrite, inexact = lift_grid(block, k, names)
        except NotApplicable as not_lifted:
            raise NotApplicable(f"{refused}; as array code lifted over the loop's grid: {not_lifted}") from None
        return rewrite, inexact, [rewrite.rule]


MAX_NESTING = 3
"""Loops inside loops are looked into this deep (the function's own body is depth 0)."""


def _block(fn: ast.FunctionDef, original: ast.FunctionDef, path: tuple[int, ...], names: set[str], exact: bool,
           held: Held, result: FunctionRewrite, inlined: tuple[list[str], dict[str, str], Unrolled]) -> None:
    """Rewrite the loops of the block at ``path`` (the function's body, or a loop's body inside it).

    A `for` or `while` loop that cannot be rewritten itself (it writes a dict, has side effects or an
    early exit) is looked into: the loops of its body are tried the same way, each with the outer loop's
    names as values fixed for one pass (a sum over one parameter's gradient, inside a loop over the
    parameters). A name such an inner loop leaves behind must not be read anywhere else in the function.
    """
    inline_notes, why_not, unrolled = inlined
    if unrolled.inside_moved(path):  # a rewrite's place here would not be the text's
        return
    body, before = block_at(fn.body, path), block_at(original.body, path)
    if len(before) != len(body):  # inlining changed the block's shape: compare nothing
        before = body
    for k, stmt in enumerate(body):
        # Inside an outer loop, a name the inner loop sets may be read by the outer loop's next pass or after it:
        # the "read after the loop" checks see what runs next, in order (`loops.read_before_rebound`).
        block = body if not path else [*body, *runs_after(fn.body, path)]
        try:
            if isinstance(stmt, ast.For):
                rewrite, inexact, rules = _for_or_lifted(block, k, names, path, exact, held)
                if CONTINUE_AS_ELSE in rules:
                    # Both branches are computed for every element (v / rms where rms is 0): quietly, one kept.
                    rewrite.quiet = True
                    rewrite.notes.append(f"line {stmt.lineno}: the pass that appends and continues is the `if` "
                                         "branch of an if/else; the other branch is computed for those elements "
                                         "too, under np.errstate(all='ignore'), and left out")
            elif isinstance(stmt, ast.While):
                rewrite, inexact = _while(block, k, names, exact, held)
            elif isinstance(stmt, (ast.Assign, ast.Return, ast.Expr, ast.AugAssign)) \
                    and any(isinstance(n, (ast.ListComp, ast.GeneratorExp)) for n in ast.walk(stmt)):
                rewrite, inexact = _comprehension(stmt, k, names, exact, held)
            else:
                continue
        except NotApplicable as error:
            reason = str(error)
            for helper, why in why_not.items():
                if f"call to {helper}()" in reason:
                    reason += f" ({helper}() was not inlined: {why})"
            result.refusals.append(f"{construct(stmt)}: {reason}")
            if isinstance(stmt, (ast.For, ast.While)) and len(path) < MAX_NESTING:
                _block(fn, original, (*path, k), names, exact, held, result, inlined)
            continue
        if ast.dump(stmt) != ast.dump(before[k]):
            # The statement called a helper that is now inlined: its branches run for every element.
            called = {dotted(n.func) for n in ast.walk(before[k]) if isinstance(n, ast.Call)}
            rewrite.notes += [note for note in inline_notes if note.split("()")[0] in called]
            rewrite.rule += ", helper inlined"
            rewrite.quiet = True
        if path:
            rewrite.before, rewrite.lines = hoisted_conversions(rewrite.lines, stored_by_loops(fn.body, path))
            rebuilt = rebuilt_every_pass(rewrite.lines, stored_by_loops(fn.body, path))
            if rebuilt:  # converted whole on every pass of the outer loop (blind8 a1, a6: x3-x5 slower)
                result.refusals.append(f"{construct(stmt)}: line {stmt.lineno}: `{rebuilt}` would be built again on "
                                       f"every pass of the outer loop at line {stmt_at(fn.body, path).lineno}, "
                                       "where it does not change (a whole array converted per pass)")
                continue
            rewrite.block = path
            rewrite.rule = f"inner loop, {rewrite.rule}"
            rewrite.notes.append(f"line {stmt.lineno}: an inner loop rewritten inside the outer loop at line "
                                 f"{stmt_at(fn.body, path).lineno}, which runs as before")
        result.rewrites.append(rewrite)
        result.inexact += inexact
        names |= {line.split(" = ")[0] for line in rewrite.before + rewrite.lines}


def _while(body: list[ast.stmt], k: int, names: set[str], exact: bool,
           held: Held = Held()) -> tuple[LoopRewrite, list[str]]:
    """A counting `while` loop is the `for` loop over the range it counts through: translate that.

    The form: a counter set before the loop (`i = start`), the test `i < stop` (or `<=`,
    or `i ± c <= stop`, or several joined by `and`: the smallest stop), and `i += step` as the body's last statement, with step a positive
    constant; nothing else in the body sets the counter, and stop and step do not change
    in the loop. The counter's start statement goes when nothing else reads it.
    """
    loop = body[k]
    where = f"line {loop.lineno}"
    if loop.orelse:
        raise NotApplicable(f"{where}: while/else is not vectorised")
    last = loop.body[-1] if loop.body else None
    if not (isinstance(last, ast.AugAssign) and isinstance(last.op, ast.Add) and isinstance(last.target, ast.Name)):
        raise NotApplicable(f"{where}: the loop's last statement is not `counter += step`, so it is not a counting "
                            "loop")
    counter, step = last.target.id, last.value
    if not (is_number_literal(step) and ast.literal_eval(step) > 0) and names_loaded(step) & names_stored(loop.body):
        raise NotApplicable(f"{where}: the step `{ast.unparse(step)}` changes inside the loop")
    if is_number_literal(step) and ast.literal_eval(step) <= 0:
        raise NotApplicable(f"{where}: the counter `{counter}` does not count up")
    if counter in names_stored(loop.body[:-1]):
        raise NotApplicable(f"{where}: `{counter}` is also set inside the loop, not only counted")
    stop = while_stop(loop.test, counter)
    if stop is None:
        raise NotApplicable(f"{where}: the test `{ast.unparse(loop.test)}` is not `{counter} < stop`, "
                            f"`{counter} <= stop`, `{counter} ± c <= stop` or such tests joined by `and`")
    if names_loaded(stop) & names_stored(loop.body):
        raise NotApplicable(f"{where}: the bound `{ast.unparse(stop)}` changes inside the loop")
    init = counter_start(body[:k], counter)
    if init is None:
        raise NotApplicable(f"{where}: no `{counter} = start` before the loop, with nothing between that reads it")
    j, start = init
    if names_loaded(start) & names_stored(body[j + 1:k]):
        raise NotApplicable(f"{where}: `{ast.unparse(start)}`, the counter's start, reads a name set again before "
                            "the loop")
    if read_before_rebound(counter, body[k + 1:]):
        raise NotApplicable(f"{where}: `{counter}` is read after the loop, where it holds the first value past "
                            "the bound")
    rng = ast.Call(func=ast.Name(id="range", ctx=ast.Load()), args=[start, stop, step], keywords=[])
    loop_for = ast.copy_location(ast.For(target=ast.Name(id=counter, ctx=ast.Store()), iter=rng,
                                         body=loop.body[:-1], orelse=[], type_comment=None), loop)
    ast.fix_missing_locations(loop_for)
    if is_gather(loop_for):
        raise NotApplicable(f"{where}: a `while` loop that writes subscripts is not vectorised")
    rewrite, inexact = _loop([*body[:k], loop_for, *body[k + 1:]], k, names, exact, held)
    rewrite.remove = sorted({*rewrite.remove, j})
    rewrite.rule = f"counting while loop, {rewrite.rule}"
    return rewrite, inexact


@windows_first(loop=True)
def _loop(body: list[ast.stmt], k: int, names: set[str], exact: bool,
          held: Held = Held()) -> tuple[LoopRewrite, list[str]]:
    loop = body[k]
    if is_gather(loop):
        return copy_loop(body, k, names), []
    if loop.orelse:
        raise NotApplicable(f"line {loop.lineno}: for/else is not vectorised")
    inits: dict[str, tuple[int, ast.AST]] = {}
    for j, stmt in enumerate(body[:k]):
        for name in names_stored([stmt]):
            inits.pop(name, None)
        for name, value in simple_inits(stmt):
            inits[name] = (j, value)
    stored = names_stored(loop.body) | names_stored([loop.target])
    loaded = names_loaded(loop)
    lists = {n for n, (_, v) in inits.items() if isinstance(v, ast.List) and n in loaded}
    # A start the loop could change (`best = first`, `first` set in the loop) would be read after it: left out.
    accs = {n for n, (_, v) in inits.items() if not isinstance(v, ast.List) and n in stored
            and not names_loaded(v) & stored}
    scattered = {n: dtype for n, (_, v) in inits.items() if (dtype := count_list(v)) and n in loaded}
    for name in lists | accs | set(scattered):
        if name not in inits:
            continue
        between = body[inits[name][0] + 1:k]
        if any(name in names_loaded(s) | names_stored([s]) for s in between):
            raise NotApplicable(f"line {loop.lineno}: `{name}` is used between its start value and the loop")
    # An array of numbers made once before an enclosing loop, counted into here in place (`image[r, c] += v`).
    scattered |= {n: ARRAY for n in held.arrays - set(inits) - stored if n in loaded}
    draw = sole_draw(loop, loop.body)
    refuse_effects(as_checked(loop, set(scattered)), lists, pure_calls=_PURE, tolist=True, draw=draw)
    t = Translator(names, exact, float_context([loop] + [inits[n][1] for n in accs]))
    t.held = held
    t.scatter_names = scattered
    t.carried = stored | lists
    t.slot_fill = getattr(loop, "slot_fill", {})  # restate.slots_as_appends: slots a break leaves as made
    t.bind_outer(loop.target, loop.iter)
    t.arm_draw(draw, loop.target)
    appended: dict[str, Val] = {}
    t.starts = {n: inits[n][1] for n in accs}
    found = t.loop_body(loop.body, accs, lists, appended)
    for acc in (a for a in found if stores(loop, a) > 1):  # `acc += v` ... `acc = 0.0`: a reset the sum would miss
        raise NotApplicable(f"line {loop.lineno}: `{acc}` is set again in the pass besides its update (a reset or a "
                            "second update): a loop-carried dependency")
    if not found and not appended and not t.scatters:
        raise NotApplicable(f"line {loop.lineno}: the loop builds no list and no sum, product, max or min")
    read = {n for n in scattered if any(isinstance(sub, ast.Name) and sub.id == n for stmt in loop.body
                                        for sub in ast.walk(stmt)) and n not in t.scatters}
    if read or set(t.scatters) & names_loaded(ast.Module(body=without_counts(loop.body, scattered), type_ignores=[])):
        raise NotApplicable(f"line {loop.lineno}: `{sorted(read or t.scatters)[0]}` is read inside the loop it is "
                            "counted into")
    t.depth = 0
    for acc, (kind, term) in found.items():
        t.reduce(acc, kind, term, inits[acc][1], None)
    t.scatter_lines()
    for out, val in appended.items():
        if val.depth != 1:
            raise NotApplicable(f"line {loop.lineno}: the value appended to `{out}` does not vary along the loop")
        t.lines.append(f"{out} = {t.record_list(val, val.mask) if val.record else f'{t.atom(val.src)}.tolist()'}")
    leaked = {name for name in stored - set(found) if read_before_rebound(name, body[k + 1:])}
    if leaked:
        raise NotApplicable(f"line {loop.lineno}: `{sorted(leaked)[0]}` is read after the loop, where it holds "
                            "the last element's value")
    t.drop_unread_running()
    rule = _rule(found, appended, t)
    outputs = set(appended) | set(found)
    # An init line goes only when every name it sets is now computed by the new lines.
    remove = sorted({inits[n][0] for n in outputs
                     if {name for name, _ in simple_inits(body[inits[n][0]])} <= outputs})
    if t.guards:
        rule += f", {t.guards} `continue` or `break` guard(s) as masks"
        t.notes.append("`if cond: continue` and `if cond: break` guards become masks: the rest of the body is "
                       "computed for every element under np.errstate(all='ignore') and the skipped elements' values "
                       "are left out (a list's slots a break leaves keep their fill)")
    lines = _with_hoists(t)  # np.where computes both sides for every element (c / med where med == 0): quiet too
    return LoopRewrite(start=k, end=k, lines=lines, rule=rule, list_outputs=sorted(appended), remove=remove,
                       notes=t.notes, quiet=bool(t.guards) or t.quiet or any("np.where(" in line for line in lines)), t.inexact


def _rule(found: dict, appended: dict, t: Translator) -> str:
    text = "\n".join(t.lines)
    if t.running_names:
        return "running sum" + ", reduction" * bool(set(found) - set(t.running_names.values()))
    if "sliding_window_view" in text or any(line.count("np.cumsum") for line in t.lines) and appended:
        return "windowed reduction"
    if found:
        return "reduction"
    return "element-wise (np.where)" if "np.where" in text else "element-wise"


def _with_hoists(t: Translator) -> list[str]:
    """The hoisted lines something reads (a hoist may set several names, later hoists may read it)."""
    kept: list[str] = []
    for name, src in reversed(t.hoists):
        readers = "\n".join(t.lines + kept)
        if any(re.search(rf"\b{re.escape(part.strip())}\b", readers) for part in name.split(",") if part.strip()):
            kept.insert(0, f"{name} = {src}")
    return kept + t.lines


def _outer_iter_once(node: ast.AST) -> ast.AST:
    """A comprehension (or a call of one) as the effects check reads it: its first iterable is evaluated
    once, before the first element, as a loop's is (`listed_once`)."""
    node = copy.deepcopy(node)
    comp = node.args[0] if isinstance(node, ast.Call) else node
    if isinstance(comp, (ast.GeneratorExp, ast.ListComp)) and comp.generators:
        comp.generators[0].iter = listed_once(comp.generators[0].iter)
    return node


@windows_first(loop=False)
def _comprehension(stmt: ast.stmt, k: int, names: set[str], exact: bool,
                   held: Held = Held()) -> tuple[LoopRewrite, list[str]]:
    t = Translator(names, exact, float_context([stmt]))
    t.held = held

    class Replace(ast.NodeTransformer):
        # Names bound by an enclosing comprehension or lambda left as Python (`tuple([-x for x in v] for v in
        # he)`): a comprehension reading one of them runs per element of that one, and is left as it is.
        bound: list[set[str]] = []

        def enclosed(self, node: ast.AST) -> ast.AST:
            params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)} \
                if isinstance(node, ast.Lambda) else names_stored([g.target for g in node.generators])
            self.bound.append(params)
            try:
                return self.generic_visit(node)
            finally:
                self.bound.pop()

        visit_GeneratorExp = visit_SetComp = visit_DictComp = visit_Lambda = enclosed

        def reads_enclosed(self, node: ast.AST) -> bool:
            return bool(self.bound and names_loaded(node) & set().union(*self.bound))

        def visit_Call(self, node: ast.Call) -> ast.AST:
            # sum/min/max/sorted of a generator at the function's top level: one axis, reduced away.
            arg = node.args[0] if len(node.args) == 1 and not node.keywords else None
            if dotted(node.func) not in ROW_CALLS - {"len"} \
                    or not isinstance(arg, (ast.GeneratorExp, ast.ListComp)):
                return self.generic_visit(node)
            if self.reads_enclosed(node):
                return node
            refuse_effects(_outer_iter_once(node), set(), pure_calls=_PURE, tolist=True)
            t.env, t.carried, t.depth = {}, set(), 0
            value = t.row_call(node, dotted(node.func))
            t.depth = 1
            return ast.parse(value.src, mode="eval").body

        def visit_ListComp(self, node: ast.ListComp) -> ast.AST:
            if self.reads_enclosed(node):
                return node
            if len(node.generators) != 1 or node.generators[0].is_async:
                raise NotApplicable(f"line {node.lineno}: comprehensions with several `for` are not vectorised")
            gen = node.generators[0]
            if not gen.ifs and isinstance(node.elt, ast.Name) and node.elt.id in names_stored([gen.target]):
                # `[img for img, _ in batch]` unpacks or copies the items: nothing to compute, and they may be tensors
                # or other objects that an array of them and `.tolist()` would turn into lists.
                raise NotApplicable(f"line {node.lineno}: `{ast.unparse(node)}` only takes the items as they are")
            draw = sole_draw(node, [node.elt])
            refuse_effects(_outer_iter_once(node), set(), pure_calls=_PURE, tolist=True, draw=draw)
            t.env, t.carried = {}, names_stored([gen.target])
            t.bind_outer(gen.target, gen.iter)
            t.arm_draw(draw, gen.target)
            mask = t.combine("np.logical_and", [t.truth(c) for c in gen.ifs]).src if gen.ifs else None
            with t.under(mask):  # the element is read only where the filters let it through
                value = t.record(node.elt) or t.expr(node.elt)
            if value.depth != 1:
                raise NotApplicable(f"line {node.lineno}: the comprehension's value does not vary with its loop")
            if value.record:
                return ast.parse(t.record_list(value, mask), mode="eval").body
            src = t.atom(value.src) + (f"[{mask}]" if mask else "")
            return ast.parse(f"{src}.tolist()", mode="eval").body

    new_stmt = Replace().visit(copy.deepcopy(stmt))
    if ast.dump(new_stmt) == ast.dump(stmt):
        raise NotApplicable(f"line {stmt.lineno}: each comprehension reads a name an enclosing comprehension or "
                            "lambda binds (it runs once per element of that one, which stays Python)")
    t.lines.append(ast.unparse(new_stmt))
    lines = _with_hoists(t)
    return LoopRewrite(start=k, end=k, lines=lines, rule="comprehension", notes=t.notes,
                       quiet=any("np.where(" in line for line in lines)), t.inexact


# writing ----------------------------------------------------------------------------
