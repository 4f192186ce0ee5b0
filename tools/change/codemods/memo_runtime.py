"""The functions a memoised file gains once, as source text (`memoize.py` writes them after its imports).
The names are the file's own (never named after perfloop: see hoist.LOOKUP_HELPER).
"""
from __future__ import annotations

HELPERS = ("_memo_key", "_memo_copy", "_memo_store")
"""Module-level helpers the file gains once (never named after perfloop: see hoist.LOOKUP_HELPER)."""

HELPER_SOURCE = '''def _memo_key(value):
    """An exact, hashable key for `value`: floats by their bits (-0.0 and 0.0, 1 and 1.0 and True stay apart),
    tuples and frozensets of such values element by element; TypeError for anything else, which is then
    computed as before (added by perfloop: results of a pure helper remembered per argument)."""
    kind = type(value)
    if kind is str or kind is int or kind is bytes or kind is bool or value is None:
        return (kind, value)
    if kind is float:
        return (kind, value.hex())
    if kind is tuple:
        return (kind, tuple(_memo_key(v) for v in value))
    if kind is frozenset:
        return (kind, frozenset(_memo_key(v) for v in value))
    raise TypeError(kind.__name__)


class _MemoScalars(tuple):
    """A remembered list of scalars only, marked when it was stored: handed out as a new list in one call."""
    __slots__ = ()


class _MemoScalarTuple(tuple):
    """A remembered tuple of scalars only: handed out as a plain tuple in one call."""
    __slots__ = ()


def _memo_store(value):
    """`value` as the memo keeps it: each list or tuple of scalars only (a decoded recording's readings) found
    once, when stored, so that every hit copies it in one call instead of value by value."""
    kind = type(value)
    if kind is list or kind is tuple:
        if set(map(type, value)).issubset((str, int, float, bool, bytes, complex, type(None))):
            return _MemoScalars(value) if kind is list else _MemoScalarTuple(value)
        items = [_memo_store(v) for v in value]
        return items if kind is list else tuple(items)
    if kind is dict:
        return {k: _memo_store(v) for k, v in value.items()}
    return value


def _memo_copy(value):
    """A stored `value` as a fresh object where the caller could change it: lists, dicts and sets rebuilt
    (their items too; a list of scalars in one call), numpy arrays and torch tensors copied, immutable values
    shared."""
    kind = type(value)
    if value is None or kind in (str, int, float, bool, bytes, complex, frozenset, range):
        return value
    if kind is _MemoScalars:
        return list(value)
    if kind is _MemoScalarTuple:
        return tuple(value)
    if kind.__module__ in ("datetime", "decimal", "fractions", "uuid"):
        return value  # the standard library's immutable values: datetime, date, timedelta, Decimal, Fraction, UUID
    if kind is tuple:
        return tuple(_memo_copy(v) for v in value)
    if kind is list:
        return [_memo_copy(v) for v in value]
    if kind is dict:
        return {k: _memo_copy(v) for k, v in value.items()}
    if kind is set:
        return set(value)
    if hasattr(value, "clone") and hasattr(value, "detach"):
        return value.clone()
    if hasattr(value, "copy") and hasattr(value, "dtype"):
        return value.copy()
    return copy.deepcopy(value)
'''
