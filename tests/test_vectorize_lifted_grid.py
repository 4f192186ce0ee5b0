"""Array code in a loop over a grid of values, lifted to one more axis (`lifted.py`).

blind25 v3's Lomb-Scargle periodogram looped over 400 trial frequencies with about twenty numpy calls a pass
(`np.cos(omega * t)`, `np.sum(w * c)`): "call to np.cos() inside the loop may have side effects", so nothing was
rewritten. Here three differently written loops of that kind (a classical periodogram, a per-row spread of an image,
an antenna array's beam pattern) each give the loop's values bit for bit, numbers per pass raised by Python's `**`
as the loop raised them; inputs the loop did not assume (a list, float32) run the loop as it was.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import vectorise

GRIDS = {
    # a classical (Schuster) periodogram at trial frequencies, numbers per pass squared
    "schuster_periodogram": ("""
        def periodogram(t, y, freqs):
            y0 = y - np.mean(y)
            n = len(y)
            out = np.zeros(len(freqs))
            for i, f in enumerate(freqs):
                arg = 2.0 * np.pi * f * t
                C = np.sum(y0 * np.cos(arg))
                S = np.sum(y0 * np.sin(arg))
                out[i] = (C ** 2 + S ** 2) / n
            return out
    """, "periodogram", lambda rng, m: (np.sort(rng.uniform(0, 50, m)), rng.normal(size=m),
                                        np.linspace(0.01, 3.0, int(rng.integers(1, 90))))),
    # the spread of each row of an image about its mean, rows picked by the counter
    "row_spread": ("""
        def row_spread(img, floor):
            spread = np.empty(img.shape[0])
            for r in range(len(img)):
                row = img[r]
                mu = row.mean()
                dev = (row - mu) ** 2
                spread[r] = np.sqrt(np.mean(dev)) + floor
            return spread
    """, "row_spread", lambda rng, m: (rng.normal(size=(int(rng.integers(1, 40)), m)), 1e-3)),
    # a uniform linear array's beam pattern over steering angles
    "beam_pattern": ("""
        def beam_pattern(weights, angles, spacing, wavenumber):
            pos = np.arange(len(weights)) * spacing
            gain = np.zeros(len(angles))
            for k, theta in enumerate(angles):
                phase = wavenumber * np.sin(theta) * pos
                re = np.sum(weights * np.cos(phase))
                im = np.sum(weights * np.sin(phase))
                gain[k] = np.sqrt(re * re + im * im) / np.sum(weights)
            return gain
    """, "beam_pattern", lambda rng, m: (rng.uniform(0.2, 1.0, m), np.linspace(-1.5, 1.5, int(rng.integers(1, 120))),
                                         0.5, 2 * np.pi)),
}


def _same(a, b):
    assert type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("case", sorted(GRIDS))
def test_array_code_over_a_grid_is_computed_for_the_whole_grid_to_the_bit(tmp_path, case):
    source, name, make = GRIDS[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    assert "lifted over the loop's grid" in result.summary and "keepdims=True" in result.files["mod.py"]
    rng = np.random.default_rng(26)
    for m in (1, 2, 7, 130, 300):
        for _ in range(4):
            args = make(rng, m)
            _same(old(*args), new(*args))
    # what the loop did not assume runs the loop as it was: float32 arrays, lists
    args = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in make(rng, 50)]
    _same(old(*args), new(*args))
    if case != "row_spread":
        listed = [a.tolist() if isinstance(a, np.ndarray) and a.ndim == 1 and i == 2 else a
                  for i, a in enumerate(make(rng, 20))]
        try:
            want = old(*listed)
        except TypeError as error:  # a list times a float: the loop raises, and so does the rewrite
            with pytest.raises(type(error)):
                new(*listed)
        else:
            _same(want, new(*listed))


def test_a_pass_that_is_not_array_code_or_carries_a_value_stays(tmp_path):
    masked = """
        def masked(t, y, freqs):
            out = np.zeros(len(freqs))
            for i, f in enumerate(freqs):
                keep = np.cos(f * t) > 0
                out[i] = np.sum(y[keep])
            return out
    """
    with pytest.raises(NotApplicable, match=r"as array code lifted over the loop's grid: .*np.cos\(f \* t\) > 0"):
        vectorise(tmp_path, textwrap.dedent(masked), "masked")
    carried = """
        def carried(t, freqs):
            out = np.zeros(len(freqs))
            prev = 0.0
            for i, f in enumerate(freqs):
                cur = np.sum(np.cos(f * t)) + prev
                prev = cur
                out[i] = cur
            return out
    """
    with pytest.raises(NotApplicable, match="lifted over the loop's grid: .*carried|lifted over the loop's grid: .*read"):
        vectorise(tmp_path, textwrap.dedent(carried), "carried")
