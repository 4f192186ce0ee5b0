"""Match a profile's metrics against the knowledge base and explain the verdicts."""

from collections.abc import Sequence

from perfloop.knowledge_base.claims import ConditionCheck, Diagnosis, Explanation
from perfloop.knowledge_base.loader import load_entries
from perfloop.knowledge_base.metrics import Metrics, is_number, render, with_derived
from perfloop.knowledge_base.schema import ORDERING_OPS, Condition, Entry, check_unique_ids

# A threshold cleared by less than this fraction of itself could flip between two profiles.
CONFIDENT_MARGIN = 0.25
# A threshold missed by at most this fraction of itself still diagnoses, with low confidence.
NEAR_MARGIN = 0.25
# Where each category of bottleneck shows in the step, for "was input-bound 80%, now ...".
CATEGORY_SHARE = {"input": "input_share", "compute": "compute_share", "host": "other_share",
                  "memory": "compute_share"}
# Headspace (step time with free data vs the real one) below this: the input side is not the problem.
HEADSPACE_NOT_INPUT = 0.05
# Above this, data-side gains are bounded by the headspace rather than by the measured wait.
HEADSPACE_BOUNDS = 0.10
CATEGORY_NAME = {"input": "input-bound", "compute": "compute-bound", "host": "host-bound",
                 "memory": "memory-bound"}


def diagnose(metrics: Metrics, entries: Sequence[Entry] | None = None) -> list[Diagnosis]:
    """Return a diagnosis per matching entry, biggest expected speedup first, ties in order."""
    entries = load_entries() if entries is None else list(entries)
    check_unique_ids(entries)
    view = with_derived(metrics)
    headspace = view.get("headspace_share")
    if is_number(headspace) and headspace < HEADSPACE_NOT_INPUT:
        # Replaying stored batches barely sped the step up: whatever the wait looks like, data is not it.
        entries = [entry for entry in entries if entry.category != "input"]
    found = []
    for entry in entries:
        misses = near_misses(entry, view)
        if misses is not None:
            found.append(describe(entry, view, misses))
    # sorted() is stable, so equal speedups keep the entries' order.
    return sorted(found, key=lambda d: -d.expected_speedup)


def near_misses(entry: Entry, view: Metrics) -> list[str] | None:
    """[] when the entry's symptoms hold; the misses when each failing threshold is only just missed; else None.

    Thresholds are not cliffs: a measured share of 0.051 against `< 0.05` is the same profile
    as 0.049 in another run. A numeric threshold missed by less than NEAR_MARGIN of itself
    counts as nearly held; an entry whose every failing condition is nearly held is still
    diagnosed, ranked by its expected gain like the others, with low confidence that says
    which threshold it missed. Conditions on text, settings or other metrics must hold.
    """
    if entry.symptoms.hold(view):
        return []
    misses = []
    for condition in entry.symptoms.all_of:
        if condition.holds(view):
            continue
        miss = _near(condition, view)
        if miss is None:
            return None
        misses.append(miss)
    if entry.symptoms.any_of and not any(c.holds(view) for c in entry.symptoms.any_of):
        near = [m for m in (_near(c, view) for c in entry.symptoms.any_of) if m is not None]
        if not near:
            return None
        misses.append(near[0])
    return misses


def _near(condition: Condition, view: Metrics) -> str | None:
    """"metric = x misses `op t` by k%" when a numeric threshold fails by less than NEAR_MARGIN of itself."""
    actual = view.get(condition.metric)
    if condition.op not in ORDERING_OPS or condition.value_from is not None or not condition.value \
            or not is_number(actual):
        return None
    miss = abs(actual - condition.value) / abs(condition.value)
    if miss > NEAR_MARGIN:
        return None
    return f"{condition.metric} = {actual:.3g} misses `{condition.op} {condition.value:g}` by {miss:.0%}"


def describe(entry: Entry, metrics: Metrics, misses: list[str] | None = None) -> Diagnosis:
    """Build the diagnosis an entry gives for these metrics (whether or not it matches); `misses`: the
    thresholds it only just missed (near_misses), which make the confidence low."""
    view = with_derived(metrics)
    speedup = entry.expected_gain.expected_speedup(view)
    headspace = view.get("headspace_share")
    if entry.category == "input" and is_number(headspace) and headspace > HEADSPACE_BOUNDS:
        # Free data is the best any data-side change can do: 1 / (1 - headspace).
        speedup = min(speedup, 1.0 / (1.0 - min(headspace, 0.99)))
    evidence = {name: view.get(name) for name in entry.evidence}
    confidence, reason = _confidence(entry, view, evidence, speedup)
    if misses:
        confidence, reason = "low", f"near match: {'; '.join(misses)}; ranked by its expected gain"
    remedies = [r for r in entry.remedies if r.offered(view)]
    first = remedies[0] if remedies else None
    return Diagnosis(
        entry_id=entry.id,
        title=entry.title,
        category=entry.category,
        expected_speedup=speedup,
        evidence=evidence,
        remedies=remedies,
        summary=render(entry.summary_template, view | {"expected_speedup": speedup}),
        confidence=confidence,
        confidence_reason=reason,
        symptoms_held=[_check(c, view).text.removesuffix(": held") for c in _held(entry, view)],
        confirm_by=_confirm_by(entry, view, speedup),
        first_remedy=first.id if first else None,
        shares={name: _number(view.get(name)) for name in ("input_share", "compute_share", "other_share")},
    )


