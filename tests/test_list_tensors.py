"""torch.tensor of .tolist() lists without the lists: three differently written sites, every dtype rule, and the
inputs that must go the original way, each compared with the original (values, dtype, or the error raised)."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch

from perfloop.tools.change.codemods import CodemodContext, NotApplicable, apply_codemod
from tests.conftest import hot

SOURCES = {
    # A recommender collate: per-sample float32 arrays made into one batch through nested lists.
    "collate": ('''
        import torch


        def collate(samples):
            history = torch.tensor([s["history"].tolist() for s in samples])
            return {"history": history, "label": torch.tensor([s["label"] for s in samples])}
    ''', "collate", lambda args: [{"history": a, "label": i} for i, a in enumerate(args)]),
    # An image __getitem__: a uint8 array to a tensor through .tolist() (ints: int64).
    "getitem": ('''
        import numpy as np
        import torch


        class Images(torch.utils.data.Dataset):
            def __init__(self, images):
                self.images = images

            def __getitem__(self, i):
                pixels = torch.tensor(self.images[i].tolist())
                return pixels


        def to_tensor(image):
            return torch.tensor(
                image.tolist()
            )
    ''', "to_tensor", lambda args: args[0]),
    # Token ids from a list of tensors, in a generator-fed helper.
    "token_rows": ('''
        import torch


        def stack_rows(rows):
            return torch.tensor([r.tolist() for r in (row[:4] for row in rows)])
    ''', "stack_rows", lambda args: args),
}


def rewrite(tmp_path, name):
    source, function, _ = SOURCES[name]
    text = textwrap.dedent(source).lstrip()
    (tmp_path / "mod.py").write_text(text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.lstrip().startswith(f"def {function}("))
    result = apply_codemod("tensor_of_lists", CodemodContext(root=tmp_path, profile=hot(function, "mod.py", line)))
    old, new = {}, {}
    exec(compile(text, "old", "exec"), old)
    exec(compile(result.files["mod.py"], "new", "exec"), new)
    return old[function], new[function], result


def outcome(fn, *args):
    try:
        value = fn(*args)
    except Exception as error:  # the original's error must be the rewrite's
        return ("raised", type(error).__name__)
    value = value["history"] if isinstance(value, dict) else value
    return ("ok", value.dtype, value.shape, value.tolist())


INPUTS = {
    "float32": [np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32) for _ in range(4)],
    "float64 rounds as Python floats do": [np.array([0.1, 1e-40, -0.0, np.nan, np.inf, 3.0000001]) for _ in range(2)],
    "float16": [np.array([0.5, 65504.0, -0.0], dtype=np.float16)],
    "uint8": [np.arange(250, 256, dtype=np.uint8).reshape(2, 3)],
    "int32": [np.array([-2**31, 2**31 - 1], dtype=np.int32)],
    "bool": [np.array([True, False, True])],
    "tensors": [torch.arange(6, dtype=torch.int16).reshape(2, 3), torch.arange(6, dtype=torch.int16).reshape(2, 3)],
    "ragged": [np.zeros(3, dtype=np.float32), np.zeros(4, dtype=np.float32)],
    "uint64": [np.array([2**64 - 1], dtype=np.uint64)],
    "object": [np.array([1, "a"], dtype=object)],
    "needs grad": [torch.ones(2, requires_grad=True)],
    "complex": [np.array([1 + 2j])],
    "read-only": [np.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8)],
    "reversed": [np.arange(6.0)[::-1]],
}


@pytest.mark.parametrize("name", sorted(SOURCES))
@pytest.mark.parametrize("kind", sorted(INPUTS))
def test_the_same_tensor_or_the_same_error_as_through_the_lists(tmp_path, name, kind):
    old, new, result = rewrite(tmp_path, name)
    build = SOURCES[name][2]
    args = INPUTS[kind]
    if name == "getitem" and len(args) > 1:
        args = args[:1]
    before, after = outcome(old, build(args)), outcome(new, build(args))
    assert after == before or (before[0] == "ok" and after[0] == "ok" and before[1] == after[1] and _same_nan(
        before[3], after[3])), (before, after)


def _same_nan(a, b) -> bool:
    return np.array_equal(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), equal_nan=True)


def test_the_result_is_a_fresh_tensor_and_the_sites_are_named(tmp_path):
    old, new, result = rewrite(tmp_path, "getitem")
    image = np.arange(6, dtype=np.int64).reshape(2, 3)
    tensor = new(image)
    image[0, 0] = 99
    assert tensor[0, 0].item() == 0  # no memory shared with the array
    assert result.summary == "2 torch.tensor of .tolist() lists (0 of a list of arrays) read as arrays in mod.py " \
                             "(Images.__getitem__, to_tensor)"
    assert result.replay is not None and result.replay.function == "to_tensor"
    text = result.files["mod.py"]
    assert "import numpy as np" in text and text.count("def _tensor_of_lists(") == 1
    _, _, collate = rewrite(tmp_path, "collate")
    assert "import numpy as np\nimport torch" in collate.files["mod.py"]  # numpy added where the file lacked it
    assert "_tensor_of_lists([s['history'] for s in samples], True, lambda v: torch.tensor([item.tolist() " \
           "for item in v]))" in collate.files["mod.py"]


def test_sites_with_a_dtype_or_other_arguments_are_left_to_zero_copy(tmp_path):
    (tmp_path / "mod.py").write_text("import torch\n\n\ndef f(x):\n    return torch.tensor(x.tolist(), dtype=torch.float64)\n")
    with pytest.raises(NotApplicable, match="no torch.tensor\\(x.tolist\\(\\)\\) or .* without a dtype, and no "
                       "torch.tensor or torch.as_tensor of a name, in mod.py"):
        apply_codemod("tensor_of_lists", CodemodContext(root=tmp_path, profile=hot("f", "mod.py", 4)))


STACKS = {
    # a video collate: each clip's frames cut from one array and listed, then made float32 at once
    "clip_frames": ("""
        import numpy as np
        import torch


        def clip_tensor(video, starts, size):
            frames = []
            for t in starts:
                frames.append(video[t, :size, :size])
            return torch.tensor(frames, dtype=torch.float32)
    """, "clip_tensor", lambda items: (np.stack(items) if items else np.zeros((0, 2, 2)), list(range(len(items))),
                                       2)),
    # patches handed over with torch.as_tensor and no dtype (torch infers it from the arrays)
    "patch_list": ("""
        import torch


        def patches(crops):
            listed = [c for c in crops]
            return torch.as_tensor(listed)
    """, "patches", lambda items: items),
    # a tuple of arrays from zip(*...), in float64
    "zipped_columns": ("""
        import torch


        def columns(pairs):
            firsts, seconds = zip(*pairs)
            return torch.tensor(firsts, dtype=torch.float64), torch.tensor(seconds, dtype=torch.float64)
    """, "columns", lambda items: [(a, a) for a in items]),
}

STACK_INPUTS = {
    "uint8 frames": [np.arange(4, dtype=np.uint8).reshape(2, 2) + k for k in range(3)],
    "float64 values": [np.array([[0.1, 1e-40], [-0.0, np.nan]]) for _ in range(2)],
    "float16": [np.array([[0.5, 65504.0], [-0.0, 1.0]], dtype=np.float16)] * 2,
    "int32 edges": [np.array([[-2**31, 2**31 - 1], [7, -7]], dtype=np.int32)] * 3,
    "int64 left alone": [np.array([[2**62 + 1, 3], [1, 2]], dtype=np.int64)] * 2,
    "bools": [np.array([[True, False], [False, True]])] * 2,
    "mixed dtypes left alone": [np.zeros((2, 2), dtype=np.float32), np.zeros((2, 2), dtype=np.float64)],
    "one array": [np.ones((2, 2), dtype=np.float32)],
}


def _stack_outcome(fn, *args):
    try:
        value = fn(*args)
    except Exception as error:
        return ("raised", type(error).__name__)
    values = value if isinstance(value, tuple) else (value,)
    return [("ok", v.dtype, tuple(v.shape), v.numpy().tobytes()) for v in values]


@pytest.mark.parametrize("name", sorted(STACKS))
@pytest.mark.parametrize("kind", sorted(STACK_INPUTS))
def test_a_list_of_arrays_is_stacked_to_the_same_tensor(tmp_path, name, kind):
    """torch.tensor of a list (or tuple) of numpy arrays walks every number; the stacked array gives the same tensor,
    bit for bit and in dtype, where the arrays share a shape and a dtype torch converts alike either way."""
    source, function, build = STACKS[name]
    text = textwrap.dedent(source).lstrip()
    (tmp_path / "mod.py").write_text(text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.lstrip().startswith(f"def {function}("))
    result = apply_codemod("tensor_of_lists", CodemodContext(root=tmp_path, profile=hot(function, "mod.py", line)))
    assert "stacked where it holds a list of arrays" in result.summary and "_stacked_arrays(" in result.files["mod.py"]
    old, new = {}, {}
    exec(compile(text, "old", "exec"), old)
    exec(compile(result.files["mod.py"], "new", "exec"), new)
    items = STACK_INPUTS[kind]
    if name == "clip_frames" and len({(a.shape, a.dtype) for a in items}) > 1:
        return  # the clip is cut from one video array: one dtype
    args = build(items)
    args = args if isinstance(args, tuple) else (args,)
    assert _stack_outcome(new[function], *args) == _stack_outcome(old[function], *args)


def test_what_is_not_a_list_of_like_arrays_is_handed_over_as_it_was():
    helper = {"np": np, "torch": torch}
    from perfloop.tools.change.codemods.list_tensors import HELPER_SOURCE
    exec(HELPER_SOURCE, helper)
    stacked = helper["_stacked_arrays"]
    for value in ([], [1.0, 2.0], [np.zeros(2), np.zeros(3)], [np.zeros(2, dtype=np.int64)] * 2,
                  [np.zeros(2), torch.zeros(2)], [np.array([1 + 2j])] * 2, np.zeros((2, 2)), "text"):
        assert stacked(value) is value
    assert isinstance(stacked((np.zeros(2), np.ones(2))), np.ndarray)
