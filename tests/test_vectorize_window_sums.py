"""Window sums and means over integers, window sizes, and element-wise arithmetic on a window before it is reduced.

A local mean and variance over an integer image (`patch = gray[y0:y1, x0:x1]`, `patch.sum() / patch.size`,
`(patch * patch).sum()`), a count of set pixels in a clipped 2-D window, or the energy of a centred frame
(`np.sum((x[a:b] - mu) ** 2)`) were left to the loop: a float sum over a 2-D or clipped window would add its values in
other groups. Integers add the same in any order (modulo 2**64, as numpy's own sum wraps), so their sums and means are
now taken over any windows; element-wise arithmetic is done once on the whole array, where it gives each value what it
gave inside the window. Each case is written as a pipeline would write it (none is an eval target's): the rewritten
file must give the same arrays, to the bit and in dtype, as the loop; a float image still runs the loop.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from perfloop.tools.change.codemods.window_runtime import HELPER_SOURCE
from tests.test_vectorize import vectorise

CASES = {
    # a local contrast map of a gray image: bounds set in pairs, the mean through the window's size, and the
    # variance through the mean of the squares (both read twice)
    "local_contrast": ("""
        def local_contrast(gray, radius):
            height, width = gray.shape
            contrast = np.zeros((height, width), dtype=np.float64)
            for row in range(height):
                top, bottom = max(0, row - radius), min(height, row + radius + 1)
                for col in range(width):
                    left, right = max(0, col - radius), min(width, col + radius + 1)
                    patch = gray[top:bottom, left:right]
                    count = patch.size
                    mean = patch.sum() / count
                    contrast[row, col] = (patch * patch).sum() / count - mean * mean
            return contrast
    """, "local_contrast", lambda rng, t, dtype: (rng.integers(0, 256, (3 + 5 * t, 4 + 3 * t)).astype(dtype),
                                                 t % 5)),
    # how many pixels of a foreground mask are set around each cell of a coarse grid (a stride, clipped at the
    # far edges), and the share of them by np.mean
    "mask_occupancy": ("""
        def occupancy(mask, cell, reach):
            rows, cols = mask.shape[0] // cell, mask.shape[1] // cell
            counts = np.zeros((rows, cols), dtype=np.int64)
            shares = np.zeros((rows, cols))
            for i in range(rows):
                for j in range(cols):
                    counts[i, j] = mask[i * cell:min(mask.shape[0], i * cell + reach),
                                        j * cell:min(mask.shape[1], j * cell + reach)].sum()
                    shares[i, j] = np.mean(mask[i * cell:min(mask.shape[0], i * cell + reach),
                                                j * cell:min(mask.shape[1], j * cell + reach)])
            return counts, shares
    """, "occupancy", lambda rng, t, dtype: ((rng.random((8 + 7 * t, 9 + 4 * t)) < 0.3).astype(dtype), 1 + t % 4,
                                            1 + t % 7)),
    # the energy of each frame of a signal around a fixed level, appended frame by frame (element-wise arithmetic
    # with a number before the sum; float frames, whole and one axis, so each is added as the slice was)
    "centred_energy": ("""
        def centred_energy(signal, level, frame, hop):
            energies = []
            for k in range(0, (len(signal) - frame) // hop + 1):
                energies.append(np.sum((signal[k * hop:k * hop + frame] - level) ** 2))
            return np.array(energies)
    """, "centred_energy", lambda rng, t, dtype: ((rng.standard_normal(200 + 31 * t) * 50).astype(dtype), 0.25 * t,
                                                 4 + 5 * t, 1 + t % 4)),
    # the loudest magnitude in a clipped window of an integer recording, by the builtin max of np.abs
    "integer_peak_magnitude": ("""
        def peak_magnitude(pcm, half):
            n = len(pcm)
            out = np.empty(n, dtype=pcm.dtype)
            for i in range(n):
                out[i] = max(np.abs(pcm[max(0, i - half):min(n, i + half + 1)]))
            return out
    """, "peak_magnitude", lambda rng, t, dtype: (rng.integers(-3000, 3000, 50 + 20 * t).astype(dtype), t % 6)),
}

# The builtin sum adds 0, then each value, left to right; len counts a 1-D window. Each case returns what the loop
# made, items included (Python floats where it read a list).
BUILTIN_SUMS = {
    # a trailing mean of the last k readings, a comprehension over a list of Python floats (clipped at the start)
    "trailing_mean_list": ("""
        def trailing_mean(readings, k):
            return [sum(readings[max(0, i - k + 1):i + 1]) / len(readings[max(0, i - k + 1):i + 1])
                    for i in range(len(readings))]
    """, "trailing_mean", lambda rng, t: ((rng.standard_normal(40 + 9 * t) * 10 ** (t % 4)).tolist(), 1 + 3 * t)),
    # hop-sized frame totals of a float64 array, written into a preallocated array (whole windows, a stride)
    "frame_totals_array": ("""
        def frame_totals(signal, frame, hop):
            count = (len(signal) - frame) // hop + 1
            totals = np.empty(count)
            for f in range(count):
                totals[f] = sum(signal[f * hop:f * hop + frame])
            return totals
    """, "frame_totals", lambda rng, t: (rng.standard_normal(100 + 17 * t) * 1e3, 5 + 2 * t, 1 + t % 3)),
    # event counts in a centred window of an int64 array, appended, the bounds set in pairs
    "centred_event_counts": ("""
        def event_density(events, half):
            n = len(events)
            density = []
            for i in range(n):
                start, stop = max(0, i - half), min(n, i + half + 1)
                density.append(sum(events[start:stop]) / len(events[start:stop]))
            return density
    """, "event_density", lambda rng, t: (rng.integers(0, 5, 30 + 7 * t).astype(np.int64), t % 6)),
}

DTYPES = {
    "local_contrast": (np.uint8, np.int32, np.int64, np.bool_, np.float64),
    "mask_occupancy": (np.bool_, np.uint8, np.int16, np.float32),
    "centred_energy": (np.float64, np.float32, np.int32),
    "integer_peak_magnitude": (np.int16, np.int32, np.float64),
}


def _same(want, got) -> None:
    if isinstance(want, tuple):
        for a, b in zip(want, got, strict=True):
            _same(a, b)
        return
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes(), (want, got)


@pytest.mark.parametrize("case", sorted(CASES))
def test_integer_sums_sizes_and_arithmetic_on_windows_match_the_loop(tmp_path, case):
    source, name, make = CASES[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    assert "window reductions" in result.summary, result.summary
    rng = np.random.default_rng(1)
    for dtype in DTYPES[case]:
        for trial in range(8):
            args = make(rng, trial, dtype)
            _same(old(*args), new(*args))


def _items(value):
    if isinstance(value, np.ndarray):
        return (type(value), value.dtype, value.shape, value.tobytes())
    return [(type(v), np.float64(v).tobytes() if isinstance(v, float) else v) for v in value]


@pytest.mark.parametrize("case", sorted(BUILTIN_SUMS))
def test_builtin_sums_and_lengths_of_windows_add_as_the_loop_did(tmp_path, case):
    source, name, make = BUILTIN_SUMS[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    assert "window reductions" in result.summary, result.summary
    rng = np.random.default_rng(5)
    for trial in range(10):
        args = make(rng, trial)
        assert _items(new(*args)) == _items(old(*args)), trial


def test_a_builtin_sum_over_signed_zeros_non_finite_values_and_other_types(tmp_path):
    """0 + -0.0 is 0.0, a NaN or an infinity carries on, as the loop adds them; a list holding an int, a float32
    array (whose scalars add in float32) and an empty list run the loop."""
    source, name, _ = BUILTIN_SUMS["trailing_mean_list"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    for values in ([-0.0, -0.0, 1.0, -1.0], [1.0, float("nan"), 2.0, float("inf"), -float("inf"), 3.0], [],
                   [1.0, 2, 3.0], np.array([0.1, 0.2, 0.3], dtype=np.float32).tolist()):
        for k in (1, 2, 3):
            assert _items(new(values, k)) == _items(old(values, k))
    source, name, _ = BUILTIN_SUMS["frame_totals_array"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    x = np.random.default_rng(1).standard_normal(50).astype(np.float32)
    assert _items(new(x, 7, 2)) == _items(old(x, 7, 2))
    helper = {"np": np}
    exec(HELPER_SOURCE, helper)
    spec = (("window", 0, 1, 3, False, None, 4),)
    assert helper["_window_reduce"](x, spec, "seqsum") is None  # float32: the loop's own adds
    assert helper["_window_reduce"]([1.0, 2, 3.0, 4.0, 5.0, 6.0], spec, "seqsum") is None


def test_from_python_3_12_a_list_of_floats_runs_the_loop(monkeypatch):
    """Python 3.12's sum() compensates a sum of Python floats (Neumaier): the plain left-to-right adds would differ, so
    a list is left to the loop there; numpy's float64 scalars it adds plainly, so an array is still taken."""
    helper = {"np": np}
    exec(HELPER_SOURCE, helper)
    spec = (("window", 0, 1, 3, False, None, 4),)
    values = [0.1, 0.2, 0.3, 1e16, 1.0, -1e16]
    assert helper["_window_reduce"](values, spec, "seqsum") is not None
    monkeypatch.setattr("sys.version_info", (3, 12, 0, "final", 0))
    assert helper["_window_reduce"](values, spec, "seqsum") is None
    assert helper["_window_reduce"](np.array(values), spec, "seqsum") is not None


def test_a_window_size_mixes_in_as_the_python_int_did(tmp_path):
    """`.size` is a Python int in the loop, which leaves a float32 sum float32; the rewrite's counts take the window's
    float type, so the mean keeps its dtype and bits."""
    source = textwrap.dedent("""
        def frame_means(x, w):
            out = np.empty(len(x) - w + 1, dtype=x.dtype)
            for i in range(len(out)):
                out[i] = x[i:i + w].sum() / x[i:i + w].size
            return out, [x[j:j + w].sum() / x[j:j + w].size for j in range(len(x) - w + 1)]
    """)
    old, new, result = vectorise(tmp_path, source, "frame_means")
    assert "window reductions" in result.summary
    for dtype in (np.float32, np.float64, np.int32):
        x = (np.random.default_rng(3).standard_normal(60) * 100).astype(dtype)
        (want, want_items), (got, got_items) = old(x, 7), new(x, 7)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
        assert [(type(v), v.tobytes()) for v in got_items] == [(type(v), v.tobytes()) for v in want_items]


def test_the_integer_paths_are_the_ones_taken():
    """The helper itself: an integer window's clipped 2-D sum, size and mean are computed (not declined), equal to
    numpy's own per window; a float one's clipped sum is declined (the loop runs); a mean that numpy's float64 sum
    could round is declined; arithmetic with an array where a number stood is declined."""
    helper = {"np": np}
    exec(HELPER_SOURCE, helper)
    reduce = helper["_window_reduce"]
    gray = np.random.default_rng(2).integers(0, 256, (9, 11)).astype(np.int32)
    spec = (("window", -2, 1, 5, True, 9, 9), ("window", -2, 1, 5, True, 11, 11))
    sums, sizes, means = reduce(gray, spec, "sum"), reduce(gray, spec, "size"), reduce(gray, spec, "mean")
    squares = reduce(gray, spec, "sum", apply=lambda v: v * v, scalars=())
    for y in range(9):
        for x in range(11):
            patch = gray[max(0, y - 2):y + 3, max(0, x - 2):x + 3]
            assert sums[y, x] == patch.sum() and sizes[y, x] == patch.size
            assert squares[y, x] == (patch * patch).sum()
            assert means[y, x].tobytes() == np.mean(patch).tobytes()
    assert reduce(gray.astype(np.float64), spec, "sum") is None
    huge = np.full((9, 11), 2 ** 60, dtype=np.int64)
    assert reduce(huge, spec, "mean") is None and reduce(huge, spec, "sum") is not None
    assert reduce(gray, spec, "sum", apply=lambda v: v * np.ones(5), scalars=(np.ones(5),)) is None


def test_a_window_read_with_an_array_where_a_number_stood_runs_the_loop(tmp_path):
    """`(frame - template) ** 2` with `template` an array as long as a frame is a different computation on the
    whole signal: the rewrite checks that each value it reads besides the window is a number, else runs the loop."""
    source, name, _ = CASES["centred_energy"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    signal = np.random.default_rng(3).standard_normal(64)
    template = np.linspace(-1.0, 1.0, 8)
    _same(old(signal, template, 8, 4), new(signal, template, 8, 4))
    _same(old(signal, np.float32(0.5), 8, 4), new(signal, np.float32(0.5), 8, 4))


REFUSED = {
    "a window's length alone": ("""
        def lengths(x, out, w):
            for i in range(len(out)):
                out[i] = len(x[max(0, i - w):i + 1])
            return out
    """, "lengths", "counts windows and reduces none"),
    "two windows in one arithmetic": ("""
        def cross(a, b, out, w):
            for i in range(len(out)):
                out[i] = (a[i:i + w] * b[i:i + w]).sum()
            return out
    """, "cross", "reduces more than a window or element-wise arithmetic on one"),
    "a level that changes inside the loop": ("""
        def drift(x, out, w):
            for i in range(len(out)):
                level = i * 0.5
                out[i] = np.sum((x[i:i + w] - level) ** 2)
            return out
    """, "drift", "changes inside the loop"),
    "an exponential of the window": ("""
        def soft(x, out, w):
            for i in range(len(out)):
                out[i] = np.exp(x[i:i + w]).sum()
            return out
    """, "soft", "reduces more than a window or element-wise arithmetic on one"),
    "a division by a value": ("""
        def scaled(x, out, w, s):
            for i in range(len(out)):
                out[i] = (x[i:i + w] / s).max()
            return out
    """, "scaled", "reduces more than a window or element-wise arithmetic on one"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_the_window_arithmetic_does_not_take_is_refused(tmp_path, case):
    source, name, why = REFUSED[case]
    with pytest.raises(NotApplicable, match=why):
        vectorise(tmp_path, textwrap.dedent(source), name)
