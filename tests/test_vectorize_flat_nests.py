"""Two range loops appending to one list made outside them are vectorised as one loop over both ranges.

Before, `for y in range(h): for x in range(w): if mask[y, x]: pts.append((y, x))` was refused ("`pts` is appended
more than once per element or inside an inner loop"). `flat_nests.nest_as_one_loop` now says the nest as one loop
whose counter's quotient and remainder are the two indices, in the nest's order, which the translator reads like
any loop. Each case is written as a pipeline would write it (none is an eval target's); the rewritten function must
give the same values, to the bit, in type (ints stay ints), on empty and one-wide ranges too.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import assert_same, vectorise

CASES = {
    # foreground pixels above a level, as (row, column) records, the inner range from column 1
    "masked_coordinates": ("""
        def coordinates(mask, img, level):
            h, w = mask.shape
            pts = []
            for y in range(h):
                for x in range(1, w):
                    if mask[y, x] and img[y, x] > level:
                        pts.append((y, x))
            return pts
    """, "coordinates", lambda rng, h, w: (rng.random((h, w)) > 0.4, rng.random((h, w)), 0.3)),
    # bright pixels' square roots, a `continue` guard, the ranges from the image's shape
    "bright_roots": ("""
        def bright_roots(img, low):
            vals = []
            for r in range(img.shape[0]):
                for c in range(img.shape[1]):
                    v = img[r, c]
                    if v < low:
                        continue
                    vals.append(math.sqrt(v) * 2.0)
            return vals
    """, "bright_roots", lambda rng, h, w: (rng.random((h, w)) * 9.0, 2.5)),
    # a grid of Python floats (`len(grid[0])`, never read of an empty grid): the non-zero scaled values, and their
    # total over the whole nest in order
    "nonzero_and_total": ("""
        def nonzero_profile(grid, scale):
            vals = []
            total = 0.0
            for i in range(len(grid)):
                for j in range(len(grid[0])):
                    v = grid[i][j] * scale
                    total += v
                    if v != 0.0:
                        vals.append(v)
            return vals, total
    """, "nonzero_profile", lambda rng, h, w: ((np.round(rng.standard_normal((h, w)), 1)
                                               * (rng.random((h, w)) > 0.5)).tolist(), 0.7)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_nest_appending_to_one_list_is_one_loop(tmp_path, case):
    source, name, make = CASES[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    assert "as one loop over both ranges" in result.summary, result.summary
    rng = np.random.default_rng(9)
    for h, w in ((0, 0), (1, 1), (3, 1), (1, 4), (5, 7), (40, 33)):
        args = make(rng, h, w)
        assert_same(old(*args), new(*args))


LEFT = {
    "rows whose length the outer pass sets": """
        def f(img):
            out = []
            for y in range(img.shape[0]):
                for x in range(y):
                    out.append(img[y, x] * 2.0)
            return out
    """,
    "a break ends the row early": """
        def f(img):
            out = []
            for y in range(img.shape[0]):
                for x in range(img.shape[1]):
                    if img[y, x] > 0.9:
                        break
                    out.append(img[y, x] * 2.0)
            return out
    """,
    "the outer pass does more than its inner loop": """
        def f(img):
            out = []
            for y in range(img.shape[0]):
                out.append(-1.0)
                for x in range(img.shape[1]):
                    out.append(img[y, x] * 2.0)
            return out
    """,
}


@pytest.mark.parametrize("case", sorted(LEFT))
def test_other_nests_are_not_said_as_one_loop(tmp_path, case):
    try:
        old, new, result = vectorise(tmp_path, textwrap.dedent(LEFT[case]), "f")
    except NotApplicable:
        return
    assert "as one loop over both ranges" not in result.summary
    img = np.random.default_rng(2).random((6, 5))
    assert_same(old(img), new(img))
