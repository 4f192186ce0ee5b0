"""An array kept from one rewritten statement to the next (chains.py), instead of a list and back.

A metric written as a chain of comprehensions (centre both signals, project, take the residual) was rewritten
statement by statement, each one ending in `.tolist()` and the next starting with `np.asarray`: on a few thousand
samples the conversions cost what the loops saved. Each case is written as a pipeline would write it (none is an
eval target's): the rewrite must give the function's values bit for bit on lists of floats and ints, float32
arrays and empty inputs, and make no list nothing reads.
"""
from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from tests.test_vectorize import vectorise
from tests.test_vectorize_records import exact

CASES = {
    # a normalised cross-correlation of two centred signals
    "centred_correlation": ("""
        def centred_correlation(a, b):
            n = len(a)
            ma = sum(a) / n
            mb = sum(b) / n
            da = [x - ma for x in a]
            db = [y - mb for y in b]
            num = sum(x * y for x, y in zip(da, db))
            den = math.sqrt(sum(x * x for x in da) * sum(y * y for y in db))
            return num / den if den else 0.0
    """, "centred_correlation", 2),
    # a z-score, clipped, then its energy; the clipped list is returned, so it is still made
    "clipped_energy": ("""
        def clipped_energy(xs, m, s):
            zs = [(x - m) / s for x in xs]
            cs = [min(max(z, -3.0), 3.0) for z in zs]
            energy = sum(c * c for c in cs)
            return energy, cs
    """, "clipped_energy", 1),
    # a residual after a least-squares gain, in dB
    "residual_db": ("""
        def residual_db(est, ref):
            gain = sum(e * r for e, r in zip(est, ref)) / (sum(r * r for r in ref) + 1e-9)
            scaled = [gain * r for r in ref]
            resid = [e - s for e, s in zip(est, scaled)]
            return 10.0 * math.log10(sum(s * s for s in scaled) / (sum(v * v for v in resid) + 1e-9) + 1e-9)
    """, "residual_db", 2),
}


def _inputs(arity, name):
    rng = np.random.default_rng(5)
    floats = [rng.standard_normal(300).tolist() for _ in range(arity)]
    ints = [rng.integers(-9, 9, 40).tolist() for _ in range(arity)]
    extra = (0.25, 1.5) if name == "clipped_energy" else ()
    return [(*s, *extra) for s in (floats, ints)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_chain_of_rewritten_statements_passes_arrays(tmp_path, case):
    source, name, arity = CASES[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    text = result.files["mod.py"].split(f"def {name}(")[1]
    assert "kept as an array" in " ".join(result.notes), result.notes
    lists = [line for line in text.splitlines() if line.endswith(".tolist()") and " else " not in line]
    assert len(lists) == (1 if case == "clipped_energy" else 0), text
    for args in _inputs(arity, case):
        exact(old(*args), new(*args))


@pytest.mark.parametrize("case", sorted(CASES))
def test_kept_arrays_give_what_the_round_trips_gave_on_any_dtype(tmp_path, case, monkeypatch):
    """float32 and int32 arrays (a list of their items comes back float64 and int64) and empty inputs: the chained
    rewrite gives, bit for bit and type for type, what the statement-by-statement rewrite gave."""
    from perfloop.tools.change.codemods import vectorize

    source, name, arity = CASES[case]
    _, chained, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    monkeypatch.setattr(vectorize, "keep_arrays", lambda fn, rewrites: None)
    _, separate, result = vectorise(tmp_path, textwrap.dedent(source), name)
    assert ".tolist()" in result.files["mod.py"]
    rng = np.random.default_rng(9)
    extra = (np.float32(0.25), 1.5) if case == "clipped_energy" else ()
    for make in (lambda: rng.standard_normal(50).astype(np.float32), lambda: rng.integers(-5, 5, 9).astype(np.int32),
                 lambda: rng.integers(0, 2, 7).astype(bool)):
        args = (*(make() for _ in range(arity)), *extra)
        with np.errstate(all="ignore"):
            want, got = separate(*args), chained(*args)
        exact(want, got)


def test_a_list_a_statement_left_in_python_changes_is_still_made_and_read_back(tmp_path):
    source = textwrap.dedent("""
        def padded_energy(xs, m):
            ds = [x - m for x in xs]
            ds.append(0.5)
            return sum(d * d for d in ds)
    """)
    old, new, result = vectorise(tmp_path, source, "padded_energy")
    assert "kept as an array" not in " ".join(result.notes)
    for xs in ([1.0, 2.5, -3.0], [], [7]):
        exact(old(xs, 0.25), new(xs, 0.25))


def test_a_name_bound_again_ends_the_chain(tmp_path):
    source = textwrap.dedent("""
        def twice(xs):
            ys = [x * 2.0 for x in xs]
            total = sum(y for y in ys)
            ys = [x + 1.0 for x in xs]
            return total, sum(y * y for y in ys)
    """)
    old, new, _ = vectorise(tmp_path, source, "twice")
    for xs in ([1.0, -2.0, 3.5], [4], [0.5, 0.25]):
        exact(old(xs), new(xs))
    assert math.isfinite(new([1.0])[1])
