"""The data and loss checks: same work, every row of every run, declared tolerance, loss envelope."""
from __future__ import annotations

import json
from pathlib import Path

import torch

from perfloop.contracts.tolerances import DTYPE_TOLERANCE, LOSS_TOLERANCE
from perfloop.knowledge_base.schema import Verification
from perfloop.tools.check import datacheck
from perfloop.tools.check.datacheck import compare_data, compare_losses
from tests.conftest import ROOT

FP32 = dict(atol=1e-5, rtol=1e-5)


def probe_dir(folder: Path, batches: list[torch.Tensor], exit_reason: str = "max_steps", keep: int | None = None,
              fingerprint_error: dict[int, str] | None = None, errors: list[str] = (),
              leaf_hashes: bool = True, row_digest: int | None = None) -> str:
    """Write a probe folder as the probe does: one record, row hashes of every step, the kept batches.

    The batches are tensors alone, so each step's non-tensor leaf hashes are empty (absent with
    ``leaf_hashes=False``, as a probe from before them wrote).
    """
    folder.mkdir(parents=True)
    steps = []
    for index, batch in enumerate(batches):
        step = {"index": index, "samples": batch.shape[0], "step_ms": 1.0,
                "row_hashes": [row.numpy().tobytes().hex()[:16] + str(hash(row.numpy().tobytes())) for row in batch]}
        if leaf_hashes:
            step["leaf_hashes"] = {}
        if fingerprint_error and index in fingerprint_error:
            step.update(row_hashes=[], fingerprint_error=fingerprint_error[index])
        steps.append(step)
    record = {"exit_reason": exit_reason, "steps": steps, "errors": list(errors)}
    if row_digest is not None:
        record["row_digest"] = row_digest
    (folder / "main-rank0.json").write_text(json.dumps(record))
    kept = [(i, [("batch[0]", b.clone())]) for i, b in enumerate(batches)][:keep]
    torch.save(kept, folder / "batches-rank0.pt")
    return str(folder)


def batches(num_steps: int = 6, seed: int = 0) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [torch.rand(4, 3, generator=generator) for _ in range(num_steps)]


def test_a_short_run_is_changed_not_a_common_prefix(tmp_path):
    data = batches(6)
    base = probe_dir(tmp_path / "base", data)
    short = probe_dir(tmp_path / "short", data[:2], exit_reason="exit")
    result = compare_data([base], [short], allow_tolerance=False)
    assert result.status == "changed" and "ran 2 of 6 steps" in result.detail
    losses = compare_losses([[1.0, 0.9, 0.8]], [[1.0, 0.9]])
    assert losses.status == "diverged" and "ran 2 of 3 steps" in losses.detail


def test_an_unfingerprinted_step_is_not_comparable(tmp_path):
    data = batches(3)
    base = probe_dir(tmp_path / "base", data, fingerprint_error={1: "BatchEncoding: no tensor leaves"})
    cand = probe_dir(tmp_path / "cand", data, fingerprint_error={1: "BatchEncoding: no tensor leaves"})
    result = compare_data([base], [cand], allow_tolerance=False)
    assert result.status == "not_comparable" and "BatchEncoding" in result.detail
    old = probe_dir(tmp_path / "old", data, errors=["fingerprint of step 2: TypeError()"])
    assert compare_data([old], [old], allow_tolerance=False).status == "not_comparable"


def test_runs_hashed_by_different_row_digest_schemes_are_not_compared(tmp_path):
    # A run resumed after an upgrade: the head's runs were hashed by the old scheme (no row_digest field), the
    # candidate's by the new one. Their hashes never match: "changed" would blame the change.
    data = batches(3)
    old = probe_dir(tmp_path / "old", data)
    new = probe_dir(tmp_path / "new", data, row_digest=2)
    result = compare_data([old], [new], allow_tolerance=False)
    assert result.status == "not_comparable" and "row digest schemes 1 and 2" in result.detail
    assert compare_data([new], [new], allow_tolerance=False).status == "identical"


def test_a_probed_run_records_its_row_digest_scheme(tmp_path):
    from perfloop.contracts.layout import ROW_DIGEST
    from perfloop.tools.measure.profiler import ProbeSettings, run_probed
    from tests.conftest import PIPELINES

    run = run_probed("python train.py --container mapping", PIPELINES / "containers", tmp_path / "run",
                     ProbeSettings(steps=2, warmup_steps=1))
    assert run.record.row_digest == ROW_DIGEST == 2


def test_tolerance_checks_every_candidate_run_not_only_the_first(tmp_path):
    data = batches(4)
    close = [b + 1e-7 for b in data]
    far = [b.clone() for b in data]
    far[3][2, 1] += 0.5
    base = probe_dir(tmp_path / "base", data)
    runs = [probe_dir(tmp_path / "close", close), probe_dir(tmp_path / "far", far)]
    result = compare_data([base], runs, allow_tolerance=True, **FP32)
    assert result.status == "changed" and "step 3" in result.detail


def test_the_declared_tolerance_is_enforced(tmp_path):
    data = batches(2)
    off = [b + 5e-4 for b in data]  # inside fp16's 1e-3, outside fp32's 1e-5
    base, cand = probe_dir(tmp_path / "base", data), probe_dir(tmp_path / "cand", off)
    assert compare_data([base], [cand], allow_tolerance=True, **FP32).status == "changed"
    loose = compare_data([base], [cand], allow_tolerance=True, atol=1e-3, rtol=1e-3)
    assert loose.status == "within_tolerance" and (loose.atol, loose.rtol) == (1e-3, 1e-3)


