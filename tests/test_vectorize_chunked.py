"""A loop summing fixed-size chunks by a counter it resets (`n += 1; if n == K: emit; total = 0.0; n = 0`) is
vectorised as one gather of the chunks.

Before, the counter was a loop-carried dependency ("`n_in_epoch` is read before this iteration sets it").
`chunked.chunks_by_counter` restates the loop as a loop over chunks of K, each from the sums' first values, the emit
after each; the rewrite runs where K is a positive int, and the loop as it was otherwise. Each case is written as a
pipeline would write it (none is an eval target's); the rewritten function must give the same values, to the bit,
with a trailing part chunk, fewer elements than K, no elements, and Ks the guard sends to the loop (0, negative, a
float, a numpy int).
"""
from __future__ import annotations

import textwrap
from types import SimpleNamespace

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import assert_same, vectorise

CASES = {
    # activity counts per epoch from an (n, 3) int16 dump: rows unpacked from .tolist(), a dead band
    "epoch_counts": ("""
        def epoch_counts(raw, lsb, per_epoch, band):
            counts = []
            total = 0.0
            n = 0
            for x, y, z in raw.tolist():
                x, y, z = x / lsb, y / lsb, z / lsb
                e = abs(math.sqrt(x * x + y * y + z * z) - 1.0)
                if e > band:
                    total += e - band
                n += 1
                if n == per_epoch:
                    counts.append(total * 2.5)
                    total = 0.0
                    n = 0
            return counts
    """, "epoch_counts", lambda rng, n, k: (rng.integers(-3000, 3000, (n, 3)).astype(np.int16), 1024.0, k, 0.05)),
    # block sums and means of a list of floats, two emits
    "block_means": ("""
        def block_means(values, block):
            sums, means = [], []
            acc = 0.0
            count = 0
            for v in values:
                acc += v * v
                count += 1
                if count == block:
                    sums.append(acc)
                    means.append(acc / block)
                    acc = 0.0
                    count = 0
            return sums, means
    """, "block_means", lambda rng, n, k: (rng.standard_normal(n).tolist(), k)),
    # frame energies of a recording's samples (an attribute) as (sum, sum of squares) records, the size on the left
    "frame_records": ("""
        def frames(rec, size):
            out = []
            s1 = 0.0
            s2 = 0.0
            i = 0
            for v in rec.samples:
                s1 += v
                s2 += v * v
                i += 1
                if size == i:
                    out.append((s1, s2))
                    s1 = 0.0
                    s2 = 0.0
                    i = 0
            return out
    """, "frames", lambda rng, n, k: (SimpleNamespace(samples=rng.standard_normal(n).tolist()), k)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_chunks_summed_by_a_reset_counter_are_vectorised(tmp_path, case):
    source, name, make = CASES[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    assert "chunks summed by a counter" in result.summary, result.summary
    rng = np.random.default_rng(13)
    for n, k in ((0, 3), (2, 3), (3, 3), (10, 3), (301, 30), (40, 1), (12, 0), (12, -2), (12, 3.0), (12, 2.5),
                 (12, np.int64(4)), (5, True)):
        args = make(rng, n, k)
        assert_same(old(*args), new(*args))


LEFT = {
    "the counter read after the loop": """
        def f(values, k):
            out, acc, n = [], 0.0, 0
            for v in values:
                acc += v
                n += 1
                if n == k:
                    out.append(acc)
                    acc = 0.0
                    n = 0
            return out, n
    """,
    # every element appended, the trailing part chunk's too: a loop over whole chunks would miss them
    "an append per element": """
        def f(values, k):
            out, seen = [], []
            acc = 0.0
            n = 0
            for v in values:
                seen.append(v * 2.0)
                acc += v
                n += 1
                if n == k:
                    out.append(acc)
                    acc = 0.0
                    n = 0
            return out, seen
    """,
    "a sum reset to another value than it was made with": """
        def f(values, k):
            out = []
            acc = 1.0
            n = 0
            for v in values:
                acc += v
                n += 1
                if n == k:
                    out.append(acc)
                    acc = 0.0
                    n = 0
            return out
    """,
}


@pytest.mark.parametrize("case", sorted(LEFT))
def test_other_counters_are_not_restated(tmp_path, case):
    try:
        old, new, result = vectorise(tmp_path, textwrap.dedent(LEFT[case]), "f")
    except NotApplicable:
        return
    assert "chunks summed by a counter" not in result.summary
    values = np.random.default_rng(4).standard_normal(17).tolist()
    assert_same(old(values, 4), new(values, 4))
