"""The source text of the window rewrite's run-time helpers (`windows.py`), which a rewritten file gains once after
its imports: `_window_reduce` computes every window's reduction of a nest at once, or declines (None) where the
loop's own semantics could differ; `_window_target` says whether the written array takes them as one slice write.
They run in the user's pipeline, so they use numpy as the file imports it (`np`) and nothing of perfloop's.
"""
from __future__ import annotations

HELPERS = ("_window_reduce", "_window_target", "_window_items")
"""Module-level functions the file gains once (never named after perfloop: see hoist.LOOKUP_HELPER)."""

HELPER_SOURCE = '''def _window_reduce(values, spec, op, builtin=False, apply=None, scalars=()):
    """The max, min, sum, mean, size, builtin sum (`seqsum`) or length (`len`, of one axis: `op`) of each window a
    loop nest reduced one at a time, as one array whose axes are the windows' positions; None where the loop's own
    semantics could differ, and it runs as before (added by perfloop: window reductions computed one axis at a time).
    `spec` has one entry per index of the subscript: ("at", index) an index or slice the nest does not change,
    ("all",) a whole axis, and ("window", first, step, length, clip_low, limit, count): `count` windows along that
    axis, the n-th from `first + n * step` for `length` values, clipped below at 0 when clip_low and above at `limit`
    when it is not None. `apply`: the element-wise arithmetic the loop did on each window before reducing it, with
    the numbers `scalars`. Integers
    add the same in any order, so their sums and means are taken over any windows; a float sum or mean only over
    one axis of whole windows, each window's values in a row of their own, as the slice's were. The builtin sum
    adds 0, then each value, left to right: the windows' first values added to zeros, then their second values, and
    so on (a list of Python floats read as float64)."""
    if type(values) is list and op in ("seqsum", "len"):  # Python floats, added as floats are: float64
        if not values or any(type(v) is not float for v in values):
            return None
        if op == "seqsum" and __import__("sys").version_info >= (3, 12):
            return None  # from 3.12 the builtin sum compensates Python floats (numpy's scalars it adds plainly)
        values = np.array(values, dtype=np.float64)
    if type(values) is not np.ndarray or values.dtype.kind not in "fiub" or len(spec) > values.ndim:
        return None
    if op == "seqsum" and (values.ndim != 1 or values.dtype.kind not in "fiu" or values.dtype.itemsize != 8):
        return None  # the builtin sum adds as the scalars do: float64 and int64 alike, narrower types not
    if op == "len" and values.ndim != 1:
        return None
    if not all(type(s) in (int, float, bool) or isinstance(s, np.number) for s in scalars):
        return None
    index, kinds, windows = [], [], [part for part in spec if part[0] == "window"]
    for part in spec:
        if part[0] == "at" and (not isinstance(part[1], (int, np.integer, slice)) or isinstance(part[1], bool)):
            return None
        index.append(part[1] if part[0] == "at" else slice(None))
        if part[0] != "at" or isinstance(part[1], slice):  # a slice the nest does not change is reduced whole
            kinds.append(part[0])
    kept = values[tuple(index)]
    if apply is not None:  # the same arithmetic on every value, before the windows are taken
        shape = kept.shape
        try:
            kept = apply(kept)
        except Exception:
            return None
        if type(kept) is not np.ndarray or kept.shape != shape or kept.dtype.kind not in "fiub":
            return None
    if builtin and (values.ndim != 1 or (kept.dtype.kind == "f" and np.isnan(kept).any())):
        return None
    counted = kept.dtype if op in ("size", "len") and kept.dtype.kind == "f" else None
    if op in ("size", "len"):  # a count, in the window's float type where it has one (as a Python int mixes in)
        kept, op = np.ones(kept.shape, dtype=np.int64), "sum"
    kinds += ["all"] * (kept.ndim - len(kinds))
    if len(kinds) != kept.ndim:
        return None
    axes = [k for k, kind in enumerate(kinds) if kind == "window"]
    others = tuple(k for k, kind in enumerate(kinds) if kind != "window")
    extreme = op in ("max", "min")
    integral = not extreme and (kept.dtype.kind in "iub" or op == "seqsum")
    if not extreme and not integral and (others or len(axes) != 1):
        return None
    top = max(-int(kept.min()), int(kept.max())) if op == "mean" and integral and kept.size else 0
    if top * kept.size > 1 << 53:  # numpy's float64 sum of a window might round
        return None
    counts = np.array(int(np.prod([kept.shape[k] for k in others])), dtype=np.int64)
    if others:
        kept = (np.max if op == "max" else np.min)(kept, axis=others) if extreme else kept.sum(axis=others)
    for axis, (_, first, step, length, clip_low, limit, count) in enumerate(windows):
        try:  # slice bounds as Python takes them: integers only (a float bound raised in the loop, and does again)
            first, step, length, count = first.__index__(), step.__index__(), length.__index__(), count.__index__()
            limit = None if limit is None else limit.__index__()
        except (AttributeError, TypeError):
            return None
        size = kept.shape[axis] if limit is None else min(kept.shape[axis], limit)
        last = first + step * (count - 1)
        if count < 1 or step < 1 or length < 1 or size < 1 or (limit is not None and limit < 0):
            return None
        if (first < 0 and not clip_low) or first + length <= 0 or last >= size:
            return None
        if not extreme and not integral and count * length > 1 << 24:  # rows copied: over 128 MiB of float64
            return None
        before, after = max(0, -first), max(0, last + length - size)
        part = kept[(slice(None),) * axis + (slice(0, size),)]
        starts = first + step * np.arange(count)
        counts = counts[..., None] * (np.minimum(starts + length, size) - np.maximum(starts, 0))
        if before or after:
            if not extreme and not integral:  # a clipped window's float sum would add its values in other groups
                return None
            kind = part.dtype.kind
            if integral:
                identity = 0
            elif kind == "f":
                identity = -np.inf if op == "max" else np.inf
            elif kind == "b":
                identity = op != "max"
            else:
                identity = np.iinfo(part.dtype).min if op == "max" else np.iinfo(part.dtype).max
            widths = [(0, 0)] * part.ndim
            widths[axis] = (before, after)
            part = np.pad(part, widths, constant_values=identity)
        start = first + before
        if op == "seqsum":  # 0 + x0 + x1 + ... left to right, as the builtin adds: one pass per place in the window
            kept = np.zeros(count, dtype=part.dtype)
            for j in range(length):
                np.add(kept, part[start + j:start + j + step * (count - 1) + 1:step], out=kept)
            continue
        view = np.lib.stride_tricks.sliding_window_view(part, length, axis=axis)
        view = view[(slice(None),) * axis + (slice(start, start + step * (count - 1) + 1, step),)]
        if integral:
            kept = view.sum(axis=-1)
        else:
            kept = getattr(view if extreme else np.ascontiguousarray(view), op)(axis=-1)
    if counted is not None:
        return kept.astype(counted)
    return kept / counts if integral and op == "mean" else kept


def _window_items(value, sources):
    """The items a loop over the windows appended: Python numbers where it read Python lists, else numpy's."""
    return value.tolist() if any(type(s) is list for s in sources) else list(value)


def _window_target(target, sources, starts):
    """Whether `target` takes the window reductions as one slice write, as the loop's element writes did: a numpy
    array, sharing no memory with the arrays read, written from non-negative positions (added by perfloop)."""
    if type(target) is not np.ndarray or any(np.may_share_memory(target, s) for s in sources):
        return False
    return all(type(s) is int and s >= 0 for s in starts)
'''
