"""A loop that sums fixed-size chunks by a counter it resets (`chunks_by_counter`), restated as a loop over chunks.

    counts, total, n = [], 0.0, 0                  for _start in range(0, len(_c0) - K + 1, K):
    for x, y, z in raw.tolist():                       total = 0.0
        e = abs(math.sqrt(x * x + ...) - 1.0)          for _at in range(_start, _start + K):
        if e > band:                          ->           x, y, z = _c0[_at], _c1[_at], _c2[_at]  # one per line
            total += e - band                              e = abs(math.sqrt(x * x + ...) - 1.0)
        n += 1                                             if e > band:
        if n == K:                                             total += e - band
            counts.append(total * gain)                counts.append(total * gain)
            total = 0.0
            n = 0

with `_c0, _c1, _c2 = raw.T.tolist()` first (`loops.columns_of`; a name iterated is indexed as it is). Each chunk
starts from the values the sums were made with, its elements come in order, and what the pass did
when the counter reached K runs after them; a trailing part chunk is summed and dropped, as before. The translator
reads the restated nest as one gather of the chunks' elements, `_c0[starts[:, None] + np.arange(K)]` (never past the
end), each sum added left to right along a row.

Taken only for that exact shape: the counter made 0 just before the loop (nothing between reads it), `n += 1` the
pass's second-to-last statement and `if n == K:` (or `K == n`) its last, with no `else`, ending in resets of the
counter and of every sum to the literal each was made with before the loop; K a name, an attribute or a literal the
loop does not change; no `continue`, `break` or `return` in the pass (a skipped pass would not count), and before the
counter only assignments to names (an append or a write would miss the trailing part chunk's elements); the
statements before the reset reading no element name and nothing the pass sets but the sums; the iterated value a
name, an attribute or `x.tolist()`; and the counter, the sums, the element names and what the pass sets not read
after the loop. The rewrite runs under `isinstance(K, int) and K > 0` (a chunk of 0 or a float K: the loop as it
was).
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.loops import (
    columns_of,
    dotted,
    listed,
    name_apart,
    names_loaded,
    names_stored,
    read_before_rebound,
)
from perfloop.tools.change.codemods.restate import skips_a_pass


def chunks_by_counter(body: list[ast.stmt], k: int, taken: set[str]) -> tuple[list[ast.stmt], list[str], str] | None:
    """(the block with its loop restated as a loop over chunks, the lines to run first, the test the rewrite runs
    under) where `body[k]` sums fixed-size chunks by a counter it resets (see the module docstring); else None."""
    loop = body[k]
    if not isinstance(loop, ast.For) or loop.orelse or len(loop.body) < 3:
        return None
    *work, step, last = loop.body
    found = _counter(step, last, loop)
    if found is None:
        return None
    counter, size, emit, resets = found
    elements = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    set_in_pass = names_stored(work)
    if any(isinstance(n, ast.Expr) or isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, ast.Store)
           for s in work for n in ast.walk(s)):
        return None  # an append or a write per element would miss the trailing part chunk's elements
    if skips_a_pass(loop.body) or counter in names_loaded(ast.Module(body=work + emit, type_ignores=[])) \
            or counter in set_in_pass or names_loaded(size) & (set_in_pass | elements | {counter}) \
            or names_loaded(ast.Module(body=emit, type_ignores=[])) & ((set_in_pass | elements) - set(resets)) \
            or not _made_before(body[:k], {counter: "0", **resets}):
        return None
    if any(read_before_rebound(name, body[k + 1:]) for name in {counter, *resets, *elements, *set_in_pass}):
        return None
    names = taken | {n.id for n in ast.walk(loop) if isinstance(n, ast.Name)}
    start, at = name_apart("_start", names), name_apart("_at", names)
    first, prelude, reads = _columns(loop, at, names)
    if first is None:
        return None
    k_text = ast.unparse(size)
    text = (f"for {start} in range(0, len({first}) - {k_text} + 1, {k_text}):\n"
            + "".join(f"    {name} = {value}\n" for name, value in resets.items())
            + f"    for {at} in range({start}, {start} + {k_text}):\n"
            + "".join(f"        {line}\n" for line in reads))
    new = ast.parse(text).body[0]
    new.body[-1].body += work
    new.body += emit
    kept = {id(node) for node in ast.walk(loop)}
    for node in ast.walk(new):
        if hasattr(node, "lineno") and id(node) not in kept:
            node.lineno, node.end_lineno, node.col_offset, node.end_col_offset = (loop.lineno, loop.end_lineno,
                                                                                  0, 0)
    ast.fix_missing_locations(new)
    return [*body[:k], new, *body[k + 1:]], prelude, f"isinstance({ast.unparse(size)}, int) and {ast.unparse(size)} > 0"


def _counter(step: ast.stmt, last: ast.stmt, loop: ast.For):
    """(counter, K, the statements before the resets, {sum: its literal}) of `n += 1` then `if n == K: ...; s = 0.0;
    n = 0`, else None."""
    if not (isinstance(step, ast.AugAssign) and isinstance(step.op, ast.Add) and isinstance(step.target, ast.Name)
            and isinstance(step.value, ast.Constant) and step.value.value == 1 and type(step.value.value) is int):
        return None
    counter = step.target.id
    test = last.test if isinstance(last, ast.If) and not last.orelse else None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    sides = [test.left, test.comparators[0]]
    if not any(isinstance(s, ast.Name) and s.id == counter for s in sides):
        return None
    size = sides[1] if isinstance(sides[0], ast.Name) and sides[0].id == counter else sides[0]
    if not (isinstance(size, (ast.Name, ast.Attribute)) or isinstance(size, ast.Constant)
            and type(size.value) is int) or names_stored(loop.body) & names_loaded(size):
        return None
    resets: dict[str, str] = {}
    cut = len(last.body)
    while cut and _reset(last.body[cut - 1]) is not None:
        name, value = _reset(last.body[cut - 1])
        if name in resets:
            return None
        resets[name] = value
        cut -= 1
    if resets.pop(counter, None) != "0" or not resets:
        return None
    emit = last.body[:cut]
    if names_stored(emit) & (set(resets) | {counter}):
        return None
    return counter, size, emit, dict(reversed(list(resets.items())))


def _reset(stmt: ast.stmt) -> tuple[str, str] | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and isinstance(stmt.value, ast.Constant) and type(stmt.value.value) in (int, float):
        return stmt.targets[0].id, ast.unparse(stmt.value)
    return None


def _made_before(before: list[ast.stmt], values: dict[str, str]) -> bool:
    """Whether each name's last binding before the loop is `name = <its literal>` and nothing after it mentions it."""
    for name, value in values.items():
        for j in range(len(before) - 1, -1, -1):
            stmt = before[j]
            if name not in names_loaded(stmt) | names_stored([stmt]):
                continue
            made = _reset(stmt)
            if made != (name, value):
                return False
            break
        else:
            return False
    return True


def _columns(loop: ast.For, at: str, names: set[str]) -> tuple[str | None, list[str], list[str]]:
    """(what the chunks' range measures, the lines to run first, the inner loop's reads of its element at `at`)."""
    iterable = loop.iter
    plain = isinstance(iterable, (ast.Name, ast.Attribute)) and dotted(iterable)
    from_list = listed(iterable) is not None
    if isinstance(loop.target, ast.Name) and plain:
        text = ast.unparse(iterable)
        return text, [], [f"{loop.target.id} = {text}[{at}]"]
    if not (isinstance(loop.target, ast.Tuple) and loop.target.elts
            and all(isinstance(e, ast.Name) for e in loop.target.elts) and (plain or from_list)):
        return None, [], []
    columns = []
    for j in range(len(loop.target.elts)):
        columns.append(name_apart(f"_column_{j}", names))
        names.add(columns[-1])
    prelude = [f"{', '.join(columns)}{',' if len(columns) == 1 else ''} = {columns_of(iterable, len(columns))}"]
    return columns[0], prelude, [f"{e.id} = {c}[{at}]" for e, c in zip(loop.target.elts, columns)]
