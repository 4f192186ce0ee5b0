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
    # a product-limit survival curve from a life table of (time, deaths, at risk) rows
    "life_table": ("""
        def product_limit(table):
            surv = 1.0
            out = []
            for t, deaths, at_risk in table:
                if at_risk > 0:
                    surv *= (at_risk - deaths) / at_risk
                out.append((t, surv))
            return out
    """, "product_limit", lambda rng, n: ([(int(t), int(d), int(r)) for t, d, r in zip(
        np.arange(n), rng.integers(0, 3, n), np.maximum(0, 40 - 2 * np.arange(n) + rng.integers(-1, 2, n)))],)),
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
