"""One source per contract: the copies a person reads (README tables) are rendered from it."""
from __future__ import annotations

from perfloop.contracts.metrics import ProfileMetrics, metrics_table
from perfloop.contracts.stages import TIMED_STAGES, Stage
from perfloop.knowledge_base import METRICS
from perfloop.tools.measure.models import STAGES, StageLedger
from tests.conftest import ROOT
from tests.test_models import profile


def test_knowledge_base_readme_holds_the_metrics_table():
    text = (ROOT / "knowledge_base" / "README.md").read_text()
    assert metrics_table() in text, "paste perfloop.contracts.metrics.metrics_table() into knowledge_base/README.md"


def test_a_profile_fills_every_metric_and_the_knowledge_base_knows_each():
    values = profile(num_workers=2, data_wait_ms=5.0, build_ms=8.0).typed_metrics()
    assert isinstance(values, ProfileMetrics)
    assert set(values.values()) == set(METRICS) == set(ProfileMetrics.model_fields)


def test_the_ledger_has_one_field_per_stage():
    assert STAGES == tuple(str(stage) for stage in Stage)
    assert set(StageLedger.model_fields) - {"step_ms"} == {f"{stage}_ms" for stage in Stage}
    assert Stage.OTHER not in TIMED_STAGES and len(TIMED_STAGES) == len(Stage) - 1
