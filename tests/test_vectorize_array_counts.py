"""Counts into a numpy array of zeros made before the loop (`voxel[b, y, x] += w`): np.add.at in place.

The array keeps its dtype and identity; each term is cast to what an element plus a Python number gives (float32
for a float32 array under numpy 2's rules), so every add rounds as the loop's did, in the loop's order. Arrays of
bools are not counted into.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import vectorise


def _same_array(old, new):
    assert type(old) is type(new) and old.dtype == new.dtype and old.shape == new.shape
    assert np.array_equal(old, new)  # bit-identical floats (no NaN here)


def test_points_splatted_into_a_float32_image_with_a_tuple_index(tmp_path):
    source = """
        def accumulate(xs, ys, values, h, w, gain):
            img = np.zeros((h, w), dtype=np.float32)
            for x, y, v in zip(xs, ys, values):
                img[y, x] += v * gain
            return img
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "accumulate")
    assert "np.add.at(img" in result.files["mod.py"]
    rng = np.random.default_rng(31)
    xs, ys = rng.integers(0, 12, 5000).tolist(), rng.integers(0, 9, 5000).tolist()
    values = rng.standard_normal(5000).tolist()
    _same_array(old(xs, ys, values, 9, 12, 0.37), new(xs, ys, values, 9, 12, 0.37))


def test_an_int_histogram_counted_under_a_range_test(tmp_path):
    source = """
        def level_histogram(pixels, bins):
            hist = np.zeros(bins, dtype=np.int64)
            for p in pixels:
                b = int(p * bins)
                if 0 <= b < bins:
                    hist[b] += 1
            return hist
    """
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), "level_histogram")
    pixels = (np.random.default_rng(32).random(2000) * 1.2 - 0.1).tolist()
    _same_array(old(pixels, 16), new(pixels, 16))


def test_a_confusion_matrix_of_zeros_like_counted_by_chained_subscripts(tmp_path):
    source = """
        def confusion(truth, pred, template):
            cm = np.zeros_like(template)
            for t, p in zip(truth, pred):
                cm[t][p] += 1
            return cm
    """
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), "confusion")
    rng = np.random.default_rng(33)
    truth, pred = rng.integers(0, 5, 700).tolist(), rng.integers(0, 5, 700).tolist()
    for template in (np.zeros((5, 5)), np.zeros((5, 5), dtype=np.float32), np.zeros((5, 5), dtype=np.int32)):
        _same_array(old(truth, pred, template), new(truth, pred, template))


def test_a_bool_array_is_not_counted_into(tmp_path):
    source = """
        def seen(ids, n):
            mask = np.zeros(n, dtype=bool)
            for i in ids:
                mask[i] += 1
            return mask
    """
    with pytest.raises(NotApplicable):
        vectorise(tmp_path, textwrap.dedent(source), "seen")
