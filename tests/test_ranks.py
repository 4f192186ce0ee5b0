"""torchrun: every rank is analysed, the job is bounded on every rank, and the straggler is named."""
from __future__ import annotations

import shutil

from perfloop.tools.measure.profiler import ProbeSettings, build_profile, run_probed
from tests.conftest import PIPELINES

COMMAND = "torchrun --standalone --nproc_per_node=2 train.py --config configs/train.yaml"


def test_two_ranks_over_gloo_name_the_slower_one(tmp_path):
    target = tmp_path / "ranks"
    shutil.copytree(PIPELINES / "ranks", target)
    settings = ProbeSettings(steps=10, warmup_steps=2)
    full = run_probed(COMMAND, target, tmp_path / "out", settings, mode="full")
    assert sorted(p.name for p in (tmp_path / "out").glob("main-rank*.json")) == ["main-rank0.json",
                                                                                  "main-rank1.json"]
    profile = build_profile(full, [], COMMAND, target, settings)
    report = profile.ranks
    assert report is not None and [r.rank for r in report.ranks] == [0, 1]
    assert all(r.num_steps == 10 for r in report.ranks)  # both ranks were bounded at warmup + steps
    assert report.slowest_rank == 1  # its loader sleeps four times longer per sample
    assert report.ranks[1].data_wait_ms > report.ranks[0].data_wait_ms
    assert report.excess_ms > 0 and "rank 1 is the straggler" in report.sentence()
