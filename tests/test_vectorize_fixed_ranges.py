"""An inner `range(lo, hi)` whose bounds the loop never changes is a fixed axis, like `range(k)`.

`for d in range(-half, half + 1)` with `half` set before the loop (a window's half-width from a
setting) was refused as "neither fixed nor bounded by numbers of the outer loop", so a running median,
an edge-replicated box filter or a look-ahead maximum stayed a Python loop nest. Each is written as a
pipeline would write it (none is an eval target's): the rewrite must give the loop's values bit for bit,
on long, short and empty inputs; `sorted()` of each window keeps Python's order, -0.0 beside 0.0 included.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.test_vectorize import signal, vectorise
from tests.test_vectorize_records import exact


def rows_of_ints(n, seed=0):
    return np.random.default_rng(seed).integers(0, 40, n).tolist()


CASES = {
    # a running median of detected rows across columns, the window clipped at the edges
    "running_median/ints": ("""
        def running_median(rows, width):
            half = width // 2
            n = len(rows)
            out = []
            for j in range(n):
                window = [rows[min(max(j + d, 0), n - 1)] for d in range(-half, half + 1)]
                out.append(sorted(window)[half])
            return out
    """, "running_median", lambda n: (rows_of_ints(n), 5)),
    # an edge-replicated box filter, the taps' span from a setting
    "box_filter/floats": ("""
        def box_filter(xs, radius):
            n = len(xs)
            lo, hi = -radius, radius + 1
            out = []
            for i in range(n):
                acc = 0.0
                for k in range(lo, hi):
                    acc += xs[min(max(i + k, 0), n - 1)]
                out.append(acc / (hi - lo))
            return out
    """, "box_filter", lambda n: (signal(n, seed=2), 3)),
    # the largest of the next readings, looking ahead a set span (the end repeated)
    "look_ahead_max/ints": ("""
        def look_ahead_max(levels, span):
            n = len(levels)
            return [max(levels[min(i + k, n - 1)] for k in range(1, span)) for i in range(n)]
    """, "look_ahead_max", lambda n: (rows_of_ints(n, seed=3), 4)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_inner_range_with_bounds_the_loop_never_changes_is_a_fixed_axis(tmp_path, name):
    source, function, make_args = CASES[name]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), function)
    body = result.files["mod.py"].split(f"def {function}(", 1)[1]
    assert "for " not in body and "np.arange(" in body, body
    for n in (0, 1, 2, 3, 8, 257):
        exact(old(*make_args(n)), new(*make_args(n)))


def test_a_sorted_window_keeps_pythons_order_of_signed_zeros(tmp_path):
    source, function, _ = CASES["running_median/ints"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), function)
    values = [0.0, -0.0, 1.5, -0.0, 0.0, 0.0, -2.0, -0.0, 0.0]
    got, want = new(values, 5), old(values, 5)
    exact(want, got)
    assert [np.signbit(v) for v in got] == [np.signbit(v) for v in want]
    exact(old(rows_of_ints(50), 3), new(rows_of_ints(50), 3))


def test_sorted_windows_of_strings_are_sorted_as_python_does(tmp_path):
    """The choice of sort reads the dtype first: `np.signbit` has no string loop, so a row of strings must not reach
    it (it raised where `sorted()` of the window ran fine)."""
    source, function, _ = CASES["running_median/ints"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), function)
    words = ["pear", "fig", "apple", "fig", "kiwi", "date", "apple"]
    exact(old(words, 3), new(words, 3))
    exact(old([True, False, True, True], 3), new([True, False, True, True], 3))
