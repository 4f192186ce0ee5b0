"""A short loop over values written in the code, inside another loop, is written out so the outer loop vectorises.

Neighbourhood code walks its offsets with a literal loop (`for dy in (-1, 0, 1)`, `for dy, dx in ((-1, 0), ...)`,
kernel taps with their weights); the vectoriser refused the few-pass loop, and with it the pixel loop around it.
Each case is written as a pipeline would write it (none is an eval target's): the rewrite must give the loop's
values bit for bit on full, one-row and one-column inputs; the refusals say why the loop stays.
"""
from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from perfloop.tools.change.codemods.unroll import unroll_literal_loops
from tests.test_vectorize import signal, vectorise
from tests.test_vectorize_records import exact


def grid(h, w, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w)).tolist()


CASES = {
    # a 3x3 box sum with edge clamping, the row read into a name once per offset
    "box_sum": ("""
        def box_sum(img):
            h, w = len(img), len(img[0])
            out = []
            for y in range(h):
                row_out = []
                for x in range(w):
                    acc = 0
                    for dy in (-1, 0, 1):
                        src = img[min(max(y + dy, 0), h - 1)]
                        for dx in (-1, 0, 1):
                            acc += src[min(max(x + dx, 0), w - 1)]
                    row_out.append(acc)
                out.append(row_out)
            return out
    """, "box_sum", lambda h, w: (grid(h, w),)),
    # the four neighbours' largest value, offsets as pairs
    "four_neighbour_max": ("""
        def neighbour_peak(img):
            h, w = len(img), len(img[0])
            out = []
            for y in range(h):
                line = []
                for x in range(w):
                    best = img[y][x]
                    for oy, ox in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                        best = max(best, img[min(max(y + oy, 0), h - 1)][min(max(x + ox, 0), w - 1)])
                    line.append(best - img[y][x])
                out.append(line)
            return out
    """, "neighbour_peak", lambda h, w: (grid(h, w, 1),)),
    # three kernel taps with their weights along a signal (floats: the additions in the loop's order)
    "weighted_taps": ("""
        def smooth(xs):
            n = len(xs)
            out = []
            for i in range(n):
                acc = 0.0
                for k, wgt in ((-1, 0.25), (0, 0.5), (1, 0.25)):
                    acc += wgt * xs[min(max(i + k, 0), n - 1)]
                out.append(acc)
            return out
    """, "smooth", lambda h, w: (signal(h * w),)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_literal_offset_loop_is_written_out_and_the_pixel_loop_vectorised(tmp_path, case):
    source, name, make = CASES[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    text = result.files["mod.py"]
    assert "np." in text and "written out" in " ".join(result.notes), (text, result.notes)
    for h, w in ((7, 9), (1, 5), (6, 1), (2, 2)):
        args = make(h, w)
        exact(old(*args), new(*args))


def test_the_values_are_put_in_the_loops_order_with_tuple_targets():
    fn = ast.parse(textwrap.dedent("""
        def f(xs):
            out = []
            for i in range(len(xs)):
                t = 0
                for a, (b, c) in ((1, (2, 3)), (-4, (5.5, 'k'))):
                    t = t * a + b
                out.append(t)
            return out
    """)).body[0]
    new, unrolled = unroll_literal_loops(fn)
    inner = ast.unparse(new.body[1].body)
    assert inner.index("t * 1 + 2") < inner.index("t * -4 + 5.5"), inner
    assert list(unrolled.moved) == [(1,)] and len(unrolled.notes) == 1


@pytest.mark.parametrize("body, why", [
    ("for dy in (-1, 0, 1):\n    s += xs[i + dy]\nlast = dy", "the loop's name is read after it"),
    ("for dy in (-1, 0, 1):\n    if xs[i] > 3:\n        break\n    s += dy", "an early exit"),
    ("for dy in (-1, 0, 1):\n    s += xs[i]\n    dy = 2", "the body sets the loop's name"),
    ("for dy in tuple(range(3)):\n    s += dy", "not values written in the code"),
    ("for dy in (" + ", ".join(map(str, range(12))) + "):\n    s += dy", "more than 9 values"),
    ("for dy, dx in ((1, 2), 3):\n    s += dy", "a value whose shape is not the target's"),
])
def test_loops_that_cannot_be_written_out_stay(body, why):
    source = "def f(xs):\n    out = []\n    for i in range(1, len(xs) - 1):\n        s = 0\n" \
             + textwrap.indent(body, " " * 8) + "\n        out.append(s)\n    return out\n"
    fn = ast.parse(source).body[0]
    new, unrolled = unroll_literal_loops(fn)
    assert new is fn and not unrolled.notes, why


def test_a_literal_loop_at_the_top_of_the_function_stays():
    fn = ast.parse("def f(xs):\n    s = 0\n    for k in (1, 2, 3):\n        s += xs[k]\n    return s\n").body[0]
    assert unroll_literal_loops(fn)[0] is fn


def test_a_row_name_changed_between_its_reads_is_not_read_in_place():
    fn = ast.parse(textwrap.dedent("""
        def f(img):
            out = []
            for y in range(1, len(img) - 1):
                s = 0
                for dy in (-1, 1):
                    r = img[y + dy]
                    s += r[0]
                    img[y + dy] = [0]
                    s += r[0]
                out.append(s)
            return out
    """)).body[0]
    new, _ = unroll_literal_loops(fn)
    assert "r = img[y + -1]" in ast.unparse(new), ast.unparse(new)


def test_rewrites_inside_a_block_whose_statements_moved_are_left_out(tmp_path):
    # The pixel loop is refused (a call it cannot read), so the vectoriser looks into it: the block it would look
    # into holds the written-out loop, and a rewrite's place there would not be the text's.
    source = textwrap.dedent("""
        def mixed(img, log):
            h, w = len(img), len(img[0])
            out = []
            for y in range(h):
                for x in range(w):
                    s = 0
                    for dx in (-1, 1):
                        s += img[y][min(max(x + dx, 0), w - 1)]
                    log.append(s)
                    halves = [v * 0.5 for v in img[y]]
                    out.append(halves[x] + s)
            return out
    """)
    with pytest.raises(NotApplicable):
        vectorise(tmp_path, source, "mixed")
