"""Meter shared by the eval targets; the harness copies it next to train.py as evalkit.py.

It records what the verifier compares between an original run and a patched one:
a digest of every batch (data identical row by row?), the loss curve (numerics within
tolerance?) and steady-state samples/s (faster beyond noise?).

Environment:
  EVAL_MAX_STEPS  stop after this many steps (unset: the loop runs to its own end)
  EVAL_WARMUP     steps excluded from the throughput clock (default 5)

On a CUDA loss the meter adds no host sync per step: `float(loss)` would wait for the device
every step (the very bottleneck the GPU targets plant), so it keeps a detached copy on the device
and reads all of them back once, in report(). The device is synchronised only where the clock
reads it: at the end of the last warm-up step, at EVAL_MAX_STEPS and in report(), so the steady
window holds whole steps of device work. On CPU nothing changes.

report() also gives `steady_step_ms_median`, the median time between consecutive step() calls of the
steady window: one run's typical step, which a burst of other work on the machine moves less than the
window's mean (on CUDA these are host times, not synced to the device). Call batch() on the batch the
loader returned (on the host), before it is copied to the device: digesting a device batch copies
it back, another sync.
"""
import hashlib
import json
import os
import time

import numpy as np
import torch


def _leaves(obj):
    """Yield the leaves of a batch in a stable order (dict keys sorted)."""
    if isinstance(obj, dict):
        for key in sorted(obj, key=str):
            yield from _leaves(obj[key])
    elif isinstance(obj, (tuple, list)) and not (obj and isinstance(obj[0], (int, float, str, bytes))):
        for item in obj:
            yield from _leaves(item)
    else:
        yield obj


def _update(h, leaf):
    if isinstance(leaf, torch.Tensor):
        t = leaf.detach().cpu().contiguous()
        h.update(str(t.dtype).encode())
        # numpy has no bfloat16: hash those bits as int16.
        leaf = (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy()
    if isinstance(leaf, np.ndarray):
        # dtype and shape go in too: the same bytes read as another layout are other data.
        h.update(f"{leaf.dtype.str}{leaf.shape}".encode())
        h.update(np.ascontiguousarray(leaf).tobytes())
    else:
        h.update(repr(leaf).encode())


def _first_dim(obj):
    for leaf in _leaves(obj):
        if isinstance(leaf, (torch.Tensor, np.ndarray)) and leaf.ndim > 0:
            return int(leaf.shape[0])
        if isinstance(leaf, (list, tuple)):
            return len(leaf)
    return 1


class Meter:
    def __init__(self):
        max_steps = os.environ.get("EVAL_MAX_STEPS")
        self.max_steps = int(max_steps) if max_steps else None
        self.warmup = int(os.environ.get("EVAL_WARMUP", "5"))
        self.steps = 0
        self.samples = 0
        self.losses = []
        self._digests = hashlib.sha256()
        self._t0 = self._t_last = None
        self._s0 = self._s_last = 0
        self._t_start = time.perf_counter()
        if self.warmup <= 0:
            self._t0 = self._t_start
        self._reported = False
        self._cuda = False  # a step got a CUDA loss: self.losses holds device tensors until report()
        self._synced_last = False
        self._step_s = []  # the steady window's step durations

    def batch(self, batch):
        """Digest the batch (each tensor's row-major bytes, i.e. row by row) and count its rows."""
        h = hashlib.sha256()
        for leaf in _leaves(batch):
            _update(h, leaf)
        self._digests.update(h.digest())
        self.samples += _first_dim(batch)

    def step(self, loss):
        on_device = isinstance(loss, torch.Tensor) and loss.device.type == "cuda"
        if on_device:
            # Read back in report(). The clone: the output of a CUDA graph (torch.compile's
            # "reduce-overhead") is overwritten by the graph's next replay.
            self.losses.append(loss.detach().reshape(()).clone())
            self._cuda = True
        else:
            self.losses.append(float(loss.detach()) if isinstance(loss, torch.Tensor) else float(loss))
        self.steps += 1
        if on_device and (self.steps == self.warmup or self.steps == self.max_steps):
            torch.cuda.synchronize()
        self._synced_last = on_device and self.steps == self.max_steps
        now = time.perf_counter()
        if self._t0 is not None and self.steps > self.warmup:
            self._step_s.append(now - (self._t_last if self._t_last is not None else self._t0))
        if self.steps == self.warmup:
            # The clock starts at the end of the last warm-up step, so the steady window
            # holds whole steps: batch fetch + compute of steps warmup+1 .. N.
            self._t0, self._s0 = now, self.samples
        self._t_last, self._s_last = now, self.samples

    def done(self):
        return self.max_steps is not None and self.steps >= self.max_steps

    def steady_samples_per_s(self):
        if self._t0 is not None and self._t_last > self._t0:
            return (self._s_last - self._s0) / (self._t_last - self._t0)
        if self._t_last is not None and self._t_last > self._t_start:
            return self._s_last / (self._t_last - self._t_start)  # too few steps for a steady window
        return None

    def report(self, extra=None):
        if self._reported:
            return
        self._reported = True
        if self._cuda:
            self._read_back()
        record = {
            "steps": self.steps,
            "samples": self.samples,
            "steady_samples_per_s": self.steady_samples_per_s(),
            "steady_step_ms_median": 1000.0 * float(np.median(self._step_s)) if self._step_s else None,
            "final_loss": self.losses[-1] if self.losses else None,
            "losses": self.losses,
            "batch_digest": self._digests.hexdigest(),
            "extra": dict(extra or {}),
        }
        print("EVALKIT " + json.dumps(record), flush=True)

    def _read_back(self):
        """Turn the device losses into floats with one transfer, and close the clock on finished work."""
        torch.cuda.synchronize()
        if not self._synced_last and self.steps > self.warmup:
            # The loop ran to its own end: the host may be steps ahead of the device.
            self._t_last = time.perf_counter()
        kept = [i for i, loss in enumerate(self.losses) if isinstance(loss, torch.Tensor)]
        if kept:
            # float64 holds every float32/bfloat16/float16 value exactly: the same numbers float() gives.
            values = torch.stack([self.losses[i].double() for i in kept]).tolist()
            for i, value in zip(kept, values):
                self.losses[i] = value
