"""Nests inside a loop that stays Python (over angles, images, frames), rewritten per pass of that loop.

- An array of numbers made once before the outer loop (`image = np.zeros((n, n))`) and counted into in place by the
  inner nest under a `continue` guard (`image[r, c] += v`): one `np.add.at` per outer pass, the terms read only
  where the guard lets the pass on (an index the guard rules out is never read).
- A grid of lists filled through the pass's row (`row = out[y]`, then `row[x] = e`) with `continue` guards that
  leave a cell as made: the rows are built by appends, the fill appended where a guard ends the pass.
- A row picked per element and read at its own index (`r0 = src[y0]`, then `r0[x0]`): one gather.

Each is written the way a pipeline would write it (none is an eval target's); the rewritten function must return
the same values, to the bit.
"""
from __future__ import annotations

import textwrap

import numpy as np

from tests.test_vectorize import vectorise


def _same(old, new):
    if isinstance(old, np.ndarray):
        assert type(new) is np.ndarray and old.dtype == new.dtype and old.shape == new.shape
        assert old.tobytes() == new.tobytes()
    else:
        assert repr(old) == repr(new)


# counted into in place -------------------------------------------------------------------------------------------
def test_a_backprojection_adds_each_angle_into_an_image_made_before_the_angles(tmp_path):
    source = """
        def smear(profiles, angles, size):
            grid = np.linspace(-1.0, 1.0, size).tolist()
            n_bins = len(profiles[0])
            image = np.zeros((size, size))
            for a in range(len(angles)):
                prof = profiles[a].tolist()
                c, s = math.cos(angles[a]), math.sin(angles[a])
                for r in range(size):
                    for q in range(size):
                        t = (grid[q] * c + grid[r] * s + 1.0) * 0.5 * (n_bins - 1)
                        k = math.floor(t)
                        if k < 0 or k >= n_bins - 1:
                            continue
                        f = t - k
                        image[r, q] += (1.0 - f) * prof[k] + f * prof[k + 1]
            return image
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "smear")
    assert "for q in range" not in result.files["mod.py"] and "np.add.at(image" in result.files["mod.py"]
    rng = np.random.default_rng(1)
    for size, n_bins, n_angles in ((16, 24, 12), (9, 5, 3), (1, 2, 1)):
        profiles = rng.standard_normal((n_angles, n_bins)) * 1.3
        angles = np.linspace(0.0, np.pi, n_angles, endpoint=False)
        _same(old(profiles, angles, size), new(profiles, angles, size))


def test_a_per_image_histogram_into_a_float32_array_made_once(tmp_path):
    source = """
        def intensity_histogram(images, bins):
            hist = np.zeros(bins, dtype=np.float32)
            for img in images:
                rows = img.tolist()
                for y in range(len(rows)):
                    for x in range(len(rows[0])):
                        v = rows[y][x]
                        if v == 0.0:
                            continue
                        hist[int(v * (bins - 1))] += 0.1
            return hist
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "intensity_histogram")
    assert "np.add.at(hist" in result.files["mod.py"], result.files["mod.py"]
    rng = np.random.default_rng(2)
    images = [np.where(rng.random((6, 7)) < 0.2, 0.0, rng.random((6, 7))) for _ in range(5)]
    _same(old(images, 8), new(images, 8))  # float32 adds of 0.1 round as the loop's did


def test_frames_summed_where_valid_into_an_accumulator_made_with_zeros_like(tmp_path):
    source = """
        def stack_valid(frames, floor):
            total = np.zeros_like(frames[0])
            for frame in frames:
                h, w = frame.shape
                for y in range(h):
                    for x in range(w):
                        v = frame[y, x]
                        if v < floor:
                            continue
                        total[y, x] += v * 0.5
            return total
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "stack_valid")
    assert "for x in range" not in result.files["mod.py"]
    rng = np.random.default_rng(3)
    frames = [rng.standard_normal((5, 4)) for _ in range(4)]
    _same(old(frames, -0.2), new(frames, -0.2))
    frames32 = [f.astype(np.float32) for f in frames]  # the adds round in float32, as the loop's did
    _same(old(frames32, 0.0), new(frames32, 0.0))


# a grid of lists filled through the pass's row, with guards -------------------------------------------------------
GRIDS = {
    # a remap with bilinear taps read through the rows picked per pixel; off-image pixels keep the fill
    "remap": ("""
        def remap(img, shift, fill):
            h, w = img.shape
            src = img.tolist()
            out = [[fill] * w for _ in range(h)]
            for y in range(h):
                row = out[y]
                for x in range(w):
                    xs = x + shift * math.sin(y * 0.3)
                    ys = y + 0.5 * shift * math.cos(x * 0.2)
                    if xs < 0.0 or ys < 0.0 or xs > w - 1 or ys > h - 1:
                        continue
                    x0 = int(xs)
                    y0 = int(ys)
                    x1 = min(x0 + 1, w - 1)
                    fx = xs - x0
                    r0 = src[y0]
                    row[x] = r0[x0] * (1.0 - fx) + r0[x1] * fx
            return out
    """, "remap", lambda rng: (rng.random((7, 9)), 1.7, -1.0)),
    # a distance map with the background left at its fill, the fill an attribute-free name
    "distance": ("""
        def distance_map(mask, cx, cy, background):
            h = len(mask)
            w = len(mask[0])
            dist = [[background for _ in range(w)] for _ in range(h)]
            for y in range(h):
                line = dist[y]
                for x in range(w):
                    if not mask[y][x]:
                        continue
                    line[x] = math.sqrt((x - cx) ** 2 + (y - cy) ** 2)
            return dist
    """, "distance_map", lambda rng: ((rng.random((6, 5)) < 0.6).tolist(), 2.0, 1.5, 0.0)),
    # the fill read from an attribute, two guards
    "clip": ("""
        def clipped(params, values):
            h = len(values)
            w = len(values[0])
            grid = [[params.fill] * w for _ in range(h)]
            for i in range(h):
                cells = grid[i]
                for j in range(w):
                    v = values[i][j]
                    if v < params.lo:
                        continue
                    if v > params.hi:
                        continue
                    cells[j] = (v - params.lo) / (params.hi - params.lo)
            return grid
    """, "clipped", lambda rng: (type("P", (), {"fill": -1.0, "lo": -0.5, "hi": 0.7})(),
                                 rng.standard_normal((5, 6)).tolist())),
}


def test_grids_of_lists_filled_through_the_row_with_guards_keep_their_fill(tmp_path):
    rng = np.random.default_rng(4)
    for name, (source, func, make) in GRIDS.items():
        folder = tmp_path / name
        folder.mkdir()
        old, new, result = vectorise(folder, textwrap.dedent(source), func)
        body = result.files["mod.py"].split(f"def {func}(")[1]
        assert body.count("for ") == 1, (name, result.files["mod.py"])  # the inner loop is gone
        for _ in range(3):
            args = make(rng)
            _same(old(*args), new(*args))
