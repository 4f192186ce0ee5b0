"""A counting `while` inside a `for` loop's pass is the `for` over the range it counts through.

`k = 0; while k < n_taps and k <= n: ...; k += 1` in each pass of `for n in ...` is written three ways
below (none is an eval target's): the rewrite restates each `while` as a `for`, vectorises the whole
nest, and must give the loop's values bit for bit with no loop left. Where the restatement would change
what runs (a `continue` that skips the raise, the counter read after the `while` or elsewhere in the
pass), the `while` is left as it is and the outer loop is not vectorised whole.
"""
from __future__ import annotations

import textwrap

import pytest

from tests.test_vectorize import signal, vectorise
from tests.test_vectorize_records import exact

CASES = {
    # a causal FIR whose taps run out at the start of the signal: two bounds joined by `and`
    "two_bounds/causal_fir": ("""
        def fir(coeffs, xs):
            ys = []
            m = len(coeffs)
            for t in range(len(xs)):
                total = 0.0
                j = 0
                while j < m and j <= t:
                    total += coeffs[j] * xs[t - j]
                    j += 1
                ys.append(total)
            return ys
    """, "fir", lambda: ([0.05 * (k + 1) for k in range(9)], signal(70, seed=11))),
    # a trailing window mean, the counter starting at the pass's own index
    "own_start/forward_window_mean": ("""
        def forward_mean(vals, span):
            res = []
            for i in range(len(vals)):
                s = 0.0
                c = 0
                p = i
                while p < len(vals) and p - i < span:
                    s += vals[p]
                    c += 1
                    p += 1
                res.append(s / c)
            return res
    """, "forward_mean", lambda: (signal(50, seed=12), 4)),
    # a stride of 2 over a fixed table, `<=` bound
    "stride/even_taps_energy": ("""
        def even_energy(frames, last):
            out = []
            for fr in frames:
                e = 0.0
                q = 0
                while q <= last:
                    e += fr[q] * fr[q]
                    q += 2
                out.append(e)
            return out
    """, "even_energy", lambda: ([signal(12, seed=s) for s in range(20)], 10)),
}
CASES = {k: (textwrap.dedent(src), fn, args) for k, (src, fn, args) in CASES.items()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_counting_while_in_a_pass_is_vectorised_with_the_whole_nest(tmp_path, name):
    source, function, make_args = CASES[name]
    old, new, result = vectorise(tmp_path, source, function)
    exact(old(*make_args()), new(*make_args()))
    body = result.files["mod.py"].split(f"def {function}(", 1)[1]
    assert "while " not in body and "for " not in body, body
    assert "counting while loops as for loops" in result.summary, result.summary


def test_short_signals_give_the_loops_values(tmp_path):
    source, function, make_args = CASES["two_bounds/causal_fir"]
    old, new, _ = vectorise(tmp_path, source, function)
    coeffs, xs = make_args()
    for n in (0, 1, 3, 9, 10):
        exact(old(coeffs, xs[:n]), new(coeffs, xs[:n]))


LEFT = {
    "the counter read after the while": """
        def f(xs, m):
            out = []
            for t in range(len(xs)):
                acc = 0.0
                j = 0
                while j < m and j <= t:
                    acc += xs[t - j]
                    j += 1
                out.append(acc / j)
            return out
    """,
    "a continue that skips the raise": """
        def f(xs, m):
            out = []
            for t in range(len(xs)):
                acc = 0.0
                j = 0
                while j < m:
                    if xs[j] < 0:
                        j += 2
                        continue
                    acc += xs[j]
                    j += 1
                out.append(acc)
            return out
    """,
    "the counter set inside the while": """
        def f(xs, m):
            out = []
            for t in range(len(xs)):
                acc = 0.0
                j = 0
                while j < m:
                    acc += xs[j]
                    j = j * 2
                    j += 1
                out.append(acc)
            return out
    """,
}


@pytest.mark.parametrize("name", sorted(LEFT))
def test_a_while_the_restatement_would_change_is_left(tmp_path, name):
    from perfloop.tools.change.codemods import NotApplicable

    source = textwrap.dedent(LEFT[name])
    try:
        old, new, result = vectorise(tmp_path, source, "f")
    except NotApplicable:
        return  # nothing vectorised: the while stayed, and so did its loop
    assert "counting while loops as for loops" not in result.summary, result.summary
    assert "while " in result.files["mod.py"]
    xs = [abs(v) for v in signal(30)] if name != "a continue that skips the raise" else signal(30)
    exact(old(xs, 5), new(xs, 5))


@pytest.mark.parametrize("name", sorted(LEFT))
def test_the_restatement_itself_leaves_such_a_while(name):
    # The translator refuses some of these on its own (a counter read after its loop is a dead name there); the
    # restatement must not rely on it.
    import ast

    from perfloop.tools.change.codemods.whiles import whiles_as_fors

    body = ast.parse(textwrap.dedent(LEFT[name])).body[0].body
    assert whiles_as_fors(body, 1) is None
    taken = textwrap.dedent(LEFT[name]).replace("out.append(acc / j)", "out.append(acc)")
    if taken != textwrap.dedent(LEFT[name]):  # the same loop with the counter not read after it is restated
        assert whiles_as_fors(ast.parse(taken).body[0].body, 1) is not None
