"""Where a loop's slices `x[s + a:s + b]` are whole windows, read by a sliding window view (`axes.py`).

A sliding window view has one row per whole window: `sliding_window_view(x, w)[first:last:step]` gives as many rows
as the loop has passes only where no pass's slice runs past the end of `x` (Python's slice would be shorter there,
the view has no such row) nor starts before 0 (Python's would count from the end). `whole_windows` takes the view
only where the range's bounds prove both, as sums of terms (`len(x) - w + 1`, `0`, `k - 3`); anything it cannot
prove is read as a ragged slice, padded and masked, which follows Python's slicing exactly.
"""
from __future__ import annotations

import ast
from collections import Counter

from perfloop.tools.change.codemods.loops import additive_terms, is_atomic, names_loaded


def shift(node: ast.AST | None, var: str) -> str | None:
    """The offset c where `node` is `var + c` written as any chain of + and -; else None."""
    if node is None:
        return None
    terms = additive_terms(node, 1)
    hits = [term for term in terms if isinstance(term[1], ast.Name) and term[1].id == var]
    if len(hits) != 1 or hits[0][0] != 1:
        return None
    rest = [term for term in terms if term is not hits[0]]
    if any(var in names_loaded(n) for _, n in rest):
        return None
    text = ""
    for sign, n in rest:
        part = ast.unparse(n)
        part = part if is_atomic(part) else f"({part})"
        text += f" {'+' if sign > 0 else '-'} {part}"
    return "0" if not text else (text[3:] if text.startswith(" + ") else "-" + text[3:])


def whole_windows(array: str, start: str, stop: str, step: str, low: str, high: str) -> bool:
    """Whether every pass of `range(start, stop, step)` slices a whole window `array[s + low:s + high]`: the last start
    plus `high` at most `len(array)`, and the first start plus `low` at least 0, by the terms of each bound alone.
    The step is a positive literal or a value (a hop size): a negative hop makes passes only where the array is
    shorter than a window, where the view raises (a step of 0 raises in both)."""
    if step.lstrip("-").isdigit() and int(step) <= 0:
        return False
    end, begin = _terms(stop), _terms(start)  # Counter's update and subtract keep what goes to 0 or below
    end.update(_terms(high))
    end.subtract(_terms(f"len({array})"))
    end[""] -= 1
    begin.update(_terms(low))
    return _constant(end) is not None and _constant(end) <= 0 and _constant(begin) is not None \
        and _constant(begin) >= 0


def _terms(text: str) -> Counter:
    """`text` as a sum of terms: {term's text: coefficient}, "" the constant; an unknown term is one of its own."""
    terms: Counter = Counter()
    for sign, node in additive_terms(ast.parse(text, mode="eval").body, 1):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            sign, node = -sign, node.operand
        if isinstance(node, ast.Constant) and type(node.value) is int:
            terms[""] += sign * node.value
        else:
            terms[ast.dump(node)] += sign
    return terms


def _constant(terms: Counter) -> int | None:
    """The constant a sum of terms comes to where every other term cancels, else None."""
    return terms[""] if all(v == 0 for k, v in terms.items() if k) else None
