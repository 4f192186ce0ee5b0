"""The vectoriser by construct: each class of Python that pipelines are written in, three ways each.

Every case is a function written the way a different author might (none is an eval target's):
the codemod rewrites it, both versions run on the same inputs, and the results must be equal
bit for bit with the loop gone. The refusals name the construct and say why.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch

from perfloop.tools.change.codemods import NotApplicable
from tests.test_vectorize import assert_same, re_escape, signal, vectorise


def rows(n_rows=12, width=17, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n_rows, width)).astype(np.float32).tolist()


CASES = {
    # counting while loops ------------------------------------------------------------
    "while/frame_rms": ("""
        def frame_rms(x, frame, hop):
            out = []
            i = 0
            while i + frame <= len(x):
                acc = 0.0
                for k in range(frame):
                    acc += x[i + k] * x[i + k]
                out.append(math.sqrt(acc / frame))
                i += hop
            return out
    """, "frame_rms", lambda: (signal(400), 32, 16)),
    "while/gain": ("""
        def apply_gain(samples, gain):
            n = 0
            result = []
            while n < len(samples):
                result.append(samples[n] * gain + 0.5)
                n += 1
            return result
    """, "apply_gain", lambda: (signal(100), 0.25)),
    "while/moving_mean": ("""
        def moving_mean(series, width):
            means = []
            start = 0
            last = len(series) - width
            while start <= last:
                total = 0.0
                for j in range(start, start + width):
                    total = total + series[j]
                means.append(total / width)
                start += 2
            return means
    """, "moving_mean", lambda: (signal(120), 9)),
    # enumerate / zip reductions, dot products, matrix-vector -------------------------
    "dot/matvec_comprehension": ("""
        def project(vectors, weights):
            return [sum(a * b for a, b in zip(v, weights)) for v in vectors]
    """, "project", lambda: (rows(20, 16), signal(16, 9))),
    "dot/enumerate_loop": ("""
        def band_scores(spectrum_rows, band_weights):
            scores = []
            for row in spectrum_rows:
                e = 0.0
                for k, v in enumerate(row):
                    e += v * band_weights[k]
                scores.append(e)
            return scores
    """, "band_scores", lambda: (rows(20, 16, 3), signal(16, 4))),
    "dot/top_level_generator": ("""
        def score(features, coef):
            return sum(f * c for f, c in zip(features, coef))
    """, "score", lambda: (signal(64), signal(64, 5))),
    "dot/ragged_bands": ("""
        def band_energy(power, edges):
            energies = []
            for b in range(len(edges) - 1):
                e = 0.0
                for k in range(edges[b], edges[b + 1]):
                    e += power[k] * power[k]
                energies.append(e)
            return energies
    """, "band_energy", lambda: (signal(64), [0, 1, 3, 7, 7, 15, 31, 63])),
    # conditionals inside comprehensions ------------------------------------------------
    "cond/leaky_relu": ("""
        def leaky(xs):
            return [v if v > 0 else 0.01 * v for v in xs]
    """, "leaky", lambda: (signal(200),)),
    "cond/chained_clip": ("""
        def clip_values(t, lo, hi):
            return torch.tensor([lo if v < lo else (hi if v > hi else v) for v in t.tolist()])
    """, "clip_values", lambda: (torch.tensor(signal(200)), -0.5, 0.75)),
    "cond/rows_with_threshold": ("""
        def gate_rows(frames, floor):
            return [[v if abs(v) > floor else 0.0 for v in fr] for fr in frames]
    """, "gate_rows", lambda: (rows(), 0.3)),
    # lookups into a list (a lookup table) ----------------------------------------------
    "lookup/remap_ids": ("""
        def remap(ids, table):
            return [table[i] for i in ids]
    """, "remap", lambda: ([3, 1, 4, 1, 5, 9, 2, 6], list(range(100, 110)))),
    "lookup/weighted_tokens": ("""
        def weigh(tokens, idf, scale):
            out = []
            for t in tokens:
                out.append(idf[t] * scale)
            return out
    """, "weigh", lambda: ([0, 5, 2, 2, 7, 1], signal(8, 2), 3.0)),
    "lookup/table_rows": ("""
        def centroid_dist(assign, centroids, x):
            out = []
            for i, c in enumerate(assign):
                d = 0.0
                for k in range(len(x[i])):
                    d += (x[i][k] - centroids[c][k]) ** 2
                out.append(d)
            return out
    """, "centroid_dist", lambda: ([0, 2, 1, 1, 0], rows(3, 6, 1), rows(5, 6, 2))),
    # counts and masked sums (training-loop metrics) -------------------------------------
    "count/accuracy": ("""
        def accuracy(preds, targets):
            correct = 0
            for p, t in zip(preds, targets):
                if p == t:
                    correct += 1
            return correct / len(targets)
    """, "accuracy", lambda: ([1, 0, 2, 2, 1, 0, 1], [1, 1, 2, 0, 1, 0, 0])),
    "count/per_class_hits": ("""
        def class_recall(pred_list, true_list, k):
            hits = 0
            total = 0
            for i in range(len(true_list)):
                if true_list[i] == k:
                    total += 1
                    if pred_list[i] == k:
                        hits += 1
            return hits, total
    """, "class_recall", lambda: ([1, 0, 2, 2, 1, 0, 1], [1, 1, 2, 0, 1, 0, 0], 1)),
    "count/masked_loss_sum": ("""
        def masked_sum(losses, mask):
            total = 0.0
            for loss, keep in zip(losses, mask):
                if keep:
                    total += loss
            return total
    """, "masked_sum", lambda: (signal(50), [bool(k % 3) for k in range(50)])),
    # sorted / median / quantiles ---------------------------------------------------------
    "sort/median_per_row": ("""
        def row_medians(windows):
            out = []
            for w in windows:
                s = sorted(w)
                out.append(s[len(s) // 2])
            return out
    """, "row_medians", lambda: (rows(10, 15),)),
    "sort/robust_scale": ("""
        def robust_scale(windows):
            scaled = []
            for w in windows:
                med = statistics.median(w)
                mad = statistics.median([abs(v - med) for v in w])
                scaled.append([(v - med) / (mad + 1e-6) for v in w])
            return scaled
    """, "robust_scale", lambda: (rows(10, 16, 8),)),
    "sort/quantile_clip": ("""
        def clip_to_quantiles(batch_rows):
            out = []
            for r in batch_rows:
                ordered = sorted(r)
                lo, hi = ordered[2], ordered[-3]
                out.append([min(max(v, lo), hi) for v in r])
            return out
    """, "clip_to_quantiles", lambda: ([[1.0, 1.0, -0.0, 0.0, 2.0, 2.0, 3.0, -1.0]] + rows(8, 8, 4),)),
    # per-row normalisation -------------------------------------------------------------
    "norm/zscore_loop": ("""
        def zscore(rows_in):
            out = []
            for row in rows_in:
                m = sum(row) / len(row)
                var = sum((v - m) ** 2 for v in row) / len(row)
                sd = math.sqrt(var) + 1e-6
                out.append([(v - m) / sd for v in row])
            return out
    """, "zscore", lambda: (rows(),)),
    "norm/minmax_comprehension": ("""
        def minmax(rows_in):
            return [[(v - min(r)) / (max(r) - min(r) + 1e-9) for v in r] for r in rows_in]
    """, "minmax", lambda: (rows(),)),
    "norm/scaled_by_outer": ("""
        def per_row_gain(frames, gains):
            out = []
            for fr, g in zip(frames, gains):
                out.append([v * g for v in fr])
            return out
    """, "per_row_gain", lambda: (rows(6, 5), signal(6, 1))),
    # `continue` guards: the rest of the body only for the elements that get past them ----------
    "guard/skip_silence_energy": ("""
        def voiced_energy(frame, floor):
            energy = 0.0
            for v in frame:
                if abs(v) < floor:
                    continue
                energy += v * v
            return energy
    """, "voiced_energy", lambda: (signal(300), 0.4)),
    "guard/filtered_append_two_guards": ("""
        def clean_deltas(values, lo, hi):
            kept = []
            for k, v in enumerate(values):
                if k == 0:
                    continue
                if v < lo or v > hi:
                    continue
                d = v - lo
                kept.append(d * 0.5)
            return kept
    """, "clean_deltas", lambda: (signal(200, 2), -0.8, 0.9)),
    "guard/count_and_sum_per_row": ("""
        def positive_means(rows_in):
            means = []
            for row in rows_in:
                total = 0.0
                n = 0
                for x in row:
                    if x <= 0.0:
                        continue
                    total += x
                    n += 1
                means.append(total / (n + 1))
            return means
    """, "positive_means", lambda: (rows(10, 9, 4),)),
    # counts: a constant term under a filter --------------------------------------------------
    "count/accuracy_generator": ("""
        def accuracy(preds, targets):
            hits = sum(1 for p, t in zip(preds, targets) if p == t)
            return hits / max(len(targets), 1)
    """, "accuracy", lambda: ([int(v > 0) for v in signal(90)], [int(v > 0.1) for v in signal(90, 3)])),
    "count/share_above_per_row": ("""
        def share_above(rows_in, level):
            out = []
            for r in rows_in:
                out.append(sum(1.0 for v in r if v > level) / len(r))
            return out
    """, "share_above", lambda: (rows(8, 11, 2), 0.3)),
    "count/listcomp_in_sum": ("""
        def n_clipped(samples, limit):
            return sum([1 for s in samples if abs(s) >= limit])
    """, "n_clipped", lambda: (signal(150, 6), 0.7)),
    # preallocated lists written slot by slot: the loop that appends --------------------------
    "slots/scaled_copy": ("""
        def rescale(x, gain):
            n = len(x)
            out = [0.0] * n
            for i in range(n):
                out[i] = x[i] * gain + 1.0
            return out
    """, "rescale", lambda: (signal(120), 0.5)),
    "slots/diff_of_neighbours": ("""
        def deltas(series):
            d = [0] * (len(series) - 1)
            for k in range(len(series) - 1):
                step = series[k + 1] - series[k]
                d[k] = step * step
            return d
    """, "deltas", lambda: (signal(80, 7),)),
    "slots/two_inputs_with_branch": ("""
        def mix(a, b, w):
            result = [None] * len(a)
            for j in range(len(a)):
                if a[j] > b[j]:
                    pick = a[j] * w
                else:
                    pick = b[j] * (1.0 - w)
                result[j] = pick
            return result
    """, "mix", lambda: (signal(64, 1), signal(64, 2), 0.25)),
    # enumerate over zip (or pairs): the counter beside the inner target ------------------------
    "enumerate/zip_position_weighted": ("""
        def position_weighted(pred, target):
            loss = 0.0
            for i, (p, t) in enumerate(zip(pred, target)):
                loss += (p - t) * (p - t) * (i + 1)
            return loss / len(pred)
    """, "position_weighted", lambda: (signal(50, 3), signal(55, 4))),
    "enumerate/zip_append": ("""
        def ramped(xs, ys):
            out = []
            for k, (x, y) in enumerate(zip(xs, ys)):
                out.append(x * k - y)
            return out
    """, "ramped", lambda: (signal(40, 5), signal(40, 6))),
    "enumerate/pairs_guarded": ("""
        def late_energy(pairs, start):
            e = 0.0
            for n, (re, im) in enumerate(pairs):
                if n < start:
                    continue
                e += re * re + im * im
            return e
    """, "late_energy", lambda: (list(zip(signal(30, 8), signal(30, 9))), 7)),
}
CASES = {k: (textwrap.dedent(src), fn, args) for k, (src, fn, args) in CASES.items()}
HEADER_EXTRA = "import statistics\nimport torch\n\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_construct_is_vectorised_with_identical_results(tmp_path, name):
    source, function, make_args = CASES[name]
    old, new, result = vectorise(tmp_path, HEADER_EXTRA + source, function)
    before, after = old(*make_args()), new(*make_args())
    if isinstance(before, torch.Tensor):
        assert before.dtype == after.dtype and torch.equal(before, after)
    else:
        assert_same(before, after)
    body = result.files["mod.py"].split(f"def {function}(", 1)[1]
    assert "while " not in body and "for " not in body.replace("for_", ""), body
    assert result.tolerance is None


def test_a_while_loops_counter_start_goes_and_nothing_else():
    import ast

    from perfloop.tools.change.codemods.vectorize import rewrite_function

    fn = ast.parse(CASES["while/gain"][0]).body[0]
    found = rewrite_function(fn)
    assert [r.rule for r in found.rewrites] == ["counting while loop, element-wise"]
    # `n = 0` (statement 0) and `result = []` (statement 1) are both made dead by the new lines.
    assert found.rewrites[0].remove == [0, 1]


REFUSED = {
    # (source, function, the construct named, the reason)
    "while counter set inside": ("""
        def f(xs):
            out = []
            i = 0
            while i < len(xs):
                out.append(xs[i] * 2.0)
                i = i + 1
                i += 1
            return out
    """, "f", "`while i < len(xs)` loop", "`i` is also set inside the loop"),
    "while counter read after": ("""
        def f(xs):
            out = []
            i = 0
            while i < len(xs):
                out.append(xs[i] * 2.0)
                i += 1
            return out, i
    """, "f", "`while i < len(xs)` loop", "`i` is read after the loop"),
    "while not counting": ("""
        def f(xs):
            out = []
            while xs:
                out.append(xs.pop() * 2.0)
            return out
    """, "f", "`while xs` loop", "is not `counter += step`"),
    "dict lookup": ("""
        def f(text, vocab):
            return [vocab.get(ch, 0) for ch in text]
    """, "f", "comprehension statement", "call to vocab.get()"),
    "sorted of a filtered row": ("""
        def f(rows_in):
            out = []
            for r in rows_in:
                s = sorted(v for v in r if v > 0.0)
                out.append(s[0])
            return out
    """, "f", "`for r in rows_in` loop", "sorts a filtered or ragged row"),
    "arithmetic on a row": ("""
        def f(rows_in):
            out = []
            for r in rows_in:
                out.append(sorted(r) + [0.0])
            return out
    """, "f", "`for r in rows_in` loop", "does arithmetic on a whole row"),
    "max after a guard": ("""
        def f(xs):
            best = -math.inf
            for v in xs:
                if v > 9.0:
                    continue
                if v > best:
                    best = v
            return best
    """, "f", "`for v in xs` loop", "takes a max after a `continue` guard"),
    "guard in a branch": ("""
        def f(xs):
            s = 0.0
            for v in xs:
                if v > 0.0:
                    if v > 9.0:
                        continue
                s += v
            return s
    """, "f", "`for v in xs` loop", "early exit (continue)"),
    "record field": ("""
        def f(records):
            out = []
            for rec in records:
                out.append(rec["label"] * 2)
            return out
    """, "f", "`for rec in records` loop", "reads a field or a tuple index"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refusals_name_the_construct_and_the_reason(tmp_path, name):
    source, function, construct, reason = REFUSED[name]
    with pytest.raises(NotApplicable, match=re_escape(construct) + ".*" + re_escape(reason)):
        vectorise(tmp_path, HEADER_EXTRA + textwrap.dedent(source), function)


def test_sorts_keep_the_order_of_equal_values_and_signed_zeros(tmp_path):
    # -0.0 and 0.0 compare equal: a stable sort keeps them in input order, as sorted() does.
    source, function, _ = CASES["sort/median_per_row"]
    old, new, result = vectorise(tmp_path, HEADER_EXTRA + source, function)
    tricky = [[0.0, -0.0, 1.0], [-0.0, 0.0, -1.0], [2.0, 2.0, 2.0]]
    before, after = old(tricky), new(tricky)
    assert [str(v) for v in before] == [str(v) for v in after]
    assert any("NaN" in note for note in result.notes)


def test_sums_of_negative_zeros_and_empty_rows_match_python(tmp_path):
    source, function, _ = CASES["dot/matvec_comprehension"]
    old, new, _ = vectorise(tmp_path, HEADER_EXTRA + source, function)
    zeros = [[-0.0, -0.0], [0.0, -0.0]]
    assert [str(v) for v in old(zeros, [1.0, 1.0])] == [str(v) for v in new(zeros, [1.0, 1.0])]
    # zip stops at the shorter input, where numpy alone would broadcast a length-1 row.
    assert old([[1.0, 2.0, 3.0]], [2.0]) == new([[1.0, 2.0, 3.0]], [2.0]) == [2.0]


def test_per_step_metrics_of_the_training_loop_are_rewritten_in_their_own_file(tmp_path):
    # The loop owner of the main process is the training loop (not rewritable); the metrics helper it calls,
    # in another file, is the next hot function and holds a counting loop and a per-class loop.
    from perfloop.contracts.code import FunctionRef
    from perfloop.tools.change.codemods import CodemodContext, ProfileFacts, apply_codemod

    (tmp_path / "train.py").write_text(textwrap.dedent("""
        from metrics import accuracy, class_counts


        def main(model, loader, opt):
            log = []
            for x, y in loader:
                out = model(x)
                log.append((accuracy(out, y), class_counts(y, 3)))
                opt.step()
            return log
    """))
    (tmp_path / "metrics.py").write_text(textwrap.dedent("""
        def accuracy(logits, targets):
            preds = logits.argmax(dim=1).tolist()
            correct = 0
            for p, t in zip(preds, targets.tolist()):
                if p == t:
                    correct += 1
            return correct / len(preds)


        def class_counts(targets, k):
            return [sum(1 for t in targets.tolist() if t == c) for c in range(k)]
    """))
    main = [FunctionRef(name="main", file="train.py", line=5), FunctionRef(name="accuracy", file="metrics.py", line=2)]
    ctx = CodemodContext(root=tmp_path, profile=ProfileFacts(main_hot_functions=main),
                         params={"exact": True, "round_trip": True, "target": "main"})
    result = apply_codemod("vectorize_hot_function", ctx)
    assert list(result.files) == ["metrics.py"] and result.replay.function == "accuracy"
    old, new = {}, {}
    exec((tmp_path / "metrics.py").read_text(), old)
    exec(result.files["metrics.py"], new)
    logits, targets = torch.randn(64, 3, generator=torch.Generator().manual_seed(0)), torch.arange(64) % 3
    assert type(old["accuracy"](logits, targets)) is float
    assert old["accuracy"](logits, targets) == new["accuracy"](logits, targets)
    with pytest.raises(NotApplicable, match="main: `for"):
        apply_codemod("vectorize_hot_function", ctx.model_copy(update={"profile": ProfileFacts(main_hot_functions=main[:1])}))


def test_guarded_elements_are_computed_quietly_and_masked_out(tmp_path):
    # 1 / v for the skipped v == 0.0 would warn on stderr (a changed side output) without np.errstate.
    source = HEADER_EXTRA + textwrap.dedent("""
        def inverse_sum(xs):
            s = 0.0
            for v in xs:
                if v == 0.0:
                    continue
                s += 1.0 / v
            return s
    """)
    old, new, result = vectorise(tmp_path, source, "inverse_sum")
    values = [0.0, 2.0, -0.0, 4.0, float("nan")]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert str(new(values)) == str(old(values))
    assert str(new([0.0, -0.0])) == str(old([0.0, -0.0])) == "0.0"
    assert 'np.errstate(all="ignore")' in result.files["mod.py"]
    assert any("guard" in note for note in result.notes)


def test_inner_sums_of_negative_zeros_are_positive_zero_as_in_python(tmp_path):
    # cumsum alone keeps -0.0 + -0.0 = -0.0; the loop adds to 0.0 first and gets 0.0.
    source = HEADER_EXTRA + textwrap.dedent("""
        def row_sums(rows_in):
            out = []
            for r in rows_in:
                s = 0.0
                for v in r:
                    s += v
                out.append(s)
            return out
    """)
    old, new, _ = vectorise(tmp_path, source, "row_sums")
    tricky = [[-0.0, -0.0, -0.0], [0.0, -0.0, 1.5], [-0.0, -1.0, 1.0]]
    assert [str(v) for v in new(tricky)] == [str(v) for v in old(tricky)] == ["0.0", "1.5", "0.0"]


SCATTERS = {
    # counts and sums into a list of zeros made before the loop: one np.add.at, in the loop's order
    "class_histogram": ("""
        def class_counts(labels, num_classes):
            counts = [0] * num_classes
            for y in labels:
                counts[y] += 1
            return counts
    """, "class_counts", lambda: ([int(v * 3) % 5 for v in signal(200, 1)], 5)),
    "confusion_list_of_lists": ("""
        def confusion(predicted, actual, k):
            matrix = [[0] * k for _ in range(k)]
            for p, a in zip(predicted, actual):
                matrix[a][p] += 1
            return matrix
    """, "confusion", lambda: ([int(abs(v) * 2) % 3 for v in signal(90, 2)],
                               [int(abs(v) * 2) % 3 for v in signal(90, 3)], 3)),
    "weighted_bins_guarded": ("""
        def binned_mass(bins, weights, n_bins):
            mass = [0.0] * n_bins
            for b, w in zip(bins, weights):
                if w <= 0.0:
                    continue
                mass[b] += w * 0.5
            return mass
    """, "binned_mass", lambda: ([int(abs(v) * 4) % 6 - 1 for v in signal(150, 4)], signal(150, 5), 6)),
}


@pytest.mark.parametrize("name", sorted(SCATTERS))
def test_counts_into_a_list_become_one_add_at_with_identical_results(tmp_path, name):
    source, function, make_args = SCATTERS[name]
    old, new, result = vectorise(tmp_path, HEADER_EXTRA + textwrap.dedent(source), function)
    assert_same(old(*make_args()), new(*make_args()))
    body = result.files["mod.py"].split(f"def {function}(", 1)[1]
    assert "np.add.at(" in body and "+= " not in body, body
    # Negative indices wrap and empty inputs leave the zeros, as the list did.
    args = list(make_args())
    args[0] = [-1, 0, -2][: len(args[0])]
    args[1] = args[1][:3] if isinstance(args[1], list) else args[1]
    assert_same(old(*args), new(*args))
    empty = [[] if isinstance(a, list) else a for a in make_args()]
    assert_same(old(*empty), new(*empty))


def test_a_count_by_a_float_into_an_int_list_is_refused(tmp_path):
    source = HEADER_EXTRA + textwrap.dedent("""
        def f(bins, weights):
            acc = [0] * 4
            for b, w in zip(bins, weights):
                acc[b] += w
            return acc
    """)
    with pytest.raises(NotApplicable, match="holds ints and `w` may not be one"):
        vectorise(tmp_path, source, "f")


def test_every_function_of_the_per_sample_path_with_loops_is_rewritten_in_one_change(tmp_path):
    # The hot function's own comprehension is small; the helper it calls holds the heavy loop. Both go.
    source = HEADER_EXTRA + textwrap.dedent("""
        def band_power(spectrum, lo, hi):
            total = 0.0
            k = lo
            while k < hi:
                total += spectrum[k] * spectrum[k]
                k += 1
            return total


        class Other:
            def features(self, frame):
                return frame


        def features(frame):
            scaled = [v * 0.5 for v in frame]
            return [band_power(scaled, 0, 8), band_power(scaled, 8, 16)]
    """)
    old, new, result = vectorise(tmp_path, source, "features")
    frame = signal(32, 11)
    assert_same(old(frame), new(frame))
    text = result.files["mod.py"]
    assert "while " not in text and "for v in frame" not in text
    assert "band_power (mod.py:" in result.summary and "features (mod.py:" in result.summary
    assert result.replay.function == "features"  # its calls run the rewritten helper too
    assert "def features(self, frame):\n        return frame" in text  # the method of the same name is left alone
