"""Batch fingerprints are structural over any container: an edit anywhere in any tensor is seen."""
from __future__ import annotations

import dataclasses
from collections import UserDict, namedtuple

import pytest
import torch

from perfloop.tools.check.datacheck import compare_data
from perfloop.tools.measure.profiler import ProbeSettings, run_probed
from tests.conftest import PIPELINES, ROOT

CONTAINERS = PIPELINES / "containers"
SETTINGS = ProbeSettings(steps=3, warmup_steps=1)


@pytest.fixture
def fingerprint_module(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "tools" / "measure" / "probe"))
    import perfloop_fingerprint

    return perfloop_fingerprint


class BatchEncoding(UserDict):
    """Shaped like transformers' BatchEncoding: a UserDict, so a Mapping but not a dict."""


@dataclasses.dataclass
class Batch:
    features: torch.Tensor
    labels: list


Pair = namedtuple("Pair", ["features", "labels"])


class Bag:
    def __init__(self, features, labels):
        self.features = features
        self.labels = labels


CONTAINER_KINDS = {
    "mapping": lambda f, l: BatchEncoding(features=f, labels=l),
    "dataclass": Batch,
    "namedtuple": Pair,
    "attribute bag": Bag,
    "nested": lambda f, l: {"inputs": Pair(f, l), "meta": Bag(f[:, :2], l)},
}


@pytest.mark.parametrize("kind", sorted(CONTAINER_KINDS))
def test_mid_tensor_edit_changes_only_that_row(fingerprint_module, kind):
    build = CONTAINER_KINDS[kind]
    features = torch.randn(6, 4000, generator=torch.Generator().manual_seed(1))
    edited = features.clone()
    edited[2, 2000] += 1.0
    labels = [0, 1, 0, 1, 1, 0]
    assert repr(features) == repr(edited)  # what a repr-based hash saw: the edit is elided
    rows, before, tensors = fingerprint_module.fingerprint(build(features, labels))
    _, after, _ = fingerprint_module.fingerprint(build(edited, labels))
    assert rows == 6 and len(before) == 6 and tensors
    assert [i for i in range(6) if before[i] != after[i]] == [2]
    _, relabelled, _ = fingerprint_module.fingerprint(build(features, [0, 1, 0, 1, 1, 1]))
    assert [i for i in range(6) if before[i] != relabelled[i]] == [5]


