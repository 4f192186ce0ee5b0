"""The vectorising codemod on real loops: each rule on differently written loops, each refusal reason."""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from perfloop.tools.change.codemods import CodemodContext, NotApplicable, apply_codemod
from tests.conftest import hot

HEADER = "import math\nimport random\n\nimport numpy as np\n\n"


def vectorise(tmp_path: Path, source: str, function: str, **params):
    """Write `source` as mod.py, run the codemod on `function`; return (old module, new module, result)."""
    text = HEADER + source
    (tmp_path / "mod.py").write_text(text)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith(f"def {function}("))
    ctx = CodemodContext(root=tmp_path, profile=hot(function, "mod.py", line), params=params)
    result = apply_codemod("vectorize_hot_function", ctx)
    old, new = {}, {}
    exec(compile(text, "old", "exec"), old)
    exec(compile(result.files["mod.py"], "new", "exec"), new)
    return old[function], new[function], result


def signal(n=300, seed=0):
    """A list of Python floats, as `array.tolist()` gives."""
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32).tolist()


def assert_same(old, new):
    assert type(old) is type(new)
    assert old == new  # bit-identical: == on Python floats


# element-wise --------------------------------------------------------------------------
def _dedent_all(table: dict) -> dict:
    return {k: (textwrap.dedent(v[0]), v[1]) if isinstance(v, tuple) else textwrap.dedent(v) for k, v in table.items()}


ELEMENTWISE = {
    "if_elif_else": """
        def gate(xs, lo, hi):
            out = []
            for v in xs:
                if v < lo:
                    y = lo
                elif v > hi:
                    y = hi * 0.5
                else:
                    y = v * 2.0 + 1.0
                out.append(y)
            return out
    """,
    "comprehension_math": """
        def gate(xs, lo, hi):
            return [math.sqrt(abs(v)) + lo - hi for v in xs]
    """,
    "index_loop_clip": """
        def gate(xs, lo, hi):
            res = []
            for i in range(len(xs)):
                scaled = xs[i] * 3.0 - xs[(i + 1) % len(xs)]
                res.append(min(max(scaled, lo), hi))
            return res
    """,
    "zip_ifexp_filter": """
        def gate(xs, lo, hi):
            return [a - b if a > b else lo for a, b in zip(xs, xs[::-1]) if a != hi]
    """,
    "appends_in_branches": """
        def gate(xs, lo, hi):
            out = []
            for k, v in enumerate(xs):
                if v > 0 and k % 2 == 0:
                    out.append(v / hi)
                else:
                    out.append(-v * lo)
            return out
    """,
}

ELEMENTWISE = _dedent_all(ELEMENTWISE)


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_loops_become_array_expressions_with_identical_results(tmp_path, name):
    old, new, result = vectorise(tmp_path, ELEMENTWISE[name], "gate")
    xs = signal()
    assert_same(old(xs, -0.5, 0.75), new(xs, -0.5, 0.75))
    assert result.tolerance is None and result.replay.function == "gate"
    assert "for " not in result.files["mod.py"].split("def gate")[1].split("return")[0] or "zip" in name


def test_if_elif_else_becomes_nested_np_where(tmp_path):
    _, _, result = vectorise(tmp_path, ELEMENTWISE["if_elif_else"], "gate")
    body = result.files["mod.py"].split("def gate")[1]
    assert "np.where(xs_arr < lo, lo, np.where(xs_arr > hi, hi * 0.5, xs_arr * 2.0 + 1.0))" in body
    assert "np.clip" in vectorise(tmp_path, ELEMENTWISE["index_loop_clip"], "gate")[2].files["mod.py"]


def test_only_the_function_changes(tmp_path):
    source = ELEMENTWISE["if_elif_else"] + "\n\ndef untouched(x):\n    # a comment that must stay\n    return [x]\n"
    _, _, result = vectorise(tmp_path, source, "gate")
    new = result.files["mod.py"]
    assert new.endswith("def untouched(x):\n    # a comment that must stay\n    return [x]\n")
    assert new.startswith(HEADER)  # numpy was imported already: no second import


