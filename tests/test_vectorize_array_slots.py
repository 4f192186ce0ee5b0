"""A numpy array (or torch tensor) made with zeros/ones/full and filled slot by slot in a range loop is vectorised.

Before, `out = np.zeros(n)` then `for i in range(1, n): ... out[i] = e` went to the gather rewrite, which only copies
elements ("the written index `i` is not the loop counters in loop order"), and stayed Python. Now the loop is read as
the appends it amounts to (`array_slots.py`), translated, and the array made again: same length, dtype and values,
slots a `continue` guard or an `if` skips keeping their fill. Each case is written as a pipeline would write it (none
is an eval target's); the rewritten function must give the same array, to the bit, in type and dtype.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import vectorise

CASES = {
    # spectral gains: bands at or under the floor keep the ones they were made with (a `continue` guard)
    "band_gains": ("""
        def band_gains(energy, floor, target):
            gains = np.ones(len(energy))
            for b in range(len(energy)):
                if energy[b] <= floor:
                    continue
                gains[b] = math.sqrt(target / energy[b])
            return gains
    """, "band_gains", lambda rng, t: (np.abs(rng.standard_normal(10 + 7 * t)) * 3, 0.5 + 0.1 * t, 2.0)),
    # per-sample loss weights in float32 from class counts, under an `if` without an `else` (a full fill)
    "inverse_frequency_weights": ("""
        def loss_weights(labels, counts, smoothing):
            weights = np.full(len(labels), 0.5, dtype=np.float32)
            for k in range(len(labels)):
                c = counts[labels[k]]
                if c > 0:
                    weights[k] = 1.0 / (c + smoothing)
            return weights
    """, "loss_weights", lambda rng, t: (rng.integers(0, 5, 30 + 9 * t).tolist(),
                                        rng.integers(0, 4, 5).astype(np.float64), 0.25 * t)),
    # a central difference of timestamps from the third sample on (`range(2, n)`: the first two stay 0)
    "central_difference": ("""
        def central_difference(stamps):
            n = len(stamps)
            rate = np.zeros(n)
            for i in range(2, n):
                rate[i] = (stamps[i] - stamps[i - 2]) * 0.5
            return rate
    """, "central_difference", lambda rng, t: (np.cumsum(rng.random(3 + 11 * t)),)),
    # a torch tensor of scores in the default dtype, one write per item and an `else` branch
    "clipped_scores_tensor": ("""
        def scores(values, cap):
            out = torch.zeros(len(values))
            for i in range(len(values)):
                if values[i] < cap:
                    out[i] = values[i] * 2.0 + 1.0
                else:
                    out[i] = cap
            return out
    """, "scores", lambda rng, t: ((rng.standard_normal(12 + 5 * t) * 4).tolist(), 1.5 + t)),
    # integer codes: a float scaled and truncated by int() into an int64 array
    "integer_codes": ("""
        def quantise(levels, steps):
            codes = np.zeros(len(levels), dtype=np.int64)
            for j in range(len(levels)):
                codes[j] = int(levels[j] * steps)
            return codes
    """, "quantise", lambda rng, t: (rng.random(20 + 4 * t), 4 + t)),
}


def _same(want, got) -> None:
    assert type(got) is type(want) and got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    if isinstance(want, torch.Tensor):
        want, got = want.numpy(), got.numpy()
    assert got.tobytes() == want.tobytes(), (want, got)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_preallocated_array_filled_slot_by_slot_is_vectorised(tmp_path, case):
    source, name, make = CASES[case]
    old, new, result = vectorise(tmp_path, "import torch\n\n" + textwrap.dedent(source), name)
    assert "preallocated array as appends" in result.summary, result.summary
    rng = np.random.default_rng(4)
    for trial in range(10):
        args = make(rng, trial)
        _same(old(*args), new(*args))


def test_nans_and_an_empty_range_keep_the_loops_values(tmp_path):
    source, name, _ = CASES["band_gains"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    energy = np.array([np.nan, 0.0, 4.0, np.inf, 0.2, 9.0])
    _same(old(energy, 0.5, 2.0), new(energy, 0.5, 2.0))
    _same(old(np.zeros(0), 0.5, 2.0), new(np.zeros(0), 0.5, 2.0))
    source, name, _ = CASES["central_difference"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    for n in (0, 1, 2, 3):  # `range(2, n)` empty or one pass: the array as made
        _same(old(np.arange(float(n))), new(np.arange(float(n))))


LEFT = {
    "an empty array's slots are not defined": ("""
        def f(x):
            out = np.empty(len(x))
            for i in range(len(x)):
                out[i] = x[i] * 2.0
            return out
    """, "f"),
    "the array read inside the loop": ("""
        def f(x):
            out = np.zeros(len(x))
            for i in range(1, len(x)):
                out[i] = out[i - 1] + x[i]
            return out
    """, "f"),
    "a shape, not a length": ("""
        def f(x):
            out = np.zeros((len(x), 2))
            for i in range(len(x)):
                out[i] = x[i]
            return out
    """, "f"),
}


@pytest.mark.parametrize("case", sorted(LEFT))
def test_what_is_not_a_slot_by_slot_fill_is_left_to_the_loop(tmp_path, case):
    source, name = LEFT[case]
    try:
        old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    except NotApplicable:
        return
    assert "preallocated array as appends" not in result.summary
    x = np.random.default_rng(6).standard_normal(9)
    _same(old(x), new(x))
