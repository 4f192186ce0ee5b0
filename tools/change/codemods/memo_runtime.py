"""The functions a memoised file gains once, as source text (`memoize.py` writes them after its imports).

What a hit costs is most of what a memo saves where the function is cheap: blind13 b4's `parse_record` kept
x3.75 of a possible x14.5, and under cProfile two thirds of its `__getitem__` went to building keys and copying
results. So each part of a result is judged once, when it is stored:
- `_memo_key`: an exact key (floats by their bits, tuples and frozensets element by element, dates, times,
  datetimes and timedeltas by every field, the fold and the zone: `_memo_time_key`); a function of one
  positional parameter keys on it directly. `_memo_key_data` keys lists and numpy arrays by their contents too,
  for a function that changes nothing it was given (`kept_arguments.py`).
- `_memo_store`: arrays and tensors kept as copies (a result may be a view of an argument); a tuple nothing can
  change at any depth (scalars, `datetime`, `Decimal`, `Fraction`, `UUID` values, tuples and frozensets of them:
  `_memo_frozen`) is held as `_MemoShared` and the one object handed out; a list or dict whose items cannot
  change as `_MemoScalars` or `_MemoFlatDict`, copied in one call; anything else part by part.
- `_memo_copy`: what a hit hands out: a fresh object wherever the caller could change it.
The names are the file's own (never named after perfloop: see hoist.LOOKUP_HELPER).
"""
from __future__ import annotations

HELPERS = ("_memo_key", "_memo_time_key", "_memo_key_data", "_memo_copy", "_memo_store", "_memo_frozen",
           "_memo_state_key", "_memo_state_part")
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
        return (kind, tuple(map(_memo_key, value)))
    if kind is frozenset:
        return (kind, frozenset(map(_memo_key, value)))
    if kind.__module__ == "datetime":
        return _memo_time_key(value)
    if kind.__qualname__ in globals().get("_MEMO_FROZEN", ()):
        return _memo_state_key(value)
    raise TypeError(kind.__name__)


_MEMO_STATES = {}


class _MemoState:
    """An object's state as a key: its parts hashed once (a vocabulary's thousands of entries are not hashed again
    on every call), equal where the parts are."""
    __slots__ = ("parts", "digest")

    def __init__(self, parts):
        self.parts, self.digest = parts, hash(parts)

    def __hash__(self):
        return self.digest

    def __eq__(self, other):
        return self is other or (type(other) is _MemoState and self.digest == other.digest
                                 and self.parts == other.parts)


def _memo_state_key(value):
    """A key for an object of a class nothing changes once its __init__ returns (perfloop read the target's files
    for it: `_MEMO_FROZEN`, qualname -> (fields keyed by value, method names)): its class and the contents of its
    fields, read once per object and kept with the object, so that another at the same address is not taken for
    it. TypeError where the class's methods are not the ones read, or a field has no exact key."""
    held = _MEMO_STATES.get(id(value))
    if held is not None and held[0] is value:
        return held[1]
    kind = type(value)
    given, methods = _MEMO_FROZEN[kind.__qualname__]
    if not set(methods) <= set(vars(kind)):
        raise TypeError(kind.__name__)
    parts = tuple((name, _memo_key(field) if name in given else _memo_state_part(field))
                  for name, field in sorted(vars(value).items())
                  if not (name.startswith("_") and name.endswith("_memo")))  # a method memo's own results
    key = (kind.__qualname__, _MemoState(parts))
    if len(_MEMO_STATES) < 4096:
        _MEMO_STATES[id(value)] = (value, key)
    return key


def _memo_state_part(value):
    """A field made in __init__, by its contents: a dict, list, tuple, deque or set whose items nothing can change
    (`_memo_frozen`: scalars, tuples of them), item by item; a numpy array by its bytes; a scalar as `_memo_key`
    keys it. Anything nested that could change (a list inside the list, which may be the caller's) raises
    TypeError: the object has no key, and the call is computed as before."""
    kind = type(value)
    if isinstance(value, dict):
        if not (all(map(_memo_frozen, value)) and all(map(_memo_frozen, value.values()))):
            raise TypeError("a field holding values that could change")
        return (kind, tuple((_memo_key(k), _memo_key(v)) for k, v in value.items()))
    if kind is list or kind is tuple or kind is set or kind is frozenset or kind.__name__ == "deque":
        if not all(map(_memo_frozen, value)):
            raise TypeError("a field holding values that could change")
        keys = map(_memo_key, value)
        return (kind, frozenset(keys) if kind is set or kind is frozenset else tuple(keys))
    return _memo_key_data(value)


def _memo_time_key(value):
    """An exact key for a date, time, datetime or timedelta. Naive values compare field by field, so they key as
    themselves (and the fold); an aware one compares by its instant, which with its zone gives every field: a
    fixed-offset `timezone` by its offset and name, any other zone as the object it is (an aware datetime equals
    one of another zone at the same instant, whose `.hour` differs). TypeError for anything else of the module."""
    kind = type(value)
    name = kind.__name__
    if name == "date" or name == "timedelta":
        return (kind, value)
    if name != "datetime" and name != "time":
        raise TypeError(name)
    zone = value.tzinfo
    if zone is None:
        return (kind, value, value.fold)
    if type(zone).__name__ == "timezone" and type(zone).__module__ == "datetime":
        return (kind, value, value.fold, value.utcoffset(), value.tzname())
    hash(zone)  # a zone that cannot be a key: TypeError, computed as before
    return (kind, value, value.fold, zone)


