"""Fingerprint a batch row by row through its structure, never through ``repr()``.

Runs inside the user's process (standard library and torch only). A batch is walked as a
tree: mappings (any ``collections.abc.Mapping``, such as a tokenizer's ``BatchEncoding``),
dataclasses, namedtuples, lists and tuples, and attribute bags (objects whose ``__dict__``
holds the fields) are containers; tensors, NumPy arrays, scalars and lists of scalars are
leaves. torch elides the middle of large tensors in ``repr``, so a value reached only through
its repr could change unseen: anything else makes the batch unfingerprintable, and the caller
marks the step instead of hashing something that cannot see the change.
"""
from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections.abc import Mapping

_MAX_DEPTH = 32


class Unfingerprintable(ValueError):
    """A batch holds a value perfloop cannot hash by its contents; the message says where and what."""


def _is_scalar(value) -> bool:
    return isinstance(value, (int, float, complex, str, bytes, bool)) or value is None


def _leaves(batch, path: str = "batch", depth: int = 0):
    """Yield (path, value) for every leaf of a batch; raise Unfingerprintable for an opaque value."""
    if depth > _MAX_DEPTH:
        raise Unfingerprintable(f"{path}: nested more than {_MAX_DEPTH} levels deep (a cycle?)")
    kind = type(batch)
    if _is_scalar(batch) or _is_array(batch):
        yield path, batch
    elif isinstance(batch, Mapping):
        for key in sorted(batch, key=str):
            yield from _leaves(batch[key], f"{path}[{key!r}]", depth + 1)
    elif dataclasses.is_dataclass(batch) and not isinstance(batch, type):
        for field in dataclasses.fields(batch):
            yield from _leaves(getattr(batch, field.name), f"{path}.{field.name}", depth + 1)
    elif isinstance(batch, tuple) and hasattr(kind, "_fields"):  # a namedtuple
        for name in kind._fields:
            yield from _leaves(getattr(batch, name), f"{path}.{name}", depth + 1)
    elif isinstance(batch, (list, tuple)):
        if all(_is_scalar(item) for item in batch):
            yield path, batch  # one scalar per row (labels, ids, file names)
        else:
            for index, item in enumerate(batch):
                yield from _leaves(item, f"{path}[{index}]", depth + 1)
    elif _is_attribute_bag(batch):
        for name in sorted(vars(batch)):
            yield from _leaves(vars(batch)[name], f"{path}.{name}", depth + 1)
    else:
        raise Unfingerprintable(f"{path}: a {kind.__module__}.{kind.__qualname__} has no structure "
                                "perfloop can hash (not a tensor, array, scalar, mapping, dataclass, "
                                "namedtuple, list, tuple or object with a __dict__)")


def _is_array(value) -> bool:
    kind = type(value)
    if kind.__module__ == "numpy":
        return True  # arrays and NumPy scalars
    torch = _torch()
    return torch is not None and isinstance(value, torch.Tensor)


def _is_attribute_bag(value) -> bool:
    fields = getattr(value, "__dict__", None)
    return isinstance(fields, dict) and not callable(value) and not isinstance(value, type)


def _torch():
    import sys

    return sys.modules.get("torch")


