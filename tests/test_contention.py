"""Hidden input contention, end to end: loader workers that keep up but take the cores from the loop.

The `contention` pipeline's workers (two per core, prefetching) build batches with a Python loop
over floats. They keep the model fed (the measured wait is small) but keep the cores busy, so the
loop's one thread gets only its share of them; the free-data replay (headspace) shows what the
wait hides. perfloop must call it
data-side by headspace (hidden_input_contention), vectorise the hot function offline and measure
the gain in verification. The near miss is the same pipeline without workers: the loop waits for
its batches, a plain wait, not hidden contention (tests/test_headspace.py covers trivial data).

The assertions are on the diagnosis and on verification's own verdict (its confidence interval
against the noise floor), never on raw timings.

The two end-to-end tests are marked `bench`, out of the default run and CI: on a quiet 2-core
box the effect is transient (16 prefetched batches against 8 + 8 measured steps) and the
headspace read 8-40% across runs of the same commit on 2026-12-01, so the diagnosis flips.
Run them by hand: `pytest -m bench tests/test_contention.py`. The near miss stays in CI.
"""
from __future__ import annotations

import json
import os

import pytest

from conftest import make_repo, perfloop

pytestmark = pytest.mark.slow

NOISY_BOX_PCT = 25.0
"""Run-to-run noise (verification's own floor) above which a speed verdict it cannot reach is
reported as inconclusive, not as a failure: only where other processes load the cores."""


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


@pytest.mark.bench
def test_contending_workers_are_diagnosed_by_headspace(contention_run):
    target, result, log = contention_run
    ranked = next(e for e in _events(target, result["run_id"]) if e["event"] == "diagnoses")["data"]["ranked"]
    top = ranked[0]
    assert top["entry_id"] == "hidden_input_contention", log
    assert top["category"] == "input"
    assert top["evidence"]["headspace_share"] >= 0.20 and top["evidence"]["data_wait_share"] < 0.20
    assert top["evidence"]["hot_function"].startswith("scale_clip (train.py:")


@pytest.mark.bench
def test_the_vectoriser_is_verified_with_a_measured_gain(contention_run):
    target, result, log = contention_run
    events = _events(target, result["run_id"])
    chosen = next((e["data"] for e in events if e["event"] == "remedy_chosen"), None)
    assert chosen is not None, log
    assert (chosen["diagnosis"], chosen["remedy"]) == ("hidden_input_contention", "vectorize_batch_building")
    [iteration] = result["iterations"]
    assert (iteration["diagnosis"], iteration["source"]) == ("hidden_input_contention", "codemod")
    speed = next((e["data"]["result"] for e in reversed(events)
                  if e["event"] == "verify_stage" and e["data"]["stage"] == "speed"), None)
    if (iteration["verdict"] == "rejected" and iteration["stage"] == "speed" and iteration["ci"][1] > 1.0
            and speed and speed["noise_pct"] >= NOISY_BOX_PCT):
        # Verification itself could not decide: the machine's run-to-run noise floor swamps the gain.
        pytest.skip(f"inconclusive on this machine: {iteration['speedup']:.2f}x, interval {iteration['ci']}, "
                    f"noise floor {speed['noise_pct']:.0f}% (other load on the cores)")
    assert iteration["verdict"] == "accepted", log
    assert iteration["data_check"] == "identical" and iteration["loss_check"] == "identical"
    assert iteration["ci"][0] > 1.0 and result["speedup"] > 1.0  # verification's interval excludes no gain


def test_without_workers_the_wait_is_plain_not_hidden(tmp_path):
    # The near miss: the same batches built in the loop's own process. Nothing contends with the
    # loop; it waits for data, a wait the ledger shows, so the diagnosis is a data wait, not contention.
    target = make_repo(tmp_path / "repo", "contention")
    done = perfloop("profile", str(target), "--config", "configs/no_workers.yaml", "--json",
                    env={**os.environ, "PERFLOOP_HOME": str(tmp_path / "home")})
    result = _last_json(done)
    assert result["metrics"]["data_wait_share"] >= 0.20
    ids = [d["entry_id"] for d in result["diagnoses"]]
    assert "hidden_input_contention" not in ids
    assert result["diagnoses"][0]["category"] == "input"
