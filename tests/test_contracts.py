"""One source per contract: where a name list lives twice (layers forbid one importing the other), they agree."""
from __future__ import annotations

import re
from pathlib import Path

from perfloop.knowledge_base import metrics as kb_metrics
from perfloop.tools.measure import models
from tests.test_models import profile

ROOT = Path(__file__).resolve().parents[1]


def test_profile_metrics_are_exactly_the_knowledge_base_metrics():
    # tools/ may not import knowledge_base/, so Profile.metrics() and METRICS are kept equal by this test.
    produced = set(profile(num_workers=2, data_wait_ms=5.0, build_ms=8.0).metrics())
    assert produced == set(kb_metrics.METRICS)


def test_knowledge_base_readme_lists_every_metric():
    text = (ROOT / "knowledge_base" / "README.md").read_text()
    listed = dict(re.findall(r"^\| `(\w+)` \| (number|text) \|", text, flags=re.M))
    assert listed == {name: metric.kind for name, metric in kb_metrics.METRICS.items()}


def test_stage_names_agree():
    # The ledger's stages are the source; the knowledge base adds two sums of them.
    assert set(kb_metrics.STAGES) == set(models.STAGES) | {"input", "compute"}
    ledger_fields = set(models.StageLedger.model_fields) - {"step_ms"}
    assert ledger_fields == {f"{stage}_ms" for stage in models.STAGES}
    probe = (ROOT / "tools" / "measure" / "probe" / "perfloop_probe.py").read_text()
    timed = re.search(r"^_STAGES = \(([^)]*)\)", probe, flags=re.M).group(1)
    # The probe times every stage but "other" (the remainder); it calls data wait "data".
    assert {s.strip(' "') for s in timed.split(",")} == {"data" if s == "data_wait" else s
                                                          for s in models.STAGES} - {"other"}
