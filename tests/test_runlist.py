"""`perfloop runs [PATH]`: one line per indexed run, with its speed-up and its audit chain, filtered by target."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.conftest import make_repo, perfloop


def _summary(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """An accepted run on `repo`, and two profiles of `repo-two` (a sibling whose name starts with `repo`),
    all in one per-user index; the second profile's audit log is then edited behind perfloop's back."""
    root = tmp_path_factory.mktemp("runlist")
    env = {**os.environ, "PERFLOOP_HOME": str(root / "home")}
    repo = make_repo(root / "repo", "waiting")
    accepted = perfloop("run", str(repo), "--auto-approve", "--max-iters", "1", "--json", env=env)
    assert accepted.returncode == 0, accepted.stderr
    two = make_repo(root / "repo-two", "waiting")
    profiles = []
    for _ in range(2):
        done = perfloop("profile", str(two), "--json", env=env)
        assert done.returncode == 0, done.stderr
        profiles.append(_summary(done.stdout))
    tampered = Path(profiles[1]["audit_log"])
    lines = tampered.read_text().splitlines()
    record = json.loads(lines[0])
    record["data"]["head"] = "0" * 40  # what a hand edit of the log would do: the hash no longer matches
    tampered.write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    return {"env": env, "repo": repo, "two": two, "accepted": _summary(accepted.stdout),
            "profiles": [p["run_id"] for p in profiles]}


def _listed(runs: dict, *path: str) -> dict[str, str]:
    done = perfloop("runs", *path, env=runs["env"])
    assert done.returncode == 0, done.stderr
    return {line.split()[0]: line for line in done.stdout.splitlines()[1:]}


def test_an_accepted_run_shows_its_speedup(runs):
    accepted = runs["accepted"]
    [item] = accepted["iterations"]
    assert item["verdict"] == "accepted", item["reason"]  # the waiting pipeline's deterministic accept
    line = _listed(runs)[accepted["run_id"]]
    assert re.search(rf"\smax_iterations\s+{accepted['speedup']:.2f}x\s+chain intact\s", line), line
    assert accepted["speedup"] > 1.0
    for run_id in runs["profiles"]:  # a profile times nothing: no speed-up to show
        assert re.search(r"\sprofile\s+-\s+chain ", _listed(runs)[run_id])


def test_a_broken_audit_chain_is_shown(runs):
    listed = _listed(runs)
    intact, tampered = runs["profiles"]
    assert "chain intact" in listed[intact]
    assert "chain BROKEN" in listed[tampered], listed[tampered]
    assert "chain intact" in listed[runs["accepted"]["run_id"]]


def test_path_filter_leaves_other_targets_out(runs):
    everything = _listed(runs)
    assert set(everything) == {runs["accepted"]["run_id"], *runs["profiles"]}
    only_repo = _listed(runs, str(runs["repo"]))  # not repo-two, though its path starts the same
    assert set(only_repo) == {runs["accepted"]["run_id"]}
    only_two = _listed(runs, str(runs["two"]))
    assert set(only_two) == set(runs["profiles"])
    above = _listed(runs, str(runs["repo"].parent))  # a folder holding both targets lists both
    assert set(above) == set(everything)
    elsewhere = perfloop("runs", str(runs["repo"] / "configs"), env=runs["env"])
    assert elsewhere.returncode == 0 and elsewhere.stdout.startswith("no runs recorded for ")
