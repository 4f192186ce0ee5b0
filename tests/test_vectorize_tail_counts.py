"""Counts under an `if` that ends a pass: `if cond: hist[k] += w` as guards, then one masked np.add.at.

Histograms, projection profiles and confusion matrices are counted under a test (a bin in range, a label not
ignored, a pixel that is ink) as often as not, the test the last statement of the pass. Nothing follows it, so
`if cond: body` is `if not cond: continue` and the body; the translator reads guards as masks and counts into a
list made before the loop as one np.add.at in the loop's order. Each shape is written as a pipeline would write
it (none is an eval target's): the counts must be the loop's, bit for bit (float weights added in its order),
on full, short, empty and all-filtered inputs; an `if` that does not end the pass is left as it was.
"""
from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from perfloop.tools.change.codemods.counts import counts_under_tail_ifs
from tests.test_vectorize import vectorise
from tests.test_vectorize_records import exact


def ink(h=24, w=40, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.random((h, w)) < 0.2).astype(int).tolist()


def shear(w=40, slope=0.15):
    return [round((x - w // 2) * slope) for x in range(w)]


CASES = {
    # a projection profile: ink pixels sheared by a per-column shift, counted per row where the row is in range
    "nested_ifs/projection_profile": ("""
        def row_profile(ink, shifts):
            h = len(ink)
            profile = [0] * h
            for y, row in enumerate(ink):
                for x, v in enumerate(row):
                    if v:
                        yy = y - shifts[x]
                        if 0 <= yy < h:
                            profile[yy] += 1
            return profile
    """, "row_profile", lambda n: (ink(h=max(n, 1))[:n], shear())),
    # a fixed-width histogram of integer readings, readings outside [lo, hi) left out
    "one_if/int_histogram": ("""
        def histogram(readings, lo, width, bins):
            counts = [0] * bins
            for r in readings:
                b = (r - lo) // width
                if b >= 0 and b < bins:
                    counts[b] += 1
            return counts
    """, "histogram", lambda n: (np.random.default_rng(1).integers(-20, 140, n).tolist(), 0, 10, 12)),
    # a confusion matrix over (target, prediction) pairs with an ignored label, two indices
    "one_if/confusion_with_ignore": ("""
        def confusion(targets, preds, classes, ignore):
            cm = [[0] * classes for _ in range(classes)]
            for t, p in zip(targets, preds):
                if t != ignore:
                    cm[t][p] += 1
            return cm
    """, "confusion", lambda n: (np.random.default_rng(2).integers(0, 5, n).tolist(),
                                 np.random.default_rng(3).integers(0, 4, n).tolist(), 5, 4)),
    # float weights summed per bin under a mask, by index: the sums must be the loop's, in its order
    "one_if/weighted_bins": ("""
        def energy_per_band(power, band_of, keep, bands):
            sums = [0.0] * bands
            for i in range(len(power)):
                if keep[i]:
                    sums[band_of[i]] += power[i] * 0.5
            return sums
    """, "energy_per_band", lambda n: (np.random.default_rng(4).random(n).tolist(),
                                       np.random.default_rng(5).integers(0, 6, n).tolist(),
                                       (np.random.default_rng(6).random(n) < 0.7).tolist(), 6)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_count_under_an_if_that_ends_the_pass_is_vectorised_with_the_loops_counts(tmp_path, name):
    source, function, make_args = CASES[name]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), function)
    body = result.files["mod.py"].split(f"def {function}(", 1)[1]
    assert "for " not in body.replace("for _ in range", ""), body
    assert "np.add.at(" in body and result.tolerance is None
    for n in (0, 1, 2, 7, 200):
        exact(old(*make_args(n)), new(*make_args(n)))


def test_everything_filtered_out_and_an_index_past_the_end_behave_as_the_loop(tmp_path):
    source, function, _ = CASES["one_if/int_histogram"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), function)
    exact(old([-50, -40, 500], 0, 10, 12), new([-50, -40, 500], 0, 10, 12))  # no reading in range
    source, function, _ = CASES["one_if/confusion_with_ignore"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), function)
    exact(old([255, 255], [1, 2], 5, 255), new([255, 255], [1, 2], 5, 255))  # every pair ignored
    for fn in (old, new):  # a prediction past the matrix, on a pair that is not ignored, raises in both
        with pytest.raises(IndexError):
            fn([1, 2], [1, 9], 5, 255)


def _restated(source: str) -> str | None:
    fn = ast.parse(textwrap.dedent(source)).body[0]
    k = next(i for i, stmt in enumerate(fn.body) if isinstance(stmt, ast.For))
    new = counts_under_tail_ifs(fn.body, k)
    return None if new is None else ast.unparse(new[k])


def test_the_restatement_turns_each_tail_if_into_a_guard_and_takes_nothing_else():
    said = _restated(CASES["nested_ifs/projection_profile"][0])
    assert said is not None and "if not v:\n            continue" in said and "if not 0 <= yy < h:" in said
    # An `if` another statement follows: skipping the rest of the pass would skip that statement too.
    assert _restated("""
        def f(xs, n):
            counts = [0] * n
            total = 0
            for x in xs:
                if x >= 0:
                    counts[x] += 1
                total += x
            return counts, total
    """) is None
    # An `else`, a `break` inside, or no list made to count into before the loop: left as written.
    for body in ("if x >= 0:\n            counts[x] += 1\n        else:\n            counts[0] += 1",
                 "if x >= 0:\n            counts[x] += 1\n            if x > 5:\n                break"):
        assert _restated("def f(xs, n):\n    counts = [0] * n\n    for x in xs:\n        " + body
                         + "\n    return counts\n") is None
    assert _restated("def f(xs, counts):\n    for x in xs:\n        if x >= 0:\n            counts[x] += 1\n"
                     "    return counts\n") is None


def test_a_count_under_an_if_that_does_not_end_the_pass_is_still_refused(tmp_path):
    source = textwrap.dedent("""
        def count_and_sum(xs, n):
            counts = [0] * n
            total = 0
            for x in xs:
                if x >= 0:
                    counts[x] += 1
                total += x
            return counts, total
    """)
    with pytest.raises(NotApplicable, match="side effect: the loop writes `counts\\[x\\]`"):
        vectorise(tmp_path, source, "count_and_sum")
