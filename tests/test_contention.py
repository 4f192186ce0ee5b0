"""Hidden input contention, end to end: a loader thread that keeps up but takes the GIL from the loop.

The `contention` pipeline's prefetcher thread reads the DataLoader and builds each sample with a
Python loop over floats, holding the GIL; it keeps the model fed (the measured wait is small),
but each torch call of the loop waits for the GIL while the thread builds, so forward and
backward slow down. The free-data replay (headspace) shows what the wait hides. perfloop must
call it data-side by headspace (hidden_input_contention), name the thread's hot function
(the probe profiles a prefetcher thread's builds: a sampler needing the GIL cannot see inside
them), vectorise it offline and measure the gain in verification. The near miss is the same
pipeline without the thread: the loop reads the DataLoader and waits for its batches, a plain
wait, not hidden contention (tests/test_headspace.py covers trivial data).

The samples hold no torch call, so the thread lets the GIL go only when CPython forces it to:
the effect does not depend on how many cores the machine has or how the OS wakes threads
(about 50% headspace, 1.5x in verification on a 2-core box, 2026-12-01). The assertions are on
the diagnosis and on verification's own verdict (its interval against the noise floor), never
on raw timings.
"""
from __future__ import annotations

import json
import os

import pytest
from conftest import make_repo, perfloop

# Serial: verification's speed decision on a 1.5x gain decides one of them (a second worker's pipelines
# beside it once left the interval at [0.898, 3.271]); the module's one profiled run serves all three.
pytestmark = [pytest.mark.slow, pytest.mark.serial]

def _last_json(done) -> dict:
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.splitlines()[-1])


def _events(target, run_id: str) -> list[dict]:
    log = target / ".git" / "perfloop" / "runs" / run_id / "audit.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines() if line]


@pytest.fixture(scope="module")
def contention_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("contention")
    target = make_repo(root / "repo", "contention")
    env = {**os.environ, "PERFLOOP_HOME": str(root / "home")}
    done = perfloop("run", str(target), "--auto-approve", "--max-iters", "1", "--json", env=env)
    return target, _last_json(done), done.stderr


def test_a_contending_loader_thread_is_diagnosed_by_headspace(contention_run):
    target, result, log = contention_run
    ranked = next(e for e in _events(target, result["run_id"]) if e["event"] == "diagnoses")["data"]["ranked"]
    top = ranked[0]
    assert top["entry_id"] == "hidden_input_contention", log
    assert top["category"] == "input"
    assert top["evidence"]["headspace_share"] >= 0.20 and top["evidence"]["data_wait_share"] < 0.20
    assert top["evidence"]["hot_function"].startswith("scale_clip (train.py:")
    profile = next(e for e in _events(target, result["run_id"]) if e["event"] == "profile")["data"]["profile"]
    assert profile["loader"]["read_by_thread"] == "prefetch" and profile["loader"]["num_workers"] == 0
    assert profile["data_build"]["where"] == "main process's thread 'prefetch'"


def test_the_vectoriser_is_verified_with_a_measured_gain(contention_run):
    target, result, log = contention_run
    events = _events(target, result["run_id"])
    chosen = next((e["data"] for e in events if e["event"] == "remedy_chosen"), None)
    assert chosen is not None, log
    assert (chosen["diagnosis"], chosen["remedy"]) == ("hidden_input_contention", "vectorize_batch_building")
    [iteration] = result["iterations"]
    assert (iteration["diagnosis"], iteration["source"]) == ("hidden_input_contention", "codemod")
    assert iteration["verdict"] == "accepted", log
    assert iteration["data_check"] == "identical" and iteration["loss_check"] == "identical"
    assert iteration["ci"][0] > 1.0 and result["speedup"] > 1.0  # verification's interval excludes no gain


def test_without_the_thread_the_wait_is_plain_not_hidden(tmp_path):
    # The near miss: the same batches built by the loop's own thread. Nothing contends with the
    # loop; it waits for data, a wait the ledger shows, so the diagnosis is a data wait, not contention.
    target = make_repo(tmp_path / "repo", "contention")
    done = perfloop("profile", str(target), "--config", "configs/inline.yaml", "--json",
                    env={**os.environ, "PERFLOOP_HOME": str(tmp_path / "home")})
    result = _last_json(done)
    assert result["metrics"]["data_wait_share"] >= 0.20
    ids = [d["entry_id"] for d in result["diagnoses"]]
    assert "hidden_input_contention" not in ids
    assert result["diagnoses"][0]["category"] == "input"
