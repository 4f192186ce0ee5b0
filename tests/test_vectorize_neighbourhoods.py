"""Neighbourhood statistics in a loop nest that appends rows: a median or a range of a few values per pixel.

Image pipelines write a 3x3 median as two loops, the rows picked with clamps or conditions, the nine
values in a list (sorted in place, with `sorted()`, or by `statistics.median`) and a row appended per
pass. Three ways of writing it and two other statistics below (none is an eval target's): the nest is
restated as one comprehension over both axes, the values stacked and sorted as Python's stable sort
orders them (-0.0 beside 0.0 included), and the results must be equal bit for bit with no loop left.
"""
from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import re_escape, vectorise
from tests.test_vectorize_records import exact


def frame(h=14, w=11, seed=0, zeros=False):
    rng = np.random.default_rng(seed)
    if zeros:  # ties everywhere, -0.0 beside 0.0: the order of equal values shows in the sign of the result
        return rng.choice(np.array([-0.0, 0.0, 1.0, -2.5], dtype=np.float32), (h, w))
    return rng.normal(size=(h, w)).astype(np.float32)


CASES = {
    # clamped indices, the list sorted in place
    "sort_in_place/clamped": ("""
        def despeckle(img):
            rows = img.tolist()
            h, w = len(rows), len(rows[0])
            out = []
            for y in range(h):
                above = rows[max(y - 1, 0)]
                here = rows[y]
                below = rows[min(y + 1, h - 1)]
                line = []
                for x in range(w):
                    l = max(x - 1, 0)
                    r = min(x + 1, w - 1)
                    vals = [above[l], above[x], above[r], here[l], here[x], here[r], below[l], below[x], below[r]]
                    vals.sort()
                    line.append(vals[4])
                out.append(line)
            return out
    """, "despeckle", lambda z: (frame(zeros=z),)),
    # rows picked by conditional expressions, statistics.median of a tuple
    "statistics/conditional_rows": ("""
        def median_filter(grid):
            h = len(grid)
            w = len(grid[0])
            result = []
            for i in range(h):
                a = grid[i - 1] if i > 0 else grid[i]
                b = grid[i]
                c = grid[i + 1] if i < h - 1 else grid[i]
                row = []
                for j in range(w):
                    jl, jr = (j - 1 if j > 0 else 0), (j + 1 if j < w - 1 else w - 1)
                    row.append(statistics.median((a[jl], a[j], a[jr], b[jl], b[j], b[jr], c[jl], c[j], c[jr])))
                result.append(row)
            return result
    """, "median_filter", lambda z: (frame(seed=1, zeros=z).tolist(),)),
    # the index picked in place, sorted() of a tuple, indexed
    "sorted_tuple/picked_index": ("""
        def med3(rows):
            n_rows, n_cols = len(rows), len(rows[0])
            out = []
            for y in range(n_rows):
                r0 = rows[y - 1 if y > 0 else 0]
                r1 = rows[y]
                r2 = rows[y + 1 if y < n_rows - 1 else n_rows - 1]
                orow = []
                for x in range(n_cols):
                    xl = x - 1 if x > 0 else 0
                    xr = x + 1 if x < n_cols - 1 else n_cols - 1
                    win = sorted((r0[xl], r0[x], r0[xr], r1[xl], r1[x], r1[xr], r2[xl], r2[x], r2[xr]))
                    orow.append(win[4])
                out.append(orow)
            return out
    """, "med3", lambda z: (frame(seed=2, zeros=z).tolist(),)),
    # a cross of five: the spread between the smallest and the middle value
    "cross/spread": ("""
        def cross_spread(grid):
            h, w = len(grid), len(grid[0])
            out = []
            for i in range(h):
                up = grid[max(i - 1, 0)]
                dn = grid[min(i + 1, h - 1)]
                mid = grid[i]
                cur = []
                for j in range(w):
                    s = sorted([up[j], dn[j], mid[max(j - 1, 0)], mid[min(j + 1, w - 1)], mid[j]])
                    cur.append(s[2] - s[0])
                out.append(cur)
            return out
    """, "cross_spread", lambda z: (frame(seed=3, zeros=z).tolist(),)),
    # an even count: statistics.median averages the two middles
    "even/horizontal_pairs": ("""
        def pair_median(grid):
            out = []
            width = len(grid[0])
            for r in range(len(grid)):
                line = []
                for c in range(width - 1):
                    line.append(statistics.median([grid[r][c], grid[r][c + 1], 2.0 * grid[r][c], grid[r][c] - 1.0]))
                out.append(line)
            return out
    """, "pair_median", lambda z: (frame(seed=4, zeros=z).tolist(),)),
}
CASES = {k: (textwrap.dedent(src), fn, args) for k, (src, fn, args) in CASES.items()}


