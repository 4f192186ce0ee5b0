"""The eval harness: its pure judgements on hand-made numbers, and one real suite run on a tiny target."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from perfloop.evals import checks, harness, measure, table
from tests.conftest import ROOT, git

AGENT_FAST = "--steps 8 --warmup-steps 2 --noise-runs 2 --ab-runs 2 --max-ab-runs 2 --max-iters 1"

TINY_TRAIN = '''\
"""A tiny data-bound pipeline: every sample sleeps, evalkit meters the loop."""
import argparse
import time

import torch
import yaml
from torch.utils.data import DataLoader, Dataset

import evalkit


class Rows(Dataset):
    def __init__(self, num_rows, delay_s, seed):
        generator = torch.Generator().manual_seed(seed)
        self.x = torch.randn(num_rows, 16, generator=generator)
        self.y = torch.randint(0, 4, (num_rows,), generator=generator)
        self.delay_s = delay_s

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        time.sleep(self.delay_s)
        return self.x[index], self.y[index]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    cfg = yaml.safe_load(open(parser.parse_args().config))
    torch.manual_seed(cfg["seed"])
    loader = DataLoader(Rows(cfg["num_rows"], cfg["delay_s"], cfg["seed"]), batch_size=cfg["batch_size"],
                        shuffle=True, num_workers=cfg["num_workers"],
                        generator=torch.Generator().manual_seed(cfg["seed"]))
    model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    meter = evalkit.Meter()
    for _ in range(cfg["epochs"]):
        for x, y in loader:
            meter.batch((x, y))
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"rows_seen": meter.samples})


if __name__ == "__main__":
    main()
'''

TINY_CONFIG = """\
seed: 3
epochs: 1000
num_rows: 256
batch_size: 16
delay_s: 0.004   # the planted bottleneck: 64 ms of sleeping per batch
num_workers: 0
"""


def make_targets(root: Path) -> Path:
    """Write a targets folder holding `tiny` (planted sleep, oracle removes it) and `broken` (crashes)."""
    tiny = root / "tiny"
    (tiny / "configs").mkdir(parents=True)
    (tiny / "train.py").write_text(TINY_TRAIN)
    (tiny / "configs" / "train.yaml").write_text(TINY_CONFIG)
    (tiny / "perfloop.toml").write_text(textwrap.dedent("""\
        [tool.perfloop]
        command = "python train.py --config {config}"
        config = "configs/train.yaml"
        editable = ["train.py", "configs/train.yaml"]
        steps = 8
        warmup_steps = 2
        """))
    (tiny / "expected.toml").write_text('diagnosis = "dataloader_starved"\nalso_acceptable = ["transform_hotspot"]\n'
                                        'oracle_data = "identical"\n')
    # The oracle patch is made with git so it applies exactly: it drops the sleep.
    scratch = root.parent / "oracle-scratch"
    scratch.mkdir()
    (scratch / "configs").mkdir()
    (scratch / "configs" / "train.yaml").write_text(TINY_CONFIG)
    git(scratch, "init", "-q")
    git(scratch, "add", "-A")
    git(scratch, "commit", "-q", "-m", "base")
    (scratch / "configs" / "train.yaml").write_text(TINY_CONFIG.replace("delay_s: 0.004", "delay_s: 0.0"))
    (tiny / "oracle.patch").write_text(git(scratch, "diff"))

    broken = root / "broken"
    broken.mkdir()
    (broken / "train.py").write_text('raise RuntimeError("planted failure")\n')
    (broken / "perfloop.toml").write_text('[tool.perfloop]\ncommand = "python train.py"\n')
    return root


def run_evals(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run `python -m perfloop.evals` from ``cwd`` (outside the project, as a user would with perfloop installed)."""
    return subprocess.run([sys.executable, "-m", "perfloop.evals", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=900, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """Run the real suite once on `tiny` and `broken`; return (process, JSON report, targets dir)."""
    root = tmp_path_factory.mktemp("evals")
    targets = make_targets(root / "targets")
    done = run_evals("--targets-dir", str(targets), "--work-dir", str(root / "work"), "--runs", "2",
                     "--eval-steps", "12", "--eval-warmup", "2", "--json-out", str(root / "out.json"),
                     "--agent-args", AGENT_FAST, cwd=root)
    report = json.loads((root / "out.json").read_text()) if (root / "out.json").exists() else None
    return done, report, targets


def test_suite_measures_tiny_target_independently(suite):
    done, report, _ = suite
    assert report is not None, done.stderr
    row = {r["label"]: r for r in report["rows"]}["tiny"]
    assert row.get("error") is None, row
    accepted = [it["data_check"] for it in row["iterations"] if it["verdict"] == "accepted"]
    assert row["agent_is_original"] is (not accepted)
    assert (row["commits"]["agent"] != row["commits"]["original"]) == bool(accepted)
    for variant in ("original", "agent", "oracle"):
        assert len(row["measured"][variant]["samples_per_s"]) == 2, row["measured"][variant]
        assert row["measured"][variant]["steps"] == 12
    # Interleaved: one run of each measured variant per round, in the same order every round.
    order = [v for v in ("original", "agent", "oracle") if v != "agent" or accepted]
    starts = [row["measured"][v]["runs"][k]["started_at"] for k in range(2) for v in order]
    assert starts == sorted(starts)
    # The oracle removes a 64 ms sleep per batch: a gain no noise can hide, with the data untouched.
    assert row["oracle_speedup"] > 1.5 and row["oracle_data_identical"] is True
    assert row["measured"]["original"]["extra"] == {"rows_seen": 12 * 16}
    audit = [json.loads(line) for line in open(row["agent"]["audit_log"])]
    first = next(r for r in audit if r["event"] == "diagnoses")["data"]["ranked"]
    assert row["top_diagnosis"] == (first[0]["entry_id"] if first else None)
    assert row["diagnosis_ok"] == (row["top_diagnosis"] in {"dataloader_starved", "transform_hotspot"})
    assert row["runs_used"] == row["agent"]["runs_used"] > 0
    # The 64 ms sleep per batch is all data side: the replay of stored batches shows it as headspace.
    assert row["headspace"] == row["agent"]["baseline"]["headspace"] and row["headspace"] > 0.5, row["headspace_note"]
    assert row["verdicts"] == checks.verdict_letters(it["verdict"] for it in row["iterations"])
    if not accepted:
        assert row["agent_speedup"] == 1.0 and row["data_identical"] is True and row["false_accept"] is False
    assert (row["false_accept"], row["false_accept_reason"]) == checks.false_accept(
        accepted, row["agent_speedup"], row["noise"], row["data_identical"])


def test_suite_survives_a_broken_target_and_prints_one_table(suite):
    done, report, _ = suite
    assert done.returncode == (1 if report["totals"]["false_accepts"] else 0), done.stderr
    broken = {r["label"]: r for r in report["rows"]}["broken"]
    assert broken["error"].startswith("agent exited") and broken["agent_wall_s"] > 0
    lines = done.stdout.strip().splitlines()
    assert lines[0].split()[:2] == ["target", "expected"]
    assert [line.split()[0] for line in lines[2:4]] == ["broken", "tiny"]
    assert "agent exited" in lines[2] and lines[2].split()[2] == "-"
    assert lines[-1].startswith("diagnosis ") and f"errors {report['totals']['errors']}" in lines[-1]
    assert report["totals"]["errors"] == 1 and report["totals"]["diagnosis_expected"] == 1


def test_unknown_target_is_a_usage_error(tmp_path):
    targets = make_targets(tmp_path / "targets")
    done = run_evals("--targets-dir", str(targets), "--only", "tiny", "nope", cwd=tmp_path)
    assert done.returncode == 2
    assert "unknown target(s) nope; known: broken, tiny" in done.stderr
    assert not (tmp_path / "eval-results.json").exists()


def test_run_pipeline_reads_evalkit_without_pythonpath(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/somewhere/probe")
    script = ("import json, os; print('noise'); print('EVALKIT ' + json.dumps("
              "{'pythonpath': os.environ.get('PYTHONPATH'), 'max': os.environ['EVAL_MAX_STEPS']}))")
    record = measure.run_pipeline(tmp_path, f"python -c {measure.shlex.quote(script)}", 7, None, 60)
    assert record == {"pythonpath": None, "max": "7"}


def test_run_pipeline_failure_names_the_error(tmp_path):
    with pytest.raises(measure.PipelineFailed, match="exited 1 without an EVALKIT line: ValueError: bad config"):
        measure.run_pipeline(tmp_path, "python -c 'raise ValueError(\"bad config\")'", 5, None, 60)
    with pytest.raises(measure.PipelineFailed, match="ran past 1 s"):
        measure.run_pipeline(tmp_path, "sleep 30", 5, None, 1)


@pytest.mark.parametrize("checks_, speedup, noise, same, expected", [
    ([], 0.5, 0.0, False, False),                          # nothing accepted: never a false accept
    (["identical"], 1.02, 0.01, True, True),               # under the 3% floor
    (["identical"], 1.08, 0.10, True, True),               # under the noise
    (["identical"], 1.20, 0.10, True, False),              # a real gain
    (["identical"], 1.50, 0.01, False, True),              # data changed, reported identical
    (["identical", "within_tolerance"], 1.5, 0.01, False, False),  # change disclosed
    (["identical"], None, 0.01, True, True),               # accepted checkout does not run
])
def test_false_accept_rule(checks_, speedup, noise, same, expected):
    verdict, why = checks.false_accept(checks_, speedup, noise, same)
    assert verdict is expected and bool(why) is expected


def test_log_share_of_oracle_gain():
    assert checks.log_share_of_oracle_gain(2.0, 4.0) == pytest.approx(0.5)
    assert checks.log_share_of_oracle_gain(1.0, 4.0) == 0.0
    assert checks.log_share_of_oracle_gain(0.5, 4.0) == pytest.approx(-0.5)  # a slowdown counts against
    assert checks.log_share_of_oracle_gain(2.0, 1.03) is None and checks.log_share_of_oracle_gain(None, 4.0) is None


@pytest.mark.parametrize("label", ["identical (layout changed)", "identical at model input"])
def test_false_accept_rule_beyond_the_loader(label):
    # The loader's batches changed (digest differs) and the verdict said so; the model's numbers did not.
    assert checks.false_accept([label], 5.0, 0.01, False, True) == (False, "")
    assert checks.false_accept(["identical", label], 5.0, 0.01, False, True) == (False, "")
    # ... unless the loss curve moved: then the model was not given the same numbers after all.
    verdict, why = checks.false_accept([label], 5.0, 0.01, False, False)
    assert verdict is True and "loss" in why


def test_share_of_oracle_gain():
    assert checks.share_of_oracle_gain(1.5, 2.0) == pytest.approx(0.5)
    assert checks.share_of_oracle_gain(0.9, 1.5) == pytest.approx(-0.2)
    assert checks.share_of_oracle_gain(1.5, 1.04) is None
    assert checks.share_of_oracle_gain(None, 2.0) is None


def test_noise_ratio_and_verdicts():
    assert checks.spread([90.0, 100.0, 110.0]) == pytest.approx(0.2) and checks.spread([5.0]) == 0.0
    assert checks.ratio(150.0, 100.0) == pytest.approx(1.5) and checks.ratio(1.0, None) is None
    assert checks.verdict_letters(["accepted", "rejected", "declined"]) == "A,R,D"
    assert checks.verdict_letters([]) == "-"
    assert checks.diagnosis_matches("slow_collate", "dataloader_starved", ["slow_collate"]) is True
    assert checks.diagnosis_matches(None, "dataloader_starved") is False
    assert checks.diagnosis_matches("x", None) is None


def test_judge_compares_digests_losses_and_speed():
    def variant(speeds, digest, losses):
        return measure.summarize([{"steady_samples_per_s": s, "batch_digest": digest, "losses": losses,
                                   "final_loss": losses[-1], "extra": {}, "steps": 3} for s in speeds])
    measured = {"original": variant([100, 102, 98], "d0", [1.0, 0.5]),
                "agent": variant([150, 151, 149], "d1", [1.0, 0.55]),
                "oracle": variant([200, 200, 200], "d0", [1.0, 0.5])}
    verdict = harness.judge(measured, ["identical"])
    assert verdict["agent_speedup"] == pytest.approx(1.5) and verdict["oracle_speedup"] == pytest.approx(2.0)
    assert verdict["share_of_oracle_gain"] == pytest.approx(0.5)
    assert verdict["data_identical"] is False and verdict["loss_identical"] is False
    assert verdict["final_loss_rel_diff"] == pytest.approx(0.1) and verdict["oracle_data_identical"] is True
    assert verdict["false_accept"] is True and "reported it identical" in verdict["false_accept_reason"]
    assert harness.judge(measured, ["changed"])["false_accept"] is False


def test_first_top_diagnosis_reads_the_initial_profile(tmp_path):
    log = tmp_path / "audit.jsonl"
    events = [{"event": "profile", "data": {}},
              {"event": "diagnoses", "data": {"ranked": [{"entry_id": "dataloader_starved"}, {"entry_id": "x"}]}},
              {"event": "diagnoses", "data": {"ranked": [{"entry_id": "compute_bound"}]}}]
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    assert harness.first_top_diagnosis(log) == "dataloader_starved"
    log.write_text(json.dumps({"event": "diagnoses", "data": {"ranked": []}}) + "\n")
    assert harness.first_top_diagnosis(log) is None


def test_table_aligns_columns_and_totals():
    rows = [{"label": "data_bound", "expected_diagnosis": "dataloader_starved", "top_diagnosis": "dataloader_starved",
             "diagnosis_ok": True, "verdicts": "A,R", "agent_speedup": 2.5, "oracle_speedup": 4.0,
             "share_of_oracle_gain": 0.5, "data_identical": True, "false_accept": False, "agent_wall_s": 93.4,
             "runs_used": 17, "headspace": 0.873},
            {"label": "json_parsing#2", "expected_diagnosis": "transform_hotspot", "top_diagnosis": None,
             "diagnosis_ok": False, "error": "agent exited 3: boom\nmore"},
            {"label": "broken", "error": "agent exited 3: planted"}]
    text = table.format_table(rows, harness.totals(rows))
    lines = text.splitlines()
    assert len(lines) == 7
    header, first, second = lines[0], lines[2], lines[3]

    def cell(line: str, column: str) -> str:
        return line[header.index(column):].split("  ")[0]

    assert [cell(first, c) for c in ("top diagnosis", "headspace", "verdicts", "agent", "oracle", "share",
                                     "data same", "false accept", "wall s", "runs")] == [
        "dataloader_starved ✓", "87%", "A,R", "2.50x", "4.00x", "50%", "yes", "no", "93", "17"]
    assert cell(second, "headspace") == "-"
    assert [cell(second, c) for c in ("top diagnosis", "verdicts", "agent", "share", "false accept", "note")] == [
        "(none) ✗", "-", "-", "n/a", "-", "agent exited 3: boom"]
    assert cell(lines[4], "top diagnosis") == "-"
    assert lines[-1] == ("diagnosis 1/2 · false accepts 0 · median share of oracle gain 50% (log scale n/a) · "
                         "errors 2")


def test_exit_code_gates_on_false_accepts():
    assert harness.exit_code({"totals": {"false_accepts": 0}}) == 0
    assert harness.exit_code({"totals": {"false_accepts": 2}}) == 1


def test_table_note_names_a_broken_oracle():
    row = {"label": "t", "top_diagnosis": "x", "diagnosis_ok": None, "oracle_error": "git apply failed\nhunk 2"}
    assert table.row_cells(row)[-1] == "oracle: git apply failed"
    assert table.row_cells({**row, "false_accept_reason": "why"})[-1] == "why"


def test_overhead_measures_every_mode_by_the_targets_own_meter(tmp_path):
    from perfloop.evals.overhead import MODES, added_per_step, measure

    targets = make_targets(tmp_path / "targets")
    rows: list[float] = []
    own: dict[str, list[float]] = {}
    read: dict[str, list[float]] = {}
    medians: dict[str, list[float]] = {}
    # A setting of the target's config for another step length: the bare runs' rows per step show it took.
    results = measure("tiny[batch_size=8, delay_s=0.001]", runs=1, steps=8, warmup=2, targets_dir=targets,
                      rows_per_step=rows, probe_ms=own, readings=read, step_ms=medians)
    assert set(results) == set(MODES)
    assert all(len(values) == 1 and values[0] > 0 for values in results.values())  # measure() checks the probe attached
    assert rows == [8.0]
    assert set(own) == set(MODES) - {"bare"} and all(len(v) == 1 and v[0] > 0 for v in own.values())
    # perfloop's own reading of each probed run: samples over the record's step times, on the order of the meter's.
    assert set(read) == set(MODES) - {"bare"}
    assert all(len(v) == 1 and 0.5 < v[0] / results[mode][0] < 2.0 for mode, v in read.items())
    # The meter's median step of every run, bare included (the planted 1 ms sleep a step at least), and the
    # column made of them: each probed mode's step minus the bare one's, in ms and as a share.
    assert set(medians) == set(MODES) and all(len(v) == 1 and v[0] >= 1.0 for v in medians.values())
    cells = added_per_step(medians).split(", ")
    assert len(cells) == 3 and all(re.fullmatch(r"[+-]\d+\.\d\d ms \([+-]\d+\.\d%\)", cell) for cell in cells), cells
    assert added_per_step({"bare": [2.0], "light": [2.5]}) == "+0.50 ms (+25.0%), -, -"


def test_overhead_variants_name_what_is_wrong(tmp_path):
    from perfloop.evals.overhead import parse_variant, set_config

    assert parse_variant("data_bound") == ("data_bound", {})
    assert parse_variant("data_bound[batch_size=256,num_workers = 2]") == \
        ("data_bound", {"batch_size": "256", "num_workers": "2"})
    with pytest.raises(ValueError, match="'batch_size' is not key=value"):
        parse_variant("data_bound[batch_size]")
    config = tmp_path / "train.yaml"
    config.write_text("data:\n  batch_size: 64  # rows\nbatch_size_eval: 8\n")
    set_config(config, {"batch_size": "256"})
    assert config.read_text() == "data:\n  batch_size: 256  # rows\nbatch_size_eval: 8\n"
    with pytest.raises(ValueError, match=r"train.yaml: no `epochs:` or `epochs =` line"):
        set_config(config, {"epochs": "3"})


def _suite_targets() -> list[Path]:
    from perfloop.evals.__main__ import SUITES

    return sorted(d for folder in SUITES.values() if folder.is_dir() for d in folder.iterdir()
                  if (d / "expected.toml").is_file())


@pytest.mark.parametrize("target", _suite_targets(), ids=lambda d: f"{d.parent.name}/{d.name}")
def test_every_suite_target_keeps_the_contract(tmp_path, target):
    """Each target of every suite: its perfloop.toml loads, its expected diagnoses are knowledge-base
    entries, and its oracle.patch applies to a copy of it (the harness's first steps, without running it)."""
    import shutil
    import tomllib

    from perfloop.knowledge_base import load_entries
    from perfloop.tools.contract.target import load_target

    load_target(target)
    expected = tomllib.loads((target / "expected.toml").read_text())
    known = {entry.id for entry in load_entries()}
    for name in [expected["diagnosis"], *expected.get("also_acceptable", [])]:
        assert name in known, f"{target}/expected.toml names {name!r}, not a knowledge-base entry"
    copy = tmp_path / target.name
    shutil.copytree(target, copy)
    git(copy, "init", "-q")
    git(copy, "apply", "--check", str(target / "oracle.patch"))


def test_a_change_timed_from_the_second_epoch_is_re_measured_to_the_pipelines_end(tmp_path, monkeypatch):
    """blind3's rle_cell_masks: a cache kept from epoch 2, re-measured inside the first epoch, read 0.95x."""
    env = measure.pipeline_env(None, None)
    assert "EVAL_MAX_STEPS" not in env and measure.pipeline_env(60, None)["EVAL_MAX_STEPS"] == "60"
    seen = {}

    def interleaved(checkouts, command, runs, max_steps, warmup, timeout_s):
        seen["max_steps"] = max_steps
        record = {"steady_samples_per_s": 10.0, "batch_digest": "d", "losses": [1.0], "final_loss": 1.0}
        return {name: [record] for name in checkouts}

    monkeypatch.setattr(measure, "measure_interleaved", interleaved)
    monkeypatch.setattr(harness.workspace, "checkout", lambda repo, commit, path: path)
    monkeypatch.setattr(harness.workspace, "has_oracle", lambda targets, name: False)
    monkeypatch.setattr(harness.workspace, "read_contract",
                        lambda path: type("C", (), {"command": "python train.py", "config": None})())
    options = harness.Options(targets_dir=tmp_path, work_dir=str(tmp_path))
    commits = {"original": "a", "agent": "b"}
    harness.remeasure("t", "t", tmp_path, tmp_path, commits, options, natural=True)
    assert seen["max_steps"] is None
    harness.remeasure("t", "t", tmp_path, tmp_path, commits, options)
    assert seen["max_steps"] == options.eval_steps
    row = {"label": "t", "remeasured_natural": True, "false_accept_reason": ""}
    assert table.row_cells(row)[-1] == "re-measured to the pipeline's end"