def freeze(batch, root: str = "batch", copies: dict | None = None) -> tuple[list, int]:
    """Return (the batch's leaves as fingerprint() reads them, copied: (path, value) in walk order, bytes
    copied); raise Unfingerprintable.

    Tensors become detached, contiguous CPU copies, NumPy arrays what fingerprint() makes of them (a
    tensor copy, or a list for object and 0-d arrays), lists of scalars shallow copies (scalars are
    immutable). ``fingerprint(frozen, root, walked=True)`` then hashes exactly what the batch held at
    this call, whatever the pipeline does to its tensors afterwards (an in-place normalisation in the
    training step), so the hashing can wait until the steps are over.

    ``copies`` maps a tensor's id to (the tensor, its version, its copy): a tensor found there unchanged
    (a model input that is the batch's own tensor) gets the same copy, not a new one, and is then
    hashed once (the copies are fingerprint()'s reuse keys); every tensor copied is added to it.
    """
    import torch

    frozen = []
    copied = 0
    for path, value in _leaves(batch, root):
        if type(value).__module__ == "numpy":
            if not hasattr(value, "dtype") or value.dtype == object or value.ndim == 0:
                value = value.tolist()
            else:
                value = torch.from_numpy(value.copy())
                copied += value.numel() * value.element_size()
        elif isinstance(value, torch.Tensor):
            known = copies.get(id(value)) if copies is not None else None
            if known is not None and known[0] is value and known[1] == value._version:
                value = known[2]
            else:
                tensor = value.detach()
                # .cpu() of a device tensor is a copy already; a CPU tensor is cloned, contiguous.
                copy = tensor.cpu().contiguous() if tensor.device.type != "cpu" else \
                    tensor.clone(memory_format=torch.contiguous_format)
                if copies is not None:
                    copies[id(value)] = (value, value._version, copy)
                copied += copy.numel() * copy.element_size()
                value = copy
        elif isinstance(value, list):
            value = list(value)
        frozen.append((path, value))
    return frozen, copied


def fingerprint(batch, root: str = "batch", values: list | None = None,
                leaves: dict | None = None, raw_digests: bool = False,
                walked: bool = False) -> tuple[int, list, list]:
    """Return (rows, one hash per row over all fields, the batch's tensors by path); raise Unfingerprintable.

    ``walked``: ``batch`` is freeze()'s list of leaves, hashed as the batch they were taken from.

    With ``raw_digests``, the row hashes come as a uint64 NumPy array (hex_digests() writes them as the
    text hashes later, off the step's path).

    With ``values`` given, also append each row's layout-free value hash to it (see value_hashes).
    With ``leaves`` given, also put in it a hash of each non-tensor leaf by path (see leaf_hashes).
    The tensors are the batch's own (detached, on the CPU): whoever keeps them copies them.
    """
    import torch

    fields = []
    rows = None
    tensors = []
    numeric = []
    texts = []
    for path, value in batch if walked else _leaves(batch, root):
        if type(value).__module__ == "numpy":
            if not hasattr(value, "dtype") or value.dtype == object or value.ndim == 0:
                value = value.tolist()
            else:
                value = torch.from_numpy(value.copy())
        if isinstance(value, torch.Tensor):
            leaf = value
            tensor = value.detach()
            if tensor.device.type != "cpu":
                tensor = tensor.cpu()
            tensor = tensor.contiguous()
            count = tensor.shape[0] if tensor.dim() else 1
            fields.append((count, f"{path}|{tensor.dtype}|{tuple(tensor.shape[1:])}".encode(), (leaf, tensor)))
            tensors.append((path, tensor))
            numeric.append(tensor)
        else:
            seq = value if isinstance(value, (list, tuple)) else [value]
            if not all(_is_scalar(v) for v in seq):  # an object-dtype array of objects
                raise Unfingerprintable(f"{path}: an array of Python objects")
            fields.append((len(seq), path.encode(), [repr(v).encode() for v in seq]))
            if seq and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in seq):
                numeric.append(torch.tensor(seq, dtype=torch.float64))
            elif seq and all(isinstance(v, (str, bytes)) for v in seq):
                texts.append(fields[-1][2])
        rows = fields[-1][0] if rows is None else rows
    rows = rows or 0
    _LAST_FIELDS[:] = [header for _, header, _ in fields[:64]] + ([len(fields)] if len(fields) > 64 else [])
    np = _np()
    # One 64-bit digest per row: every field's words summed at its own positions (the fields laid end
    # to end), then the headers (path, dtype, shape of each field, in order) folded in and mixed once.
    # A field without one entry per row (a scalar, an empty tensor) is hashed whole into the salt.
    total = np.zeros(rows, dtype=np.uint64)
    whole: list[bytes] = []
    offset = 0
    for count, header, raw in fields:
        if isinstance(raw, list):
            if count == rows and rows:
                part = np.array([_digest(item) for item in raw], dtype=np.uint64)
                total += _word_sums(part.view(np.uint8).reshape(rows, 8), offset)
                offset += 1
            else:
                whole.append(b"%016x" % _digest(b"\0".join(raw)))
        elif count == rows and raw[1].numel():
            sums, width = _row_sums(*raw, rows, offset)
            total += sums
            offset += width
        else:
            raw = raw[1]
            whole.append(b"%016x" % _digest(_bytes_by_row(raw, 1).tobytes() if raw.numel() else b""))
    salt = _salt(tuple(header for _, header, _ in fields), tuple(whole))
    combined = _mix(total ^ np.uint64(salt))
    if values is not None:
        values.extend(value_hashes(numeric, rows, texts))
    if leaves is not None:
        leaves.update(leaf_hashes([(header, raw) for _, header, raw in fields if isinstance(raw, list)]))
    return rows, (combined if raw_digests else _hex(combined)), tensors


