"""Reads under a condition: `xs[j]` where only `if 0 <= j < n` lets Python read it.

The vectorised loop computes every element and masks afterwards, so an index the condition would
have skipped is read too, and one past the end raised IndexError where the loop ran fine. Each way a
condition guards a read (an `if` block of sums, a conditional expression, `and`/`or`, `if ...:
continue`, a comprehension's filter, an if/else, a ragged inner range) is written here as a data
pipeline would write it (none is an eval target's): the rewrite must give the loop's values bit for
bit, and a read the condition lets through past the end must still raise.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.test_vectorize import signal, vectorise
from tests.test_vectorize_records import exact


def edge_weights(radius=3):
    return [1.0 / (1 + abs(k)) for k in range(-radius, radius + 1)]


CASES = {
    # an `if` block of two sums, the bound test written as a chained comparison
    "if_block/renormalised_smoothing": ("""
        def smooth_track(ys, weights):
            n, half = len(ys), len(weights) // 2
            out = []
            for i in range(n):
                acc = 0.0
                norm = 0.0
                for k, w in enumerate(weights):
                    src = i + k - half
                    if 0 <= src < n:
                        acc += w * ys[src]
                        norm += w
                out.append(acc / norm)
            return out
    """, "smooth_track", lambda: (signal(120), edge_weights())),
    # one sum under `if`, the bounds as two tests joined by `and`, over a fixed tap table
    "if_sum/causal_fir": ("""
        def causal_fir(x, taps):
            y = []
            for t in range(len(x)):
                s = 0.0
                for k in range(len(taps)):
                    if t - k >= 0 and t - k < len(x):
                        s += taps[k] * x[t - k]
                y.append(s)
            return y
    """, "causal_fir", lambda: (signal(90, seed=3), [0.5, 0.25, 0.125, 0.0625, 0.03125])),
    # a conditional expression whose one side reads the neighbours
    "ifexp/central_difference": ("""
        def central_diff(vals, rate):
            last = len(vals) - 1
            return [(vals[i + 1] - vals[i - 1]) * 0.5 * rate if 0 < i < last else 0.0 for i in range(len(vals))]
    """, "central_diff", lambda: (signal(70, seed=4), 25.0)),
    # `and` whose right operand reads the next element only where there is one
    "boolop/rising_edges": ("""
        def rising(levels, thr):
            n = len(levels)
            return [i + 1 < n and levels[i + 1] > thr >= levels[i] for i in range(n)]
    """, "rising", lambda: (signal(80, seed=6), 0.1)),
    # `or` whose right operand reads only where the left was false
    "boolop/flag_or_jump": ("""
        def flagged(xs, limit):
            size = len(xs)
            return [i >= size - 2 or abs(xs[i + 2] - xs[i]) > limit for i in range(size)]
    """, "flagged", lambda: (signal(60, seed=7), 1.0)),
    # `if ...: continue` before a read at a lag
    "continue/lagged_returns": ("""
        def lagged_returns(prices, lag):
            out = []
            for i in range(len(prices)):
                if i + lag >= len(prices):
                    continue
                out.append(prices[i + lag] / prices[i] - 1.0)
            return out
    """, "lagged_returns", lambda: ([100.0 + v for v in signal(50, seed=8)], 3)),
    # a comprehension's filter
    "filter/next_values": ("""
        def next_of_positive(xs):
            n = len(xs)
            return [xs[i + 1] * 2.0 for i in range(n) if i + 1 < n and xs[i] > 0]
    """, "next_of_positive", lambda: (signal(64, seed=9),)),
    # if/else setting the same name from a forward read or a constant
    "if_else/forward_gap": ("""
        def gaps(stamps):
            res = []
            for i in range(len(stamps)):
                if i + 1 < len(stamps):
                    g = stamps[i + 1] - stamps[i]
                else:
                    g = 0.0
                res.append(g)
            return res
    """, "gaps", lambda: (sorted(signal(40, seed=10)),)),
}
CASES = {k: (textwrap.dedent(src), fn, args) for k, (src, fn, args) in CASES.items()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_read_under_a_condition_is_vectorised_with_identical_results(tmp_path, name):
    source, function, make_args = CASES[name]
    old, new, result = vectorise(tmp_path, source, function)
    exact(old(*make_args()), new(*make_args()))
    body = result.files["mod.py"].split(f"def {function}(", 1)[1]
    assert "for " not in body, body
    assert "np.where(" in body and result.tolerance is None


@pytest.mark.parametrize("name", ["if_block/renormalised_smoothing", "continue/lagged_returns", "ifexp/central_difference"])
def test_short_and_empty_inputs_give_the_loops_values(tmp_path, name):
    source, function, make_args = CASES[name]
    old, new, _ = vectorise(tmp_path, source, function)
    first, *rest = make_args()
    for n in (0, 1, 2, 3):
        exact(old(first[:n], *rest), new(first[:n], *rest))


def test_a_read_the_condition_lets_through_past_the_end_still_raises(tmp_path):
    # `i - 1 >= -2` lets i = 0 read xs[-1] (Python wraps it, as numpy does) and never guards the end:
    # `xs[i + 1]` at the last element raises in both versions.
    source = textwrap.dedent("""
        def pairs(xs):
            out = []
            for i in range(len(xs)):
                if i - 1 >= -2:
                    d = xs[i + 1] - xs[i - 1]
                else:
                    d = 0.0
                out.append(d)
            return out
    """)
    old, new, _ = vectorise(tmp_path, source, "pairs")
    xs = signal(12)
    for fn in (old, new):
        with pytest.raises(IndexError):
            fn(xs)
    exact(old(xs[:0]), new(xs[:0]))


def test_a_condition_is_named_once_and_nested_conditions_do_not_repeat_it(tmp_path):
    source = textwrap.dedent("""
        def mask(rows, cols, n, n_q, width):
            out = []
            for i in range(width):
                out.append([i == j or (i < n and j < n and (i < n_q or j < n_q or rows[i] == rows[j]
                                                              or cols[i] == cols[j])) for j in range(width)])
            return out
    """)
    old, new, result = vectorise(tmp_path, source, "mask")
    rng = np.random.default_rng(2)
    rows, cols = rng.integers(0, 4, 9).tolist(), rng.integers(0, 3, 9).tolist()
    exact(old(rows, cols, 9, 2, 14), new(rows, cols, 9, 2, 14))
    body = result.files["mod.py"].split("def mask(", 1)[1]
    assert len(body) < 2500, body  # each test is a name read where needed, not its text copied into every read


TRUTHY = {
    # a visibility flag per keypoint (0, 1, 2): `if v` keeps the nonzero ones
    "flags/visible_xs": ("""
        def visible_xs(kp, vis):
            return [p[0] * 2.0 for p, v in zip(kp, vis) if v]
    """, "visible_xs", lambda: (np.random.default_rng(5).normal(size=(12, 2)).tolist(),
                                np.random.default_rng(6).integers(0, 3, 12).tolist())),
    # weights as floats, zero meaning "left out", NaN counting as kept (Python reads NaN as true)
    "weights/kept_values": ("""
        def kept(values, weights):
            return [v + 1.0 for v, w in zip(values, weights) if w]
    """, "kept", lambda: (signal(10, seed=13), [0.0, 1.5, float("nan"), 0.0, -2.0, 1.0, 0.0, 0.25, 3.0, 0.0])),
    # a sum over each row's entries whose mask entry is set, the mask of ints
    "row_mask/masked_row_sums": ("""
        def masked_sums(rows, masks):
            out = []
            for row, mask in zip(rows, masks):
                out.append(sum(x for x, m in zip(row, mask) if m))
            return out
    """, "masked_sums", lambda: (np.random.default_rng(7).normal(size=(6, 5)).tolist(),
                                 np.random.default_rng(8).integers(0, 3, (6, 5)).tolist())),
}
TRUTHY = {k: (textwrap.dedent(src), fn, args) for k, (src, fn, args) in TRUTHY.items()}


@pytest.mark.parametrize("name", sorted(TRUTHY))
def test_a_filter_on_numbers_keeps_the_nonzero_ones_as_python_does(tmp_path, name):
    # A mask of ints or floats indexes an array (`arr[[2, 0, 1]]`) instead of selecting from it: read as a truth value.
    source, function, make_args = TRUTHY[name]
    old, new, result = vectorise(tmp_path, source, function)
    exact(old(*make_args()), new(*make_args()))
    assert ".astype(bool)" in result.files["mod.py"]


def test_a_count_under_a_filter_is_counted_not_summed(tmp_path):
    # `sum(1 for ... if cond)` adds ints, the same in any order: np.count_nonzero of the mask, an int as sum() gives.
    source = textwrap.dedent("""
        def sweep(scores, labels, n):
            out = []
            for i in range(1, n):
                t = i / n
                above = sum(1 for s in scores if s >= t)
                hits = sum(1 for s, y in zip(scores, labels) if y and s >= t)
                out.append((above, hits))
            return out
    """)
    old, new, result = vectorise(tmp_path, source, "sweep")
    rng = np.random.default_rng(9)
    scores, labels = rng.random(300).tolist(), rng.integers(0, 2, 300).tolist()
    exact(old(scores, labels, 20), new(scores, labels, 20))
    exact(old([], [], 4), new([], [], 4))
    assert "np.count_nonzero(" in result.files["mod.py"] and "np.insert(" not in result.files["mod.py"]
