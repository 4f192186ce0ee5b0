"""A nest that fills several arrays per position is one nest per array, each rewritten on its own or left as it was.

Before, a pass that wrote a window's maximum and a pointwise value, or a local mean and a mask, was refused whole: the
window rewrite took only window reductions and the translator no subscript writes. Now each output's nest goes its own
way (`fission.py`). Each case is written as a pipeline would write it (none is an eval target's): the rewritten
function must give the same arrays, to the bit and in dtype, as the loop.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import vectorise

CASES = {
    # an envelope and a midline per sample of a trace: two window reductions and a pointwise value, bounds in pairs
    "envelope_and_midline": ("""
        def envelope(trace, reach):
            n = len(trace)
            upper = np.zeros(n)
            lower = np.zeros(n)
            middle = np.zeros(n)
            for i in range(n):
                lo, hi = max(0, i - reach), min(n, i + reach + 1)
                upper[i] = trace[lo:hi].max()
                lower[i] = np.min(trace[lo:hi])
                middle[i] = (trace[i] + 1.0) * 0.5
            return upper, lower, middle
    """, "envelope", 0, lambda rng, t: (rng.standard_normal(30 + 11 * t), t % 4)),
    # a depth map's validity mask and its local mean over integer millimetres (a 2-D clipped window)
    "mask_and_local_mean": ("""
        def depth_features(depth_mm, half):
            rows, cols = depth_mm.shape
            valid = np.zeros((rows, cols), dtype=np.float32)
            smooth = np.zeros((rows, cols))
            for r in range(rows):
                top, bottom = max(0, r - half), min(rows, r + half + 1)
                for c in range(cols):
                    valid[r, c] = 1.0 if depth_mm[r, c] > 0 else 0.0
                    block = depth_mm[top:bottom, max(0, c - half):min(cols, c + half + 1)]
                    smooth[r, c] = block.sum() / block.size
            return valid, smooth
    """, "depth_features", 0, lambda rng, t: (rng.integers(0, 3000, (4 + t, 6 + 2 * t)).astype(np.int32), t % 3)),
    # a grey level from a pixel's channels (a row unpacked: left as Python) and the brightest neighbour
    "grey_and_dilation": ("""
        def grey_and_peak(rgb, k):
            h, w = rgb.shape[0], rgb.shape[1]
            grey = np.empty((h, w))
            peak = np.empty((h, w), dtype=rgb.dtype)
            for y in range(h):
                for x in range(w):
                    r, g, b = rgb[y, x]
                    grey[y, x] = 0.299 * r + 0.587 * g + 0.114 * b
                    peak[y, x] = rgb[max(0, y - k):y + k + 1, max(0, x - k):x + k + 1, 1].max()
            return grey, peak
    """, "grey_and_peak", 1, lambda rng, t: (rng.integers(0, 256, (3 + t, 5 + t, 3)).astype(np.uint8), 1 + t % 2)),
}


def _same(want, got) -> None:
    for a, b in zip(want, got, strict=True):
        assert type(b) is type(a) and b.dtype == a.dtype and b.shape == a.shape
        assert b.tobytes() == a.tobytes(), (a, b)


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_output_is_rewritten_on_its_own(tmp_path, case):
    source, name, left, make = CASES[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    assert "one nest per output" in result.summary and "window reductions" in result.summary, result.summary
    assert len([note for note in result.notes if note.startswith("left as a Python loop")]) == left
    rng = np.random.default_rng(2)
    for trial in range(8):
        args = make(rng, trial)
        _same(old(*args), new(*args))


LEFT = {
    "an output read by another": ("""
        def f(x):
            a = np.zeros(len(x))
            b = np.zeros(len(x))
            for i in range(len(x)):
                a[i] = x[i] * 2.0
                b[i] = a[i] + x[max(0, i - 1):i + 1].max()
            return a, b
    """, "f"),
    "an output handed in": ("""
        def f(x, out):
            other = np.zeros(len(x))
            for i in range(len(x)):
                out[i] = x[max(0, i - 2):i + 1].max()
                other[i] = x[i] + 1.0
            return out, other
    """, "f"),
    "a call that may do more than compute": ("""
        def f(x, log):
            a = np.zeros(len(x))
            b = np.zeros(len(x))
            for i in range(len(x)):
                v = log.record(x[i])
                a[i] = x[max(0, i - 2):i + 1].max()
                b[i] = v * 2.0
            return a, b
    """, "f"),
}


@pytest.mark.parametrize("case", sorted(LEFT))
def test_outputs_whose_order_could_matter_are_not_split(tmp_path, case):
    source, name = LEFT[case]
    try:
        _, _, result = vectorise(tmp_path, textwrap.dedent(source), name)
    except NotApplicable as why:
        assert "one nest per output" not in str(why)
        return
    assert "one nest per output" not in result.summary