_SALTS: dict = {}
"""Digest of a batch's field headers (and of its fields hashed whole), by those: a run's batches share a few layouts."""


def _salt(headers: tuple, whole: tuple) -> int:
    key = (headers, whole)
    salt = _SALTS.get(key)
    if salt is None:
        if len(_SALTS) > 256:
            _SALTS.clear()
        salt = _SALTS[key] = _digest(b"\1".join(headers) + b"\2" + b"\1".join(whole))
    return salt


_MAX_NAMED_LEAVES = 64


def leaf_hashes(others: list[tuple[bytes, list[bytes]]]) -> dict[str, str]:
    """Hash each non-tensor leaf (text, Python numbers, lists of them) whole, by path.

    The data check compares these exactly even where a tolerance lets tensors differ: a
    tolerance is for reordered floating-point arithmetic, never for a changed file name or
    label. One hash per leaf and step (not per row) keeps the record small; the first 64
    leaves are named, the rest share one hash under "… (N more leaves)" so a change there
    is still seen.
    """
    def digest(parts: list[tuple[bytes, list[bytes]]], with_path: bool) -> str:
        data = b"\1".join((path if with_path else b"") + b"\0%d\0" % len(raw) + b"\0".join(raw)
                           for path, raw in parts)
        return "%016x" % _digest(data)

    named = {path.decode(errors="replace"): digest([(path, raw)], False)
             for path, raw in others[:_MAX_NAMED_LEAVES]}
    rest = others[_MAX_NAMED_LEAVES:]
    if rest:
        named[f"… ({len(rest)} more leaves)"] = digest(rest, True)
    return named


_SEEN: list = []
"""(tensor, version, word offset, (row sums, words a row)) of the tensors hashed since the last new batch: a model input that
is the batch's own tensor, unchanged, is not hashed twice. Holding the tensor keeps its memory
from being reused by another tensor while the entry lives."""


def new_batch() -> None:
    """Forget the tensors hashed for the previous step (call when a step's batch arrives)."""
    _SEEN.clear()


