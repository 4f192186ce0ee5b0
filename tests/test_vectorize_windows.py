"""A loop nest that writes each position's window maximum, minimum, sum or mean is every window reduced at once.

Before, `thr[i] = alpha * x[lo:hi].max()` per sample and `dark[y, x] = np.min(padded[y:y + k, x:x + k, :])` per pixel
were refused ("call to np.min() inside the loop may have side effects; a gather loop only reads arrays"), and the
per-sample path stayed one numpy call per position. Each case is written as a pipeline would write it (none is an
eval target's): the rewritten file must give the same arrays, to the bit and in dtype, as the loop on many shapes,
window sizes and dtypes, edges included; where a window would wrap or the array is a tensor, the loop runs as before.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import vectorise

CASES = {
    # an envelope over an asymmetric window clipped at both ends, the bounds in names set first, `np.amax`
    "clipped_envelope": ("""
        def envelope(sig, left, right, gain=0.5, offset=0.1):
            n = len(sig)
            env = np.zeros(n)
            for i in range(n):
                start = max(i - left, 0)
                stop = min(i + right + 1, n)
                env[i] = gain * np.amax(sig[start:stop]) + offset
            return env
    """, "envelope", lambda rng, t: (rng.standard_normal(20 + 9 * t), 2 + t, t % 5)),
    # the darkest value of every frame of a stack in a k x k tile at each position: a whole leading axis and two
    # windows, `.min()` of a name the body binds
    "stack_tile_minimum": ("""
        def tile_minimum(stack, k=3):
            frames, rows, cols = stack.shape
            out = np.full((rows - k + 1, cols - k + 1), np.inf, dtype=stack.dtype)
            for r in range(rows - k + 1):
                for c in range(cols - k + 1):
                    tile = stack[:, r:r + k, c:c + k]
                    out[r, c] = tile.min()
            return out
    """, "tile_minimum", lambda rng, t: (rng.random((1 + t % 3, 5 + t, 9 + 2 * t)).astype(np.float32),
                                         1 + t % 4)),
    # block statistics of an integer image: a stride and a range of each block (two reductions in one write)
    "block_range": ("""
        def block_contrast(img, block=4):
            rows, cols = img.shape[0] // block, img.shape[1] // block
            out = np.zeros((rows, cols), dtype=np.int32)
            for by in range(rows):
                for bx in range(cols):
                    out[by, bx] = img[by * block:(by + 1) * block, bx * block:(bx + 1) * block].max() - np.amin(
                        img[by * block:(by + 1) * block, bx * block:(bx + 1) * block])
            return out
    """, "block_contrast", lambda rng, t: (rng.integers(0, 255, (6 + 3 * t, 10 + t)).astype(np.uint8), 1 + t % 5)),
    # a running range of a 1-D trace with the builtins, written at an offset from a range that starts late
    "builtin_offset": ("""
        def local_range(trace, radius=3):
            out = np.zeros(len(trace) - 2 * radius, dtype=np.float64)
            for i in range(radius, len(trace) - radius):
                out[i - radius] = max(trace[i - radius:i + radius + 1]) - min(trace[i - radius:i + radius + 1])
            return out
    """, "local_range", lambda rng, t: (rng.standard_normal(8 + 5 * t).astype(np.float32), t % 4)),
    # written transposed (`out[x, y]` in a `y`, `x` nest): the inner loop is rewritten, with the row's window fixed
    "transposed_inner_loop": ("""
        def column_peaks(img, out):
            for y in range(out.shape[1]):
                for x in range(out.shape[0]):
                    out[x, y] = img[y:y + 2, x:x + 3].max()
            return out
    """, "column_peaks", lambda rng, t: (rng.standard_normal((9 + t, 12 + t)), np.zeros((8 + t, 6 + t)))),
    # the written index through a name the body sets first (`j = i - r`, then `peaks[j]` and a window from `j`)
    "index_through_a_name": ("""
        def running_peak(x, r, peaks):
            for i in range(r, len(x) - r):
                j = i - r
                peaks[j] = x[j:j + 2 * r + 1].max()
            return peaks
    """, "running_peak", lambda rng, t: (rng.standard_normal(9 + 4 * t), t % 4, np.zeros(9 + 4 * t))),
    # every other row, kept whole (a step the nest does not change), and a window along the columns
    "strided_rows_window": ("""
        def column_peaks_of_even_rows(img, r):
            out = np.zeros(img.shape[1] - 2 * r)
            for x in range(r, img.shape[1] - r):
                out[x - r] = img[::2, x - r:x + r + 1].max()
            return out
    """, "column_peaks_of_even_rows", lambda rng, t: (rng.standard_normal((3 + t, 7 + 2 * t)), t % 3)),
    # a channel picked by a value the nest does not change, inside a per-channel loop that stays Python
    "per_channel_dilation": ("""
        def dilate_channels(stack, r=1):
            c, n = stack.shape
            out = np.zeros_like(stack)
            for ch in range(c):
                for i in range(n):
                    out[ch, i] = np.max(stack[ch, max(0, i - r):min(n, i + r + 1)])
            return out
    """, "dilate_channels", lambda rng, t: (rng.integers(-9, 9, (1 + t % 3, 4 + 3 * t)), t % 3)),
    # a box filter over the valid positions only, returned straight from the comprehension
    "box_filter_return": ("""
        def box_filter(values, width):
            valid = len(values) - width + 1
            return np.array([values[k:k + width].mean() for k in range(valid)], dtype=np.float64)
    """, "box_filter", lambda rng, t: (rng.standard_normal(60 + 23 * t), 1 + 2 * (t % 9))),
    # framed energy at a hop, appended frame by frame (a stride, and sums of whole frames)
    "framed_energy_appended": ("""
        def frame_energy(power, frame=64, hop=16):
            energies = []
            for f in range(0, (len(power) - frame) // hop + 1):
                energies.append(power[f * hop:f * hop + frame].sum() / frame)
            return np.array(energies, dtype=np.float32), [type(e) for e in energies]
    """, "frame_energy", lambda rng, t: (rng.random(300 + 50 * t).astype(np.float32) ** 2, 8 + 9 * t, 1 + t % 6)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_window_maxima_and_minima_are_reduced_at_once_and_match_the_loop(tmp_path, case):
    source, name, make = CASES[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    text = result.files["mod.py"]
    assert "window reductions" in result.summary and "def _window_reduce(" in text, text
    assert text.count("def _window_reduce(") == 1
    rng = np.random.default_rng(0)
    for trial in range(12):
        args = make(rng, trial)
        want, got = old(*args), new(*args)
        if isinstance(want, tuple):  # an appended list's items: the numpy scalars the loop made
            assert got[1] == want[1]
            want, got = want[0], got[0]
        assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes(), (trial, want, got)


def test_nans_infinities_and_a_window_of_one(tmp_path):
    """np.max propagates a NaN from anywhere in its window, and so does the rewrite; the builtin max does not, so
    where the array holds a NaN, the builtin's loop runs as before."""
    source, name, _ = CASES["clipped_envelope"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    x = np.array([1.0, np.nan, -np.inf, 3.0, np.inf, 2.0, -1.0, 0.5])
    for left, right in ((0, 0), (1, 1), (2, 0), (5, 3)):
        assert old(x, left, right).tobytes() == new(x, left, right).tobytes()
    source, name, _ = CASES["builtin_offset"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    for radius in (0, 1, 2):
        assert old(x, radius).tobytes() == new(x, radius).tobytes()


def test_the_loop_runs_as_before_where_its_own_semantics_could_differ(tmp_path):
    """A tensor (its own max), a window that starts before 0 unclipped (the index wraps), an empty window (the loop
    raises), and a written array that is the array read: each runs the loop, with its results and its errors."""
    source = textwrap.dedent("""
        def trailing_peak(x, k, out):
            for i in range(len(out)):
                out[i] = x[i - k:i + 1].max()
            return out
    """)
    old, new, result = vectorise(tmp_path, source, "trailing_peak")
    assert "window reductions" in result.summary
    x = np.arange(10.0)[::-1].copy()
    assert old(x, 0, np.zeros(10)).tobytes() == new(x, 0, np.zeros(10)).tobytes()
    for k in (1, 2):  # x[-k:1] is empty at i = 0: the loop raises, and so does the rewrite
        with pytest.raises(ValueError):
            old(x, k, np.zeros(10))
        with pytest.raises(ValueError):
            new(x, k, np.zeros(10))
    assert new(x, 2, np.zeros(0)).shape == (0,)  # no pass at all
    t = torch.arange(6.0)
    assert torch.equal(old(t, 0, torch.zeros(6)), new(t, 0, torch.zeros(6)))
    for run in (old, new):  # a float bound: slicing raises, in the loop and in the rewrite alike
        with pytest.raises(TypeError):
            run(x, 0.0, np.zeros(10))
    a, b = np.arange(8.0), np.arange(8.0)
    assert old(a, 0, a).tobytes() == new(b, 0, b).tobytes()


def test_a_sum_too_large_to_copy_runs_the_loop(tmp_path):
    """A sum or mean copies each window into a row of its own: past 2**24 values in all, the loop runs instead."""
    from perfloop.tools.change.codemods.window_runtime import HELPER_SOURCE

    helper = {"np": np}
    exec(HELPER_SOURCE, helper)
    x = np.zeros(5000)
    spec = (("window", 0, 1, 4000, False, None, 1001),)
    assert helper["_window_reduce"](x, spec, "sum") is not None  # 4 million values
    assert helper["_window_reduce"](np.zeros(20000), (("window", 0, 1, 4000, False, None, 16001),), "sum") is None
    assert helper["_window_reduce"](np.zeros(20000), (("window", 0, 1, 4000, False, None, 16001),), "max") is not None


def test_a_clipped_window_mean_runs_the_loop(tmp_path):
    """A mean over windows clipped at the edges would add each window's values in other pairwise groups once
    padded: `_window_reduce` declines it, and the loop runs (a whole window's mean is still rewritten)."""
    source = textwrap.dedent("""
        def local_mean(x, r):
            out = np.empty(len(x))
            for i in range(len(x)):
                out[i] = x[max(0, i - r):min(len(x), i + r + 1)].mean()
            return out
    """)
    old, new, result = vectorise(tmp_path, source, "local_mean")
    assert "window reductions" in result.summary
    x = np.random.default_rng(5).standard_normal(300)
    for r in (0, 3, 40):
        assert old(x, r).tobytes() == new(x, r).tobytes()


REFUSED = {
    "a call on the maximum": ("""
        def f(x, out):
            for i in range(len(out)):
                out[i] = float(x[i:i + 3].max())
            return out
    """, "calls a function on a window's reduction"),
    "two counters in one bound": ("""
        def f(img, out):
            for y in range(out.shape[0]):
                for x in range(out.shape[1]):
                    out[y, x] = img[y + x:y + x + 2, x:x + 2].max()
            return out
    """, "does not move with exactly one loop counter"),
    "a window read after the loop": ("""
        def f(x, out):
            for i in range(len(out)):
                lo = max(0, i - 2)
                out[i] = x[lo:i + 3].min()
            return out, lo
    """, "read after the loop"),
    "ends moving at two strides": ("""
        def f(x, out):
            for i in range(len(out)):
                out[i] = x[i:2 * i + 1].max()
            return out
    """, "one loop counter at one stride"),
    "a transposed write": ("""
        def f(img, out):
            for y in range(out.shape[1]):
                for x in range(out.shape[0]):
                    out[x, y] = np.max(img[y + x:y + 3, x:x + 2])
            return out
    """, "nest's order"),
    "an array written, then read by the next statement": ("""
        def f(x, a, b):
            for i in range(1, len(x) - 1):
                a[i] = x[i - 1:i + 2].max()
                b[i] = a[i - 1:i + 2].min()
            return a, b
    """, "`a` changes inside the loop"),
    "a truth value of the maximum": ("""
        def f(x, out, t):
            for i in range(len(out)):
                out[i] = 1.0 if x[i:i + 3].max() > t else 0.0
            return out
    """, "takes a window's reduction as one number"),
    "a chained comparison of the minimum": ("""
        def f(x, out, lo, hi):
            for i in range(len(out)):
                out[i] = lo < np.min(x[i:i + 4]) <= hi
            return out
    """, "takes a window's reduction as one number"),
    "the negation of a window's sum": ("""
        def f(x, out):
            for i in range(len(out)):
                out[i] = not x[2 * i:2 * i + 2].sum()
            return out
    """, "takes a window's reduction as one number"),
    "a side effect among the names": ("""
        def f(x, out, log):
            for i in range(len(out)):
                hi = log.append(i) or i + 2
                out[i] = x[i:hi].max()
            return out
    """, "a call the rewrite would not make"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_is_not_a_window_reduction_is_refused_and_says_why(tmp_path, case):
    source, why = REFUSED[case]
    with pytest.raises(NotApplicable, match=why):
        vectorise(tmp_path, textwrap.dedent(source), "f")