def _held(entry: Entry, view: Metrics) -> list[Condition]:
    conditions = entry.symptoms.all_of + (entry.symptoms.any_of or [])
    return [c for c in conditions if c.holds(view)]


def _number(value) -> float | None:
    return float(value) if is_number(value) else None


def _confidence(entry: Entry, view: Metrics, evidence: dict, speedup: float) -> tuple[str, str]:
    """Grade the claim from its own numbers: missing evidence, gain against noise, threshold margins."""
    missing = [name for name, value in evidence.items() if value is None]
    if missing:
        return "low", f"the profile lacks {', '.join(missing)}"
    noise = view.get("noise_pct")
    gain_pct = (speedup - 1.0) * 100.0
    if is_number(noise) and gain_pct <= noise:
        return "low", f"the expected gain ({gain_pct:.0f}%) is within the run-to-run noise ({noise:.0f}%)"
    margins = []
    for condition in entry.symptoms.all_of:
        actual = view.get(condition.metric)
        if condition.op in ORDERING_OPS and condition.value_from is None and condition.value:
            if is_number(actual):
                margins.append((abs(actual - condition.value) / abs(condition.value), condition, actual))
    if margins:
        margin, condition, actual = min(margins, key=lambda m: m[0])
        if margin < CONFIDENT_MARGIN:
            return "medium", (f"{condition.metric} = {actual:.3g} is within {CONFIDENT_MARGIN:.0%} of its "
                              f"threshold {condition.value:g}")
        return "high", (f"every threshold is cleared by at least {CONFIDENT_MARGIN:.0%} "
                        f"(closest: {condition.metric} = {actual:.3g} vs {condition.value:g})")
    return "medium", "the symptoms are qualitative (settings or source text), not measured margins"


def _confirm_by(entry: Entry, view: Metrics, speedup: float) -> str:
    if entry.confirm:
        return render(entry.confirm, view | {"expected_speedup": speedup})
    share_metric = entry.expected_gain.share_metric
    share = view.get(share_metric)
    now = f" from {share:.0%}" if is_number(share) else ""
    step_cut = f" and the step time by up to {1.0 - 1.0 / speedup:.0%}" if speedup > 1.0 else ""
    if entry.remedies:
        return (f"re-profile after {entry.remedies[0].id}: {share_metric} should fall{now}{step_cut}; "
                "if it does not, the diagnosis was wrong")
    return f"a change aimed at it should lower {share_metric}{now}{step_cut}"


def compare(before_metrics: Metrics, after_metrics: Metrics, before_top: Diagnosis | None,
            after_top: Diagnosis | None) -> str:
    """Say whether the dominant bottleneck moved between two profiles, with the shares that show it."""
    if before_top is None:
        if after_top is None:
            return "no known bottleneck before or after"
        return f"no known bottleneck before; now {_where(after_top, after_metrics)}"
    was = _where(before_top, before_metrics)
    if after_top is None:
        return f"bottleneck moved: was {was}, now no known bottleneck matches"
    now = _where(after_top, after_metrics)
    if bottleneck_moved(before_top, after_top):
        return f"bottleneck moved: was {was}, now {now}"
    share_metric = CATEGORY_SHARE[before_top.category]
    before, after = _number(before_metrics.get(share_metric)), _number(after_metrics.get(share_metric))
    change = f", {before:.0%} -> {after:.0%} of the step" if before is not None and after is not None else ""
    return (f"bottleneck stayed: still {CATEGORY_NAME[before_top.category]}{change} "
            f"({before_top.entry_id} -> {after_top.entry_id})")


def bottleneck_moved(before_top: Diagnosis | None, after_top: Diagnosis | None) -> bool:
    """Tell whether the top diagnosis changed category (input, compute, host, memory) or vanished."""
    if before_top is None:
        return after_top is not None
    return after_top is None or after_top.category != before_top.category


def _where(top: Diagnosis, metrics: Metrics) -> str:
    share = _number(metrics.get(CATEGORY_SHARE[top.category]))
    if share is None:
        share = _number(top.shares.get(CATEGORY_SHARE[top.category]))
    amount = f" {share:.0%}" if share is not None else ""
    return f"{CATEGORY_NAME[top.category]}{amount} ({top.entry_id})"


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