def test_float_reordering_is_within_tolerance_with_max_diff_and_rows(tmp_path):
    generator = torch.Generator().manual_seed(1)
    raw = [torch.randn(4, 3, 256, generator=generator) for _ in range(5)]
    # The same sums in another order: what a vectorized rewrite of a Python loop does.
    data = [x.sum(-1) for x in raw]
    reordered = [x.flip(-1).cumsum(-1)[..., -1] for x in raw]
    base = probe_dir(tmp_path / "base", data)
    cand = [probe_dir(tmp_path / f"cand{i}", reordered) for i in range(2)]
    result = compare_data([base], cand, allow_tolerance=True, **FP32)
    assert result.status == "within_tolerance"
    assert result.rows_differing > 0 and result.rows_compared == result.rows_differing
    assert result.rows_total == 2 * 5 * 4 and 0 < result.max_abs_diff < 1e-5
    assert f"compared {result.rows_compared} of {result.rows_differing} differing rows" in result.detail


def test_rows_beyond_the_storage_budget_are_counted_not_claimed(tmp_path):
    data = batches(4)
    off = [b + 1e-7 for b in data]
    base = probe_dir(tmp_path / "base", data, keep=2)
    cand = probe_dir(tmp_path / "cand", off, keep=2)
    result = compare_data([base], [cand], allow_tolerance=True, **FP32)
    assert result.status == "within_tolerance" and result.rows_compared == 8 and result.rows_differing == 16
    assert result.label == "within_tolerance (compared 8 of 16 differing rows)"


NAMED = '''
import sys
import torch
from torch.utils.data import DataLoader, Dataset

VARIANT = sys.argv[1]


class Named(Dataset):
    """Rows of floats with a name each, as a clip dataset returns them."""

    def __len__(self):
        return 16

    def __getitem__(self, i):
        x = torch.arange(3, dtype=torch.float32) + i
        name = f"clip{i}"
        if VARIANT != "base":
            x = x * (1 + 1e-6)  # a reordered float computation: within fp32 tolerance
        if VARIANT == "evil" and i == 5:
            name = "EVIL"
        return {"x": x, "name": name}


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(10):
    for batch in DataLoader(Named(), batch_size=4):
        loss = model(batch["x"]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
'''


def test_a_tolerance_never_covers_a_changed_text_leaf_in_a_real_run(tmp_path):
    """A tensor within tolerance must not explain its row when the same row's name changed too."""
    from perfloop.tools.measure.profiler import ProbeSettings, run_probed

    (tmp_path / "train.py").write_text(NAMED)
    settings = ProbeSettings(steps=3, warmup_steps=0)
    base, close, evil = (run_probed(f"python train.py {variant}", tmp_path, tmp_path / variant, settings).record
                         for variant in ("base", "close", "evil"))
    assert all(step.leaf_hashes for step in base.steps), "the probe hashes the name leaf of every step"
    control = compare_data([base], [close], allow_tolerance=True, **FP32)
    assert control.status == "within_tolerance" and control.rows_compared == control.rows_differing == 12
    result = compare_data([base], [evil], allow_tolerance=True, **FP32)
    assert result.status == "changed", result.label
    assert "step 1" in result.detail and "non-tensor leaf batch['name'] differs" in result.detail


def test_records_without_leaf_hashes_are_not_comparable_under_a_tolerance(tmp_path):
    data = batches(2)
    base = probe_dir(tmp_path / "base", data, leaf_hashes=False)
    cand = probe_dir(tmp_path / "cand", [b + 1e-7 for b in data], leaf_hashes=False)
    result = compare_data([base], [cand], allow_tolerance=True, **FP32)
    assert result.status == "not_comparable" and "no leaf_hashes" in result.detail and base in result.detail
    assert compare_data([base], [base], allow_tolerance=True, **FP32).status == "identical"


def test_a_nondeterministic_loss_gives_an_envelope_the_candidate_must_stay_in():
    baseline = [[1.0, 0.90, 0.80], [1.0, 0.91, 0.79]]
    inside = compare_losses(baseline, [[1.0, 0.905, 0.795]])
    assert inside.status == "within_envelope"
    outside = compare_losses(baseline, [[1.0, 0.905, 0.5]])
    assert outside.status == "diverged" and "step 2" in outside.detail


def test_one_source_for_tolerances():
    assert not hasattr(datacheck, "DTYPE_TOLERANCE"), "datacheck enforces what the remedy declares, no table"
    default = Verification(data="within_tolerance", loss="within_tolerance")
    assert (default.atol, default.rtol) == DTYPE_TOLERANCE["float32"]
    assert (default.loss_atol, default.loss_rtol) == LOSS_TOLERANCE
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## What the verdicts mean", 1)[1].split("\n## ", 1)[0]
    for dtype in ("float32", "float16", "bfloat16"):
        atol, rtol = DTYPE_TOLERANCE[dtype]
        text = f"{dtype} {atol:.0e}/{rtol:.0e}".replace("e-0", "e-")
        assert text in section, f"README's {dtype} tolerance disagrees with DTYPE_TOLERANCE: want {text!r}"
