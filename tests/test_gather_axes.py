"""An element write into an array with more axes than the loop has counters spreads its value over a row: the gather
and row-write rewrites, which write one array at once, refuse it where the function makes the array so.

Before, `out = np.zeros((n, 2))` filled by `out[i] = x[i]` became `out[:len(i)] = x_arr[i]`, which raises (or, for a
square array, broadcasts the other way and writes other values); function replay caught it, at the cost of a try.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import vectorise

SPREAD = {
    "a row per counter, from a list": ("""
        def spread(x):
            out = np.zeros((len(x), 3))
            for i in range(len(x)):
                out[i] = x[i]
            return out
    """, "spread", "made with 2 axes"),
    "a plane per pair of counters": ("""
        def planes(grid, h, w):
            out = np.empty([h, w, 4])
            for y in range(h):
                for x in range(w):
                    out[y, x] = grid[y + 1, x]
            return out
    """, "planes", "made with 3 axes and the loop writes it at 2 counters"),
}


@pytest.mark.parametrize("case", sorted(SPREAD))
def test_a_write_that_spreads_over_a_row_is_refused(tmp_path, case):
    source, name, why = SPREAD[case]
    with pytest.raises(NotApplicable, match=why):
        vectorise(tmp_path, textwrap.dedent(source), name)


def test_a_write_at_every_axis_is_still_a_gather(tmp_path):
    source = textwrap.dedent("""
        def pick(src, rows, cols):
            out = np.zeros((rows, cols))
            for r in range(rows):
                for c in range(cols):
                    out[r, c] = src[r * 2, c + 1]
            return out
    """)
    old, new, result = vectorise(tmp_path, source, "pick")
    assert "gather" in result.summary
    src = np.random.default_rng(0).standard_normal((12, 9))
    assert old(src, 5, 7).tobytes() == new(src, 5, 7).tobytes()
