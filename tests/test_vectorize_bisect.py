"""Binary searches of a fixed sorted list per element (`bisect.bisect_left/right`) become np.searchsorted.

Three functions written three ways (a comprehension, a loop with appends and arithmetic on the
position, a while loop with a counter), each rewritten and run old against new on values that
sit on the edges, between them, past both ends, and on NaN and -0.0. The table is checked where
the rewrite runs: an unsorted one, or one holding NaN, raises instead of giving another answer.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import vectorise

HEADER = "import bisect\n\nEDGES = [-2.0, -0.5, 0.0, 0.0, 0.75, 3.0]\n\n"

CASES = {
    "comprehension_right": ("""
        def bucket(values):
            return [bisect.bisect_right(EDGES, v) for v in values]
    """, "bucket"),
    "loop_left_with_arithmetic": ("""
        def rank_share(times, breaks):
            shares = []
            for t in times:
                pos = bisect.bisect_left(breaks, t)
                shares.append(pos / len(breaks) - 0.5)
            return shares
    """, "rank_share"),
    "while_counter_plain_bisect": ("""
        def segment_ids(xs, cuts):
            ids = []
            k = 0
            while k < len(xs):
                ids.append(bisect.bisect(cuts, xs[k] * 2.0) - 1)
                k += 1
            return ids
    """, "segment_ids"),
}


def _values():
    rng = np.random.default_rng(3)
    edges = [-2.0, -0.5, 0.0, 0.0, 0.75, 3.0]
    return rng.uniform(-4, 4, 40).tolist() + edges + [-0.0, float("nan"), 1e300, -1e300, 0.375, 1.5]


def _args(function):
    if function == "bucket":
        return (_values(),)
    return (_values(), [-2.0, -0.5, 0.0, 0.0, 0.75, 3.0])


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_search_of_a_fixed_sorted_list_per_element_gives_the_same_positions(tmp_path, name):
    source, function = CASES[name]
    old, new, result = vectorise(tmp_path, HEADER + textwrap.dedent(source), function)
    body = result.files["mod.py"].split(f"def {function}(", 1)[1]
    assert "np.searchsorted" in body and "for " not in body and "while " not in body, body
    before, after = old(*_args(function)), new(*_args(function))
    assert [repr(v) for v in before] == [repr(v) for v in after]
    assert any("searchsorted" in note for note in result.notes), result.notes


@pytest.mark.parametrize("table", [[0.0, 2.0, 1.0], [0.0, float("nan"), 1.0]])
def test_a_table_that_is_not_sorted_or_holds_nan_raises_where_it_runs(tmp_path, table):
    source, function = CASES["loop_left_with_arithmetic"]
    old, new, _ = vectorise(tmp_path, HEADER + textwrap.dedent(source), function)
    old([0.5, 1.5], table)  # bisect answers something, by where its halving happened to look
    with pytest.raises(TypeError, match="is not a sorted list of numbers without NaN"):
        new([0.5, 1.5], table)


REFUSED = {
    "the table grows in the loop": ("""
        def running_ranks(values):
            seen = []
            ranks = []
            for v in values:
                ranks.append(bisect.bisect_left(seen, v))
                seen.append(v)
            return ranks
    """, "running_ranks", "searches `seen`, which the loop binds or changes"),
    "a bare bisect_left may be the target's own": ("""
        from bisect import bisect_left

        def bucket_bare(values):
            return [bisect_left(EDGES, v) for v in values]
    """, "bucket_bare", "call to bisect_left() inside the loop may have side effects"),
    "a key function": ("""
        def keyed(values):
            return [bisect.bisect_left(EDGES, v, key=abs) for v in values]
    """, "keyed", "call to bisect.bisect_left() inside the loop may have side effects"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_searches_it_cannot_show_the_same_are_refused_by_name(tmp_path, name):
    source, function, reason = REFUSED[name]
    with pytest.raises(NotApplicable, match=reason.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        vectorise(tmp_path, HEADER + textwrap.dedent(source), function)
