"""Lists of zeros made by comprehensions, `[0 for _ in range(n)]` and `[[0 for _ in range(n)] for _ in range(n)]`, are
counted into like `[0] * n`: one np.add.at in the loop's order.

Before, only `[0] * n` and `[[0] * n for _ in range(m)]` were read as lists to count into, and the ml_metrics-style
`histogram` and `confusion_matrix` (blind22 o6's per-step kappa) were refused with "side effect: the loop writes
`hist_ratings[r - min_rating]`". Each case is written as a pipeline would write it (none is an eval target's); the
rewritten function must give the same lists, ints staying ints and float sums bit for bit, on edge inputs too.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.test_vectorize import assert_same, vectorise

CASES = {
    # per-grade counts of integer ratings (a numpy array from the caller), offset by the lowest grade
    "histogram": ("""
        def histogram(ratings, lo, hi):
            hist = [0 for _ in range(hi - lo + 1)]
            for r in ratings:
                hist[r - lo] += 1
            return hist
    """, "histogram", lambda rng, n: (rng.integers(1, 6, n), 1, 5)),
    # a confusion matrix of two raters' labels (Python lists), rows the first rater
    "confusion": ("""
        def confusion(truth, pred, num_classes):
            cm = [[0 for _ in range(num_classes)] for _ in range(num_classes)]
            for t, p in zip(truth, pred):
                cm[t][p] += 1
            return cm
    """, "confusion", lambda rng, n: (rng.integers(0, 4, n).tolist(), rng.integers(0, 4, n).tolist(), 4)),
    # per-class sums of a float score, in the order the samples come (float adds in the loop's order)
    "class_sums": ("""
        def class_sums(labels, scores, k):
            sums = [0.0 for _ in range(k)]
            for c, s in zip(labels, scores):
                sums[c] += s * 0.5
            return sums
    """, "class_sums", lambda rng, n: (rng.integers(0, 7, n).tolist(), rng.standard_normal(n).tolist(), 7)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_counts_into_a_list_a_comprehension_made(tmp_path, case):
    source, name, make = CASES[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    assert "np.add.at" in result.files["mod.py"], result.files["mod.py"]
    rng = np.random.default_rng(4)
    for n in (0, 1, 7, 500):
        args = make(rng, n)
        assert_same(old(*args), new(*args))
