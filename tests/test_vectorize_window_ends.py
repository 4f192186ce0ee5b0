"""Sliding windows at the ends of the array keep the loop's values.

Found while building the chunk rewrite: `for s in range(len(x)): for v in x[s:s + w]` read its windows from a
sliding window view, which has no row for the last w - 1 starts, where Python's slices are shorter: the rewrite gave
a shorter list (replay refused it, as it did not match). And an array shorter than one window made the view raise
where the loop made no pass. `window_bounds.whole_windows` now takes the view only where the range's bounds prove
every window whole (`range(len(x) - w + 1)`), the view is skipped where the range is empty, and any other window is
read as a ragged slice, padded and masked, which follows Python's slicing. Each case is written as a pipeline would
write it (none is an eval target's).
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.test_vectorize import assert_same, vectorise

CASES = {
    # trailing windows that the slice shortens: a forward sum from every sample
    "forward_sums": """
        def forward_sums(xs, w):
            out = []
            for s in range(len(xs)):
                t = 0.0
                for v in xs[s:s + w]:
                    t += v
                out.append(t)
            return out
    """,
    # whole windows only, by the range: none where the array is shorter than a window
    "whole_means": """
        def whole_means(xs, w):
            out = []
            for s in range(len(xs) - w + 1):
                t = 0.0
                for v in xs[s:s + w]:
                    t += v
                out.append(t / w)
            return out
    """,
    # a hop size as the range's step, a running max per frame
    "hopped_peaks": """
        def hopped_peaks(xs, w, hop=2):
            out = []
            for s in range(0, len(xs) - w + 1, hop):
                m = -1e300
                for v in xs[s:s + w]:
                    m = max(m, v)
                out.append(m)
            return out
    """,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_windows_at_the_ends_keep_the_loops_values(tmp_path, case):
    old, new, _ = vectorise(tmp_path, textwrap.dedent(CASES[case]), case)
    rng = np.random.default_rng(17)
    for n in (0, 1, 2, 3, 4, 9, 50):
        xs = rng.standard_normal(n).tolist()
        for w in (1, 3, 4, 7):
            assert_same(old(xs, w), new(xs, w))