@pytest.mark.parametrize("zeros", [False, True], ids=["values", "signed_zero_ties"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_neighbourhood_statistic_is_vectorised_over_the_whole_grid(tmp_path, name, zeros):
    source, function, make_args = CASES[name]
    old, new, result = vectorise(tmp_path, "import statistics\n" + source, function)
    before, after = old(*make_args(zeros)), new(*make_args(zeros))
    exact(before, after)
    signs = [math.copysign(1.0, v) for row in after for v in row]
    assert signs == [math.copysign(1.0, v) for row in before for v in row]
    body = result.files["mod.py"].split(f"def {function}(", 1)[1]
    assert "for " not in body and ".sort()" not in body, body
    assert "rows appended per pass as one grid" in result.summary, result.summary


def test_a_grid_of_one_row_or_one_column_gives_the_loops_values(tmp_path):
    source, function, _ = CASES["sorted_tuple/picked_index"]
    old, new, _ = vectorise(tmp_path, source, function)
    for shape in ((1, 1), (1, 6), (6, 1), (2, 2)):
        grid = frame(*shape).tolist()
        exact(old(grid), new(grid))


def test_a_row_read_elsewhere_keeps_the_nest_and_vectorises_each_row(tmp_path):
    # `line` is read after the inner loop (its length), so the rows cannot become one comprehension: the inner
    # loop alone is vectorised, per row, and says why the grid was not taken.
    source = textwrap.dedent("""
        def per_row(rows):
            out = []
            widths = []
            for y in range(len(rows)):
                line = []
                for x in range(len(rows[y])):
                    vals = [rows[y][x], rows[y][max(x - 1, 0)], rows[y][min(x + 1, len(rows[y]) - 1)]]
                    vals.sort()
                    line.append(vals[1])
                widths.append(len(line))
                out.append(line)
            return out, widths
    """)
    old, new, result = vectorise(tmp_path, source, "per_row")
    grid = frame(5, 7).tolist()
    exact(old(grid), new(grid))
    assert "rows appended per pass as one grid" not in result.summary
    assert "sorted(vals)" in " ".join(result.notes), result.notes


def test_sorting_values_some_of_which_are_fixed_is_refused(tmp_path):
    source = textwrap.dedent("""
        def clipped_median(xs):
            out = []
            for v in xs:
                out.append(sorted([v, 0.0, 1.0])[1])
            return out
    """)
    with pytest.raises(NotApplicable, match=re_escape("sorts values some of which do not vary along the loop")):
        vectorise(tmp_path, source, "clipped_median")



def test_a_value_made_once_per_row_by_a_call_is_not_put_in_each_element():
    # `gain` is drawn once per row; put in place in the grid comprehension it would be drawn once per pixel.
    # The restatement itself refuses it (the translator's own draw rules are a second line, not the first).
    import ast

    from perfloop.tools.change.codemods.nests import appended_rows_as_grid

    source = textwrap.dedent("""
        def row_gain(rows, rng, w):
            out = []
            for y in range(len(rows)):
                gain = GAIN
                line = []
                for x in range(w):
                    line.append(rows[y][x] * gain)
                out.append(line)
            return out
    """)
    for value, taken in (("rng.standard_normal()", False), ("next(it)", False), ("max(rows[y][0], 1.0)", True),
                         ("math.sqrt(abs(rows[y][0]))", True)):
        body = ast.parse(source.replace("GAIN", value)).body[0].body
        grid = appended_rows_as_grid(body, 1)
        assert (grid is not None) == taken, value
        if taken:
            assert value.split("(")[0] in ast.unparse(grid[1]) and grid[0] == 0


@pytest.mark.parametrize("statement", [
    "for dy in (-1, 0, 1):\n    s += rows[y + dy][x]",
    "while s < 3:\n    s += 1",
    "if x > 0:\n    s = rows[y][x - 1]",
])
def test_a_nest_whose_element_is_built_by_a_statement_other_than_an_assignment_is_left_alone(statement):
    # h1 (blind18): a clamped 3x3 sum per pixel, `s = 0` then a `for dy` loop adding into it before the append; the
    # restatement read each statement's value and raised AttributeError on the loop (the codemod crashed).
    import ast

    from perfloop.tools.change.codemods.nests import appended_rows_as_grid

    source = textwrap.dedent("""
        def window_sums(rows, h, w):
            out = []
            for y in range(h):
                line = []
                for x in range(w):
                    s = 0
        STATEMENT
                    line.append(s)
                out.append(line)
            return out
    """).replace("STATEMENT", textwrap.indent(statement, " " * 12))
    body = ast.parse(source).body[0].body
    assert appended_rows_as_grid(body, 1) is None


def test_a_clamped_window_sum_per_pixel_is_rewritten_not_a_crash(tmp_path):
    # Before the fix the codemod raised AttributeError here; with the offset loops written out (unroll.py) the
    # pixel loop is now rewritten, and gives the loop's values.
    source = textwrap.dedent("""
        def local_sums(cell):
            h, w = len(cell), len(cell[0])
            out = []
            for y in range(h):
                line = []
                for x in range(w):
                    s = 0
                    for dy in (-1, 0, 1):
                        r = cell[min(max(y + dy, 0), h - 1)]
                        for dx in (-1, 0, 1):
                            s += r[min(max(x + dx, 0), w - 1)]
                    line.append(s)
                out.append(line)
            return out
    """)
    old, new, _ = vectorise(tmp_path, source, "local_sums")
    cell = np.random.default_rng(3).integers(0, 99, (5, 4)).tolist()
    exact(old(cell), new(cell))


def test_a_sum_the_pass_starts_and_adds_to_is_a_temporary_of_the_grid():
    # `s = 0` then `s += ...` in the same pass (a written-out neighbourhood's additions): `s` is put in place as
    # `(0 + a) + b`, in the pass's order; `s += ...` of what a pass before left is carried, and stays refused.
    import ast

    from perfloop.tools.change.codemods.nests import appended_rows_as_grid

    source = textwrap.dedent("""
        def pair_sums(rows, h, w):
            out = []
            for y in range(h):
                line = []
                for x in range(w):
                    START
                    s += rows[y][x]
                    s += rows[y][max(x - 1, 0)]
                    line.append(s)
                out.append(line)
            return out
    """)
    grid = appended_rows_as_grid(ast.parse(source.replace("START", "s = 0")).body[0].body, 1)
    assert grid is not None and "0 + rows[y][x] + rows[y][max(x - 1, 0)]" in ast.unparse(grid[1]), grid
    assert appended_rows_as_grid(ast.parse(source.replace("START", "pass")).body[0].body, 1) is None
    carried = source.replace("                    START\n", "").replace("for y in range(h):", "s = 0\n    for y in range(h):")
    assert appended_rows_as_grid(ast.parse(carried).body[0].body, 2) is None