# reductions --------------------------------------------------------------------------
REDUCTIONS = {
    "sum_of_squares": ("""
        def reduce(xs, ys):
            total = 0.0
            for v in xs:
                total += v * v
            return total
    """, "np.cumsum"),
    "dot_product_over_range": ("""
        def reduce(xs, ys):
            acc = 0.0
            for i in range(len(xs)):
                acc = acc + xs[i] * ys[i]
            return acc
    """, "np.cumsum"),
    "running_max_if": ("""
        def reduce(xs, ys):
            best = -math.inf
            for a, b in zip(xs, ys):
                if a - b > best:
                    best = a - b
            return best
    """, "np.max"),
    "min_builtin": ("""
        def reduce(xs, ys):
            low = float("inf")
            for v in ys:
                low = min(low, abs(v))
            return low
    """, "np.min"),
}

REDUCTIONS = _dedent_all(REDUCTIONS)


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_become_vectorised_reductions_with_identical_results(tmp_path, name):
    source, marker = REDUCTIONS[name]
    old, new, result = vectorise(tmp_path, source, "reduce")
    xs, ys = signal(257, 1), signal(257, 2)
    assert old(xs, ys) == new(xs, ys)
    assert marker in result.files["mod.py"] and result.tolerance is None
    assert old([], []) == new([], [])  # an empty loop keeps its start value


WINDOWS = {
    "slice_rms": """
        def frames(signal, width, hop):
            energies = []
            for start in range(0, len(signal) - width + 1, hop):
                acc = 0.0
                for v in signal[start:start + width]:
                    acc += v * v
                energies.append(math.sqrt(acc / width))
            return energies
    """,
    "modulo_index": """
        def frames(signal, width, hop):
            out = []
            for i in range(len(signal)):
                total = 0.0
                for j in range(width):
                    total += signal[(i + j) % len(signal)] ** 2
                out.append(total * hop)
            return out
    """,
    "two_features_zip": """
        def frames(signal, width, hop):
            levels, lengths = [], []
            for start in range(0, len(signal) - width + 1, hop):
                total = 0.0
                for v in signal[start:start + width]:
                    total += v
                levels.append(total / width)
                total = 0.0
                for a, b in zip(signal[start:start + width - 1], signal[start + 1:start + width]):
                    total += abs(b - a)
                lengths.append(total / (width - 1))
            return levels, lengths
    """,
    "window_max_range": """
        def frames(signal, width, hop):
            peaks = []
            for s in range(0, len(signal) - width + 1, hop):
                m = signal[s]
                for j in range(s, s + width):
                    m = max(m, signal[j])
                peaks.append(m)
            return peaks
    """,
}

WINDOWS = _dedent_all(WINDOWS)


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_sliding_window_reductions_are_bit_identical(tmp_path, name):
    old, new, result = vectorise(tmp_path, WINDOWS[name], "frames")
    xs = signal(400, 3)
    assert_same(old(xs, 24, 5), new(xs, 24, 5))
    assert result.tolerance is None
    body = result.files["mod.py"].split("def frames")[1]
    assert "for " not in body


def test_slice_windows_use_sliding_window_view(tmp_path):
    _, _, result = vectorise(tmp_path, WINDOWS["slice_rms"], "frames")
    assert "np.lib.stride_tricks.sliding_window_view(signal_arr, width)[:len(signal) - width + 1:hop] if " \
        in result.files["mod.py"]


def test_transcendental_math_declares_a_tolerance(tmp_path):
    old, new, result = vectorise(tmp_path, "def soft(xs):\n    return [math.exp(-v) for v in xs]\n", "soft")
    assert result.tolerance is not None and "math.exp" in result.tolerance.reason
    np.testing.assert_allclose(old(signal()), new(signal()), rtol=1e-12)


