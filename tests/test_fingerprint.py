"""Batch fingerprints are structural over any container: an edit anywhere in any tensor is seen."""
from __future__ import annotations

import dataclasses
from collections import UserDict, namedtuple

import pytest
import torch

from tests.conftest import PIPELINES, ROOT
from tools.datacheck import compare_data
from tools.profiler import ProbeSettings, run_probed

CONTAINERS = PIPELINES / "containers"
SETTINGS = ProbeSettings(steps=3, warmup_steps=1)


@pytest.fixture
def fingerprint_module(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "tools" / "probe"))
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
