"""Keep an array from one rewritten statement to the next, instead of a list and back.

Each statement of a function is translated on its own, so a chain of list comprehensions (a metric: centre both
signals, project, take the residual) became a chain of round trips:

    est = (est_arr - mean_e).tolist()              # statement 1, rewritten
    est_arr_2 = np.asarray(est, dtype=np.float64)  # statement 2, rewritten, reads it back

On a few thousand samples the `.tolist()` and `np.asarray` calls cost what the loops saved (blind18 h6's SI-SDR
replayed at x0.90). Where a rewritten statement's line makes a list from an array and a later rewritten statement of
the same block reads it back with `np.asarray(X)` or `np.asarray(X, dtype=np.float64)`, the array is kept
(`X_np`) and read directly, as what the round trip would have given:
- `np.asarray(X, dtype=np.float64)` is `X_np.astype(np.float64)` (ints, floats and bools convert alike);
- `np.asarray(X)` is `X_np` itself where it is a non-empty float64, int64 or bool array (the dtypes a list of its
  items gives back), else `np.asarray(X_np.tolist())` as before (a float32 array's list comes back float64, an
  empty one's float64).
Only while nothing between the two (a statement left in Python) mentions `X`, and up to the next statement that
binds `X` again. The list itself is still made where anything else reads it (a statement left in Python, the return,
or, inside a loop, a later pass); else it is not made at all.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.blocks import block_at
from perfloop.tools.change.codemods.loops import LoopRewrite, name_apart, names_loaded, names_stored


def keep_arrays(fn: ast.FunctionDef, rewrites: list[LoopRewrite]) -> None:
    """Rewrite the lines of `rewrites` (of `fn`) so arrays pass between statements; the producer's notes say which."""
    parsed = [stmt for r in rewrites for stmt in map(_parse, r.lines) if stmt is not None]
    taken = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} | names_stored(parsed)
    for block in {r.block for r in rewrites}:
        group = sorted((r for r in rewrites if r.block == block), key=lambda r: r.end)
        stmts = block_at(fn.body, block)
        replaced = {j for r in group for j in (*range(r.start, r.end + 1), *r.remove)}
        for a, producer in enumerate(group):
            li = 0
            while li < len(producer.lines):
                made = _listed(producer.lines[li])
                li += 1
                if made is None:
                    continue
                name, array = made
                kept = name_apart(f"{name}_np", taken)
                segments = [(producer, li), *((r, 0) for r in group[a + 1:])]
                readers, reach = _chain(name, kept, segments, stmts, replaced)
                if not readers:
                    continue
                taken.add(kept)
                still = block != () or _read_later(name, segments, reach, stmts, replaced)
                producer.lines[li - 1:li] = [f"{kept} = {array}"] + [f"{name} = {kept}.tolist()"] * still
                li += still
                producer.notes.append(f"`{name}` is kept as an array for {readers} later rewritten statement(s) that "
                                      "read it back, instead of a list converted again")


def _parse(line: str) -> ast.stmt | None:
    try:
        body = ast.parse(line).body
    except SyntaxError:
        return None
    return body[0] if len(body) == 1 else None


def _listed(line: str) -> tuple[str, str] | None:
    """(X, the array's source) where `line` is `X = <array>.tolist()`."""
    stmt = _parse(line)
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    call = stmt.value
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "tolist" \
            and not call.args and not call.keywords:
        return stmt.targets[0].id, ast.unparse(call.func.value)
    return None


def _gap_mentions(name: str, segments: list, k: int, stmts: list[ast.stmt], replaced: set[int]) -> bool:
    """Whether a statement left in Python between segment k - 1 and segment k mentions `name`."""
    if k == 0:
        return False
    before, rewrite = segments[k - 1][0].end, segments[k][0]
    return any(name in names_loaded(stmts[j]) | names_stored([stmts[j]])
               for j in range(before + 1, rewrite.start) if j not in replaced)


def _chain(name: str, kept: str, segments: list, stmts: list[ast.stmt], replaced: set[int]) -> tuple[int, int]:
    """Replace the read-backs of `name` in the segments it reaches ((rewrite, first line) each, in order); how many
    segments read it, and how many segments it reached (up to a rebinding or a mention left in Python)."""
    readers = 0
    for k, (rewrite, first) in enumerate(segments):
        if _gap_mentions(name, segments, k, stmts, replaced):
            return readers, k
        read = rebound = False
        for i in range(first, len(rewrite.lines)):
            stmt = _parse(rewrite.lines[i])
            if stmt is None:
                return readers, k
            before = ast.unparse(stmt)
            after = ast.unparse(ast.fix_missing_locations(_ReadBack(name, kept).visit(stmt)))
            if after != before:
                rewrite.lines[i], read = after, True
            if name in names_stored([stmt]):
                rebound = True
                break
        readers += read
        if rebound:
            return readers, k + 1
    return readers, len(segments)


class _ReadBack(ast.NodeTransformer):
    def __init__(self, name: str, kept: str) -> None:
        self.name, self.kept = name, kept

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        """`np.asarray(list(X), dtype=str) if isinstance(X, str) else np.asarray(X)` (the translator's reading of a
        sequence that may be a string) of the list `X` a rewritten line made: never a string, so its `else`."""
        test = node.test
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
                and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and test.args[0].id == self.name \
                and ast.unparse(test.args[1]) == "str":
            return self.visit(node.orelse)
        self.generic_visit(node)
        return node

    def visit_Call(self, call: ast.Call) -> ast.AST:
        self.generic_visit(call)
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "asarray"
                and isinstance(call.func.value, ast.Name) and call.func.value.id == "np"
                and len(call.args) == 1 and isinstance(call.args[0], ast.Name) and call.args[0].id == self.name):
            return call
        kept = self.kept
        if not call.keywords:
            return ast.parse(f"({kept} if {kept}.size and {kept}.dtype in (np.float64, np.int64, np.bool_) "
                             f"else np.asarray({kept}.tolist()))", mode="eval").body
        if len(call.keywords) == 1 and call.keywords[0].arg == "dtype" \
                and ast.unparse(call.keywords[0].value) == "np.float64":
            return ast.parse(f"{kept}.astype(np.float64)", mode="eval").body
        return call


def _read_later(name: str, segments: list, reach: int, stmts: list[ast.stmt], replaced: set[int]) -> bool:
    """Whether anything reads the list after it is made: a rewritten line it reaches, a statement left in Python
    after it (until a rewritten line binds it again), or anything past where the chain stopped."""
    for k, (rewrite, first) in enumerate(segments[:reach]):
        if _gap_mentions(name, segments, k, stmts, replaced):
            return True
        for line in rewrite.lines[first:]:
            stmt = _parse(line)
            if stmt is None or name in names_loaded(stmt):
                return True
            if name in names_stored([stmt]):
                return False
    if reach < len(segments):  # the chain stopped short (a mention left in Python): what follows may read it
        return True
    last = segments[-1][0].end
    return any(name in names_loaded(stmts[j]) for j in range(last + 1, len(stmts)) if j not in replaced)
