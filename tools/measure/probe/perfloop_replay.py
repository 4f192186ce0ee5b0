"""Keep the step loader's batches in a full run; feed them back from memory in a replay run.

A replay run measures the step time with free data: the first DataLoader the pipeline iterates
hands out the stored batches in order (cycling) without building anything, so what remains of
the step is the training loop itself. ``headspace = (step - replay step) / step`` is then the most
any data-side change can gain (tools/measure/headspace.py).

Environment: ``Env.REPLAY_KEEP`` (a full run keeps up to this many batch elements; 0 keeps
none) and ``Env.REPLAY_FROM`` (replay that file's batches), in ``perfloop_layout``.
"""
from __future__ import annotations

import os
import sys

from perfloop_layout import Defaults, Env, replay_name

_KEEP_ELEMENTS = int(float(os.environ.get(Env.REPLAY_KEEP, str(Defaults.REPLAY_KEEP)) or 0))
_REPLAY_FROM = os.environ.get(Env.REPLAY_FROM, "")
_KEPT: dict = {"batches": [], "elements": 0, "full": False, "why_not": ""}
_REPLAY: dict = {"batches": None, "loader": None}


def keep_for_replay(batch) -> None:
    """Hold a reference to a step batch while the element budget lasts (no copy, no per-step I/O)."""
    if _KEPT["full"] or _KEEP_ELEMENTS <= 0:
        return
    size = _elements(batch)
    if size is None:
        _KEPT["full"], _KEPT["why_not"] = True, "the batch holds something other than tensors, numbers and strings"
        return
    if _KEPT["elements"] + size > _KEEP_ELEMENTS:
        _KEPT["full"] = True
        if not _KEPT["batches"]:
            _KEPT["why_not"] = f"one batch holds {size} elements, over the replay budget of {_KEEP_ELEMENTS}"
        return
    _KEPT["elements"] += size
    _KEPT["batches"].append(batch)


def save_replay(out_dir: str, rank: str) -> dict:
    """Write the kept batches for a replay run; return what was kept or why nothing was."""
    batches = _KEPT["batches"]
    if not batches:
        return {"batches": 0, "why_not": _KEPT["why_not"] or "no DataLoader batch was kept"}
    torch = sys.modules["torch"]
    path = os.path.join(out_dir, replay_name(rank))
    try:
        torch.save(batches, path)
    except Exception as error:  # an unpicklable batch: replay is impossible, say so
        return {"batches": 0, "why_not": f"the batches cannot be saved ({type(error).__name__}: {error})"}
    return {"batches": len(batches), "elements": _KEPT["elements"], "path": path}


def replays(loader) -> bool:
    """Tell whether ``loader`` is replaced by stored batches: the first loader iterated, every epoch, and any
    loader built where it was (a DataLoader built anew every epoch or fold)."""
    if not _REPLAY_FROM:
        return False
    site = getattr(loader, "_perfloop_site", None)
    if _REPLAY["loader"] is None:
        _REPLAY["loader"], _REPLAY["site"] = id(loader), site
    return _REPLAY["loader"] == id(loader) or (site is not None and site == _REPLAY.get("site"))


def replay_iterator(loader):
    """Return an iterator over the stored batches standing in for ``loader``'s (first loader only)."""
    from torch.utils.data import dataloader as dl

    torch = sys.modules["torch"]
    if _REPLAY["batches"] is None:
        _REPLAY["batches"] = torch.load(_REPLAY_FROM, weights_only=False)
    batches = _REPLAY["batches"]

    class _ReplayIter(dl._BaseDataLoaderIter):
        """Hand out stored batches; the loader's workers, sampler and dataset are never touched."""

        def __init__(self) -> None:  # the base __init__ would start the real loading machinery
            self._sampler_iter = iter(())  # not None: __next__ must not call _reset()
            self._num_yielded = 0
            self._dataset_kind = dl._DatasetKind.Map
            self._IterableDataset_len_called = None
            self._profile_name = "perfloop:replay"
            try:
                self._epoch_length = len(loader)
            except TypeError:  # an IterableDataset without __len__
                self._epoch_length = len(batches)

        def _next_data(self):
            if self._num_yielded >= self._epoch_length:
                raise StopIteration
            return batches[self._num_yielded % len(batches)]

        def __len__(self) -> int:
            return self._epoch_length

    return _ReplayIter()


def _elements(value) -> int | None:
    """Count tensor elements in a batch walked through lists, tuples and dicts; None for other objects."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return value.numel()
    if isinstance(value, (int, float, str, bytes, bool)) or value is None:
        return 1
    if isinstance(value, dict):
        parts = [_elements(v) for v in value.values()]
    elif isinstance(value, (list, tuple)):
        parts = [_elements(v) for v in value]
    else:
        return None
    return None if None in parts else sum(parts)