def test_reordered_sum_on_request_declares_a_tolerance(tmp_path):
    _, new, result = vectorise(tmp_path, REDUCTIONS["sum_of_squares"][0], "reduce", exact=False)
    assert result.tolerance is not None and "reordered" in result.tolerance.reason
    assert ".sum(axis=-1" in result.files["mod.py"]


def test_the_hot_functions_callee_is_rewritten_when_it_owns_the_loop(tmp_path):
    source = WINDOWS["slice_rms"] + "\n\ndef item(signal):\n    return frames(signal, 8, 2)\n"
    old, new, result = vectorise(tmp_path, source, "item")
    assert result.replay.function == "frames"
    assert old(signal()) == new(signal())


# refusals --------------------------------------------------------------------------
REFUSED = {
    "loop-carried dependency": """
        def f(xs):
            out = []
            prev = 0.0
            for v in xs:
                out.append(v - prev)
                prev = v
            return out
    """,
    "loop-carried dependency: `acc`": """
        def f(xs):
            out = []
            acc = 0.0
            for v in xs:
                acc = acc * 0.9 + v
                out.append(acc)
            return out
    """,
    "side effect": """
        def f(xs):
            seen = {}
            out = []
            for i in range(len(xs)):
                seen[i] = xs[i]
                out.append(xs[i] * 2.0)
            return out
    """,
    "may have side effects": """
        def f(xs):
            out = []
            for v in xs:
                print(v)
                out.append(v * 2.0)
            return out
    """,
    "early exit (break)": """
        def f(xs):
            out = []
            for v in xs:
                out.append(v)
                if v < 0:
                    break
            return out
    """,
    "early exit (return)": """
        def f(xs):
            total = 0.0
            for v in xs:
                if v > 10.0:
                    return total
                total += v
            return total
    """,
    "random draw random.gauss()": """
        def f(xs):
            return [v + random.gauss(0.0, 1.0) for v in xs]
    """,
    "random draw np.random.normal()": """
        def f(xs):
            out = []
            for v in xs:
                out.append(v * np.random.normal() if v > 0.0 else v)  # only some elements draw
            return out
    """,
}

REFUSED = _dedent_all(REFUSED)


@pytest.mark.parametrize("reason", sorted(REFUSED))
def test_loops_that_cannot_be_vectorised_are_refused_with_the_reason(tmp_path, reason):
    with pytest.raises(NotApplicable, match=re_escape(reason)):
        vectorise(tmp_path, REFUSED[reason], "f")


def re_escape(text: str) -> str:
    import re

    return re.escape(text)


def test_a_value_read_after_the_loop_is_refused(tmp_path):
    source = textwrap.dedent("""
        def f(xs):
            out = []
            for v in xs:
                y = v * 2.0
                out.append(y)
            return out, y
    """)
    with pytest.raises(NotApplicable, match="read after the loop"):
        vectorise(tmp_path, source, "f")


# tolist → Python → torch.tensor round trips ------------------------------------------
ROUND_TRIP = textwrap.dedent('''
    import numpy as np
    import torch


    def energy(signal, width):
        out = []
        for start in range(len(signal) - width + 1):
            acc = 0.0
            for v in signal[start:start + width]:
                acc += v * v
            out.append(acc / width)
        return out


    def item(images, labels, i):
        pixels = images[i].tolist()
        image = torch.tensor(pixels, dtype=torch.float32) / 255.0
        feats = energy(images[i].reshape(-1).tolist(), 5)
        return image, torch.tensor(feats), torch.tensor(labels[i].tolist(), dtype=torch.int64)
''')