def _memo_key_data(value):
    """`_memo_key`, and lists and numpy arrays by their contents too: a list of floats (or of numpy floats) by their
    bits, of ints, strings or bytes as they are, anything else item by item; an array or a numpy scalar by dtype,
    shape and bytes (an array of
    objects raises TypeError). A list of more than 2048 items or an array of more than 16 KiB is not kept as a key
    (TypeError: computed as before), so that 16384 remembered results hold at most 256 MiB of keys. Used only for a
    function that changes nothing it was given."""
    kind = type(value)
    if kind is list:
        if len(value) > 2048:
            raise TypeError("a list too long to keep as a key")
        kinds = set(map(type, value))
        if len(kinds) == 1:
            item = next(iter(kinds))
            if item is float or (item.__module__ == "numpy" and item.__name__.startswith("float")):
                # Floats by their bits, widened to double exactly; the item type keeps float32 and float64 apart.
                return (kind, item, struct.pack(f"<{len(value)}d", *value))
            if item in (int, str, bytes):
                return (kind, item, tuple(value))
        return (kind, tuple(map(_memo_key_data, value)))
    if kind is tuple:
        return (kind, tuple(map(_memo_key_data, value)))
    if kind.__module__ == "numpy" and hasattr(value, "dtype"):  # an array, or a numpy scalar (`np.float64(0.5)`)
        if value.dtype.hasobject or value.nbytes > 16384:
            raise TypeError("an array of objects, or too large to keep as a key")
        return (kind, value.dtype.str, value.shape, value.tobytes())
    return _memo_key(value)


class _MemoShared(tuple):
    """A remembered value no caller can change (a tuple of scalars, dates, Decimals, ... at any depth), held as
    its only item: the one object is handed out on every hit."""
    __slots__ = ()


class _MemoScalars(tuple):
    """A remembered list whose items no caller can change, marked when it was stored: a new list in one call."""
    __slots__ = ()


class _MemoFlatDict(dict):
    """A remembered dict whose values no caller can change (a parsed record): a new plain dict in one call."""
    __slots__ = ()


def _memo_frozen(value):
    """Whether nothing can change `value`: the builtin scalars, the standard library's immutable values
    (datetime, date, timedelta, Decimal, Fraction, UUID), and tuples and frozensets of such values."""
    kind = type(value)
    if value is None or kind in (str, int, float, bool, bytes, complex, range):
        return True
    if kind is tuple or kind is frozenset:
        return all(map(_memo_frozen, value))
    return kind.__module__ in ("datetime", "decimal", "fractions", "uuid")


def _memo_store(value):
    """`value` as the memo keeps it, each part judged once, when stored, so that a hit costs one call per part
    a caller could change: a frozen tuple shared, a list or dict of frozen items copied in one call."""
    kind = type(value)
    if kind is tuple or kind is list or kind is dict:
        items = value.values() if kind is dict else value
        if all(map(_memo_frozen, items)):
            if kind is tuple:
                return _MemoShared((value,))
            return _MemoScalars(value) if kind is list else _MemoFlatDict(value)
        if kind is dict:
            return {k: _memo_store(v) for k, v in value.items()}
        items = [_memo_store(v) for v in value]
        return items if kind is list else tuple(items)
    if isinstance(value, tuple) and hasattr(kind, "_make") and hasattr(kind, "_fields") \
            and not hasattr(value, "__dict__"):  # a namedtuple (no attributes of its own): field by field
        return _MemoShared((value,)) if all(map(_memo_frozen, value)) else kind._make(map(_memo_store, value))
    # An array or tensor is kept as a copy: one the function returned may be a view of what it was given.
    if hasattr(value, "clone") and hasattr(value, "detach"):
        return value.clone()
    if hasattr(value, "copy") and hasattr(value, "dtype"):
        return value.copy()
    return value


def _memo_copy(value):
    """A stored `value` as a fresh object where the caller could change it: lists, dicts and sets rebuilt
    (their items too; one whose items cannot change in one call), numpy arrays and torch tensors copied,
    immutable values shared."""
    kind = type(value)
    if kind is _MemoShared:
        return value[0]
    if value is None or kind in (str, int, float, bool, bytes, complex, frozenset, range):
        return value
    if kind is _MemoScalars:
        return list(value)
    if kind is _MemoFlatDict:
        return dict(value)
    if kind.__module__ in ("datetime", "decimal", "fractions", "uuid"):
        return value  # the standard library's immutable values: datetime, date, timedelta, Decimal, Fraction, UUID
    if kind is tuple:
        return tuple(map(_memo_copy, value))
    if isinstance(value, tuple) and hasattr(kind, "_make") and hasattr(kind, "_fields") \
            and not hasattr(value, "__dict__"):
        return kind._make(map(_memo_copy, value))
    if kind is list:
        return list(map(_memo_copy, value))
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
