"""Cases a review of the vectoriser's third-wave constructs found giving another result than the loop.

Each was a rewrite that replay would have had to catch on the captured calls; now each is either refused or
gives the loop's values (types included) on inputs that show the difference. None is an eval target's code.
"""
from __future__ import annotations

import textwrap

import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import vectorise
from tests.test_vectorize_records import exact

SAME = {
    # the counter set again in a branch between its start and the while
    "while/counter_set_between": ("""
        def f(x):
            out = []
            for i in range(len(x)):
                acc = 0.0
                k = 0
                if x[i] > 0:
                    k = 1
                while k <= i:
                    acc += x[k]
                    k += 1
                out.append(acc)
            return out
    """, "f", ([1.0, -2.0, 3.0, 0.5],)),
    # the start reads a name set again before the loop
    "while/start_reads_a_name_set_again": ("""
        def f(x):
            out = []
            for i in range(len(x)):
                lo = i - 2
                k = max(lo, 0)
                lo = 0
                acc = 0.0
                while k <= i:
                    acc += x[k] + lo
                    k += 1
                out.append(acc)
            return out
    """, "f", ([1.0, 2.0, 4.0, 8.0, 16.0],)),
    # a float bound: the while counts up to it, a range() would be truncated
    "while/float_bound": ("""
        def f(x, w):
            out = []
            for i in range(len(x)):
                acc = 0.0
                k = 0
                while k < x[i]:
                    acc += w[k]
                    k += 1
                out.append(acc)
            return out
    """, "f", ([1.5, 0.5, 2.0], [1.0, 10.0, 100.0])),
    # an inner temporary carried from pixel to pixel
    "grid/inner_carried": ("""
        def f(img, w):
            out = []
            for y in range(len(img)):
                prev = img[y][0]
                row = []
                for x in range(w):
                    v = img[y][x] - prev
                    prev = img[y][x]
                    row.append(v)
                out.append(row)
            return out
    """, "f", ([[1.0, 3.0, 6.0], [2.0, 2.0, 7.0]], 3)),
    # an outer temporary reading what the previous row's inner loop left
    "grid/outer_carried": ("""
        def f(img, w):
            out = []
            last = 1.0
            for y in range(len(img)):
                base = last * 2
                row = []
                for x in range(w):
                    last = img[y][x]
                    row.append(base + last)
                out.append(row)
            return out
    """, "f", ([[1.0, 1.0, 4.0], [5.0, 6.0, 7.0]], 3)),
    # a constant product along a ragged range: Python's ints do not wrap
    "ragged/constant_product": ("""
        def f(x, m):
            out = []
            for n in range(len(x)):
                p = 1
                for k in range(n, m):
                    p *= 3
                out.append(p)
            return out
    """, "f", ([0, 1, 2], 45)),
    # a second guard's test reads an index only the first guard keeps in range
    "guards/second_guard_reads_under_the_first": ("""
        def f(ys, srcs):
            out = []
            n = len(ys)
            for s in srcs:
                if s >= n:
                    continue
                if ys[s] < 0:
                    continue
                out.append(ys[s] * 2.0)
            return out
    """, "f", ([1.0, -2.0, 3.0], [0, 5, 1, 2])),
}


@pytest.mark.parametrize("name", sorted(SAME))
def test_the_rewrite_gives_the_loops_values_or_is_refused(tmp_path, name):
    source, function, args = SAME[name]
    try:
        old, new, _ = vectorise(tmp_path, textwrap.dedent(source), function)
    except NotApplicable:
        return  # refused: the loop stays
    exact(old(*args), new(*args))


def test_a_filter_on_a_whole_row_is_not_flattened(tmp_path):
    # `if p` on a row is "not empty"; a mask of its numbers would select numbers, flattening the rows.
    source = textwrap.dedent("""
        def f(kp):
            return [p for p in kp if p]
    """)
    try:
        old, new, _ = vectorise(tmp_path, source, "f")
    except NotApplicable:
        return
    rows = [[1.0, 0.0], [2.0, 3.0]]
    with pytest.raises(TypeError, match="whole row"):
        new(rows)
    assert old(rows) == rows


def test_a_comprehension_that_only_takes_the_items_is_left_alone(tmp_path):
    """`torch.stack([img for img, _ in batch])` in a collate: the comprehension computes nothing, and its items are
    tensors; an array of them and `.tolist()` turned them into lists, and the pipeline failed its smoke run
    (blind17 f5). Such a comprehension is refused, with the loop beside it still tried."""
    import torch

    source = textwrap.dedent("""
        import torch


        def collate(batch):
            images = torch.stack([img for img, _ in batch])
            return images, sum(label for _, label in batch)
    """)
    try:
        old, new, result = vectorise(tmp_path, source, "collate")
    except NotApplicable as refused:
        assert "only takes the items as they are" in str(refused)
        return
    assert "torch.stack([img for img, _ in batch])" in result.files["mod.py"]
    batch = [(torch.ones(2, 2) * k, k) for k in range(3)]
    out_old, out_new = old(batch), new(batch)
    assert torch.equal(out_old[0], out_new[0]) and out_old[1] == out_new[1]