def test_round_trips_become_zero_copy_conversions_with_identical_tensors(tmp_path):
    (tmp_path / "mod.py").write_text(ROUND_TRIP)
    first = apply_codemod("vectorize_hot_function", CodemodContext(
        root=tmp_path, profile=hot("energy", "mod.py", 6), params={"round_trip": False}))
    (tmp_path / "mod.py").write_text(first.files["mod.py"])
    result = apply_codemod("zero_copy_conversion", CodemodContext(
        root=tmp_path, profile=hot("item", "mod.py", 17)))
    new = result.files["mod.py"]
    assert "torch.as_tensor(images[i], dtype=torch.float32) / 255.0" in new
    assert "pixels" not in new  # the list variable went with its round trip
    assert "torch.as_tensor(feats, dtype=torch.get_default_dtype())" in new
    assert "energy(images[i].reshape(-1), 5)" in new and "    out = acc / width\n    return out" in new
    assert "torch.as_tensor(labels[i], dtype=torch.int64)" in new
    assert "tolist" not in new
    old_ns, new_ns = {}, {}
    exec(ROUND_TRIP, old_ns)
    exec(new, new_ns)
    rng = np.random.default_rng(0)
    images = rng.integers(0, 255, (4, 3, 6, 6), dtype=np.uint8)
    labels = rng.integers(0, 9, 4)
    for i in range(4):
        for a, b in zip(old_ns["item"](images, labels, i), new_ns["item"](images, labels, i)):
            assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def test_round_trips_without_a_dtype_or_changed_in_place_are_left_alone(tmp_path):
    (tmp_path / "mod.py").write_text(textwrap.dedent('''
        import torch


        def item(images, i):
            image = torch.tensor(images[i].tolist(), dtype=torch.float32)
            image.mul_(2.0)
            return image, torch.tensor(images[i].tolist())
    '''))
    with pytest.raises(NotApplicable, match="without dtype.*changed in place|changed in place.*without dtype"):
        apply_codemod("zero_copy_conversion", CodemodContext(root=tmp_path, profile=hot("item", "mod.py", 5)))


def test_a_comprehension_named_by_the_profile_rewrites_its_function(tmp_path):
    source = "def soft(xs):\n    return [abs(v) * 2.0 for v in xs]\n"
    (tmp_path / "mod.py").write_text(HEADER + source)
    ctx = CodemodContext(root=tmp_path, profile=hot("soft.<locals>.<listcomp>", "mod.py", 7))
    result = apply_codemod("vectorize_hot_function", ctx)
    assert result.replay.function == "soft"
    assert "return (np.abs(xs_arr) * 2.0).tolist()" in result.files["mod.py"]
    # A comprehension inside a comprehension (its own frame before 3.12) names the same function.
    ctx = CodemodContext(root=tmp_path, profile=hot("soft.<locals>.<listcomp>.<locals>.<genexpr>", "mod.py", 7))
    assert apply_codemod("vectorize_hot_function", ctx).replay.function == "soft"


def test_a_helper_returning_two_lists_feeds_as_tensor_directly(tmp_path):
    source = textwrap.dedent('''
        import numpy as np
        import torch


        def features(signal, width):
            levels, peaks = [], []
            for s in range(0, len(signal) - width + 1, 2):
                total = 0.0
                for v in signal[s:s + width]:
                    total += v
                levels.append(total / width)
                top = -np.inf
                for v in signal[s:s + width]:
                    top = max(top, v)
                peaks.append(top * 1.0)
            return levels, peaks


        def item(rows, i):
            levels, peaks = features(rows[i].tolist(), 4)
            return {"level": torch.tensor(levels, dtype=torch.float32), "peak": torch.tensor(peaks, dtype=torch.float64)}
    ''')
    (tmp_path / "mod.py").write_text(source)
    ctx = CodemodContext(root=tmp_path, profile=hot("item", "mod.py", 22))
    # By default the vectoriser hands its arrays over in the same change.
    combined = apply_codemod("vectorize_hot_function", ctx)
    assert combined.replay.function == "features" and combined.replay.lists_became_arrays
    assert "torch.tensor(list) → torch.as_tensor" in combined.summary
    alone = ctx.model_copy(update={"params": {"round_trip": False}})
    (tmp_path / "mod.py").write_text(apply_codemod("vectorize_hot_function", alone).files["mod.py"])
    new = apply_codemod("zero_copy_conversion", ctx).files["mod.py"]
    assert new == combined.files["mod.py"]
    assert "features(rows[i], 4)" in new and "tolist" not in new
    assert "torch.as_tensor(levels, dtype=torch.float32)" in new
    old_ns, new_ns = {}, {}
    exec(source, old_ns)
    exec(new, new_ns)
    rows = np.random.default_rng(1).standard_normal((3, 40)).astype(np.float32)
    for i in range(3):
        old, fresh = old_ns["item"](rows, i), new_ns["item"](rows, i)
        for key in old:
            assert old[key].dtype == fresh[key].dtype and torch.equal(old[key], fresh[key])


