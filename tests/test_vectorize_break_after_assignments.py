"""A loop that ends at a test computed from the pass's own values: plain assignments, then `if test: break`.

blind25 u1's slant-to-ground resampling computed the slant bin of each ground bin (`i0 = int(f)`) and broke at the
first bin past the ping, into a list made as `[0.0] * n_ground` whose later slots stay 0.0. The break was refused
("early exit (break) inside the loop") because it was not the pass's first statement. The assignments before it
only set names, so the passes run are the same as if the test came first; the slots from the breaking pass on keep
the list's float fill. Three differently written loops, each giving the loop's values to the bit (types included).
"""
from __future__ import annotations

import textwrap

import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import vectorise
from tests.test_vectorize_break_guards import assert_break_rewritten_exactly

LOOPS = {
    # a trace resampled from depth to two-way time, into preallocated slots; the rest stay 0.0
    "depth_to_time_slots": ("""
        def depth_to_time(trace, dz, velocity, dt, n_out):
            res = [0.0] * n_out
            last = len(trace) - 1
            for k in range(n_out):
                t = k * dt
                depth = 0.5 * velocity * t
                pos = depth / dz
                lo = int(pos)
                if lo >= last:
                    break
                frac = pos - lo
                res[k] = trace[lo] * (1.0 - frac) + trace[lo + 1] * frac
            return res
    """, "depth_to_time", lambda rng, n: (rng.random(max(n, 2)).tolist(), 0.5, float(rng.uniform(0.5, 3.0)), 0.2,
                                          int(rng.integers(0, 3 * n + 2)))),
    # samples boosted by a growing gain, kept up to the first that clips (a tuple assignment before the test)
    "ramp_until_clip": ("""
        def ramp_until_clip(samples, gain, ceiling):
            kept = []
            for i, s in enumerate(samples):
                boosted, idx = s * gain * (1.0 + 0.01 * i), i
                if abs(boosted) > ceiling:
                    break
                kept.append(boosted - idx * 0.001)
            return kept
    """, "ramp_until_clip", lambda rng, n: (rng.normal(0, 1, n).tolist(), 1.5, 2.5)),
    # weighted doses summed and counted up to the first over the limit
    "dose_until_limit": ("""
        def dose_until_limit(doses, weights, limit):
            total = 0.0
            n = 0
            for j in range(len(doses)):
                d = doses[j] * weights[j]
                if d > limit:
                    break
                total += d
                n += 1
            return total, n
    """, "dose_until_limit", lambda rng, n: (rng.random(n).tolist(), rng.uniform(0.5, 1.5, n).tolist(), 0.9)),
}


@pytest.mark.parametrize("case", sorted(LOOPS))
def test_a_break_after_plain_assignments_keeps_what_the_loop_ran(tmp_path, case):
    assert_break_rewritten_exactly(tmp_path, *LOOPS[case], seed=25)


def test_a_break_after_a_sum_or_into_int_slots_stays(tmp_path):
    # The pass that breaks has already added its term: not the passes before the test.
    summed = """
        def f(xs):
            total = 0.0
            for x in xs:
                y = x * 2.0
                total += y
                if total > 10.0:
                    break
            return total
    """
    with pytest.raises(NotApplicable, match="early exit \\(break\\)"):
        vectorise(tmp_path, textwrap.dedent(summed), "f")
    # Int slots a break leaves beside float values would change type in one array: left as it is.
    int_slots = """
        def g(xs, n):
            out = [0] * n
            for k in range(n):
                v = xs[k] * 0.5
                if v > 3.0:
                    break
                out[k] = v
            return out
    """
    with pytest.raises(NotApplicable, match="break"):
        vectorise(tmp_path, textwrap.dedent(int_slots), "g")
    # Float slots whose values the loop does not compute as floats (copied as they are): the list would come out
    # shorter, the slots after the break dropped instead of filled. Left as it is.
    copied = """
        def h(xs, n):
            out = [0.0] * n
            for k in range(n):
                v = xs[k]
                if v > 3:
                    break
                out[k] = v
            return out
    """
    with pytest.raises(NotApplicable, match="float fill"):
        vectorise(tmp_path, textwrap.dedent(copied), "h")
