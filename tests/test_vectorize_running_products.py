"""A product carried through a loop and read in each pass: `g *= 1.0 - d / n` then `steps.append((t, g))`.

np.cumprod multiplies left to right, as the loop does, so each pass reads the loop's bits; a product under an `if`
multiplies by 1 where the test fails (the same bits). Taken for products that start at the float 1.0; an int product
would wrap in int64 where Python's grows, and stays a loop.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.test_vectorize import vectorise
from tests.test_vectorize_searches import assert_same_outcome

PRODUCTS = {
    # a Kaplan-Meier curve of censoring times
    "kaplan_meier": ("""
        def censoring_curve(times, events):
            steps = []
            g = 1.0
            for t in sorted(set(times)):
                at_risk = sum(1 for x in times if x >= t)
                censored = sum(1 for x, e in zip(times, events) if x == t and e == 0)
                if at_risk > 0:
                    g *= 1.0 - censored / at_risk
                steps.append((t, g))
            return steps
    """, "censoring_curve", lambda rng, n: (rng.integers(1, 30, n).astype(float).tolist(),
                                           rng.integers(0, 2, n).tolist())),
    # compounded returns, losses skipped
    "compounding": ("""
        def gains_path(returns):
            path = []
            wealth = 1.0
            for r in returns:
                if r > 0.0:
                    wealth *= 1.0 + r
                path.append(wealth)
            return path
    """, "gains_path", lambda rng, n: (rng.normal(0.0, 0.05, n).tolist(),)),
    # survival from per-bin hazards
    "hazards": ("""
        def survival(hazards):
            s = 1.0
            out = []
            for h in hazards:
                s *= 1.0 - h
                out.append(s)
            return out
    """, "survival", lambda rng, n: (rng.random(n).tolist(),)),
}


@pytest.mark.parametrize("case", sorted(PRODUCTS))
def test_a_running_product_read_in_each_pass(tmp_path, case):
    source, name, make = PRODUCTS[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    assert "np.cumprod(" in result.files["mod.py"], result.files["mod.py"]
    rng = np.random.default_rng(12)
    for n in (0, 1, 7, 200):
        assert_same_outcome(old, new, *make(rng, n))


def test_an_int_product_read_in_each_pass_stays_a_loop(tmp_path):
    source = """
        def factorials(ns):
            out = []
            p = 1
            for k in ns:
                p *= k
                out.append(p)
            return out
    """
    from perfloop.tools.change.codemods import NotApplicable

    with pytest.raises(NotApplicable):
        vectorise(tmp_path, textwrap.dedent(source), "factorials")
