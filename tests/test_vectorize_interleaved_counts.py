"""Two adds per pass into one counted list keep the loop's order: pass by pass, update after update.

`grid[lo] += w * (1 - f); grid[lo + 1] += w * f` was rewritten as two np.add.at calls, all the first updates then
all the second, so a slot that both a pass's second update and a later pass's first update reach summed its floats
in another order (a last-bit difference). The updates are now stacked per pass and added in one np.add.at.
"""
from __future__ import annotations

import textwrap

import numpy as np

from tests.test_vectorize import assert_same, vectorise


def test_linear_splat_into_a_float_list_keeps_the_order_of_its_two_adds(tmp_path):
    source = """
        def splat(positions, weights, n):
            grid = [0.0] * n
            for pos, w in zip(positions, weights):
                lo = int(pos)
                frac = pos - lo
                grid[lo] += w * (1.0 - frac)
                grid[lo + 1] += w * frac
            return grid
    """
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), "splat")
    assert result.files["mod.py"].count("np.add.at") == 1
    rng = np.random.default_rng(21)
    positions = (rng.random(4000) * 30.0).tolist()
    weights = (rng.standard_normal(4000) * 1e3).tolist()
    assert_same(old(positions, weights, 32), new(positions, weights, 32))


def test_a_guarded_second_add_is_left_out_where_its_guard_failed(tmp_path):
    source = """
        def spread(ticks, gains, n):
            hist = [0.0] * n
            for t, g in zip(ticks, gains):
                b = int(t)
                hist[b] += 0.75 * g
                if b + 1 < n:
                    hist[b + 1] += 0.25 * t
            return hist
    """
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), "spread")
    rng = np.random.default_rng(22)
    ticks, gains = (rng.random(3000) * 20.0).tolist(), rng.standard_normal(3000).tolist()
    assert_same(old(ticks, gains, 20), new(ticks, gains, 20))
    assert_same(old([], [], 20), new([], [], 20))
