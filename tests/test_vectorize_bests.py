"""A running best and its position, `if v > best: best, at = v, j`, as one argmax with Python's ties and NaNs.

Each shape is written as a pipeline would write it (none is an eval target's): a matcher's best column per row, a
decoder's best class in one pass, a nearest template found with `<` and the best on the left. The rewrite must give
the loop's values bit for bit and of the same types: the first of equal values wins, a term equal to the start never
replaces it, a NaN term never wins, a NaN start is never replaced, and an empty loop leaves the start.
"""
from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from tests.test_vectorize import vectorise
from tests.test_vectorize_records import exact

CASES = {
    # each row's best column and score, the first column the start (a matcher's argmax)
    "nested/best_column": ("""
        def best_columns(scores):
            cols, confs = [], []
            for row in scores:
                best_k, best = 0, row[0]
                for k in range(1, len(row)):
                    if row[k] > best:
                        best_k, best = k, row[k]
                cols.append(best_k)
                confs.append(best)
            return cols, confs
    """, "best_columns"),
    # one pass over class scores from -inf, the position set with the value in one tuple
    "flat/best_class": ("""
        import math


        def best_class(logits):
            best, at = -math.inf, -1
            for i, v in enumerate(logits):
                if v > best:
                    best, at = v, i
            return at, best
    """, "best_class"),
    # the nearest template by squared distance: `<`, the best on the left, two assignments
    "flat/nearest_template": ("""
        def nearest_template(templates, query):
            best_d = float("inf")
            best_i = -1
            for i, t in enumerate(templates):
                d = (t - query) * (t - query)
                if best_d > d:
                    best_d = d
                    best_i = i
            return best_i, best_d
    """, "nearest_template"),
}


def rows(n, m, seed=0):
    return np.round(np.random.default_rng(seed).standard_normal((n, m)), 1).tolist()  # rounded: ties happen


def flat_args(name, values):
    return (values,) if name != "flat/nearest_template" else (values, 0.25)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_running_best_and_its_position_is_one_argmax(tmp_path, name):
    source, function = CASES[name]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), function)
    body = result.files["mod.py"].split(f"def {function}(", 1)[1]
    assert "for " not in body, body
    if name.startswith("nested"):
        for n, m in ((6, 5), (1, 1), (3, 1), (1, 4), (40, 9)):  # no rows at all: see the codemods README's limits
            exact(old(rows(n, m)), new(rows(n, m)))
        return
    for values in (rows(1, 50)[0], [3.0, 3.0, 1.0, 3.0], [], [0.5], [-0.0, 0.0, -0.0], [2, 7, 7, 1], [-math.inf]):
        exact(old(*flat_args(name, values)), new(*flat_args(name, values)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_nans_never_win_as_in_python(tmp_path, name):
    source, function = CASES[name]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), function)
    nan = math.nan
    if name.startswith("nested"):
        grids = ([[nan, 1.0, 2.0], [1.0, nan, 0.5], [nan, nan, nan], [0.0, nan, 3.0]],)
        for grid in grids:
            got, want = new(grid), old(grid)
            assert got[0] == want[0]
            assert [repr(v) for v in got[1]] == [repr(v) for v in want[1]]  # nan where Python kept the NaN start
        return
    for values in ([nan, 1.0, nan, 4.0, 4.0], [nan, nan], [1.0, nan, -2.0]):
        got, want = new(*flat_args(name, values)), old(*flat_args(name, values))
        assert repr(got) == repr(want)


def test_a_start_read_from_the_object_is_kept_and_one_the_loop_changes_is_refused(tmp_path):
    """`best_row, best = self.min_row, -math.inf`: the position starts at a setting of the object, read as it is
    where no term wins. A start the loop itself changes would be read after it: the loop is refused as before."""
    from perfloop.tools.change.codemods import NotApplicable

    source = textwrap.dedent("""
        import math


        class Edge:
            def __init__(self, min_row):
                self.min_row = min_row

            def strongest(self, s):
                best_row, best = self.min_row, -math.inf
                for i in range(max(self.min_row, 1), len(s) - 1):
                    g = s[i + 1] - s[i - 1]
                    if g > best:
                        best, best_row = g, i
                return best_row
    """)
    (tmp_path / "mod.py").write_text(source)
    old_ns, new_ns = {}, {}
    exec(compile(source, "old", "exec"), old_ns)
    from perfloop.tools.change.codemods import CodemodContext, apply_codemod
    from tests.conftest import hot

    line = next(i for i, l in enumerate(source.splitlines(), 1) if "def strongest(" in l)
    result = apply_codemod("vectorize_hot_function",
                           CodemodContext(root=tmp_path, profile=hot("Edge.strongest", "mod.py", line)))
    exec(compile(result.files["mod.py"], "new", "exec"), new_ns)
    for column in (rows(1, 40)[0], [1.0, 1.0, 1.0, 1.0], [0.0, 2.0], [], [3.0, math.nan, 1.0, 5.0, 5.0]):
        for min_row in (0, 2, 7):
            exact(old_ns["Edge"](min_row).strongest(column), new_ns["Edge"](min_row).strongest(column))
    changed = textwrap.dedent("""
        def drifting(xs):
            first = 0.0
            best, at = first, -1
            for i, v in enumerate(xs):
                first = v
                if v > best:
                    best, at = v, i
            return at
    """)
    with pytest.raises(NotApplicable):
        vectorise(tmp_path, changed, "drifting")
