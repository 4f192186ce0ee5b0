"""Small records per element, short inner rows, `round()`, a pass's own `x op= y`, and helpers in another file.

Each construct is written three ways (none is an eval target's): the codemod rewrites it, both
versions run on the same inputs, and the results must be equal bit for bit, types included, with the
loop gone. The refusals name the construct and say why.
"""
from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from perfloop.contracts.code import FunctionRef
from perfloop.tools.change.codemods import CodemodContext, NotApplicable, ProfileFacts, apply_codemod
from tests.test_vectorize import re_escape, signal, vectorise


def points(n=60, width=2, seed=1):
    rng = np.random.default_rng(seed)
    return rng.uniform(-4.0, 4.0, (n, width)).round(3).tolist()


def exact(before, after):
    """Equal values and the same container and number types at every depth (an int field stays int)."""
    assert type(before) is type(after), (type(before), type(after))
    if isinstance(before, (list, tuple)):
        assert len(before) == len(after)
        for a, b in zip(before, after):
            exact(a, b)
    else:
        assert before == after or (before != before and after != after), (before, after)


CASES = {
    # a tuple or list of numbers per element -----------------------------------------------------------
    "record/projection_pairs": ("""
        def project(pts, u, w):
            return [(u[0] * p[0] + u[1] * p[1], w[0] * p[0] + w[1] * p[1]) for p in pts]
    """, "project", lambda: (points(), (0.6, 0.8), (-0.8, 0.6))),
    "record/labelled_and_filtered": ("""
        def positives(xs, scale, label):
            return [(v * scale, label) for v in xs if v > 0]
    """, "positives", lambda: (signal(80), 3.0, "pos")),
    "record/int_and_float_fields": ("""
        def binned(values):
            out = []
            for v in values:
                out.append([int(v * 10), v * 0.5])
            return out
    """, "binned", lambda: (signal(50),)),
    "record/stored_then_appended": ("""
        def spans(starts, length):
            rows = []
            for s in starts:
                span = [s, s + length, length]
                rows.append(span)
            return rows
    """, "spans", lambda: (list(range(0, 90, 3)), 7)),
    # a short inner row, written out ------------------------------------------------------------------
    "short_row/colour_matrix": ("""
        def to_yuv(pixels, m):
            out = []
            for r, g, b in pixels:
                row = []
                for ch in range(3):
                    row.append(m[ch][0] * r + m[ch][1] * g + m[ch][2] * b)
                out.append(row)
            return out
    """, "to_yuv", lambda: (points(40, 3), ((0.299, 0.587, 0.114), (-0.147, -0.289, 0.436),
                                           (0.615, -0.515, -0.100)))),
    "short_row/quantised_levels": ("""
        def levels(ts, weights):
            result = []
            for t in ts:
                vals = []
                for j in range(4):
                    v = round(t * weights[j])
                    vals.append(min(max(v, 0), 255))
                result.append(vals)
            return result
    """, "levels", lambda: ([0.5, 1.5, 2.5, -3.0, 100.25, 7.75, 0.0], (1.0, 3.0, 40.0, 255.0))),
    "short_row/centred_rotation": ("""
        def rotate(pts, cx, cy, rot):
            out = []
            for x, y in pts:
                x -= cx
                y -= cy
                pair = []
                for k in range(2):
                    pair.append(x * rot[k][0] + y * rot[k][1])
                out.append(pair)
            return out
    """, "rotate", lambda: (points(), 0.25, -1.5, ((0.0, -1.0), (1.0, 0.0)))),
    # x op= y on a name the pass bound ----------------------------------------------------------------
    "pass_update/gain_then_bias": ("""
        def affine(xs, gain, bias):
            out = []
            for v in xs:
                v *= gain
                v += bias
                out.append(v)
            return out
    """, "affine", lambda: (signal(70), 1.5, -0.25)),
    "pass_update/squared_gap": ("""
        def gaps(pairs):
            return_list = []
            for a, b in pairs:
                d = a - b
                d *= d
                return_list.append(d)
            return return_list
    """, "gaps", lambda: (points(),)),
    "pass_update/beside_a_sum": ("""
        def shifted_total(xs):
            total = 0.0
            for v in xs:
                w = v * 2.0
                w -= 1.0
                total += w
            return total
    """, "shifted_total", lambda: (signal(90),)),
    # round() -----------------------------------------------------------------------------------------
    "round/bytes_of_unit_floats": ("""
        def to_bytes(xs):
            return [round(v * 255) for v in xs]
    """, "to_bytes", lambda: ([0.0, 0.5 / 255, 1.5 / 255, 2.5 / 255, 1.0, 0.2, 0.49],)),
    "round/snapped_to_a_step": ("""
        def snap(xs, step):
            return [round(x / step) * step for x in xs]
    """, "snap", lambda: (signal(60), 0.25)),
    "round/ties_to_even": ("""
        def nearest(xs):
            out = []
            for v in xs:
                out.append(round(v))
            return out
    """, "nearest", lambda: ([0.5, 1.5, 2.5, -0.5, -1.5, 3.49, -2.51, 1e6 + 0.5],)),
    # a running sum read later in the pass ------------------------------------------------------------
    "running/precision_recall_curve": ("""
        def pr_points(scores, labels):
            order = sorted(range(len(scores)), key=lambda i: -scores[i])
            tp = fp = 0
            prec, rec = [], []
            positives = sum(labels)
            for i in order:
                if labels[i]:
                    tp += 1
                else:
                    fp += 1
                prec.append(tp / (tp + fp))
                rec.append(tp / positives)
            return prec, rec
    """, "pr_points", lambda: (signal(90), [v > 0.4 for v in signal(90, seed=5)])),
    "running/path_length": ("""
        def arc_lengths(steps):
            travelled = 0.0
            marks = []
            for dx, dy in steps:
                travelled += math.sqrt(dx * dx + dy * dy)
                marks.append(travelled)
            return marks
    """, "arc_lengths", lambda: (points(),)),
    "running/cumulative_share": ("""
        def lorenz(weights, total):
            acc = 0
            shares = []
            for w in weights:
                if w < 0:
                    continue
                acc += w
                shares.append(acc / total)
            return shares
    """, "lorenz", lambda: ([3, -1, 0, 7, 2, -5, 11, 0], 23)),
}
CASES = {k: (textwrap.dedent(src), fn, args) for k, (src, fn, args) in CASES.items()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_construct_is_vectorised_with_identical_results(tmp_path, name):
    source, function, make_args = CASES[name]
    old, new, result = vectorise(tmp_path, source, function)
    exact(old(*make_args()), new(*make_args()))
    body = result.files["mod.py"].split(f"def {function}(", 1)[1]
    # The records are made again from the fields in one comprehension over zip; no loop computes anything.
    assert "for " not in body.replace(" in zip(", "").replace("for field", ""), body
    assert result.tolerance is None


def test_round_keeps_its_notes_and_short_rows_say_they_were_written_out(tmp_path):
    source, function, _ = CASES["short_row/quantised_levels"]
    _, _, result = vectorise(tmp_path, source, function)
    assert "short rows written out" in result.summary
    assert any(note.startswith("round() → np.rint") for note in result.notes), result.notes


def test_a_running_sum_of_negative_zeros_is_positive_zero_as_in_python(tmp_path):
    source, function, _ = CASES["running/path_length"]
    old, new, result = vectorise(tmp_path, source.replace("math.sqrt(dx * dx + dy * dy)", "dx"), function)
    steps = [(-0.0, 1.0), (-0.0, 2.0), (1.5, 0.0), (-0.0, 0.0)]
    exact(old(steps), new(steps))
    assert [math.copysign(1.0, v) for v in new(steps)] == [1.0, 1.0, 1.0, 1.0]
    assert "running sum" in result.summary and old([]) == new([]) == []


REFUSED = {
    "a record read by arithmetic": ("""
        def firsts(xs):
            out = []
            for v in xs:
                t = (v, v * 2.0)
                out.append(t[0] + 1.0)
            return out
    """, "firsts", "`for v in xs` loop", "holds a tuple or list per element"),
    "a record made on one branch": ("""
        def tagged(xs):
            out = []
            for v in xs:
                if v > 0:
                    out.append((v, 1))
                else:
                    out.append((-v, 0))
            return out
    """, "tagged", "`for v in xs` loop", "a tuple or list per element is made inside an if/elif/else"),
    "a counter read after the short loop": ("""
        def last_channel(pixels):
            out = []
            for p in pixels:
                row = []
                for ch in range(3):
                    row.append(p[ch] * 2.0)
                out.append(row[0] + ch)
            return out
    """, "last_channel", "`for ch in range(3)` loop", "makes 3 passes"),
    "a row too long to write out": ("""
        def nine(xs):
            out = []
            for v in xs:
                row = []
                for k in range(9):
                    row.append(v * k)
                out.append(row[1:])
            return out
    """, "nine", "`for v in xs` loop", "append() inside the loop"),
    "a running sum read before its update": ("""
        def previous_totals(xs):
            total = 0.0
            out = []
            for v in xs:
                out.append(total)
                total += v
            return out
    """, "previous_totals", "`for v in xs` loop", "loop-carried dependency: `total` is read before this iteration"),
    "a running sum from a start other than 0": ("""
        def offset_totals(xs, base):
            total = 1.5
            out = []
            for v in xs:
                total += v
                out.append(total)
            return out
    """, "offset_totals", "`for v in xs` loop", "loop-carried dependency: `total`"),
    "a running int product": ("""
        def ways(choices):
            total = 1
            counts = []
            for c in choices:
                total *= c
                counts.append(total)
            return counts
    """, "ways", "`for c in choices` loop", "loop-carried dependency: `total`"),
    "round to digits": ("""
        def cents(xs):
            return [round(v, 2) for v in xs]
    """, "cents", "comprehension statement", "round() on loop values has no numpy equivalent"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refusals_name_the_construct_and_the_reason(tmp_path, name):
    source, function, construct, reason = REFUSED[name]
    with pytest.raises(NotApplicable, match=re_escape(construct) + ".*" + re_escape(reason)):
        vectorise(tmp_path, textwrap.dedent(source), function)


# helpers in another of the target's files ---------------------------------------------------------------
COMPOSE = """
class Compose:
    def __init__(self, steps):
        self.steps = list(steps)

    def __call__(self, x):
        for step in self.steps:
            x = step(x)
        return x
"""

OPS = """
import math


def clamp01(v):
    return min(max(v, 0.0), 1.0)


class Normalise:
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def _scaled(self, xs):
        return [(v - self.lo) / (self.hi - self.lo) for v in xs]

    def __call__(self, xs):
        ys = self._scaled(xs)
        return [clamp01(y) for y in ys]


def unrelated(xs):
    return [math.sqrt(abs(v)) for v in xs]
"""


def test_the_sampled_helpers_of_another_file_are_rewritten_and_the_one_calling_them_replayed(tmp_path):
    (tmp_path / "pipeline.py").write_text(COMPOSE)
    (tmp_path / "ops.py").write_text(OPS)
    facts = ProfileFacts(
        hot_function=FunctionRef(name="Compose.__call__", file="pipeline.py", line=6),
        hot_helpers=[FunctionRef(name="Normalise._scaled", file="ops.py", line=13),
                     FunctionRef(name="unrelated", file="ops.py", line=21),
                     FunctionRef(name="Normalise.__call__", file="ops.py", line=16)])
    result = apply_codemod("vectorize_hot_function", CodemodContext(root=tmp_path, profile=facts))
    assert set(result.files) == {"ops.py"}
    # The dispatching loop names no function; the work is in ops.py, and Normalise.__call__ reaches both rewrites.
    assert result.replay.file == "ops.py" and result.replay.function == "Normalise.__call__"
    assert "Normalise._scaled" in result.summary and "Normalise.__call__" in result.summary
    assert any("unrelated: Normalise.__call__, the function replayed, does not call it" in n for n in result.notes)
    old, new = {}, {}
    exec(compile(OPS, "old", "exec"), old)
    exec(compile(result.files["ops.py"], "new", "exec"), new)
    xs = signal(64)
    exact(old["Normalise"](-1.0, 1.5)(xs), new["Normalise"](-1.0, 1.5)(xs))
    assert new["unrelated"] is not None and "math.sqrt(abs(v)) for v in xs" in result.files["ops.py"]


def test_where_no_file_has_a_loop_to_rewrite_each_file_says_why(tmp_path):
    (tmp_path / "pipeline.py").write_text(COMPOSE)
    (tmp_path / "ops.py").write_text("def shout(words):\n    return [w.upper() for w in words]\n")
    facts = ProfileFacts(hot_function=FunctionRef(name="Compose.__call__", file="pipeline.py", line=6),
                         hot_helpers=[FunctionRef(name="shout", file="ops.py", line=1)])
    with pytest.raises(NotApplicable) as refused:
        apply_codemod("vectorize_hot_function", CodemodContext(root=tmp_path, profile=facts))
    assert "nothing in Compose.__call__ (pipeline.py:6) can be vectorised" in str(refused.value)
    assert "nothing the profile sampled in ops.py (shout) can be vectorised" in str(refused.value)


def test_the_replayed_helper_is_the_one_whose_calls_reach_the_most_rewrites():
    import ast

    from perfloop.tools.change.codemods.hot_function import covered_by_one

    tree = ast.parse(OPS)
    fns = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    best, reached = covered_by_one(tree, [fns["_scaled"], fns["unrelated"], fns["__call__"]],
                                   [fns["_scaled"], fns["unrelated"], fns["__call__"]])
    assert best is fns["__call__"] and reached == [fns["_scaled"], fns["__call__"]]
    best, reached = covered_by_one(tree, [fns["unrelated"], fns["_scaled"]], [fns["unrelated"], fns["_scaled"]])
    assert best is fns["unrelated"] and reached == [fns["unrelated"]]
