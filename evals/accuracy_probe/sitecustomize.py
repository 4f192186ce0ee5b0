"""Run a training script under torch.profiler, from outside: put this folder first on PYTHONPATH.

Inert unless ACCURACY_TORCHPROF_OUT is set. Then, in the first Python process only, it starts
`torch.profiler` (CPU activity), adds `record_function` ranges for the stages the profiler does
not name itself (outermost nn.Module calls -> forward, torch.autograd.backward -> backward) and
counts the batches of the first DataLoader. The profiler names the rest itself: DataLoader
`__next__` (`enumerate(DataLoader)#...`) and `Optimizer.step#...`. After warm-up + steps
batches it stops the profiler, writes the ranges and the step boundaries (all on the
profiler's clock, in µs) as JSON and exits, like perfloop's own probe does.

Standard library and torch only: it runs inside the pipeline's interpreter.
"""
import json
import os
import threading

_OUT = os.environ.pop("ACCURACY_TORCHPROF_OUT", "")
_MAX_STEPS = int(os.environ.pop("ACCURACY_MAX_STEPS", "0") or 0)
_STAGE_OF = (("enumerate(DataLoader)", "data_wait"), ("accuracy::forward", "forward"),
             ("accuracy::backward", "backward"), ("Optimizer.step#", "optimizer"))


def _arm():
    import torch
    from torch.autograd.profiler import record_function
    from torch.utils.data import dataloader as dl

    main_thread = threading.get_ident()
    state = {"depth": 0, "dataset": None, "returned": [], "done": False}
    profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])

    original_call = torch.nn.Module.__call__

    def module_call(self, *args, **kwargs):
        if state["depth"] or threading.get_ident() != main_thread:
            return original_call(self, *args, **kwargs)
        state["depth"] += 1
        try:
            with record_function("accuracy::forward"):
                return original_call(self, *args, **kwargs)
        finally:
            state["depth"] -= 1

    original_backward = torch.autograd.backward

    def backward(*args, **kwargs):
        with record_function("accuracy::backward"):
            return original_backward(*args, **kwargs)

    original_next = dl._BaseDataLoaderIter.__next__

    def next_batch(self):
        if state["dataset"] is None:
            state["dataset"] = id(self._dataset)
        if id(self._dataset) != state["dataset"] or state["done"]:
            return original_next(self)
        with record_function("accuracy::next"):
            try:
                batch = original_next(self)
            except BaseException:
                state["returned"].append(False)
                raise
        state["returned"].append(True)
        if sum(state["returned"]) > _MAX_STEPS:
            _finish(profiler, state)
        return batch

    torch.nn.Module.__call__ = module_call
    torch.autograd.backward = backward
    dl._BaseDataLoaderIter.__next__ = next_batch
    profiler.start()


def _finish(profiler, state):
    state["done"] = True
    profiler.stop()
    intervals, nexts = [], []
    # The raw kineto events, not profiler.events(): building FunctionEvents for every aten op of a
    # per-sample torch loop (augment_trap: ~300k ops) took minutes and gigabytes.
    for event in profiler.profiler.kineto_results.events():
        name = event.name()
        start, end = event.start_ns() / 1000.0, event.end_ns() / 1000.0
        if name == "accuracy::next":
            nexts.append(start)
            continue
        for prefix, stage in _STAGE_OF:
            if name.startswith(prefix):
                intervals.append([stage, start, end])
    nexts.sort()
    # A step opens where a __next__ that returned a batch was called (an epoch's final
    # StopIteration stays in the step before it), as in perfloop's probe.
    boundaries = [start for start, returned in zip(nexts, state["returned"]) if returned]
    with open(_OUT, "w") as handle:
        json.dump({"intervals": intervals, "boundaries": boundaries}, handle)
    os._exit(0)


if _OUT and _MAX_STEPS > 0:
    _arm()
