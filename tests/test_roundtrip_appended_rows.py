"""Rows appended as `x.tolist()` to a list that only torch.tensor(L, dtype=D) reads: appended as arrays, one tensor.

A collate (or a loop the vectoriser rewrote) often computes each sample's mask or ids as an array, turns it back into
nested Python lists, appends it, and hands the list of lists to `torch.tensor`, which then walks every element.
`torch.as_tensor(np.array(L), dtype=D)` makes the same tensor from the arrays: same shape, same values, each cast
to D the same way. Left alone where the list is read otherwise, or where no dtype is spelled.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch

from perfloop.tools.change.codemods import CodemodContext, NotApplicable, apply_codemod
from tests.conftest import hot


def _same_tensors(old, new):
    assert type(old) is type(new)
    for a, b in (zip(old, new) if isinstance(old, tuple) else [(old, new)]):
        assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def _converted(tmp_path, source: str, function: str, line: int) -> tuple[dict, dict, str]:
    (tmp_path / "mod.py").write_text(source)
    result = apply_codemod("zero_copy_conversion", CodemodContext(root=tmp_path, profile=hot(function, "mod.py", line)))
    old, new = {}, {}
    exec(compile(source, "old", "exec"), old)
    exec(compile(result.files["mod.py"], "new", "exec"), new)
    return old, new, result.files["mod.py"]


def test_causal_masks_appended_as_lists_become_one_bool_tensor(tmp_path):
    source = textwrap.dedent('''
        import numpy as np
        import torch


        def pad_and_mask(seqs, pad):
            width = max(len(s) for s in seqs)
            ids, masks = [], []
            for s in seqs:
                row = s + [pad] * (width - len(s))
                keep = np.asarray(row) != pad
                mask = (np.tril(np.ones((width, width), dtype=bool)) & keep[None, :]).tolist()
                masks.append(mask)
                ids.append(row)
            return torch.tensor(ids, dtype=torch.long), torch.tensor(masks, dtype=torch.bool)
    ''')
    old, new, text = _converted(tmp_path, source, "pad_and_mask", 6)
    assert "torch.as_tensor(np.array(masks), dtype=torch.bool)" in text
    assert "torch.tensor(ids, dtype=torch.long)" in text  # plain Python rows stay as they were
    seqs = [[3, 1, 4, 1, 5], [9, 2], [6, 5, 3, 5, 8, 9, 7]]
    _same_tensors(old["pad_and_mask"](seqs, 0), new["pad_and_mask"](seqs, 0))


def test_float64_features_cast_to_float32_round_the_same_way(tmp_path):
    source = textwrap.dedent('''
        import numpy as np
        import torch


        def summarise(windows):
            feats = []
            for w in windows:
                x = np.asarray(w, dtype=np.float64)
                feats.append(np.stack([x.mean(axis=0), x.std(axis=0), x.max(axis=0) - x.min(axis=0)]).tolist())
            return torch.tensor(feats, dtype=torch.float32)
    ''')
    old, new, text = _converted(tmp_path, source, "summarise", 6)
    assert "np.array(feats)" in text
    windows = [np.random.default_rng(k).standard_normal((20, 3)) * 1e3 for k in range(6)]
    _same_tensors(old["summarise"](windows), new["summarise"](windows))
    _same_tensors(old["summarise"]([]), new["summarise"]([]))


def test_a_collate_the_vectoriser_rewrites_hands_its_rows_over_as_arrays(tmp_path):
    source = textwrap.dedent('''
        import torch


        def scale_rows(batch, gain):
            rows = []
            for seq in batch:
                row = []
                for v in seq:
                    row.append(v * gain + 1.0)
                rows.append(row)
            return torch.tensor(rows, dtype=torch.float32)
    ''')
    (tmp_path / "mod.py").write_text(source)
    result = apply_codemod("vectorize_hot_function", CodemodContext(root=tmp_path, profile=hot("scale_rows", "mod.py", 5)))
    text = result.files["mod.py"]
    assert "torch.as_tensor(np.array(rows), dtype=torch.float32)" in text and "import numpy as np" in text
    old, new = {}, {}
    exec(compile(source, "old", "exec"), old)
    exec(compile(text, "new", "exec"), new)
    batch = np.random.default_rng(5).standard_normal((8, 50)).tolist()
    _same_tensors(old["scale_rows"](batch, 0.3), new["scale_rows"](batch, 0.3))


def test_rows_read_otherwise_or_without_a_dtype_are_left_alone(tmp_path):
    (tmp_path / "mod.py").write_text(textwrap.dedent('''
        import numpy as np
        import torch


        def counted(xs):
            rows = []
            for x in xs:
                rows.append(np.asarray(x).cumsum().tolist())
            print(len(rows))
            return torch.tensor(rows, dtype=torch.float32)


        def undeclared(xs):
            rows = []
            for x in xs:
                rows.append(np.asarray(x).cumsum().tolist())
            return torch.tensor(rows)
    '''))
    with pytest.raises(NotApplicable, match="without dtype"):
        apply_codemod("zero_copy_conversion", CodemodContext(root=tmp_path, profile=hot("counted", "mod.py", 6)))
