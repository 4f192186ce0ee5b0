"""A loop over an array's rows as Python lists, each unpacked (`for x, y, z in raw.tolist()`), is vectorised.

Before, the loop was refused ("loop over `raw.tolist()` with target `(x, y, z)` is not a form the vectoriser
knows"), though `for x, y in pairs` and `for v in raw.tolist()` were read. Each position of the rows is now a
column, read with the type `.tolist()` gave it (Python ints stay integers, floats stay float64), so the arithmetic is
the loop's. Each case is written as a pipeline would write it (none is an eval target's); the rewritten function must
give the same list, to the bit, on arrays of several dtypes, empty ones included.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import assert_same, vectorise

CASES = {
    # acceleration magnitude minus gravity from raw int16 counts, a dead band (`abs`, `math.sqrt`, an if/else)
    "enmo_dead_band": ("""
        def enmo(raw, lsb, band):
            out = []
            for x, y, z in raw.tolist():
                x, y, z = x / lsb, y / lsb, z / lsb
                e = abs(math.sqrt(x * x + y * y + z * z) - 1.0)
                if e > band:
                    out.append(e - band)
                else:
                    out.append(0.0)
            return out
    """, "enmo", lambda rng, n: (rng.integers(-4096, 4096, (n, 3)).astype(np.int16), 1024.0, 0.02)),
    # Manhattan distance of integer grid cells from an origin: integers throughout, as the lists gave them
    "grid_distance": ("""
        def grid_distance(cells, row0, col0):
            return [abs(r - row0) + abs(c - col0) for r, c in cells.tolist()]
    """, "grid_distance", lambda rng, n: (rng.integers(-50, 50, (n, 2)), 3, -7)),
    # box areas clipped at zero from float32 corner pairs (the floats `.tolist()` gives are float64)
    "box_areas": ("""
        def box_areas(boxes):
            areas = []
            for x0, y0, x1, y1 in boxes.tolist():
                w = max(x1 - x0, 0.0)
                h = max(y1 - y0, 0.0)
                areas.append(w * h)
            return areas
    """, "box_areas", lambda rng, n: (rng.random((n, 4)).astype(np.float32) * 10,)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rows_unpacked_from_tolist_are_columns(tmp_path, case):
    source, name, make = CASES[case]
    old, new, result = vectorise(tmp_path, textwrap.dedent(source), name)
    assert ".tolist()" in result.files["mod.py"] and "strict=True" in result.files["mod.py"], result.files["mod.py"]
    rng = np.random.default_rng(11)
    for n in (0, 1, 7, 200):
        args = make(rng, n)
        assert_same(old(*args), new(*args))


def test_rows_of_another_width_raise_in_both_forms(tmp_path):
    """Rows of four values unpacked into three names: the loop raises ValueError, and so does the rewrite."""
    source, name, _ = CASES["enmo_dead_band"]
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    raw = np.zeros((3, 4), dtype=np.int16)
    for fn in (old, new):
        with pytest.raises(ValueError):
            fn(raw, 1024.0, 0.02)


STRINGS = {
    # a gap mask per character of an aligned sequence, the gap a name (a literal string is refused)
    "gap_flags": ("""
        GAP = "-"

        def gap_flags(seq):
            return [ch == GAP for ch in seq]
    """, "gap_flags"),
    # positions of a marker character, appended under a test
    "marker_positions": ("""
        def marker_positions(line, marker):
            out = []
            for i, ch in enumerate(line):
                if ch == marker:
                    out.append(i)
            return out
    """, "marker_positions"),
    # a per-character flag of membership in the first half of an alphabet string
    "is_upper_half": ("""
        def is_upper_half(word, pivot):
            return [c > pivot for c in word]
    """, "is_upper_half"),
}


@pytest.mark.parametrize("case", sorted(STRINGS))
def test_a_string_is_walked_by_its_characters(tmp_path, case):
    """Found when a row write's comprehension over a sequence of letters was vectorised again: `np.asarray(seq)` of a
    string is one 0-d value, so `seq_arr == GAP` compared the whole string. A string is now read as its characters."""
    source, name = STRINGS[case]
    try:
        old, new, _ = vectorise(tmp_path, textwrap.dedent(source), name)
    except NotApplicable:
        return
    for text in ("A-C--D", "", "-", "MKV", "zz-a"):
        extra = ("-",) if name == "marker_positions" else ("M",) if name == "is_upper_half" else ()
        assert_same(old(text, *extra), new(text, *extra))
