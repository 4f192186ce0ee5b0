"""A list whose own slots a range loop rewrites from their old values: `re[k] = re[k] * g`.

Each pass reads only its own slot, before writing it, so the values are those computed from the old list: said as
`re_new.append(...)` and, after the loop, `re[:len(re_new)] = re_new` (the same list object, the same values), the
loop is one that builds lists, which the translator vectorises. A pass reading another slot (a running sum written
in place) keeps its loop.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tests.test_vectorize import vectorise
from tests.test_vectorize_searches import assert_same_outcome

IN_PLACE = {
    # a spectrum's real and imaginary parts scaled bin by bin
    "whitening": ("""
        def whiten(spec, gains, psd, fs):
            re, im = spec.real.tolist(), spec.imag.tolist()
            norm = fs / 2.0
            for k in range(len(re)):
                g = gains[k] / math.sqrt(psd[k] * norm)
                re[k] = re[k] * g
                im[k] = im[k] * g
            return re, im
    """, "whiten", lambda rng, n: (np.fft.rfft(rng.standard_normal(2 * n + 2)), rng.random(n + 2).tolist(),
                                   (rng.random(n + 2) + 0.1).tolist(), 512.0)),
    # features standardised in place
    "standardise": ("""
        def standardise(feats, mu, sd):
            xs = feats.tolist()
            for i in range(len(xs)):
                xs[i] = (xs[i] - mu) / sd
            return xs
    """, "standardise", lambda rng, n: (rng.standard_normal(n), 0.3, 1.7)),
    # a row clipped in place over a count given by the caller
    "clip": ("""
        def clip_first(row, n, lo, hi):
            vals = list(row)
            for j in range(n):
                vals[j] = min(max(vals[j], lo), hi)
            return vals
    """, "clip_first", lambda rng, n: (rng.standard_normal(n + 2).tolist(), n, -0.5, 0.5)),
}


@pytest.mark.parametrize("case", sorted(IN_PLACE))
def test_slots_rewritten_from_their_old_values_are_one_vectorised_pass(tmp_path, case):
    source, name, make = IN_PLACE[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    body = result.files["mod.py"].split(f"def {name}(")[1]
    assert " for " not in body and "[:len(" in body, result.files["mod.py"]
    rng = np.random.default_rng(14)
    for n in (0, 1, 9, 200):
        assert_same_outcome(old, new, *make(rng, n))


def test_a_count_past_the_list_raises_as_the_loop_did(tmp_path):
    source, name, make = IN_PLACE["clip"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    assert_same_outcome(old, new, [0.1, 0.9], 3, -0.5, 0.5)


def test_a_pass_reading_another_slot_keeps_its_loop(tmp_path):
    source = """
        def prefix_in_place(values):
            xs = values.tolist()
            for i in range(1, len(xs)):
                xs[i] = xs[i] + xs[i - 1] * 0.5
            return xs
    """
    from perfloop.tools.change.codemods import NotApplicable

    try:
        _, _, result = vectorise(tmp_path, textwrap.dedent(source), "prefix_in_place")
    except NotApplicable:
        return
    assert "xs[i - 1]" in result.files["mod.py"], result.files["mod.py"]
