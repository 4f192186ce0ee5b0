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


def test_every_rank_is_checked_and_a_rank_whose_data_changed_is_named(tmp_path):
    """Rank 1's samples scaled in the candidate: rank 0's batches stay identical, so a rank-0 check passes;
    the per-rank check (what verify runs on every stage) names rank 1. The losses diverge on both ranks
    after the first all-reduce, and rank 1's already at step 0."""
    from perfloop.tools.check.datacheck import compare_data as data_check
    from perfloop.tools.check.datacheck import compare_losses, compare_ranks
    from perfloop.tools.measure.record import ProbeRecord

    base, cand = tmp_path / "base", tmp_path / "cand"
    shutil.copytree(PIPELINES / "ranks", base)
    shutil.copytree(PIPELINES / "ranks", cand)
    train = cand / "train.py"
    train.write_text(train.read_text().replace("        return self.x[index], self.y[index]",
                                               "        x = self.x[index] * 1.5 if self.slow else self.x[index]\n"
                                               "        return x, self.y[index]").replace(
        "        self.delay_s = delay_s", "        self.delay_s = delay_s\n        self.slow = delay_s > 0.002"))
    settings = ProbeSettings(steps=6, warmup_steps=1)
    runs = {name: run_probed(COMMAND, folder, tmp_path / f"out-{name}", settings, mode="light")
            for name, folder in (("base", base), ("again", base), ("cand", cand))}

    def ranks(name):
        out = tmp_path / f"out-{name}"
        return {0: ProbeRecord.read(out), **ProbeRecord.read_other_ranks(out)}

    def compare_data(base_runs, cand_runs):
        return data_check(base_runs, cand_runs, False)

    assert sorted(ranks("base")) == [0, 1]
    assert compare_data([ranks("base")[0]], [ranks("cand")[0]]).status == "identical"  # rank 0 alone: unseen
    same = compare_ranks([ranks("base")], [ranks("again")], compare_data, "record")
    assert same.status == "identical" and same.ranks == [0, 1] and "every one of 2 ranks compared" in same.detail
    changed = compare_ranks([ranks("base")], [ranks("cand")], compare_data, "record")
    assert changed.status == "changed" and changed.detail.startswith("rank 1 of 2: "), changed.detail

    def losses(name):
        return {rank: [s.loss for s in record.steps] for rank, record in ranks(name).items()}

    assert compare_ranks([losses("base")], [losses("again")], compare_losses, "loss").status == "identical"
    diverged = compare_ranks([losses("base")], [losses("cand")], compare_losses, "loss")
    assert diverged.status == "diverged", diverged.detail
    assert runs["cand"].measurement.num_steps_measured == 6
