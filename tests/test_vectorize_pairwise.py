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
