"""Counts under an `if` that ends a pass: `if cond: hist[k] += w` as guards, then one masked np.add.at.

Histograms, projection profiles and confusion matrices are counted under a test (a bin in range, a label not
ignored, a pixel that is ink) as often as not, the test the last statement of the pass. Nothing follows it, so
`if cond: body` is `if not cond: continue` and the body; the translator reads guards as masks and counts into a
list made before the loop as one np.add.at in the loop's order. Each shape is written as a pipeline would write
it (none is an eval target's): the counts must be the loop's, bit for bit (float weights added in its order),
on full, short, empty and all-filtered inputs. An `if` whose body only counts is read as masked counts wherever it
stands in the pass; one with an `else`, or with other statements beside counts, is refused as before.
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


IN_BLOCK = {
    # per-class accuracy: the hits counted under a test, every target counted after it
    "per_class_accuracy": ("""
        def per_class_accuracy(targets, preds, classes):
            hits = [0] * classes
            seen = [0] * classes
            for t, p in zip(targets, preds):
                if p == t:
                    hits[t] += 1
                seen[t] += 1
            return [h / s if s else 0.0 for h, s in zip(hits, seen)]
    """, "per_class_accuracy", lambda n: (np.random.default_rng(7).integers(0, 4, n).tolist(),
                                          np.random.default_rng(8).integers(0, 4, n).tolist(), 4)),
    # a count of the non-negative readings and a running total of all of them
    "count_and_sum": ("""
        def count_and_sum(xs, n):
            counts = [0] * n
            total = 0
            for x in xs:
                if x >= 0:
                    counts[x] += 1
                total += x
            return counts, total
    """, "count_and_sum", lambda n: (np.random.default_rng(9).integers(-3, 6, n).tolist(), 6)),
    # float mass per bin where the weight is positive, then a second count by index of every element
    "positive_mass_then_occupancy": ("""
        def mass_and_occupancy(bins, weights, nbins):
            mass = [0.0] * nbins
            occupancy = [0] * nbins
            for i in range(len(bins)):
                w = weights[i] * 2.0
                if w > 0.5:
                    mass[bins[i]] += w
                occupancy[bins[i]] += 1
            return mass, occupancy
    """, "mass_and_occupancy", lambda n: (np.random.default_rng(10).integers(0, 5, n).tolist(),
                                          np.random.default_rng(11).random(n).tolist(), 5)),
}


@pytest.mark.parametrize("name", sorted(IN_BLOCK))
def test_counts_alone_under_an_if_anywhere_in_the_pass_are_counted_where_it_holds(tmp_path, name):
    """An `if` whose body only counts (it need not end the pass) is each count masked by its test, while the
    statements after it still see every element."""
    source, function, make_args = IN_BLOCK[name]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), function)
    body = result.files["mod.py"].split(f"def {function}(", 1)[1]
    loops = body.split("return", 1)[0]
    assert "for " not in loops.replace("for _ in range", ""), body
    assert "np.add.at(" in body and result.tolerance is None
    for n in (0, 1, 2, 9, 300):
        exact(old(*make_args(n)), new(*make_args(n)))


def test_an_if_with_an_else_or_with_more_than_counts_is_still_refused(tmp_path):
    source = textwrap.dedent("""
        def split_counts(xs, n):
            pos = [0] * n
            neg = [0] * n
            for x in xs:
                if x >= 0:
                    pos[x] += 1
                else:
                    neg[-x] += 1
            return pos, neg
    """)
    with pytest.raises(NotApplicable, match="side effect: the loop writes `pos\\[x\\]`"):
        vectorise(tmp_path, source, "split_counts")
    # A count beside an append in the block, the block not ending the pass: read as counts alone, the append
    # would be lost.
    source = textwrap.dedent("""
        def count_and_keep(xs, n):
            counts = [0] * n
            kept = []
            for x in xs:
                if x >= 0:
                    counts[x] += 1
                    kept.append(x)
                kept.append(x * 2)
            return counts, kept
    """)
    with pytest.raises(NotApplicable):
        vectorise(tmp_path, source, "count_and_keep")
