"""Counts and sums under if/elif/else inside a loop: each branch's updates masked by the tests that lead to it.

`if p: if t: tp += 1 else: fp += 1 elif t: fn += 1` adds 1 to each counter where Python takes its branch and 0
elsewhere, in the loop's order, so counts are exact and float sums keep the loop's order. `a = b = 0` before
an inner loop of such counts is the same start value for each name.
"""
from __future__ import annotations

import textwrap

import numpy as np

from tests.test_vectorize import assert_same, vectorise


def test_confusion_counts_from_nested_branches(tmp_path):
    source = """
        def confusion(pred, truth):
            tp = fp = fn = 0
            for p, t in zip(pred, truth):
                if p == 1:
                    if t == 1:
                        tp += 1
                    else:
                        fp += 1
                elif t == 1:
                    fn += 1
            return tp, fp, fn
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "confusion")
    assert "for p, t in zip" not in result.files["mod.py"]
    rng = np.random.default_rng(11)
    pred, truth = rng.integers(0, 2, 500).tolist(), rng.integers(0, 2, 500).tolist()
    assert_same(old(pred, truth), new(pred, truth))
    assert_same(old([], []), new([], []))


def test_three_way_rain_classes_with_a_sum_in_one_branch(tmp_path):
    source = """
        def rain_summary(daily_mm, heavy_at):
            heavy = 0
            light = 0
            dry = 0
            heavy_total = 0.0
            for r in daily_mm:
                if r >= heavy_at:
                    heavy += 1
                    heavy_total += r
                elif r > 0.0:
                    light += 1
                else:
                    dry += 1
            return heavy, light, dry, heavy_total
    """
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), "rain_summary")
    rng = np.random.default_rng(12)
    rain = np.where(rng.random(365) < 0.4, 0.0, rng.gamma(0.8, 9.0, 365)).tolist()
    for heavy_at in (5.0, 20.0, 1e9):
        assert_same(old(rain, heavy_at), new(rain, heavy_at))


def test_row_sums_split_by_sign_with_one_start_for_two_names(tmp_path):
    source = """
        def imbalance(rows):
            out = []
            for row in rows:
                lo = hi = 0.0
                for v in row:
                    if v < 0:
                        lo += v
                    else:
                        hi += v
                out.append(hi + lo * 2.0)
            return out
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "imbalance")
    assert "for row in rows" not in result.files["mod.py"]
    rows = np.random.default_rng(13).standard_normal((40, 25)).tolist()
    assert_same(old(rows), new(rows))
