"""A running sum set again in its own pass (a reset) is a loop-carried dependency, refused.

Found while building the chunk rewrite: `acc += v`, then `acc = 0.0` later in the pass (every pass, or under a test)
was read as a running sum over the whole loop, the reset never seen, and the rewrite's values differed (replay
refused it). `vectorize` now refuses a sum its pass binds more than once, and a filter's `if` whose names the pass
mentions elsewhere is no longer said as a guard (`restate.appends_under_tail_if`). The functions must be refused, or
give the loop's values.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import assert_same, vectorise

CASES = {
    # a running sum set again in the pass (found writing this rule: the sum over the loop missed the reset)
    "a sum reset every pass": """
        def f(values, k):
            out = []
            acc = 0.0
            for v in values:
                acc += v
                out.append(acc * k)
                acc = 0.0
            return out
    """,
    "a sum reset under a test": """
        def f(values, k):
            out = []
            acc = 0.0
            for v in values:
                acc += v
                if acc > k * 0.1:
                    acc = 0.0
                out.append(acc)
            return out
    """,
    # the sum emitted and reset under the pass's closing `if`, after a `continue` guard
    "a sum emitted and reset by a counter after a guard": """
        def f(values, k):
            out = []
            acc = 0.0
            n = 0
            for v in values:
                if v < 0:
                    continue
                acc += v
                n += 1
                if n == k:
                    out.append(acc)
                    acc = 0.0
                    n = 0
            return out
    """,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_sum_reset_in_its_pass_is_not_summed_over_the_loop(tmp_path, case):
    try:
        old, new, result = vectorise(tmp_path, textwrap.dedent(CASES[case]), "f")
    except NotApplicable as refusal:
        assert "set again in the pass" in str(refusal) or "not set on every branch" in str(refusal), refusal
        return
    values = np.random.default_rng(4).standard_normal(17).tolist()
    assert_same(old(values, 4), new(values, 4))
