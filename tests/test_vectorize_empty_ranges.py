"""An inner min or max from a start value over a range with no entries leaves the start, as the loop does.

`best = cap; for k in range(len(anchors)): best = min(best, abs(p - anchors[k]))` was rewritten as
`np.minimum(best, np.min(terms, axis=-1))`, and np.min of no element raises: with no anchors the loop gives `cap`
per point and the rewrite raised ValueError. The translator now keeps the start where the range is empty.
"""
from __future__ import annotations

import textwrap

import numpy as np

from tests.test_vectorize import assert_same, vectorise


def test_an_inner_min_over_an_empty_range_keeps_its_start(tmp_path):
    source = """
        def nearest_gap(points, anchors, cap):
            out = []
            for p in points:
                best = cap
                for k in range(len(anchors)):
                    best = min(best, abs(p - anchors[k]))
                out.append(best)
            return out
    """
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), "nearest_gap")
    points = np.random.default_rng(1).standard_normal(50).tolist()
    for anchors in ([], [0.0], [-1.0, 0.5, 2.0]):
        assert_same(old(points, anchors, 10.0), new(points, anchors, 10.0))