def test_vectorised_row_hashes_see_every_word_and_only_their_row(fingerprint_module):
    """The NumPy row digests: any single changed word (even in the zero-padded tail) changes its row."""
    generator = torch.Generator().manual_seed(3)
    for dtype, shape in ((torch.float32, (64, 37)), (torch.int16, (64, 5)), (torch.bfloat16, (64, 3)),
                         (torch.uint8, (64, 1)), (torch.bool, (64, 9)), (torch.float64, (64,))):
        batch = (torch.randn(shape, generator=generator) * 7).to(dtype)
        _, before, _ = fingerprint_module.fingerprint(batch)
        assert len(set(before)) == len(set(map(tuple, batch.view(64, -1).float().tolist())))
        for row, flat in ((0, 0), (31, batch[0].numel() - 1), (63, batch[0].numel() // 2)):
            edited = batch.clone()
            edited.view(64, -1)[row, flat] = (edited.view(64, -1)[row, flat].float() + 1).to(dtype)
            if dtype == torch.bool:
                edited.view(64, -1)[row, flat] = ~batch.view(64, -1)[row, flat]
            _, after, _ = fingerprint_module.fingerprint(edited)
            assert [i for i in range(64) if before[i] != after[i]] == [row], (dtype, row, flat)
    # Same bytes under another dtype or path are another field.
    ints = torch.arange(8, dtype=torch.int32)
    assert fingerprint_module.fingerprint(ints)[1] != fingerprint_module.fingerprint(ints.view(torch.float32))[1]
    assert fingerprint_module.fingerprint({"a": ints})[1] != fingerprint_module.fingerprint({"b": ints})[1]


def test_changes_in_the_top_bits_of_two_words_do_not_cancel(fingerprint_module):
    """Two edits in one row whose differences sum to zero mod 2**64 under a sum of (word ^ key) * odd: sign flips.

    Negating two float64 values of a row (bit 63 of two words), or two float32 values at odd positions, left
    that digest unchanged; flipping the exponent's top bit (bit 62) in two words did half the time.
    """
    generator = torch.Generator().manual_seed(8)
    wide = torch.randn(32, 16, dtype=torch.float64, generator=generator)
    narrow = torch.randn(32, 16, generator=generator)
    cases = []
    for i, j in ((0, 1), (2, 9), (5, 15)):
        negated = wide.clone()
        negated[3, [i, j]] *= -1
        cases.append((wide, negated))
        odd = narrow.clone()
        odd[3, [2 * (i % 8) + 1, 2 * (j % 8) + 1]] *= -1  # the high half of two 64-bit words
        cases.append((narrow, odd))
    for bit in (62, 61, 60):
        flipped = wide.clone()
        flipped.view(torch.int64)[3, [4, 11]] ^= 1 << bit
        cases.append((wide, flipped))
    for before_batch, after_batch in cases:
        _, before, _ = fingerprint_module.fingerprint(before_batch)
        _, after, _ = fingerprint_module.fingerprint(after_batch)
        assert [row for row in range(32) if before[row] != after[row]] == [3]
        rows = before_batch.shape[0]
        values_before = fingerprint_module.value_hashes([before_batch], rows)
        values_after = fingerprint_module.value_hashes([after_batch], rows)
        assert [row for row in range(rows) if values_before[row] != values_after[row]] == [3]


def test_raw_digests_are_the_row_hashes_written_later(fingerprint_module):
    batch = {"x": torch.randn(5, 3), "name": list("abcde")}
    _, text, _ = fingerprint_module.fingerprint(batch)
    _, raw, _ = fingerprint_module.fingerprint(batch, raw_digests=True)
    assert raw.dtype.name == "uint64" and fingerprint_module.hex_digests([raw, "feed"]) == [*text, "feed"]


def test_value_hashes_ignore_layout_and_exact_dtype_changes(fingerprint_module):
    x = torch.randn(32, 6, generator=torch.Generator().manual_seed(4))
    labels = torch.arange(32) % 3
    stacked = fingerprint_module.value_hashes([x, labels], 32)
    per_position = fingerprint_module.value_hashes([*(x[:, i] for i in range(6)), labels.double()], 32)
    assert stacked == per_position  # default_collate's list of columns vs one tensor, int vs float64 labels
    assert fingerprint_module.value_hashes([x.double(), labels], 32) == stacked  # float32 held as float64
    swapped = fingerprint_module.value_hashes([x[:, [1, 0, 2, 3, 4, 5]], labels], 32)
    assert swapped != stacked  # a reorder within a row is a change
    assert fingerprint_module.value_hashes([x.half(), labels], 32) != stacked  # a lossy cast is a change


def test_value_hashes_see_text_leaves_whatever_holds_them(fingerprint_module):
    x = torch.arange(12, dtype=torch.float32).reshape(4, 3)
    names = ["a.wav", "b.wav", "c.wav", "d.wav"]

    def values(batch):
        out = []
        fingerprint_module.fingerprint(batch, values=out)
        return out

    as_dict = values({"x": x, "name": names})
    assert values((x, tuple(names))) == as_dict  # another container, the same values per row
    edited = values({"x": x, "name": ["a.wav", "b.wav", "EVIL", "d.wav"]})
    assert [i for i in range(4) if edited[i] != as_dict[i]] == [2]  # only the edited row
    assert values({"x": x}) != as_dict  # a dropped text leaf is a change


def test_model_input_that_is_the_batch_is_hashed_once_unless_changed(fingerprint_module):
    x = torch.randn(16, 4)
    fingerprint_module.new_batch()
    _, loader, _ = fingerprint_module.fingerprint((x,), "inputs")
    assert len(fingerprint_module._SEEN) == 1
    _, again, _ = fingerprint_module.fingerprint((x,), "inputs")
    assert again == loader and len(fingerprint_module._SEEN) == 1  # reused, not hashed again
    x.mul_(2)  # changed in place: its version moves, so it is hashed anew
    _, doubled, _ = fingerprint_module.fingerprint((x,), "inputs")
    assert doubled != loader and len(fingerprint_module._SEEN) == 2
    fingerprint_module.new_batch()
    assert fingerprint_module._SEEN == []


def test_a_layout_of_many_leaves_says_how_many(fingerprint_module):
    # default_collate's answer to a list of floats: one tensor per position, 512 of them.
    batch = {"window": [torch.randn(64, dtype=torch.float64) for _ in range(512)], "label": torch.zeros(64)}
    fingerprint_module.fingerprint(batch, "batch", [])
    layout = fingerprint_module.last_layout()
    assert len(layout) == 65 and layout[-1] == "… (513 leaves)"  # the first 64 leaves, then how many in all
    from perfloop.tools.check.datacheck import _layout

    assert _layout(layout).endswith("… (513 leaves)}") and "batch['label']:torch.float32:()" in _layout(layout)


def test_each_non_tensor_leaf_is_hashed_by_path_and_the_many_share_one(fingerprint_module):
    def leaves(names: list[str], label: float = 0.5) -> dict[str, str]:
        batch = {"x": torch.ones(2, 3), "name": names, "score": label,
                 "tags": [[f"t{i}", f"u{i}"] for i in range(70)]}  # 70 more leaves: lists of two strings
        found: dict[str, str] = {}
        fingerprint_module.fingerprint(batch, "batch", None, found)
        return found

    before = leaves(["a", "b"])
    assert "batch['name']" in before and "batch['score']" in before and "batch['x']" not in before
    assert len(before) == 65 and "… (8 more leaves)" in before  # 72 leaves: 64 named, 8 under one hash
    renamed = leaves(["a", "EVIL"])
    assert {k for k in before if before[k] != renamed[k]} == {"batch['name']"}
    assert leaves(["a", "b"], label=0.5000001)["batch['score']"] != before["batch['score']"]
    batch = {"x": torch.ones(2, 3), "name": ["a", "b"], "score": 0.5,
             "tags": [[f"t{i}", f"u{i}"] for i in range(70)]}
    batch["tags"][69][1] = "changed"  # past the 64 named leaves
    found: dict[str, str] = {}
    fingerprint_module.fingerprint(batch, "batch", None, found)
    assert {k for k in before if before[k] != found[k]} == {"… (8 more leaves)"}


def test_value_hashes_do_not_depend_on_what_was_hashed_before(fingerprint_module):
    # A list of 512 per-position float64 tensors and the float32 [rows, 512] tensor they came from hold the
    # same values per sample; the key cache grows while the first is hashed and must not change its keys.
    rows = torch.randn(16, 512, generator=torch.Generator().manual_seed(4))
    labels = torch.arange(16)
    listed = {"label": labels, "window": [rows[:, j].double() for j in range(512)]}
    stacked = {"label": labels, "window": rows}
    fingerprint_module._KEYS.clear()
    first, again = [], []
    fingerprint_module.fingerprint(listed, "batch", first)
    fingerprint_module.fingerprint(stacked, "batch", again)
    assert first == again
    _, before, _ = fingerprint_module.fingerprint({"x": rows})
    fingerprint_module.fingerprint({"wide": torch.zeros(2, 100000)})  # grows the cache far past 512 words
    assert fingerprint_module.fingerprint({"x": rows})[1] == before


def test_opaque_value_or_cycle_is_refused_with_its_path(fingerprint_module):
    class Opaque:
        __slots__ = ("payload",)

    with pytest.raises(fingerprint_module.Unfingerprintable, match=r"batch\['x'\]\.labels: a .*Opaque"):
        fingerprint_module.fingerprint({"x": Bag(torch.zeros(2, 3), Opaque()), "y": torch.ones(2)})
    loop = Bag(torch.zeros(2), None)
    loop.labels = loop
    with pytest.raises(fingerprint_module.Unfingerprintable, match="levels deep"):
        fingerprint_module.fingerprint(loop)
    with pytest.raises(fingerprint_module.Unfingerprintable, match="object"):
        fingerprint_module.fingerprint(torch.nn.Linear(2, 2))  # a module is callable: not a bag of data


def _run(tmp_path, container: str, edit: bool = False):
    flag = " --edit" if edit else ""
    name = f"{container}{'-edit' if edit else ''}"
    return run_probed(f"python train.py --container {container}{flag}", CONTAINERS, tmp_path / name, SETTINGS)


@pytest.mark.parametrize("container", ["mapping", "bag"])
def test_pipeline_edit_inside_a_container_batch_is_seen(tmp_path, container):
    base, edited = _run(tmp_path, container), _run(tmp_path, container, edit=True)
    for step in base.record.steps:
        assert len(step.row_hashes) == 8 and step.fingerprint_error is None
    assert compare_data([base.measurement.probe_dir], [base.measurement.probe_dir],
                        allow_tolerance=False).status == "identical"
    changed = compare_data([base.measurement.probe_dir], [edited.measurement.probe_dir], allow_tolerance=False)
    assert changed.status == "changed" and "step 0" in changed.detail


def test_pipeline_with_opaque_batches_marks_every_step(tmp_path):
    run = _run(tmp_path, "opaque")
    for step in run.record.steps:
        assert step.row_hashes == [] and "Opaque" in step.fingerprint_error
        assert step.samples == 1  # rows unknown: the batch counts as one
    assert sum("cannot be fingerprinted" in error for error in run.record.errors) == 1


@pytest.mark.parametrize("kind", sorted(CONTAINER_KINDS))
def test_a_frozen_batch_hashes_as_the_batch_did_when_frozen(fingerprint_module, kind):
    """freeze() copies what fingerprint() reads (rows-only runs hash it after the steps): the same hashes,
    whatever the pipeline does to its tensors afterwards."""
    import numpy as np

    features = torch.randn(6, 40, generator=torch.Generator().manual_seed(2)).t().contiguous().t()  # not contiguous
    labels = [0, 1, 0, 1, 1, 0]
    batch = {"x": CONTAINER_KINDS[kind](features, labels), "np": np.arange(12, dtype=np.int16).reshape(6, 2),
             "scalar": np.float32(0.5), "names": ("a", "b", "c", "d", "e", "f")}
    want = fingerprint_module.fingerprint(batch, "batch", raw_digests=True)
    frozen, copied = fingerprint_module.freeze(batch, "batch")
    # the tensors (the features, a slice of them in "nested") and the int16 array; the rest is immutable or listed
    assert copied == sum(v.numel() * v.element_size() for _, v in frozen if isinstance(v, torch.Tensor)) >= 984
    features.mul_(-1.0)  # the training step normalises the batch in place
    labels[0] = 7
    batch["np"][0, 0] = 99
    got = fingerprint_module.fingerprint(frozen, "batch", raw_digests=True, walked=True)
    assert got[0] == want[0] == 6
    assert list(got[1]) == list(want[1])
    assert [path for path, _ in got[2]] == [path for path, _ in want[2]]
    # hashing the mutated batch itself would have seen the edits
    assert list(fingerprint_module.fingerprint(batch, "batch", raw_digests=True)[1]) != list(want[1])


def test_a_model_input_that_is_the_batchs_unchanged_tensor_shares_its_copy(fingerprint_module):
    """A light run freezes the step's model input after its batch: the batch's own tensor, unchanged, is not
    copied again (and is hashed once); changed in place since, it is copied as it is now."""
    features, labels = torch.randn(5, 8), torch.arange(5)
    copies: dict = {}
    batch, copied = fingerprint_module.freeze((features, labels), "batch", copies)
    assert copied == 5 * 8 * 4 + 5 * 8
    inputs, again = fingerprint_module.freeze((features,), "inputs", copies)
    assert again == 0 and inputs[0][1] is batch[0][1]
    want = fingerprint_module.fingerprint((features,), "inputs")[1]
    fingerprint_module.new_batch()
    fingerprint_module.fingerprint(batch, "batch", walked=True)
    assert fingerprint_module.fingerprint(inputs, "inputs", walked=True)[1] == want
    features.add_(1.0)
    moved, copied = fingerprint_module.freeze((features,), "inputs", copies)
    assert copied == 5 * 8 * 4 and moved[0][1] is not batch[0][1]
    assert fingerprint_module.fingerprint(moved, "inputs", walked=True)[1] != want
