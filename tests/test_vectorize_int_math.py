"""`math.floor`, `math.ceil` and `math.trunc` inside a loop: np.floor/ceil/trunc cast to int64, the same ints.

Resampling, binning and paging code computes an index or a count with them; they were refused as calls that "may
have side effects", which kept the whole loop in Python. Each is exact in float64 for a finite float, and the
int64 cast gives the int math.* returns (negative values included, where floor and trunc differ).
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import assert_same, vectorise


def _ints_alike(old, new):
    assert_same(old, new)
    assert all(type(a) is type(b) for a, b in zip(old, new))


def test_a_nearest_neighbour_resample_reads_the_floored_source_index(tmp_path):
    source = """
        def resample_row(row, width):
            scale = len(row) / width
            out = []
            for x in range(width):
                src = math.floor((x + 0.5) * scale - 0.5)
                src = min(max(src, 0), len(row) - 1)
                out.append(row[src])
            return out
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "resample_row")
    assert "np.floor(" in result.files["mod.py"]
    row = np.random.default_rng(3).standard_normal(37).tolist()
    for width in (1, 5, 37, 90):
        _ints_alike(old(row, width), new(row, width))


def test_pages_needed_per_document_round_up_with_ceil(tmp_path):
    source = """
        def pages(lengths, per_page, header):
            counts = []
            for n in lengths:
                counts.append(math.ceil((n + header) / per_page))
            return counts
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "pages")
    assert "np.ceil(" in result.files["mod.py"]
    lengths = np.random.default_rng(4).integers(0, 5000, 200).tolist()
    for per_page in (1, 7, 250.5):
        _ints_alike(old(lengths, per_page, 12), new(lengths, per_page, 12))


def test_truncated_deltas_are_summed_toward_zero_for_negative_values(tmp_path):
    source = """
        def quantised_drift(readings, step):
            total = 0
            for prev, r in zip(readings, readings[1:]):
                total += math.trunc((r - prev) / step)
            return total
    """
    readings = (np.random.default_rng(5).standard_normal(400) * 30).tolist()
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "quantised_drift")
    assert "np.trunc(" in result.files["mod.py"]
    for step in (0.7, 3.0, 100.0):
        got = new(readings, step)
        assert got == old(readings, step)
        assert isinstance(got, int) or np.issubdtype(type(got), np.integer)


def test_floor_of_ints_read_as_floats_is_refused(tmp_path):
    source = """
        def half_steps(counts):
            total = 0.0
            for c in counts:
                total += math.floor(c) * 0.5
            return total
    """
    with pytest.raises(NotApplicable, match=r"2\*\*53"):
        vectorise(tmp_path, textwrap.dedent(source), "half_steps")
