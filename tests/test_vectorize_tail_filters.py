"""A loop whose pass ends in an `if` that appends (a filter, with or without a record per element) is vectorised.

Before, `if cond: t = ...; out.append((i, t))` as the last statement of a pass was refused ("a tuple or list per
element is made inside an if/elif/else"; a plain value: "not set on every branch"). It is now read as the guard it
amounts to, `if not cond: continue` then its body (`restate.appends_under_tail_if`), and the appended values, records
included, keep only the elements that got past it. Each case is written as a pipeline would write it (none is an
eval target's); the rewritten function must give the same list, to the bit, in type (ints stay ints).
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import assert_same, vectorise

CASES = {
    # zero up-crossings of a wave record, each as (sample index, interpolated time): a record under a chained test
    "upcrossings": ("""
        def upcrossings(eta, dt):
            crossings = []
            for i in range(1, len(eta)):
                if eta[i - 1] < 0.0 <= eta[i]:
                    frac = eta[i - 1] / (eta[i - 1] - eta[i])
                    crossings.append((i, (i - 1 + frac) * dt))
            return crossings
    """, "upcrossings", lambda rng, n: (rng.standard_normal(n).tolist(), 0.5)),
    # local maxima above a threshold: two lists appended under one test, positions and heights
    "peaks": ("""
        def peaks(signal, threshold):
            where, heights = [], []
            for k in range(1, len(signal) - 1):
                s = signal[k]
                if s > signal[k - 1] and s >= signal[k + 1] and s > threshold:
                    where.append(k)
                    heights.append(s - threshold)
            return where, heights
    """, "peaks", lambda rng, n: (np.round(rng.standard_normal(n), 1), 0.2)),
    # outliers by z-score as [index, score] lists, over enumerate
    "outliers": ("""
        def outliers(values, mu, sd):
            flagged = []
            for j, v in enumerate(values):
                z = (v - mu) / sd
                if abs(z) > 1.5:
                    flagged.append([j, z])
            return flagged
    """, "outliers", lambda rng, n: (rng.standard_normal(n).tolist(), 0.1, 0.9)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_appends_under_a_closing_if_are_a_filter(tmp_path, case):
    source, name, make = CASES[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    assert "appends under an `if` that ends the pass as a guard" in result.summary, result.summary
    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 3, 50, 400):
        args = make(rng, n)
        assert_same(old(*args), new(*args))


def test_a_closing_if_that_does_more_than_append_is_left(tmp_path):
    """A call beside the append (`print(x)`) is not only assignments and appends: not restated, and refused."""
    source = textwrap.dedent("""
        def f(xs):
            out = []
            for x in xs:
                if x > 0:
                    out.append(x * 2.0)
                    print(x)
            return out
    """)
    with pytest.raises(NotApplicable, match="print"):
        vectorise(tmp_path, source, "f")