# gather loops ------------------------------------------------------------------------
CHARLM = """
import os

import numpy as np
import torch

dataset = DATASET
block_size = 16
batch_size = 8


def get_batch(split):
    data = np.memmap(os.path.join(dataset, f'{split}.bin'), dtype=np.uint16, mode='r')
    ix = torch.randint(len(data) - block_size - 1, (batch_size,))
    x = torch.empty((batch_size, block_size), dtype=torch.long)
    y = torch.empty((batch_size, block_size), dtype=torch.long)
    for b, i in enumerate(ix.tolist()):
        for j in range(block_size):
            x[b, j] = int(data[i + j])
            y[b, j] = int(data[i + j + 1])
    return x, y
"""


def gather_modules(tmp_path: Path, source: str, function: str):
    """Like `vectorise`, without the test header: returns (old namespace, new namespace, result)."""
    (tmp_path / "mod.py").write_text(source)
    line = next(i for i, l in enumerate(source.splitlines(), 1) if l.startswith(f"def {function}("))
    ctx = CodemodContext(root=tmp_path, profile=hot(function, "mod.py", line), params={})
    result = apply_codemod("vectorize_hot_function", ctx)
    old, new = {}, {}
    exec(compile(source, "old", "exec"), old)
    exec(compile(result.files["mod.py"], "new", "exec"), new)
    return old, new, result


