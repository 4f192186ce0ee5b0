"""An inner loop over a list the loop never changes whose items unpack into names: `for gx, gy in gts`.

Each name is one column of the list's array, along the inner axis, so a pairwise minimum, maximum or sum over the
fixed list is one broadcast reduction. Items of another length raise ValueError, as unpacking did.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.test_vectorize import vectorise
from tests.test_vectorize_searches import assert_same_outcome

PAIRWISE = {
    # predicted keypoints matched to ground truth within a radius (squared distances, ints)
    "matches": ("""
        def matched(preds, gts, radius):
            hits = 0
            for px, py in preds:
                best = min((px - gx) ** 2 + (py - gy) ** 2 for gx, gy in gts)
                if best <= radius * radius:
                    hits += 1
            return hits
    """, "matched", lambda rng, n, m: ([(int(a), int(b)) for a, b in rng.integers(0, 30, (n, 2))],
                                      [(int(a), int(b)) for a, b in rng.integers(0, 30, (m, 2))], 3)),
    # the largest overlap of each anchor with the boxes of an image, four fields per box
    "overlaps": ("""
        def best_overlap(anchors, boxes):
            out = []
            for ax0, ay0, ax1, ay1 in anchors:
                top = max(max(0.0, min(ax1, x1) - max(ax0, x0)) * max(0.0, min(ay1, y1) - max(ay0, y0))
                          for x0, y0, x1, y1 in boxes)
                out.append(top)
            return out
    """, "best_overlap", lambda rng, n, m: (
        [tuple(v) for v in np.sort(rng.random((n, 2, 2)) * 10, axis=1).transpose(0, 2, 1).reshape(n, 4).tolist()],
        [tuple(v) for v in np.sort(rng.random((m, 2, 2)) * 10, axis=1).transpose(0, 2, 1).reshape(m, 4).tolist()])),
    # a kernel density per sample over fixed centres
    "density": ("""
        def density(samples, centres, width):
            out = []
            for x, y in samples:
                out.append(sum(math.exp(-((x - cx) ** 2 + (y - cy) ** 2) / width) for cx, cy in centres))
            return out
    """, "density", lambda rng, n, m: ([tuple(v) for v in rng.standard_normal((n, 2)).tolist()],
                                      [tuple(v) for v in rng.standard_normal((m, 2)).tolist()], 0.7)),
}


@pytest.mark.parametrize("case", sorted(PAIRWISE))
def test_pairwise_reductions_over_unpacked_items_of_a_fixed_list(tmp_path, case):
    source, name, make = PAIRWISE[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    body = result.files["mod.py"].split(f"def {name}(")[1]
    assert " for " not in body, result.files["mod.py"]
    rng = np.random.default_rng(9)
    for n, m in ((1, 1), (5, 3), (40, 25), (200, 60)):
        if result.tolerance is None:
            assert_same_outcome(old, new, *make(rng, n, m))
            continue
        # math.exp -> np.exp, declared: numpy's SIMD exp (AVX-512) may differ from libm's in the last bit
        args = make(rng, n, m)
        tol = result.tolerance
        assert np.allclose(new(*args), old(*args), atol=tol.atol, rtol=tol.rtol)


def test_items_of_another_length_raise_as_unpacking_did(tmp_path):
    source, name, make = PAIRWISE["matches"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    preds, _, radius = make(np.random.default_rng(1), 5, 3)
    for gts in ([(1, 2, 3), (4, 5, 6)], [(1,), (2,)]):
        assert_same_outcome(old, new, preds, gts, radius)
