"""`any()` and `all()` of a generator inside a loop or comprehension are one more axis, reduced away.

Before, `[i for i, p in enumerate(pts) if any(d2(p, c) <= r2 for c in centres)]` was refused ("call to any() inside
the loop may have side effects"), and the per-element test stayed Python. Each case is written as a pipeline would
write it (none is an eval target's): the rewrite must give what the loop gave (values and types) on random inputs,
NaN included (numpy's truth of NaN is Python's: true), and on empty rows (any() is False, all() is True).
"""
from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from tests.test_vectorize import vectorise

CASES = {
    # boxes overlapping any ground-truth box: a filtered comprehension with a helper and an `and` chain
    "overlapping_boxes": ("""
        def overlaps(a, b):
            return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


        def matched(boxes, truths):
            return [k for k, box in enumerate(boxes) if any(overlaps(box, t) for t in truths)]
    """, "matched", lambda rng, n: (np.sort(rng.random((n, 4)) * 10, axis=1)[:, [0, 1, 2, 3]].tolist(),
                                    np.sort(rng.random((1 + n % 4, 4)) * 10, axis=1).tolist())),
    # windows whose samples all stay within a limit: all() over a row, appended as a flag
    "windows_within_limit": ("""
        def clean_flags(windows, limit):
            flags = []
            for w in windows:
                flags.append(all(abs(v) < limit for v in w))
            return flags
    """, "clean_flags", lambda rng, n: ((rng.standard_normal((n, 6)) * 2).tolist(), 2.5)),
    # a value above any of several thresholds, scored as a float in a conditional expression
    "above_any_threshold": ("""
        def alarm_levels(readings, thresholds):
            out = []
            for r in readings:
                out.append(1.0 if any(r > t for t in thresholds) else 0.0)
            return out
    """, "alarm_levels", lambda rng, n: ((rng.standard_normal(n) * 3).tolist(), [2.0, 4.5, -7.0 + n % 3 * 5])),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_any_and_all_of_a_generator_are_reduced_along_their_axis(tmp_path, case):
    source, name, make = CASES[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    assert "np.any(" in result.files["mod.py"] or "np.all(" in result.files["mod.py"], result.files["mod.py"]
    rng = np.random.default_rng(0)
    for n in (1, 2, 7, 40):
        args = make(rng, n)
        want, got = old(*args), new(*args)
        assert want == got and [type(v) for v in want] == [type(v) for v in got], (n, want, got)


def test_nan_and_empty_rows_keep_python_truth(tmp_path):
    source, name, _ = CASES["windows_within_limit"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    windows = [[0.1, math.nan, 0.2], [0.0, 0.0, 0.0], [3.0, 0.0, 1.0]]
    assert old(windows, 2.5) == new(windows, 2.5) == [False, True, False]  # abs(nan) < 2.5 is False in both
    source = textwrap.dedent("""
        def any_nonzero(rows):
            return [any(v for v in row) for row in rows]
    """)
    old, new, _ = vectorise(tmp_path, source, "any_nonzero")
    rows = [[0.0, math.nan], [0.0, 0.0], [0.0, -0.0], [1e-300, 0.0]]
    assert old(rows) == new(rows) == [True, False, False, True]
