"""Pairwise work between two lists: a field of the outer loop's record read inside the inner loop.

`[[p[0] - g for g in gts] for p in pts]` and `for p in pts: for g in gts: s += p[0] * g` read a field of the outer
row in the inner loop. The field's column is one value per outer element and must be broadcast along the inner
axis (`pts_arr[:, 0][:, None]`), as a plain outer value is; it was not, so the two axes were added element by
element: an error where the lists' lengths differ, and wrong values where they are equal (replay refused it).
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.test_vectorize import vectorise
from tests.test_vectorize_records import exact


def points(n, seed=0):
    return [tuple(row) for row in np.random.default_rng(seed).standard_normal((n, 3)).tolist()]


def numbers(n, seed=1):
    return np.random.default_rng(seed).standard_normal(n).tolist()


FIELD_CASES = {
    "comprehension/offsets": ("""
        def offsets(pts, centres):
            return [[p[0] - c for c in centres] for p in pts]
    """, "offsets", lambda n, m: (points(n), numbers(m))),
    "loop/projections": ("""
        def projections(pts, weights):
            out = []
            for p in pts:
                s = 0.0
                for w in weights:
                    s += p[1] * w
                out.append(s)
            return out
    """, "projections", lambda n, m: (points(n), numbers(m))),
}


@pytest.mark.parametrize("name", sorted(FIELD_CASES))
@pytest.mark.parametrize("n, m", [(5, 3), (4, 4), (1, 6), (6, 1)])
def test_an_outer_records_field_is_broadcast_along_the_inner_loop(tmp_path, name, n, m):
    source, function, make_args = FIELD_CASES[name]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), function)
    assert "[:, None]" in result.files["mod.py"]
    exact(old(*make_args(n, m)), new(*make_args(n, m)))


def segments(n, seed=2):
    rng = np.random.default_rng(seed)
    starts = rng.uniform(0, 10, n)
    return [(float(s), float(s + d)) for s, d in zip(starts, rng.uniform(0.1, 3, n))]


RECORD_CASES = {
    # temporal IoU of every predicted segment with every reference one, through a helper with an early return
    "helper/segment_iou_matrix": ("""
        def overlap(a, b):
            lo = max(a[0], b[0])
            hi = min(a[1], b[1])
            if hi <= lo:
                return 0.0
            return (hi - lo) / ((a[1] - a[0]) + (b[1] - b[0]) - (hi - lo))


        def iou_matrix(preds, refs):
            return [[overlap(p, r) for r in refs] for p in preds]
    """, "iou_matrix", lambda n, m: (segments(n), segments(m, seed=3))),
    # squared distances from every point to every centre, rows appended per pass
    "loops/squared_distances": ("""
        def squared_distances(pts, centres):
            out = []
            for p in pts:
                row = []
                for c in centres:
                    dx = p[0] - c[0]
                    dy = p[1] - c[1]
                    row.append(dx * dx + dy * dy)
                out.append(row)
            return out
    """, "squared_distances", lambda n, m: (points(n), points(m, seed=4))),
    # the distance to the nearest centre, a min over a generator of the centres' fields
    "generator/nearest_centre": ("""
        import math


        def nearest(pts, centres):
            return [min(math.sqrt((p[0] - c[0]) ** 2 + (p[1] - c[1]) ** 2) for c in centres) for p in pts]
    """, "nearest", lambda n, m: (points(n), points(m, seed=5))),
}


@pytest.mark.parametrize("name", sorted(RECORD_CASES))
@pytest.mark.parametrize("n, m", [(7, 3), (4, 4), (1, 5), (5, 1)])
def test_fields_of_the_inner_loops_records_are_columns_of_its_list(tmp_path, name, n, m):
    """`c[0]` of an inner loop's item, the inner loop walking a list the loop never changes: the column of that
    list's array along the inner axis, so the whole pairwise nest is one array expression."""
    source, function, make_args = RECORD_CASES[name]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), function)
    body = result.files["mod.py"].split(f"def {function}(", 1)[1]
    assert "for " not in body, body
    exact(old(*make_args(n, m)), new(*make_args(n, m)))


def test_an_item_that_is_a_number_has_no_field_in_either_version(tmp_path):
    source, function, _ = RECORD_CASES["loops/squared_distances"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), function)
    for fn in (old, new):  # Python: a float is not subscriptable; numpy: a 1-D array has no column
        with pytest.raises((TypeError, IndexError)):
            fn(points(3), numbers(4))
