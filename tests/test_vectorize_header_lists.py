"""A loop whose header makes its list (`for t in sorted(set(xs))`, `list(...)`, `tuple(...)`, `set(...)`).

Python evaluates the iterable once, before the first pass; these builtins read their argument to the end when
called. The rewrite evaluates the same expression once, at the same place, and vectorises over the list it gives,
in the order the loop walked it (a set's own iteration order included). A draw in the header stays refused.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import assert_same, vectorise


def test_an_exceedance_curve_over_the_distinct_sorted_values(tmp_path):
    source = """
        def exceedance_curve(latencies):
            curve = []
            for cut in sorted(set(latencies)):
                over = 0
                for x in latencies:
                    if x > cut:
                        over += 1
                curve.append(over / len(latencies))
            return curve
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "exceedance_curve")
    assert "for cut in" not in result.files["mod.py"]
    rng = np.random.default_rng(7)
    for values in (rng.integers(0, 40, 300).astype(float).tolist(), rng.standard_normal(120).tolist(), [2.5]):
        assert_same(old(values), new(values))


def test_a_list_of_a_dicts_values_feeds_a_running_sum_and_a_list(tmp_path):
    source = """
        def weighted_ranks(durations_by_id, decay):
            total = 0.0
            ranked = []
            for d in list(durations_by_id.values()):
                ranked.append(d * decay + 1.0)
                total += d * d
            return ranked, total
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "weighted_ranks")
    assert "list(durations_by_id.values())" in result.files["mod.py"]
    values = np.random.default_rng(8).standard_normal(200).tolist()
    durations = {f"job{i}": v for i, v in enumerate(values)}
    assert_same(old(durations, 0.9), new(durations, 0.9))
    assert_same(old({}, 0.9), new({}, 0.9))


def test_a_set_is_walked_in_its_own_order_and_a_tuple_copy_as_it_is(tmp_path):
    source = """
        def residues(ids, modulus):
            out = []
            for k in set(ids):
                out.append(k % modulus * 2)
            return out

        def scaled(values, scale):
            res = []
            for v in tuple(values):
                res.append(v * scale if v > 0 else v / scale)
            return res
    """
    ids = np.random.default_rng(9).integers(0, 5000, 400).tolist()
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), "residues")
    assert_same(old(ids, 97), new(ids, 97))
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), "scaled")
    values = np.random.default_rng(10).standard_normal(300).tolist()
    assert_same(old(values, 3.0), new(values, 3.0))


def test_a_draw_in_the_header_is_refused(tmp_path):
    source = """
        def sampled(xs):
            out = []
            for v in sorted(random.sample(xs, 10)):
                out.append(v * 2.0)
            return out
    """
    with pytest.raises(NotApplicable, match="random"):
        vectorise(tmp_path, textwrap.dedent(source), "sampled")
