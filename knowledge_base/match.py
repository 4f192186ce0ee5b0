"""Match a profile's metrics against the knowledge base and explain the verdicts."""

from collections.abc import Sequence

from knowledge_base.loader import load_entries
from knowledge_base.metrics import Metrics, render, with_derived
from knowledge_base.schema import (
    Condition,
    ConditionCheck,
    Diagnosis,
    Entry,
    Explanation,
    check_unique_ids,
)


def diagnose(metrics: Metrics, entries: Sequence[Entry] | None = None) -> list[Diagnosis]:
    """Return a diagnosis per matching entry, biggest expected speedup first, ties in order."""
    entries = load_entries() if entries is None else list(entries)
    check_unique_ids(entries)
    view = with_derived(metrics)
    found = [describe(entry, view) for entry in entries if entry.symptoms.hold(view)]
    # sorted() is stable, so equal speedups keep the entries' order.
    return sorted(found, key=lambda d: -d.expected_speedup)


def describe(entry: Entry, metrics: Metrics) -> Diagnosis:
    """Build the diagnosis an entry gives for these metrics (whether or not it matches)."""
    view = with_derived(metrics)
    speedup = entry.expected_gain.expected_speedup(view)
    return Diagnosis(
        entry_id=entry.id,
        title=entry.title,
        category=entry.category,
        expected_speedup=speedup,
        evidence={name: view.get(name) for name in entry.evidence},
        remedies=entry.remedies,
        summary=render(entry.summary_template, view | {"expected_speedup": speedup}),
    )


def explain(entry: Entry, metrics: Metrics) -> Explanation:
    """Report which of the entry's conditions held, failed or lacked a metric."""
    view = with_derived(metrics)
    any_of = entry.symptoms.any_of or []
    return Explanation(
        entry_id=entry.id,
        matched=entry.symptoms.hold(view),
        all_of=[_check(c, view) for c in entry.symptoms.all_of],
        any_of=[_check(c, view) for c in any_of],
    )


def _check(condition: Condition, metrics: Metrics) -> ConditionCheck:
    actual, expected = metrics.get(condition.metric), condition.right_hand(metrics)
    if actual is None or expected is None:
        status = "missing"
    else:
        status = "held" if condition.holds(metrics) else "failed"
    return ConditionCheck(condition=condition, actual=actual, expected=expected, status=status)
