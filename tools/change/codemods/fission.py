"""Loop fission: a nest that computes several outputs at each position is one nest per output.

Per-pixel and per-sample code often fills two or three arrays in one pass:

    for y in range(h):
        y0, y1 = max(0, y - r), min(h, y + r + 1)
        for x in range(w):
            red, _, blue = img[y, x]
            ratio[y, x] = (float(blue) + 1.0) / (float(red) + 1.0)
            patch = luma[y0:y1, x0:x1]
            variance[y, x] = (patch * patch).sum() / patch.size - ...

No single rewrite takes such a body, but each output alone may be a window reduction, a preallocated array filled
slot by slot, or anything else the vectoriser reads. `split_nest` gives one nest per output: the same loops, the
output's write, and the names it needs (set in the same order; a name two outputs need is computed in both). Each nest
is then rewritten on its own, or left as the Python loop it is (`nests.for_rewrite`).

Taken only where the order of the writes cannot matter: every output is an array the function makes just before the
loop (`np.zeros(...)`, `torch.empty(...)`, a list display or comprehension: new memory no other array shares, and
nothing between mentions it), written by one output's statement only and read by none; the names the nest sets are
each set once, by plain assignments (`a = e`, `a, b = x, y`, or `a, _, b = row`), read after no output's write and not
after the nest; and every call in the nest computes (builtins such as `max`, `math.*`, numpy outside `np.random`, a
window's `.sum()`/`.max()`/...), so computing a shared name twice, or in another order, changes nothing.
"""
from __future__ import annotations

import ast
import copy

from perfloop.tools.change.codemods.loop_checks import PURE_BUILTINS
from perfloop.tools.change.codemods.loops import dotted, names_loaded, names_stored, read_before_rebound

_FRESH = ("zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like")
_METHODS = ("sum", "max", "min", "mean", "astype", "copy", "reshape", "tolist", "item")


def split_nest(block: list[ast.stmt], k: int) -> list[ast.For] | None:
    """One nest per output of the nest `block[k]` (see the module docstring), or None where fission does not apply
    or gives a single nest."""
    loop = block[k]
    heads, node = [], loop
    while isinstance(node, ast.For) and not node.orelse and isinstance(node.target, ast.Name):
        if node.body and isinstance(node.body[-1], ast.For) and all(_is_temp(s) for s in node.body[:-1]):
            heads.append(node)
            node = node.body[-1]
            continue
        heads.append(node)
        break
    else:
        return None
    inner = heads[-1].body
    writes = [s for s in inner if _write_base(s) is not None]
    temps = [s for s in inner if _write_base(s) is None]
    bases = [_write_base(s) for s in writes]
    if len(writes) < 2 or len(set(bases)) != len(bases) or not all(_is_temp(s) for s in temps):
        return None
    set_names = [n for n in [h.target.id for h in heads] + [n for h in heads[:-1] for s in h.body[:-1]
                                                           for n in _targets(s)] + [n for s in temps for n in _targets(s)]
                 if n != "_"]
    if len(set(set_names)) != len(set_names) or set(set_names) & set(bases) or not _computes(loop):
        return None
    if any(read_before_rebound(name, block[k + 1:]) for name in set_names):
        return None
    last_write = max(inner.index(s) for s in writes)
    if any(inner.index(s) > min(inner.index(w) for w in writes) and names_loaded(s) & set(bases) for s in temps) \
            or any(inner.index(s) > last_write for s in temps):
        return None
    for base in bases:
        if not _fresh_before(block, k, base) or any(base in names_loaded(s) for s in [*temps, *writes]
                                                     if not (s in writes and _write_base(s) == base)) \
                or any(base in names_loaded(s) for h in heads for s in [h.iter, *h.body[:-1]] if h is not heads[-1]):
            return None
        own = next(s for s in writes if _write_base(s) == base)
        if base in names_loaded(own.value if isinstance(own, ast.Assign) else own):
            return None
    return [_nest_for(heads, temps, write) for write in writes]


def _nest_for(heads: list[ast.For], temps: list[ast.stmt], write: ast.stmt) -> ast.For:
    """The nest with only what `write` needs: its temporaries (inner, then each outer level's), in their order."""
    needed = set(names_loaded(write))
    kept_inner = []
    for stmt in reversed(temps):
        if set(_targets(stmt)) & needed:
            kept_inner.insert(0, stmt)
            needed |= names_loaded(stmt.value)
    body: list[ast.stmt] = [*kept_inner, write]
    for head in reversed(heads):
        needed |= names_loaded(head.iter)
        if head is not heads[-1]:
            kept = []
            for stmt in reversed(head.body[:-1]):
                if set(_targets(stmt)) & needed:
                    kept.insert(0, stmt)
                    needed |= names_loaded(stmt.value)
            body = [*kept, *body]
        new = copy.copy(head)
        new.body = [copy.deepcopy(s) for s in body]
        body = [new]
    return ast.fix_missing_locations(body[0])


def _write_base(stmt: ast.stmt) -> str | None:
    """The array an output statement writes: `a[...] = e`, or `if t: a[...] = e` (`else: a[...] = e2`)."""
    if isinstance(stmt, ast.If) and len(stmt.body) == 1 and len(stmt.orelse) <= 1:
        bases = {_write_base(s) for s in stmt.body + stmt.orelse}
        return bases.pop() if len(bases) == 1 and None not in bases else None
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)):
        return None
    base = stmt.targets[0].value
    while isinstance(base, ast.Subscript):
        base = base.value
    return base.id if isinstance(base, ast.Name) else None


def _is_temp(stmt: ast.stmt) -> bool:
    """`a = e`, or a tuple of names (`_` among them) set from a tuple or one value."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return False
    target = stmt.targets[0]
    return isinstance(target, ast.Name) or isinstance(target, ast.Tuple) and all(
        isinstance(e, ast.Name) for e in target.elts) and not names_loaded(stmt.value) & set(_targets(stmt))


def _targets(stmt: ast.stmt) -> list[str]:
    return [n.id for n in ast.walk(stmt.targets[0]) if isinstance(n, ast.Name)] if isinstance(stmt, ast.Assign) else []


def _computes(loop: ast.For) -> bool:
    """Every call in the nest computes and changes nothing (see the module docstring)."""
    for call in (n for n in ast.walk(loop) if isinstance(n, ast.Call)):
        name = dotted(call.func)
        if "random" in name:
            return False
        if name in PURE_BUILTINS or name.startswith(("math.", "np.", "numpy.")) or name in ("range", "len", "float",
                                                                                            "int", "abs"):
            continue
        if isinstance(call.func, ast.Attribute) and call.func.attr in _METHODS:
            continue
        return False
    return True


def _fresh_before(block: list[ast.stmt], k: int, base: str) -> bool:
    """Whether `base` is made new just before the loop (nothing between mentions it)."""
    for stmt in reversed(block[:k]):
        if base not in names_loaded(stmt) | names_stored([stmt]):
            continue
        value = stmt.value if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
            and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == base else None
        if isinstance(value, (ast.List, ast.ListComp)):
            return True
        return isinstance(value, ast.Call) and dotted(value.func).split(".")[0] in ("np", "numpy", "torch") \
            and dotted(value.func).split(".")[-1] in _FRESH and base not in names_loaded(value)
    return False