def _row_sums(leaf, tensor, rows: int, offset: int = 0):
    """(row word sums of ``tensor`` (the detached ``leaf``) at word positions ``offset``.., its words a row),
    reused while the same leaf is unchanged and hashed at the same positions."""
    version = getattr(leaf, "_version", None)
    for seen, seen_version, seen_offset, found in _SEEN:
        if seen is leaf and seen_version == version and seen_offset == offset and version is not None:
            return found
    raw = _bytes_by_row(tensor, rows)
    found = (_word_sums(raw, offset), (raw.shape[1] + 7) // 8)
    _SEEN.append((leaf, version, offset, found))
    return found


_LAST_FIELDS: list = []
"""Headers (b"path|dtype|shape") of the first 64 leaves of the batch fingerprinted last, then the number of leaves
where there are more; decoded only when asked for (last_layout)."""


def last_layout() -> list[str]:
    """Return the leaves of the batch fingerprinted last, as 'path|dtype|shape' strings: the first 64, then
    "… (N leaves)" when there are more (for saying how a layout changed)."""
    return [item.decode(errors="replace") if isinstance(item, bytes) else f"… ({item} leaves)"
            for item in _LAST_FIELDS]


def value_hashes(leaves: list, rows: int, texts: list | None = None) -> list[str]:
    """Hash each row by its values alone, whatever the container layout and dtype held them.

    Per row, every leaf's slice for that row is read as float64 (exact for every float32,
    float16, bfloat16 and integer below 2**53) and hashed as if the leaves were concatenated
    in leaf order, with no path, dtype or shape: a list of per-position tensors and one
    stacked tensor hash alike, and so do float64 values that round-trip to float32. A leaf
    without one entry per row is left out here (the layout-bound row hash covers it).
    ``texts`` are the batch's text leaves (one ``repr`` per row, as bytes): each row's strings
    are added whatever leaf held them, so a layout change keeps them and an edited one shows.
    """
    import torch

    np = _np()
    total = np.zeros(rows, dtype=np.uint64)
    text_rows = [raw for raw in texts or () if len(raw) == rows and rows]
    for raw in text_rows:
        total += _mix(np.array([_digest(item) for item in raw], dtype=np.uint64) ^ np.uint64(_TEXT))
    offset = 0
    for tensor in leaves:
        if tensor.dim() == 0 or tensor.shape[0] != rows or tensor.is_complex() or not rows:
            continue
        by_row = tensor.reshape(rows, -1)
        width = by_row.shape[1]
        if not width:
            continue
        step = max(1, _CHUNK_BYTES // (8 * width))
        for start in range(0, rows, step):
            chunk = by_row[start:start + step]
            chunk = (chunk if chunk.dtype == torch.float64 else chunk.to(torch.float64)).contiguous()
            total[start:start + step] += _word_sums(chunk.numpy().view(np.uint8), offset)
        offset += width
    if not offset and not text_rows:
        return []
    salt = b"values|%d" % offset + (b"|%d" % len(text_rows) if text_rows else b"")
    return _hex(_mix(total ^ np.uint64(_digest(salt))))


# Row digests, vectorised: a 64-bit hash per row from NumPy's wrapping uint64 arithmetic
# instead of one hashlib call per row (milliseconds a batch on fast steps). Word j of a row
# is xored with a per-position key and put through splitmix64's finaliser (a bijection whose
# every output bit depends on every input bit), and the results are summed. The finaliser
# matters: a sum of products (word ^ key) * odd constant, as this used before, keeps a change
# in a word's top bit in the top bit, so two such changes in one row cancelled (negating two
# float64 values of a row, or two float32 values at odd positions, left the hash unchanged).
# Summing makes the digest of concatenated leaves the sum of the leaves' digests at their
# offsets, which is what lets value hashes skip the concatenation. Rows are taken a block at a
# time into two reused buffers so the temporaries stay small and cache-resident. Not
# cryptographic: it tells equal rows from changed ones, which is all the data check asks of it.
_FOLD = 0x9E3779B97F4A7C15
_TEXT = 0xC2B2AE3D27D4EB4F  # keeps a row's text digests apart from its numeric word sums
_CHUNK_BYTES = 1 << 18
"""Bytes of a block of rows hashed at once: large enough that a wide row (an image: 24 KB as float64
at 3x32x32) is not one Python iteration each (7.5 ms a batch of 256 at 32 KB), small enough to stay
in a core's L2 cache."""
_KEYS: list = []
_BUFFERS = threading.local()
"""Per thread, two uint64 buffers of a block's words (the finaliser's work and its shifted copy)."""


def _np():
    import numpy

    return numpy


def _mix(h):
    """splitmix64's finaliser over a uint64 array (wrapping arithmetic), into a new array."""
    np = _np()
    out = np.array(h, dtype=np.uint64)  # a copy; NumPy scalars become 0-d arrays
    _mix_into(out, np.empty_like(out))
    return out


def _mix_into(h, spare) -> None:
    """splitmix64's finaliser over the uint64 array ``h``, in place; ``spare`` (same shape) holds the shifts."""
    np = _np()
    s30, s27, s31, m1, m2 = _constants()
    np.right_shift(h, s30, out=spare)
    h ^= spare
    h *= m1
    np.right_shift(h, s27, out=spare)
    h ^= spare
    h *= m2
    np.right_shift(h, s31, out=spare)
    h ^= spare


_CONSTANTS: list = []


def _constants() -> tuple:
    """splitmix64's finaliser's shifts and multipliers as NumPy scalars (NumPy imported on first use)."""
    if not _CONSTANTS:
        np = _np()
        _CONSTANTS[:] = [np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(0xBF58476D1CE4E5B9),
                         np.uint64(0x94D049BB133111EB)]
    return tuple(_CONSTANTS)


def _keys(words: int):
    """Per-position keys for at least ``words`` positions (deterministic, cached).

    Position p's key depends on p alone, never on how far the cache has grown: otherwise a
    row hashed before a wider one grew it and the same row hashed after would differ (with
    513 one-word leaves, the layout-free value hash of a list of per-position tensors never
    matched the stacked tensor's).
    """
    if not _KEYS or len(_KEYS[0]) < words:
        np = _np()
        size = max(words, 2 * len(_KEYS[0]) if _KEYS else 64)
        positions = np.arange(size, dtype=np.uint64)
        _KEYS[:] = [_mix((np.uint64(2) * positions + np.uint64(1)) * np.uint64(_FOLD))]
    return _KEYS[0]


def _digest(data: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def _bytes_by_row(tensor, rows: int):
    """A contiguous tensor's bytes as a (rows, n) uint8 NumPy array (any dtype, bfloat16 included)."""
    import torch

    return tensor.reshape(rows, -1).view(torch.uint8).numpy()


def _word_sums(raw, offset: int = 0):
    """Sum over each row of mix(word ^ key) at positions offset.., for a (rows, n) uint8 array.

    A row's width goes in too (its last word is zero-padded), so rows of different widths differ.
    """
    np = _np()
    rows, width = raw.shape
    pad = -width % 8
    if pad:
        raw = np.concatenate([raw, np.zeros((rows, pad), dtype=np.uint8)], axis=1)
    words = np.ascontiguousarray(raw).view("<u8")
    count = words.shape[1]
    keys = _keys(offset + count)[offset:offset + count]
    out = np.empty(rows, dtype=np.uint64)
    step = max(1, _CHUNK_BYTES // (8 * count))
    size = min(step, rows) * count
    work, shifted = getattr(_BUFFERS, "pair", (None, None))
    if work is None or len(work) < size:
        work, shifted = np.empty(size, dtype=np.uint64), np.empty(size, dtype=np.uint64)
        _BUFFERS.pair = (work, shifted)
    for start in range(0, rows, step):  # array arithmetic wraps silently (only NumPy scalars warn)
        block = words[start:start + step]
        h = work[:block.size].reshape(block.shape)
        np.bitwise_xor(block, keys, out=h)
        _mix_into(h, shifted[:block.size].reshape(block.shape))
        h.sum(axis=1, dtype=np.uint64, out=out[start:start + block.shape[0]])
    if pad:
        out ^= np.uint64(width)
    return out


def _hex(digests) -> list[str]:
    if not len(digests):
        return []
    # bytes.hex with a separator every 8 bytes, split once: a third of the time of slicing the text.
    return digests.astype(">u8").tobytes().hex(" ", 8).split(" ")


def hex_digests(parts: list) -> list[str]:
    """The text row hashes of ``parts``: uint64 arrays from fingerprint(raw_digests=True) and text hashes, in order."""
    found: list[str] = []
    for part in parts:
        if isinstance(part, str):
            found.append(part)
        else:
            found.extend(_hex(part))
    return found


def count_rows(batch) -> int:
    """Return the batch's row count from its first tensor or list leaf, as far as the walk gets (0 if none)."""
    try:
        for _, value in _leaves(batch):
            shape = getattr(value, "shape", None)
            if shape:
                return int(shape[0])
            if isinstance(value, (list, tuple)):
                return len(value)
    except Unfingerprintable:
        pass
    return 0

