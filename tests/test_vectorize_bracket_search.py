"""A searching `while` whose bound is a name bound once to `len(seq) - d`, reading `seq[j + c]` with c <= d.

`last = len(xp) - 2` before the loop, then per element `j = 0; while j < last and xp[j + 1] < x: j += 1`: the bracket
an interpolation reads. The bound is an int for certain (a name bound once, before the loop, to int literals and
`len()`), and every position the running min reads, `xp[j + 1]` for j below `len(xp) - 2`, is in the list, so the
search is the running min `whiles._searched_for` writes. An offset past the slack, or a bound that may be a float,
keeps the `while`.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.test_vectorize import vectorise
from tests.test_vectorize_searches import assert_same_outcome

BRACKETS = {
    # linear interpolation of a coarse PSD onto a fine grid, the bracket found from the left for each point
    "interp": ("""
        def interp(x, xp, fp):
            out = []
            last = len(xp) - 2
            for v in x:
                j = 0
                while j < last and xp[j + 1] < v:
                    j += 1
                out.append(fp[j] + (v - xp[j]) * (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]))
            return out
    """, "interp", lambda rng, n, m: (np.sort(rng.uniform(-1, 11, n)).tolist(),
                                     np.sort(rng.uniform(0, 10, m)).tolist(), rng.standard_normal(m).tolist())),
    # a histogram bin per value, the edges' last bin closed: `<=` and a slack of 1
    "bins": ("""
        def bin_ids(values, edges):
            n_bins = len(edges) - 1
            ids = []
            for v in values:
                b = 0
                while b < n_bins and edges[b + 1] <= v:
                    b += 1
                ids.append(b)
            return ids
    """, "bin_ids", lambda rng, n, m: (np.where(rng.random(n) < 0.1, np.nan, rng.uniform(-2, 12, n)).tolist(),
                                      np.arange(m, dtype=float).tolist())),
    # an inverse-CDF lookup with the bound written `<=` against len() itself
    "inverse_cdf": ("""
        def draw_classes(uniforms, cdf):
            picks = []
            for u in uniforms:
                k = 0
                while k <= len(cdf) - 2 and cdf[k] < u:
                    k += 1
                picks.append(k)
            return picks
    """, "draw_classes", lambda rng, n, m: (rng.random(n).tolist(),
                                           np.cumsum(rng.dirichlet(np.ones(max(m, 1)))).tolist()[:m])),
}


@pytest.mark.parametrize("case", sorted(BRACKETS))
def test_a_bracket_search_under_a_bound_with_slack_is_a_running_min(tmp_path, case):
    source, name, make = BRACKETS[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    body = result.files["mod.py"].split(f"def {name}(")[1]
    assert "while" not in body and "for v in" not in body and "for u in" not in body, result.files["mod.py"]
    rng = np.random.default_rng(8)
    for n, m in ((0, 5), (1, 2), (30, 2), (30, 3), (200, 9), (500, 40)):
        assert_same_outcome(old, new, *make(rng, n, m))
    if case == "interp":  # a value exactly on a knot takes the bracket to its left, as `<` stops there
        assert_same_outcome(old, new, [0.0, 1.0, 2.0, 2.5], [0.0, 1.0, 2.0, 3.0], [1.0, 4.0, 9.0, 16.0])


LEFT = {
    # `xp[j + 2]` with a slack of 1 reads past the list's end on the last positions
    "offset past the slack": """
        def f(x, xp):
            out = []
            last = len(xp) - 1
            for v in x:
                j = 0
                while j < last and xp[j + 2] < v:
                    j += 1
                out.append(j)
            return out
    """,
    # the bound is bound twice before the loop: not known to be an int from len()
    "a bound bound twice": """
        def f(x, xp, cap):
            out = []
            last = len(xp) - 2
            last = min(last, cap)
            for v in x:
                j = 0
                while j < last and xp[j + 1] < v:
                    j += 1
                out.append(j)
            return out
    """,
}


@pytest.mark.parametrize("case", sorted(LEFT))
def test_a_search_the_bound_does_not_keep_in_the_list_stays(tmp_path, case):
    from perfloop.tools.change.codemods import NotApplicable

    try:
        _, _, result = vectorise(tmp_path, textwrap.dedent(LEFT[case]), "f")
    except NotApplicable:
        return
    assert "while" in result.files["mod.py"], result.files["mod.py"]
