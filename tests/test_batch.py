"""Several targets in one command (`perfloop run A B C`, `--targets FILE`): each its own run, one table."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT, git, make_repo

FLAGS = ["--auto-approve", "--steps", "4", "--warmup-steps", "1", "--noise-runs", "1", "--max-iters", "1",
         "--ab-runs", "2", "--max-ab-runs", "2"]


def test_three_targets_are_three_runs_and_one_that_fails_does_not_stop_the_others(tmp_path):
    first = make_repo(tmp_path / "first")
    second = make_repo(tmp_path / "second")
    (tmp_path / "targets.txt").write_text("# the batch\nsecond configs/train.yaml\nmissing_folder  # not there\n")
    done = subprocess.run([sys.executable, "-m", "perfloop.agent.cli", "run", str(first), "--targets",
                           str(tmp_path / "targets.txt"), "--jobs", "2", "--json", *FLAGS],
                          capture_output=True, text=True, cwd=ROOT, timeout=900)
    rows = json.loads(done.stdout.strip().splitlines()[-1])["targets"]
    assert [row["target"] for row in rows] == [str(first), str(second), str(tmp_path / "missing_folder")]
    good, other, missing = rows
    assert good["exit"] == 0 and other["exit"] == 0, done.stderr[-3000:]
    assert good["run_id"] != other["run_id"] and other["config"] == "configs/train.yaml"
    for repo, row in ((first, good), (second, other)):  # each its own branch, in its own repository
        assert git(repo, "branch", "--list", row["branch"]).strip() == row["branch"]
        assert row["verdicts"] and row["verdicts"][0].startswith("p1-1 ")
    assert missing["exit"] == 2 and missing["run_id"] is None and "no summary" in missing["error"]
    assert done.returncode == 2  # the first failing target's status
    assert "[1] perfloop: profiling run" in done.stderr and "[2] perfloop: profiling run" in done.stderr  # prefixed
    assert "[3] perfloop: " in done.stderr and "missing_folder is not a folder" in done.stderr  # its own error


def test_a_bad_targets_file_is_exit_2_naming_the_line(tmp_path):
    (tmp_path / "targets.txt").write_text("a b c\n")
    done = subprocess.run([sys.executable, "-m", "perfloop.agent.cli", "run", "--targets", str(tmp_path / "targets.txt")],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and "targets.txt:1: expected PATH or PATH CONFIG" in done.stderr
    done = subprocess.run([sys.executable, "-m", "perfloop.agent.cli", "run"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 2 and "needs a PATH" in done.stderr
