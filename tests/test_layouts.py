"""Equivalence where the model sees it: a layout change is not a data change; value, label and precision changes are."""
from __future__ import annotations

import pytest

from perfloop.contracts.layout import Env
from perfloop.tools.check.datacheck import compare_data, compare_losses
from perfloop.tools.measure.profiler import ProbeSettings, run_probed
from perfloop.tools.measure.record import ProbeRecord
from tests.conftest import PIPELINES

SETTINGS = ProbeSettings(steps=6, warmup_steps=1)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Run every variant once (two baselines) under the probe in light mode, as verification does."""
    out = tmp_path_factory.mktemp("layouts")
    variants = ["list", "list", "tensor", "norm_item", "norm_item", "norm_loop", "packed", "rescaled",
                "relabelled", "half"]
    done = {}
    for number, variant in enumerate(variants):
        key = variant if variant not in done else f"{variant}-again"
        done[key] = run_probed(f"python train.py --variant {variant}", PIPELINES / "layouts", out / f"{number}-{key}",
                               SETTINGS).measurement
    # As verify's timing runs after a smoke run that matched row by row: row and leaf hashes only.
    for variant in ("list", "tensor", "norm_loop"):
        done[f"{variant}-rows"] = run_probed(f"python train.py --variant {variant}", PIPELINES / "layouts",
                                             out / f"rows-{variant}", SETTINGS,
                                             extra_env={Env.FINGERPRINT: "rows"}).measurement
    return done


def check(runs, baseline: str, candidate: str):
    base = [runs[baseline].probe_dir, runs[f"{baseline}-again"].probe_dir]
    return compare_data(base, [runs[candidate].probe_dir], allow_tolerance=False)


def test_list_of_floats_fixed_by_a_tensor_is_identical_after_layout(runs):
    result = check(runs, "list", "tensor")
    assert result.status == "identical" and result.rule == "layout_free", result.detail
    assert result.label == "identical (layout changed)"
    assert "batch['window'][0]" in result.detail and "batch['window']:torch.float32:(12,)" in result.detail


def test_normalisation_moved_into_the_loop_is_identical_at_model_input(runs):
    result = check(runs, "norm_item", "norm_loop")
    assert result.status == "identical" and result.rule == "model_input", result.detail
    assert result.label == "identical at model input"


def test_packed_collate_unpacked_by_the_loop_is_identical(runs):
    # The packed tensor holds [label, window], the dict's leaves in their sorted order: the same values per sample.
    result = check(runs, "list", "packed")
    assert result.status == "identical" and result.rule == "layout_free", result.detail
    assert "to {batch:torch.float32:(13,)}" in result.detail


def test_loader_output_identity_stays_the_fast_path(runs):
    result = check(runs, "list", "list-again")
    assert result.status == "identical" and result.rule == "loader_output"


@pytest.mark.parametrize("wrong", ["rescaled", "relabelled", "half"])
def test_wrong_fixes_are_still_changed(runs, wrong):
    result = check(runs, "list", wrong)
    assert result.status == "changed", result.detail
    if wrong == "half":  # the loader's batches hold the same values; what the model was given does not
        assert compare_data([runs["list"].probe_dir], [runs["tensor"].probe_dir], False).status == "identical"
    if wrong == "relabelled":  # the model input is unchanged: the loss gives it away
        assert compare_losses([runs["list"].losses], [runs["relabelled"].losses]).status == "diverged"


def test_rows_only_runs_hash_the_same_rows_and_leave_out_only_the_layout_free_fallbacks(runs):
    """Env.FINGERPRINT=rows (verify's timing runs once the smoke run matched row by row): the same row and leaf
    hashes as a full run, no value or model-input hashes; where rows then differ, the check says changed."""
    full, rows = ProbeRecord.read(runs["list"].probe_dir), ProbeRecord.read(runs["list-rows"].probe_dir)
    assert (full.fingerprint, rows.fingerprint) == ("full", "rows")
    assert [s.row_hashes for s in rows.steps] == [s.row_hashes for s in full.steps]
    assert [s.leaf_hashes for s in rows.steps] == [s.leaf_hashes for s in full.steps]
    assert all(s.value_hashes for s in full.steps) and not any(s.value_hashes for s in rows.steps)
    assert all(s.input_hashes for s in full.steps) and not any(s.input_hashes for s in rows.steps)
    result = compare_data([runs["list"].probe_dir, runs["list-again"].probe_dir], [runs["list-rows"].probe_dir], False)
    assert result.status == "identical" and result.rule == "loader_output", result.detail
    # A layout change found identical in full runs is not looked for in rows-only ones: changed, and said why.
    for baseline, candidate in (("list", "tensor"), ("norm_item", "norm_loop")):
        assert check(runs, baseline, candidate).status == "identical"
        result = compare_data([runs[baseline].probe_dir], [runs[f"{candidate}-rows"].probe_dir], False)
        assert result.status == "changed" and "hashed rows only" in result.detail, result.detail
