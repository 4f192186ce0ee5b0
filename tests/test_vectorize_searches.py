"""Three loop shapes data pipelines write that the vectoriser refused, each now taken with the loop's semantics:

- a searching `while` inside a pass, `z = 0; while z < len(bounds) and p >= bounds[z] * ftp: z += 1`: the first
  position whose test fails, or the bound (`whiles._searched_for`, restated as a running min);
- `enumerate(seq, start)` (`counted_from.py`): the counter raised by the start, which must be an int as enumerate
  requires;
- a test whose first operand the loop does not change, `if clip is not None and (x > clip or x < -clip)`: the rest is
  read only where the first lets Python go on (`ConditionRules.settled_first`), since `x > None` raises.

Before, these read "`While` inside the loop is not an element-wise computation", "loop over `enumerate(...,
start_index)` ... is not a form the vectoriser knows" and "`clip is not None` has no numpy equivalent". Each case is
written as a pipeline would write it (none is an eval target's); the rewritten function must return the same values,
to the bit, on edge inputs too: no elements, no bounds, values equal to a bound, NaN.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import vectorise


def same(old, new) -> None:
    """The same values and containers, to the bit (NaN where NaN)."""
    assert type(old) is type(new), (type(old), type(new))
    if isinstance(old, np.ndarray):
        assert old.dtype == new.dtype and old.shape == new.shape
        assert old.tobytes() == new.tobytes()
    elif isinstance(old, (list, tuple)):
        assert len(old) == len(new)
        for a, b in zip(old, new):
            same(a, b)
    elif isinstance(old, float):
        assert (old == new) or (old != old and new != new), (old, new)
    else:
        assert old == new, (old, new)


def outcome(func, *args):
    try:
        return "value", func(*args)
    except Exception as exc:  # noqa: BLE001 - the same exception type is what is compared
        return "raised", type(exc)


def assert_same_outcome(old, new, *args):
    kind_old, got_old = outcome(old, *args)
    kind_new, got_new = outcome(new, *args)
    assert kind_old == kind_new, (kind_old, got_old, kind_new, got_new)
    if kind_old == "raised":
        assert got_old is got_new
    else:
        same(got_old, got_new)


# searching `while` loops ------------------------------------------------------------------------------------------
SEARCHES = {
    # heart-rate zones: a beat's zone is how many cut-offs (percent of the athlete's maximum) it reaches
    "zones": ("""
        def zone_tally(hr, hr_max, cuts):
            tally = [0] * (len(cuts) + 1)
            for bpm in hr:
                zone = 0
                while zone < len(cuts) and bpm * 100 >= cuts[zone] * hr_max:
                    zone += 1
                tally[zone] += 1
            return tally
    """, "zone_tally",
        lambda rng, n, m: (rng.integers(60, 200, n), 190, sorted(rng.integers(50, 100, m).tolist()))),
    # bucket ids of float features against sorted edges (a quantile binning), NaN falling through every test
    "buckets": ("""
        def bucketise(values, edges):
            ids = []
            for v in values:
                k = 0
                while k < len(edges) and v > edges[k]:
                    k += 1
                ids.append(k)
            return ids
    """, "bucketise", lambda rng, n, m: (
        np.where(rng.random(n) < 0.1, np.nan, rng.standard_normal(n)).tolist(),
        sorted(rng.standard_normal(m).round(1).tolist()))),
    # the first lag from 1 at which a series' autocorrelation row drops below a threshold, capped at 10
    "first_drop": ("""
        def decorrelation_lags(acf_rows, max_lag, thresh):
            out = []
            for row in acf_rows:
                lag = 1
                while lag < 10 and lag < len(row) and row[lag] >= thresh:
                    lag += 1
                out.append(lag)
            return out
    """, "decorrelation_lags", lambda rng, n, m: (
        [np.cumprod(rng.uniform(0.7, 1.0, 12)).tolist() for _ in range(n)], m, 0.5)),
}


@pytest.mark.parametrize("case", sorted(SEARCHES))
def test_a_searching_while_is_a_running_min(tmp_path, case):
    source, name, make = SEARCHES[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    assert "while" not in result.files["mod.py"].split(f"def {name}(")[1].split("\ndef ")[0], result.files["mod.py"]
    rng = np.random.default_rng(5)
    # No rows at all have no second axis (`shape[1]` raises where the loop returns []): an older rule of the
    # translator, not this one's.
    for n, m in ((0 if case != "first_drop" else 1, 3), (1, 3), (40, 0), (40, 1), (300, 5), (300, 12)):
        args = make(rng, n, m)
        assert_same_outcome(old, new, *args)
    if case == "zones":  # a beat exactly on a cut-off: >= counts it in the upper zone
        args = (np.array([95, 190, 171, 0]), 190, [50, 90, 100])
        same(old(*args), new(*args))


LEFT = {
    # the body does more than count: the value is that of the last pass, not a search
    "a body that does more": """
        def f(values, edges):
            out = []
            for v in values:
                k = 0
                acc = 0.0
                while k < len(edges) and v > edges[k]:
                    acc += edges[k]
                    k += 1
                out.append(k + acc)
            return out
    """,
    # `weights[k]` under `k < len(edges)`: weights may be shorter, where the `while` never read past the first fail
    "an index no len() bounds": """
        def f(values, edges, weights):
            out = []
            for v in values:
                k = 0
                while k < len(edges) and v * weights[k] > edges[k]:
                    k += 1
                out.append(k)
            return out
    """,
}


@pytest.mark.parametrize("case", sorted(LEFT))
def test_other_whiles_stay(tmp_path, case):
    try:
        old, new, result = vectorise(tmp_path, textwrap.dedent(LEFT[case]), "f")
    except NotApplicable:
        return
    assert "while" in result.files["mod.py"], result.files["mod.py"]


# enumerate(seq, start) ---------------------------------------------------------------------------------------------
STARTED = {
    # a weekly profile of daily readings from an absolute day number, leaving out readings past an optional limit
    "weekday_profile": ("""
        def weekday_profile(readings, first_day, n_slots, limit=None):
            totals = [0.0] * n_slots
            seen = [0] * n_slots
            for day, r in enumerate(readings.tolist(), first_day):
                if limit is not None and (r > limit or r < -limit):
                    continue
                slot = int(((day + 0.5) / 7.0 % 1.0) * n_slots)
                totals[slot] += r
                seen[slot] += 1
            return totals, seen
    """, "weekday_profile"),
    # 1-based positions weighting a score, the keyword spelling
    "weighted_positions": ("""
        def position_weighted(scores, first):
            total = 0.0
            for pos, s in enumerate(scores, start=first):
                total += s / pos
            return total
    """, "position_weighted"),
    # an inner loop counting from 1: per row, the sum of k * x_k
    "inner_moments": ("""
        def first_moments(rows):
            out = []
            for row in rows:
                m = 0.0
                for k, v in enumerate(row, 1):
                    m += k * v
                out.append(m)
            return out
    """, "first_moments"),
}


def test_enumerate_from_a_start_keeps_the_counter_and_its_checks(tmp_path):
    old, new, _ = vectorise(tmp_path, textwrap.dedent(STARTED["weekday_profile"][0]), "weekday_profile")
    rng = np.random.default_rng(2)
    readings = rng.standard_normal(500).astype(np.float32)
    for first, limit in ((0, None), (1500, None), (1500, 1.5), (7, 0.0), (np.int64(64), 2.0)):
        same(old(readings, first, 14, limit), new(readings, first, 14, limit))
    same(old(readings[:0], 3, 7, 1.0), new(readings[:0], 3, 7, 1.0))
    assert_same_outcome(old, new, readings, 2.5, 7, None)  # enumerate takes no float: TypeError in both

    old, new, _ = vectorise(tmp_path, textwrap.dedent(STARTED["weighted_positions"][0]), "position_weighted")
    scores = rng.standard_normal(200).tolist()
    for first in (1, 3, -250):  # (a start whose positions pass 0 divides by zero: the loop raises, numpy gives inf)
        same(old(scores, first), new(scores, first))
    same(old([], 1), new([], 1))

    old, new, _ = vectorise(tmp_path, textwrap.dedent(STARTED["inner_moments"][0]), "first_moments")
    rows = [rng.standard_normal(9).tolist() for _ in range(40)]
    same(old(rows), new(rows))


def test_a_start_that_changes_in_the_loop_is_refused(tmp_path):
    source = """
        def f(rows, offset):
            out = []
            for row in rows:
                m = 0.0
                for k, v in enumerate(row, len(out)):
                    m += k * v
                out.append(m)
            return out
    """
    try:
        old, new, result = vectorise(tmp_path, textwrap.dedent(source), "f")
    except NotApplicable as exc:
        assert "loop" in str(exc)
        return
    rows = [[1.0, 2.0], [3.0, 4.0, 5.0]]
    same(old(rows, 0), new(rows, 0))


# a first operand the loop does not change ------------------------------------------------------------------------
SETTLED = {
    # robust clipping with an optional bound: None skips the test (x > None would raise)
    "clip_or": """
        def clipped_energy(xs, bound):
            total = 0.0
            for x in xs:
                if bound is not None and (x > bound or x < -bound):
                    continue
                total += x * x
            return total
    """,
    # an optional mask-out value, `or` form: everything counts where no value is given
    "keep_or": """
        def kept_values(xs, missing):
            out = []
            for x in xs:
                if missing is None or x != missing:
                    out.append(x * 0.5)
            return out
    """,
    # a mode flag from the config compared to a string, then an element test
    "mode_and": """
        def gated(xs, mode, lo):
            out = []
            for x in xs:
                y = lo if mode == "floor" and x < lo else x
                out.append(y)
            return out
    """,
}


def test_a_settled_first_operand_decides_whether_the_rest_is_read(tmp_path):
    rng = np.random.default_rng(9)
    xs = rng.standard_normal(400).round(1).tolist()
    old, new, _ = vectorise(tmp_path, textwrap.dedent(SETTLED["clip_or"]), "clipped_energy")
    for bound in (None, 1.0, 0.0, 3.5):
        same(old(xs, bound), new(xs, bound))
    same(old([], None), new([], None))
    old, new, _ = vectorise(tmp_path, textwrap.dedent(SETTLED["keep_or"]), "kept_values")
    for missing in (None, 0.5, -0.1):
        same(old(xs, missing), new(xs, missing))
    old, new, _ = vectorise(tmp_path, textwrap.dedent(SETTLED["mode_and"]), "gated")
    for mode in ("floor", "none"):
        same(old(xs, mode, -0.2), new(xs, mode, -0.2))


# found in review: each is refused or gives the loop's values --------------------------------------------------------
REVIEWED = {
    # a branch under an invariant test computes for every element: with None the loop never reads `x < clip`
    "branch under an invariant test": ("""
        def f(xs, clip):
            out = []
            for x in xs:
                y = x * 2.0
                if clip is not None:
                    y = x if x < clip else clip
                out.append(y)
            return out
    """, [([1.0, 3.0], None), ([1.0, 3.0], 2.0)]),
    # rows of pairs: the all-false answer is one per row, not one per number
    "rows of pairs": ("""
        def f(points, lim):
            out = []
            for p in points:
                y = 0.0
                if lim is not None and p[0] > lim:
                    y = p[1]
                out.append(y)
            return out
    """, [([[1.0, 2.0], [3.0, 4.0]], None), ([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], None),
          ([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], 2.0)]),
    # the rest refused inside a condition: nothing it cached may be left behind
    "a refused rest under a condition": ("""
        def f(xs, table):
            out = []
            for x in xs:
                y = 0
                if x >= 0:
                    if table is not None and table[x] > 0:
                        y = 1
                out.append(y)
            return out
    """, [([0, 1, -1], [1, 0, 2]), ([0, 1, -1], None)]),
    # a bound a name holds, here a float: the `while` stops below it, where range() would need an int
    "a float bound": ("""
        def f(xs, limit, step):
            out = []
            for x in xs:
                k = 0
                while k < limit and k * step <= x:
                    k += 1
                out.append(k)
            return out
    """, [([0.5, 10.0, -1.0], 2.5, 1.0), ([0.5, 10.0, -1.0], 3, 1.0)]),
}


@pytest.mark.parametrize("case", sorted(REVIEWED))
def test_review_cases_are_refused_or_exact(tmp_path, case):
    source, calls = REVIEWED[case]
    try:
        old, new, _ = vectorise(tmp_path, textwrap.dedent(source), "f")
    except NotApplicable:
        return
    for args in calls:
        assert_same_outcome(old, new, *args)
