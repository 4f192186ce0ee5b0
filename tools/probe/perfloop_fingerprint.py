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


def fingerprint(batch, root: str = "batch", values: list | None = None) -> tuple[int, list[str], list]:
    """Return (rows, one hash per row over all fields, the batch's tensors by path); raise Unfingerprintable.

    With ``values`` given, also append each row's layout-free value hash to it (see value_hashes).
    """
    import torch

    fields = []
    rows = None
    tensors = []
    numeric = []
    for path, value in _leaves(batch, root):
        if type(value).__module__ == "numpy":
            if not hasattr(value, "dtype") or value.dtype == object or value.ndim == 0:
                value = value.tolist()
            else:
                value = torch.from_numpy(value.copy())
        if isinstance(value, torch.Tensor):
            tensor = value.detach()
            if tensor.device.type != "cpu":
                tensor = tensor.cpu()
            tensor = tensor.contiguous()
            count = tensor.shape[0] if tensor.dim() else 1
            raw = tensor.reshape(count, -1).view(torch.uint8) if tensor.numel() else None
            header = f"{path}|{tensor.dtype}|{tuple(tensor.shape[1:])}".encode()
            fields.append((count, header, raw))
            tensors.append((path, tensor.clone()))
            numeric.append(tensor)
        else:
            seq = value if isinstance(value, (list, tuple)) else [value]
            if not all(_is_scalar(v) for v in seq):  # an object-dtype array of objects
                raise Unfingerprintable(f"{path}: an array of Python objects")
            fields.append((len(seq), path.encode(), [repr(v).encode() for v in seq]))
            if seq and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in seq):
                numeric.append(torch.tensor(seq, dtype=torch.float64))
        rows = fields[-1][0] if rows is None else rows
    rows = rows or 0
    _LAST_LAYOUT[:] = [f"{header.decode(errors='replace') if isinstance(header, bytes) else header}"
                       for _, header, _ in fields][:64]
    # A field without one entry per row (e.g. a scalar) is hashed whole into every row.
    wholes = {}
    for number, (count, header, raw) in enumerate(fields):
        if raw is None or count != rows:
            whole = hashlib.blake2b(header, digest_size=8)
            for part in raw if raw is not None else []:
                whole.update(_row_bytes(part))
            wholes[number] = whole.digest()
    hashes = []
    for row in range(rows):
        digest = hashlib.blake2b(digest_size=8)
        for number, (count, header, raw) in enumerate(fields):
            digest.update(header)
            digest.update(wholes[number] if number in wholes else _row_bytes(raw[row]))
        hashes.append(digest.hexdigest())
    if values is not None:
        values.extend(value_hashes(numeric, rows))
    return rows, hashes, tensors


_LAST_LAYOUT: list[str] = []
"""Leaf paths, dtypes and shapes of the batch fingerprinted last (for saying how a layout changed)."""


def last_layout() -> list[str]:
    """Return the leaves of the batch fingerprinted last, as 'path|dtype|shape' strings."""
    return list(_LAST_LAYOUT)


def value_hashes(leaves: list, rows: int) -> list[str]:
    """Hash each row by its values alone, whatever the container layout and dtype held them.

    Per row, every leaf's slice for that row is read as float64 (exact for every float32,
    float16, bfloat16 and integer below 2**53) and concatenated in leaf order, with no path,
    dtype or shape: a list of per-position tensors and one stacked tensor hash alike, and so
    do float64 values that round-trip to float32. A leaf without one entry per row is left
    out here (the layout-bound row hash covers it).
    """
    import torch

    parts = []
    for tensor in leaves:
        if tensor.dim() == 0 or tensor.shape[0] != rows or tensor.is_complex():
            continue
        values = tensor.reshape(rows, -1)
        parts.append(values if values.dtype == torch.float64 else values.to(torch.float64))
    if not parts:
        return []
    joined = torch.cat(parts, dim=1).contiguous()
    raw = joined.view(torch.uint8).reshape(rows, -1) if joined.numel() else None
    return [hashlib.blake2b(raw[row].numpy().tobytes() if raw is not None else b"", digest_size=8).hexdigest()
            for row in range(rows)]


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


def _row_bytes(part) -> bytes:
    return part if isinstance(part, bytes) else part.numpy().tobytes()
