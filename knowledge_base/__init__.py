"""Known training-pipeline bottlenecks: the entries, their schema and the matcher."""

from perfloop.knowledge_base.claims import ConditionCheck, Diagnosis, Explanation
from perfloop.knowledge_base.loader import ENTRIES_DIR, load_entries, load_entry
from perfloop.knowledge_base.match import bottleneck_moved, compare, describe, diagnose, explain
from perfloop.knowledge_base.metrics import KNOWN_METRICS, METRICS, Metric, Metrics, MetricValue
from perfloop.knowledge_base.schema import Condition, Entry, ExpectedGain, Remedy, Symptoms, Verification

__all__ = [
    "ENTRIES_DIR",
    "KNOWN_METRICS",
    "METRICS",
    "Condition",
    "ConditionCheck",
    "Diagnosis",
    "Entry",
    "ExpectedGain",
    "Explanation",
    "Metric",
    "MetricValue",
    "Metrics",
    "Remedy",
    "Symptoms",
    "Verification",
    "bottleneck_moved",
    "compare",
    "describe",
    "diagnose",
    "explain",
    "load_entries",
    "load_entry",
]
