"""A numpy array (or torch tensor) made with zeros/ones/full and filled slot by slot (or cell by cell, in a nest of two
range loops) is vectorised.

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

GRIDS = {
    # a normalised difference of two bands per pixel of a band-first tile, zero where both bands are dark
    "band_difference_index": ("""
        def difference_index(tile, near, red):
            bands, height, width = tile.shape
            index = np.zeros((height, width), dtype=np.float32)
            for y in range(height):
                for x in range(width):
                    a = float(tile[near, y, x])
                    b = float(tile[red, y, x])
                    if a + b > 0:
                        index[y, x] = (a - b) / (a + b)
            return index
    """, "difference_index", lambda rng, t: (rng.integers(0, 4000, (4, 3 + t, 5 + 2 * t)).astype(np.uint16), 3, 2)),
    # a square-root curve with a gain over a grey image given as rows of Python numbers, written `out[r][c]`,
    # ones where dark
    "gamma_rows": ("""
        def gamma_curve(rows, gain, n_rows, n_cols):
            out = np.ones([n_rows, n_cols])
            for r in range(n_rows):
                scale = 1.0 / 255.0
                for c in range(n_cols):
                    level = rows[r][c] * scale
                    if level > 0.04:
                        out[r][c] = math.sqrt(level) * gain
            return out
    """, "gamma_curve", lambda rng, t: (rng.integers(0, 256, (2 + t, 7 + t)).tolist(), 0.4 + 0.1 * t, 2 + t, 7 + t)),
    # disparity from depth into a torch tensor made with a shape tuple, the value a conditional expression
    "depth_to_disparity": ("""
        def disparity(depth, focal, baseline):
            h, w = depth.shape
            disp = torch.zeros((h, w))
            for v in range(h):
                for u in range(w):
                    disp[v, u] = focal * baseline / depth[v, u] if depth[v, u] > 0.1 else 0.0
            return disp
    """, "disparity", lambda rng, t: (rng.random((4 + t, 6 + t)) * 8.0, 520.0, 0.12)),
    # chromaticity from each pixel's channels unpacked (`r, g, b = rgb[y, x]`): taken where the image is a numpy array
    # of exactly three channels, as the unpacking required; anything else runs the nest as it was
    "unpacked_pixels": ("""
        def chromaticity(rgb):
            height, width = rgb.shape[0], rgb.shape[1]
            chroma = np.zeros((height, width))
            for y in range(height):
                for x in range(width):
                    r, g, _ = rgb[y, x]
                    chroma[y, x] = (float(r) - float(g)) / (float(r) + float(g) + 1.0)
            return chroma
    """, "chromaticity", lambda rng, t: (rng.integers(0, 256, (2 + t, 3 + 2 * t, 3)).astype(np.uint8),)),
    # a 3x3 Sobel magnitude over the inner pixels of a float image (`range(1, h - 1)`): the border keeps its zeros
    "sobel_inner": ("""
        def sobel(img):
            h, w = img.shape
            mag = np.zeros((h, w))
            for y in range(1, h - 1):
                for x in range(1, w - 1):
                    gx = (img[y - 1, x + 1] + 2.0 * img[y, x + 1] + img[y + 1, x + 1]) \\
                        - (img[y - 1, x - 1] + 2.0 * img[y, x - 1] + img[y + 1, x - 1])
                    gy = img[y + 1, x] - img[y - 1, x]
                    mag[y, x] = math.sqrt(gx * gx + gy * gy)
            return mag
    """, "sobel", lambda rng, t: (rng.random((3 + t, 4 + 2 * t)) * 255.0,)),
    # a 5-point Laplacian two pixels in from each edge of a uint8 image, int() reads, into float32 filled with -1
    "laplacian_margin": ("""
        def laplacian(gray, margin_value):
            rows, cols = gray.shape
            lap = np.full((rows, cols), margin_value, dtype=np.float32)
            for r in range(2, rows - 2):
                for c in range(2, cols - 2):
                    centre = int(gray[r, c])
                    lap[r, c] = int(gray[r - 2, c]) + int(gray[r + 2, c]) + int(gray[r, c - 2]) \\
                        + int(gray[r, c + 2]) - 4 * centre
            return lap
    """, "laplacian", lambda rng, t: (rng.integers(0, 256, (4 + t, 5 + t)).astype(np.uint8), -1.0)),
    # squared horizontal and vertical differences from the second row and column on, the stops the array's own
    "difference_energy": ("""
        def difference_energy(frame):
            n_rows, n_cols = frame.shape
            energy = np.zeros((n_rows, n_cols), dtype=np.float64)
            for i in range(1, n_rows):
                for j in range(1, n_cols):
                    dx = frame[i, j] - frame[i, j - 1]
                    dy = frame[i, j] - frame[i - 1, j]
                    energy[i, j] = dx * dx + dy * dy
            return energy
    """, "difference_energy", lambda rng, t: (rng.standard_normal((2 + t, 3 + t)),)),
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


@pytest.mark.parametrize("case", sorted(GRIDS))
def test_a_preallocated_grid_filled_cell_by_cell_is_vectorised(tmp_path, case):
    source, name, make = GRIDS[case]
    old, new, result = vectorise(tmp_path, "import torch\n\n" + textwrap.dedent(source), name)
    assert "preallocated 2-D array as rows" in result.summary, result.summary
    rng = np.random.default_rng(8)
    for trial in range(8):
        args = make(rng, trial)
        _same(old(*args), new(*args))
    args = make(rng, 0)
    if case == "depth_to_disparity":  # no rows at all: the tensor as made, of shape (0, w)
        _same(old(np.zeros((0, 5)), *args[1:]), new(np.zeros((0, 5)), *args[1:]))


def test_a_grid_over_inner_cells_keeps_its_border_on_any_size(tmp_path):
    """Frames too small for any inner cell (the ranges empty, or a stop below the start), and none at all: the array
    as made; a NaN gives the loop's values."""
    source, name, _ = GRIDS["sobel_inner"]
    old, new, result = vectorise(tmp_path, "import torch\n\n" + textwrap.dedent(source), name)
    assert "mag[1:1 + " in result.files["mod.py"], result.files["mod.py"]
    for shape in ((0, 0), (1, 1), (2, 5), (5, 2), (3, 3), (0, 4)):
        frame = np.arange(float(shape[0] * shape[1])).reshape(shape)
        _same(old(frame), new(frame))
    frame = np.random.default_rng(3).random((6, 7))
    frame[2, 3] = np.nan
    _same(old(frame), new(frame))
    source, name, _ = GRIDS["laplacian_margin"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    for shape in ((4, 9), (3, 3), (5, 5)):
        gray = np.full(shape, 7, dtype=np.uint8)
        _same(old(gray, 2.5), new(gray, 2.5))


def test_unpacked_pixels_of_another_shape_run_the_nest_as_it_was(tmp_path):
    """Four channels (the unpacking raises), two (it raises too) or a numpy subclass (a masked array): the original
    nest runs, with its results or its error."""
    source, name, _ = GRIDS["unpacked_pixels"]
    old, new, result = vectorise(tmp_path, "import torch\n\n" + textwrap.dedent(source), name)
    assert "if type(rgb) is np.ndarray and rgb.ndim == 3 and rgb.shape[2] == 3:" in result.files["mod.py"]
    four = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    for image in (four, four[..., :2]):
        for fn in (old, new):
            with pytest.raises(ValueError, match="unpack"):
                fn(image)
    masked = np.ma.masked_array(np.arange(2 * 2 * 3, dtype=np.uint8).reshape(2, 2, 3))  # not exactly an ndarray
    _same(old(masked), new(masked))
    _same(old(np.zeros((0, 4, 3), dtype=np.uint8)), new(np.zeros((0, 4, 3), dtype=np.uint8)))


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
    "a 2-D array made empty": ("""
        def f(x):
            out = np.empty((len(x), 3))
            for i in range(len(x)):
                for j in range(3):
                    out[i, j] = x[i] * j
            return out
    """, "f"),
    "a 2-D array read in its nest": ("""
        def f(x):
            out = np.zeros((len(x), 3))
            for i in range(len(x)):
                for j in range(3):
                    out[i, j] = x[i] + out[i - 1, j]
            return out
    """, "f"),
    "rows whose length the outer pass sets": ("""
        def f(x):
            out = np.zeros((len(x), len(x)))
            for i in range(len(x)):
                for j in range(i):
                    out[i, j] = x[i] - x[j]
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
