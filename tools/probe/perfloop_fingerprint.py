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


def fingerprint(batch, root: str = "batch") -> tuple[int, list[str], list]:
    """Return (rows, one hash per row over all fields, the batch's tensors by path); raise Unfingerprintable."""
    import torch

    fields = []
    rows = None
    tensors = []
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
        else:
            seq = value if isinstance(value, (list, tuple)) else [value]
            if not all(_is_scalar(v) for v in seq):  # an object-dtype array of objects
                raise Unfingerprintable(f"{path}: an array of Python objects")
            fields.append((len(seq), path.encode(), [repr(v).encode() for v in seq]))
        rows = fields[-1][0] if rows is None else rows
    rows = rows or 0
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
    return rows, hashes, tensors


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
