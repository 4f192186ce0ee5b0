"""A loop that ends at the first element failing (or passing) a test: `if test: break` first in the pass, or the
whole pass `if test: <assignments> else: break`.

The passes the loop ran are the elements before the first where the break test holds, `np.logical_and.accumulate`
of its negation; sums add, lists keep and last values are taken only there. A step function looked up by a scan,
the length of a leading run, a sum up to a sentinel: each must give the loop's values, to the bit.
"""
from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest

from tests.test_vectorize import vectorise
from tests.test_vectorize_searches import assert_same_outcome

BREAKS = {
    # a right-continuous step function read by a scan of its (time, value) steps
    "step_lookup": ("""
        def step_value(steps, t, default=1.0):
            value = default
            for s, g in steps:
                if s <= t:
                    value = g
                else:
                    break
            return value
    """, "step_value", lambda rng, n: ([(float(s), float(g)) for s, g in zip(np.sort(rng.uniform(0, 10, n)),
                                                                             rng.random(n))],
                                      float(rng.uniform(-1, 11)))),
    # the index just past the last CDF entry below a uniform draw
    "inverse_cdf": ("""
        def pick(cdf, u):
            idx = 0
            for k, c in enumerate(cdf):
                if c < u:
                    idx = k + 1
                else:
                    break
            return idx
    """, "pick", lambda rng, n: (np.cumsum(rng.dirichlet(np.ones(max(n, 1)))).tolist()[:n], float(rng.random()))),
    # a sum of readings up to the first negative sentinel, and how many there were
    "sentinel_sum": ("""
        def until_sentinel(readings):
            total = 0.0
            count = 0
            for r in readings:
                if r < 0.0:
                    break
                total += r * 0.5
                count += 1
            return total, count
    """, "until_sentinel", lambda rng, n: (np.where(rng.random(n) < 0.1, -1.0, rng.random(n)).tolist(),)),
}


def assert_break_rewritten_exactly(tmp_path, source: str, name: str, make, seed: int) -> None:
    """The loop's `break` is gone, the passes run are a mask, and the rewrite gives the loop's outcome on inputs of
    0 to 300 elements."""
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    body = result.files["mod.py"].split(f"def {name}(")[1]
    assert not re.search(r"^\s*break\s*$", body, re.M) and "logical_and.accumulate" in body, result.files["mod.py"]
    rng = np.random.default_rng(seed)
    for n in (0, 1, 2, 5, 40, 300):
        for _ in range(5):
            assert_same_outcome(old, new, *make(rng, n))


@pytest.mark.parametrize("case", sorted(BREAKS))
def test_a_loop_that_ends_at_a_test_keeps_what_it_ran(tmp_path, case):
    assert_break_rewritten_exactly(tmp_path, *BREAKS[case], seed=10)


def test_a_break_after_other_statements_stays(tmp_path):
    source = """
        def f(xs):
            total = 0.0
            for x in xs:
                total += x
                if total > 10.0:
                    break
            return total
    """
    from perfloop.tools.change.codemods import NotApplicable

    with pytest.raises(NotApplicable, match="early exit \\(break\\)"):
        vectorise(tmp_path, textwrap.dedent(source), "f")