def test_charlm_batch_builder_becomes_one_gather_with_identical_batches_and_rng(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    ids = np.random.default_rng(0).integers(0, 65535, 5000).astype(np.uint16)
    ids.tofile(data_dir / "train.bin")
    old, new, result = gather_modules(tmp_path, CHARLM.replace("DATASET", repr(str(data_dir))), "get_batch")
    body = result.files["mod.py"].split("def get_batch")[1]
    assert "for " not in body and "np.asarray(ix.tolist(), dtype=np.int64)" in body
    assert "x[:len(i), :len(j)] = torch.as_tensor(data_arr[i[:, None] + j].astype(np.int64))" in body
    assert "y[:len(i), :len(j)] = torch.as_tensor(data_arr[i[:, None] + j + 1].astype(np.int64))" in body
    assert result.tolerance is None and result.replay.function == "get_batch" and "gather" in result.summary
    for _ in range(3):
        torch.manual_seed(1234)
        x_old, y_old = old["get_batch"]("train")
        state_old = torch.get_rng_state()
        torch.manual_seed(1234)
        x_new, y_new = new["get_batch"]("train")
        assert torch.equal(torch.get_rng_state(), state_old)
        assert x_new.dtype == x_old.dtype == torch.long
        assert torch.equal(x_old, x_new) and torch.equal(y_old, y_new)


GATHERS = {
    "one_level": ("""
        def f(data, i, n):
            x = torch.zeros(n + 2, dtype=torch.long)
            for j in range(n):
                x[j] = int(data[i + j])
            return x
    """, lambda data: (data, 5, 40)),
    "strided": ("""
        def f(data, stride, rows):
            out = torch.zeros((rows, 7), dtype=torch.int64)
            for b in range(rows):
                for j in range(7):
                    out[b, j] = int(data[b * stride + j + 1])
            return out
    """, lambda data: (data, 9, 11)),
    "float_into_float32": ("""
        def f(data, starts, n):
            x = torch.empty((len(starts), n), dtype=torch.float32)
            for b, s in enumerate(starts):
                for j in range(n):
                    x[b, j] = float(data[s + 2 * j - 1])
            return x
    """, lambda data: (np.random.default_rng(1).standard_normal(400), [3, 50, 7, 100], 30)),
    "float32_source_into_float32": ("""
        def f(data, starts, n):
            x = torch.empty((len(starts), n))
            for b, s in enumerate(starts):
                for j in range(n):
                    x[b, j] = float(data[s + j])
            return x
    """, lambda data: (np.random.default_rng(2).standard_normal(400).astype(np.float32), [3, 50, 7], 30)),
    "numpy_target": ("""
        def f(data, starts, n):
            x = np.zeros((len(starts), n), dtype=np.int32)
            for b, s in enumerate(starts):
                for j in range(n):
                    x[b, j] = data[s + j]
            return x
    """, lambda data: (data, [3, 50, 7], 30)),
}
GATHERS = {k: (textwrap.dedent(v[0]), v[1]) for k, v in GATHERS.items()}


@pytest.mark.parametrize("name", sorted(GATHERS))
def test_gather_variants_are_bit_identical(tmp_path, name):
    source, make_args = GATHERS[name]
    old, new, result = gather_modules(tmp_path, "import numpy as np\nimport torch\n" + source, "f")
    assert "for " not in result.files["mod.py"] and result.tolerance is None
    data = np.random.default_rng(3).integers(0, 60000, 500).astype(np.uint16)
    args = make_args(data)
    want, got = old["f"](*args), new["f"](*args)
    if isinstance(want, torch.Tensor):
        assert want.dtype == got.dtype and torch.equal(want, got)
    else:
        assert want.dtype == got.dtype and np.array_equal(want, got)


GATHER_REFUSED = {
    "not affine in the loop values": """
        def f(data, n):
            x = torch.zeros((n, n), dtype=torch.long)
            for i in range(n):
                for j in range(n):
                    x[i, j] = int(data[i * j])
            return x
    """,
    "call to print() inside the loop may have side effects": """
        def f(data, n):
            x = torch.zeros(n, dtype=torch.long)
            for j in range(n):
                x[j] = int(data[j])
                print(j)
            return x
    """,
    "`x` is both written and read in the loop": """
        def f(data, n):
            x = torch.zeros(n, dtype=torch.long)
            for j in range(n):
                x[j] = int(x[j - 1])
            return x
    """,
    "random draw torch.randint() inside the loop": """
        def f(data, n):
            x = torch.zeros(n, dtype=torch.long)
            for j in range(n):
                x[j] = int(data[j + torch.randint(10, ())])
            return x
    """,
    "not the loop counters in loop order": """
        def f(data, n):
            x = torch.zeros((n, n), dtype=torch.long)
            for i in range(n):
                for j in range(n):
                    x[j, i] = int(data[i + j])
            return x
    """,
    "early exit (break)": """
        def f(data, n):
            x = torch.zeros(n, dtype=torch.long)
            for j in range(n):
                if j > 3:
                    break
                x[j] = int(data[j])
            return x
    """,
}


@pytest.mark.parametrize("reason", sorted(GATHER_REFUSED))
def test_gather_loops_that_cannot_be_rewritten_are_refused_with_the_reason(tmp_path, reason):
    with pytest.raises(NotApplicable, match=re_escape(reason)):
        vectorise(tmp_path, "import torch\n" + textwrap.dedent(GATHER_REFUSED[reason]), "f")


@pytest.mark.parametrize("make_out", [lambda: torch.full((5, 9), -1.0), lambda: np.full((5, 9), -1, dtype=np.int16)],
                         ids=["tensor", "ndarray"])
def test_a_gather_into_a_passed_in_buffer_works_for_tensors_and_arrays(tmp_path, make_out):
    source = textwrap.dedent("""
        def fill(out, data, starts, n):
            for b, s in enumerate(starts):
                for j in range(n):
                    out[b, j] = int(data[s + j])
    """)
    old, new, result = gather_modules(tmp_path, "import numpy as np\n" + source, "fill")
    assert "isinstance(out, np.ndarray)" in result.files["mod.py"] and "torch" not in result.files["mod.py"]
    data = np.random.default_rng(4).integers(0, 3000, 300).astype(np.uint16).tolist()
    want, got = make_out(), make_out()
    old["fill"](want, data, [4, 80, 2], 7)
    new["fill"](got, data, [4, 80, 2], 7)
    assert (torch.equal(want, got) if isinstance(want, torch.Tensor) else np.array_equal(want, got))
    assert (got[3:] == -1).all()


# tuples unpacked into columns, comprehensions over a loop value's row -------------------
COLUMNS = {
    "collate_pairs": ("""
        import torch


        def collate(samples):
            windows, labels = [], []
            for window, label in samples:
                windows.append([[float(v) for v in channel] for channel in window])
                labels.append(label)
            return torch.tensor(windows), torch.tensor(labels)
    """, "collate"),
    "pairs_arithmetic": ("""
        def mix(pairs):
            out = []
            for x, y in pairs:
                out.append(x * 2.0 + y)
            return out
    """, "mix"),
    "triples_branch": ("""
        def pick(rows):
            out = []
            for flag, a, b in rows:
                if flag > 0:
                    out.append(a)
                else:
                    out.append(b * 0.5)
            return out
    """, "pick"),
}
COLUMNS = {k: (textwrap.dedent(v[0]), v[1]) for k, v in COLUMNS.items()}


def _column_args(name):
    rng = np.random.default_rng(3)
    if name == "collate_pairs":
        return [(torch.from_numpy(rng.standard_normal((3, 7), dtype=np.float32)), int(k)) for k in range(5)]
    if name == "pairs_arithmetic":
        return [(float(a), float(b)) for a, b in rng.standard_normal((9, 2))]
    return [(int(f), float(a), float(b)) for f, a, b in zip(rng.integers(-2, 3, 9), *rng.standard_normal((2, 9)))]


@pytest.mark.parametrize("name", sorted(COLUMNS))
def test_tuple_unpacking_loops_read_columns_with_identical_results(tmp_path, name):
    source, function = COLUMNS[name]
    old, new, result = vectorise(tmp_path, source, function)
    assert "strict=True)" in result.files["mod.py"]
    args = _column_args(name)
    if name != "collate_pairs":  # an empty list gives empty columns, as the loop did nothing
        assert_same(old(type(args)()), new(type(args)()))
    before, after = old(args), new(args)
    if name == "collate_pairs":
        assert "torch.as_tensor(" in result.files["mod.py"] and "for channel in" not in result.files["mod.py"]
        for a, b in zip(before, after):
            assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    else:
        assert_same(before, after)


def test_unpacking_tuples_of_the_wrong_length_still_raises(tmp_path):
    old, new, _ = vectorise(tmp_path, COLUMNS["pairs_arithmetic"][0], "mix")
    ragged = [(1.0, 2.0), (3.0, 4.0, 5.0)]
    for fn in (old, new):
        with pytest.raises(ValueError):
            fn(ragged)


ROWS = {
    "row_in_loop": ("""
        def halve(rows):
            out = []
            for row in rows:
                out.append([abs(v) * 0.5 for v in row])
            return out
    """, "halve"),
    "nested_top_level": ("""
        def clip01(grid):
            return [[min(max(v, 0.0), 1.0) for v in r] for r in grid]
    """, "clip01"),
    "row_with_conditional": ("""
        def relu_rows(rows):
            return [[v if v > 0.0 else 0.0 for v in row] for row in rows]
    """, "relu_rows"),
}
ROWS = {k: (textwrap.dedent(v[0]), v[1]) for k, v in ROWS.items()}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_comprehensions_over_a_row_become_whole_array_expressions(tmp_path, name):
    source, function = ROWS[name]
    old, new, result = vectorise(tmp_path, source, function)
    grid = np.random.default_rng(5).standard_normal((6, 4)).tolist()
    assert_same(old(grid), new(grid))
    assert "for v in" not in result.files["mod.py"]


def test_a_filtering_row_comprehension_is_refused_as_a_row_and_filtered_inside_the_loop(tmp_path):
    """`[v for v in row if ...]` per row would be ragged as one 2-D expression: the outer loop stays (its refusal says
    why) and each pass's comprehension is filtered as a 1-D one, inside it."""
    source = textwrap.dedent("""
        def f(rows):
            out = []
            for row in rows:
                out.append([v for v in row if v > 0.0])
            return out
    """)
    old, new, result = vectorise(tmp_path, source, "f")
    grid = np.random.default_rng(5).standard_normal((6, 4)).tolist()
    assert_same(old(grid), new(grid))
    assert any("only `[f(v) for v in row]` comprehensions (one `for`, no `if`)" in n for n in result.notes), result.notes
    assert "for row in rows" in result.files["mod.py"] and "for v in" not in result.files["mod.py"]


INTS = {
    "comprehension_of_parsed_ints": ("""
        import torch


        def history(record):
            ids = [int(t) for t in record["history"]]
            return torch.tensor(ids)
    """, "history"),
    "loop_truncating_scaled_values": ("""
        def buckets(xs, width):
            out = []
            for v in xs:
                out.append(int(v * width))
            return out
    """, "buckets"),
    "zip_of_offsets": ("""
        def shifted(starts, offsets):
            return [int(a) + int(b) for a, b in zip(starts, offsets)]
    """, "shifted"),
}
INTS = {k: (textwrap.dedent(v[0]), v[1]) for k, v in INTS.items()}


@pytest.mark.parametrize("name", sorted(INTS))
def test_int_of_loop_values_truncates_like_int(tmp_path, name):
    source, function = INTS[name]
    old, new, result = vectorise(tmp_path, source, function)
    assert ".astype(np.int64)" in result.files["mod.py"]
    rng = np.random.default_rng(7)
    if name == "comprehension_of_parsed_ints":
        record = {"history": rng.integers(-5, 10**12, 40).tolist()}
        a, b = old(record), new(record)
        assert "torch.as_tensor(" in result.files["mod.py"]
        assert a.dtype == b.dtype == torch.int64 and torch.equal(a, b)
    elif name == "loop_truncating_scaled_values":
        xs = (rng.standard_normal(50) * 3).tolist()  # negative values: truncation toward zero, not floor
        before, after = old(xs, 2), new(xs, 2)
        assert before == after
        assert [type(v) for v in before] == [type(v) for v in after] == [int] * 50
    else:
        starts, offsets = rng.integers(0, 100, 20).tolist(), (rng.random(20) * 5).tolist()
        assert old(starts, offsets) == new(starts, offsets)


def test_int_of_values_read_as_float64_is_refused(tmp_path):
    source = textwrap.dedent("""
        def f(ids):
            out = []
            for t in ids:
                out.append(int(t) + 0.5)
            return out
    """)
    with pytest.raises(NotApplicable, match="beyond 2\\*\\*53"):
        vectorise(tmp_path, source, "f")


def test_an_inner_loop_over_an_empty_list_leaves_each_row_at_its_start_value(tmp_path):
    """`for q in neg` with no negatives runs no pass: each row keeps its start value. The last column of an empty
    axis does not exist, so the rewrite hands back the start values there instead of an IndexError."""
    source = """
        def margins(pos, neg):
            out = []
            for p in pos:
                wins = 0
                for q in neg:
                    if p > q:
                        wins += 1
                out.append(wins)
            return out
    """
    old, new, _ = vectorise(tmp_path, textwrap.dedent(source), "margins")
    for pos, neg in (([0.5, 1.0], []), ([], []), ([], [1.0]), ([0.5, 2.0], [1.0, 0.5])):
        assert_same(old(pos, neg), new(pos, neg))
