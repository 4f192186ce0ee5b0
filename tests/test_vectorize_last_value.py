"""A name set under a test in a loop, read after it: the value of the last pass whose test held, else its start.

`if mean * mean >= k * var: noise = mean` (a noise floor), `if v > thr: last = i` (a last crossing), `if bad: found =
True` (a flag): the value is computed for every element, the passes whose test held (and which no `continue` guard
skipped) are found with np.flatnonzero, and the name takes the last one's value as a Python number, or the start
value, evaluated where the loop's start line was, where no pass set it.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import vectorise


def _same(old, new):
    """The same values of the same types, NaNs included (repr tells 1 from 1.0 and shows nan)."""
    assert repr(old) == repr(new)


def test_a_noise_floor_from_running_sums_past_a_guard(tmp_path):
    source = """
        def noise_floor(spec, min_points, averages):
            ordered = sorted(spec)
            total = 0.0
            squares = 0.0
            floor = ordered[0]
            for count, p in enumerate(ordered, start=1):
                total += p
                squares += p * p
                if count < min_points:
                    continue
                mean = total / count
                var = squares / count - mean * mean
                if mean * mean >= averages * var:
                    floor = mean
            return floor
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "noise_floor")
    assert "for count, p in" not in result.files["mod.py"] and "np.flatnonzero(" in result.files["mod.py"]
    rng = np.random.default_rng(3)
    for trial in range(40):
        spec = (rng.exponential(1.0, 128) + (rng.random(128) < 0.05) * rng.exponential(30.0, 128)).tolist()
        for min_points, averages in ((8, 40), (2, 1), (200, 40), (8, 10 ** 6)):
            _same(old(spec, min_points, averages), new(spec, min_points, averages))
    _same(old([3.0], 1, 1), new([3.0], 1, 1))
    with pytest.raises(IndexError):
        new([], 1, 1)


def test_the_last_crossing_of_a_threshold_as_an_index(tmp_path):
    source = """
        def last_onset(energy, ratio):
            last = -1
            for i in range(1, len(energy)):
                if energy[i] > ratio * energy[i - 1]:
                    last = i
            return last
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "last_onset")
    assert "for i in range" not in result.files["mod.py"]
    rng = np.random.default_rng(4)
    energy = rng.gamma(2.0, 1.0, 300).tolist()
    for ratio in (0.5, 3.0, 1e9):
        _same(old(energy, ratio), new(energy, ratio))
    for short in ([], [1.0], [float("nan"), 2.0, float("nan")]):
        _same(old(short, 1.0), new(short, 1.0))
    counts = np.random.default_rng(7).integers(0, 9, 200).tolist()  # ints, compared as Python compares them
    _same(old(counts, 2), new(counts, 2))


def test_a_flag_and_a_scaled_reading_in_one_loop_of_records(tmp_path):
    source = """
        def last_good(readings, scale):
            flagged = False
            value = None
            for r in readings:
                if r != r:
                    flagged = True
                if r > 0.0:
                    value = r * scale
            return flagged, value
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "last_good")
    assert "for r in readings" not in result.files["mod.py"]
    rng = np.random.default_rng(5)
    for trial in range(20):
        readings = np.where(rng.random(50) < 0.05, np.nan, rng.standard_normal(50)).tolist()
        _same(old(readings, 2.5), new(readings, 2.5))
    _same(old([-1.0, -2.0], 2.5), new([-1.0, -2.0], 2.5))
    _same(old([], 2), new([], 2))


def test_a_value_set_under_a_test_that_reads_it_is_refused_and_one_in_an_inner_loop_is_set_per_row(tmp_path):
    reads_itself = """
        def drift(xs):
            level = 0.0
            for x in xs:
                if x > level:
                    level = (level + x) / 2.0
            return level
    """
    with pytest.raises(NotApplicable, match="nothing in drift"):
        vectorise(tmp_path, textwrap.dedent(reads_itself), "drift")
    # In an inner loop the outer one stays, and the inner loop is rewritten per row instead.
    inner = """
        def last_peaks(rows, thr):
            out = []
            for row in rows:
                at = -1
                for j in range(len(row)):
                    if row[j] > thr:
                        at = j
                out.append(at)
            return out
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(inner), "last_peaks")
    text = result.files["mod.py"]
    assert "for row in rows" in text and "for j in range" not in text
    assert any("keeps the last value set under a test in an inner loop" in note for note in result.notes), result.notes
    rows = np.random.default_rng(6).standard_normal((30, 12)).tolist() + [[]]
    _same(old(rows, 1.0), new(rows, 1.0))
