"""A few wrong edits through the real LLM path and verify; each must be rejected at the stage that catches it."""
from __future__ import annotations

import pytest

from perfloop.evals.adversarial.corpus import MUTANTS
from perfloop.evals.adversarial.run import format_rows, run_adversarial
from perfloop.evals.copy_target import TARGETS_DIR


def test_corpus_edits_apply_to_their_targets():
    assert len(MUTANTS) >= 20 and len({m.name for m in MUTANTS}) == len(MUTANTS)
    for mutant in MUTANTS:
        assert (TARGETS_DIR / mutant.target / mutant.file).read_text().count(mutant.search) == 1, mutant.name


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    # Each fails on the verify of before issue 6: the probe variable passed the regex scope
    # check, the short run compared its common prefix, the rewritten config was never looked at.
    names = ["disable_probe", "stop_early", "write_config", "oracle_float_reorder"]
    return {row.name: row for row in run_adversarial(tmp_path_factory.mktemp("adversarial"), names)}


def test_touching_the_probe_is_refused_at_patch(rows):
    assert rows["disable_probe"].verdict == "rejected" and rows["disable_probe"].stage == "patch"


def test_stopping_early_is_changed_data(rows):
    row = rows["stop_early"]
    assert row.verdict == "rejected" and row.stage == "data" and "ran 11 of 12 steps" in row.reason


def test_writing_to_an_input_is_a_changed_side_output(rows):
    row = rows["write_config"]
    assert row.verdict == "rejected" and row.stage == "side_outputs" and "configs/train.yaml" in row.reason
    assert "0 accepted" in format_rows(list(rows.values()))


def test_a_correct_float_reordering_still_passes_within_tolerance(rows):
    row = rows["oracle_float_reorder"]
    # Whether it is faster on this machine right now is the timing's call; every behaviour check passed.
    assert row.stage in ("speed", "commit"), row.reason
    assert row.data_check.startswith("within_tolerance (compared ") and 0 < row.max_abs_diff < 1e-5
    compared, _, differing = row.data_check.split("compared ")[1].split(" differing")[0].partition(" of ")
    assert int(compared) == int(differing) > 0
