"""Audit events: written and read through the same types; logs written before the event models still read."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from perfloop.agent.audit import AuditLog
from perfloop.agent.events import EVENTS, Approval, Logged, Unrecognised, VerifyStage, parse_record
from tests.conftest import perfloop

BEFORE = Path(__file__).parent / "data" / "audit" / "before_events.jsonl"


def test_a_log_written_before_the_event_models_parses_to_typed_events():
    records = list(AuditLog(BEFORE).records())
    parsed = [parse_record(r) for r in records]
    assert [p.event.name for p in parsed] == [r["event"] for r in records]
    assert not any(isinstance(p.event, Unrecognised) for p in parsed)
    verdict = next(p.event for p in parsed if p.event.name == "verdict")
    assert verdict.verdict.stage == "speed" and verdict.verdict.data.status == "identical"


def test_perfloop_log_prints_an_old_log(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(BEFORE, run / "audit.jsonl")
    done = perfloop("log", str(run), "--diff")
    assert done.returncode == 0, done.stderr
    assert "audit chain intact" in done.stdout
    assert "proposal p1-1 (codemod, dataloader_starved/raise_num_workers)" in done.stdout
    assert "verdict p1-1: REJECTED at speed" in done.stdout
    assert "+    num_workers" in done.stdout or "+  num_workers" in done.stdout  # --diff shows the patch


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_every_event_reads_back_as_its_own_type(name, tmp_path):
    model = EVENTS[name]
    # Build an instance from the old log's record of that event where there is one, else minimal fields.
    old = {r["event"]: r["data"] for r in AuditLog(BEFORE).records()}
    minimal = {"pipeline_failed": {"error": "boom"}, "remedy_not_applicable": {"diagnosis": "d", "remedy": "r",
               "reason": "why"}, "final_check": {"original": "a" * 40, "head": "b" * 40, "original_samples_per_s": [1.0],
               "final_samples_per_s": [2.0], "speedup": 2.0, "ci": [1.5, 2.5]},
               "llm_exchange": {"model": "m", "attempt": 1, "prompt": "p", "answer": "a"},
               "llm_answer_unusable": {"attempt": 2, "reason": "not JSON"},
               "proposal_edited": {"proposal": "p1-1", "original_patch": "-a\n+b\n", "edited_patch": "-a\n+c\n"},
               "remedy_skipped": {"diagnosis": "d", "remedy": "r", "reason": "rejected here before"},
               "replay": {"file": "data.py", "function": "frame_energy", "ok": True, "verdict": "identical",
                          "reason": "8 of 8 calls identical", "num_calls": 8, "speedup": 12.0},
               "llm_call_failed": {"model": "m", "endpoint": "http://***@host/v1", "attempt": 1, "reason": "401"},
               "llm_candidate": {"index": 1, "outcome": "dropped", "reason": "search text not found"},
               "runs_contaminated": {"what": "timing pair 1", "cores": [0.9, None], "reruns_left": 3,
                                     "detail": "head contaminated: others 0.90 cores"},
               "isolation_observed": {"label": "000-full", "run": {"network": "cut"},
                                      "seen": {"network": "cut", "memory_limit": "pss_polling", "inputs": "change_check"}},
               "block_ran": {"block": "p1-1", "ran_on": "10.0.0.2 (65dd899d2d48)", "attempt": 2,
                             "lost_on": ["10.0.0.3 (2148a669db01)"], "shipped_bytes": 4096, "verdict": "accepted at speed"},
               "block_lost": {"block": "p1-1", "ran_on": "10.0.0.3 (2148a669db01)", "error": "NodeDiedError"},
               "candidates_compared": {"candidates": [{"id": "p1-1", "change": "a", "verdict": "accepted",
                                                       "stage": "speed", "speedup": 3.0}], "chosen": "p1-1"}}
    event = model.model_validate(old.get(name) or minimal[name])
    log = AuditLog(tmp_path / "audit.jsonl")
    log.append(event.name, "node", **event.model_dump(mode="json"))
    back = parse_record(next(log.records()))
    assert type(back.event) is model
    assert back.event.model_dump(mode="json") == event.model_dump(mode="json")
    assert back.lines()[0].startswith("#1")


def test_unknown_or_malformed_records_still_print():
    odd = parse_record({"seq": 3, "ts": 0.0, "node": "x", "event": "from_the_future", "data": {"n": 1}})
    assert isinstance(odd.event, Unrecognised) and "from_the_future n=1" in odd.lines()[0]
    broken = parse_record({"seq": 4, "ts": 0.0, "node": "x", "event": "approval", "data": {"decision": "approve"}})
    assert isinstance(broken.event, Unrecognised)  # missing fields: shown raw rather than dropped


def test_stage_extras_are_kept():
    stage = VerifyStage.model_validate({"stage": "patch", "passed": True, "touched": ["a.py"]})
    assert stage.model_dump()["touched"] == ["a.py"]
    assert isinstance(Logged(seq=1, ts=0, node="n", event=Approval(proposal="p1", decision="approve", by="u")).event,
                      Approval)
