"""Name the profile metrics the knowledge base may cite, and render sentences from them."""

import math
import re
import string
from collections.abc import Mapping
from typing import Literal, NamedTuple

from perfloop.contracts.metrics import ProfileMetrics, description, kind, transform_shares
from perfloop.contracts.stages import METRIC_STAGES

MetricValue = float | int | str | None
Metrics = Mapping[str, MetricValue]


class Metric(NamedTuple):
    """Describe one profile metric."""

    kind: Literal["number", "text"]
    description: str


METRICS: dict[str, Metric] = {name: Metric(kind(name), description(name)) for name in ProfileMetrics.model_fields}
"""Every metric a profile gives, from contracts.metrics.ProfileMetrics (the one declaration)."""

# Times in ms read better in a sentence than shares, so every stage share gets one.
STAGES = METRIC_STAGES
DERIVED: dict[str, Metric] = {
    f"{stage}_ms": Metric("number", f"{stage}_share × step_ms, ms (derived)") for stage in STAGES
}
KNOWN_METRICS: dict[str, Metric] = METRICS | DERIVED
TEMPLATE_NAMES: dict[str, Metric] = KNOWN_METRICS | {
    "expected_speedup": Metric("number", "the diagnosis's expected speedup, ×")
}


def is_number(value: object) -> bool:
    """Return whether value is a real number usable in arithmetic (not bool, not NaN)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and not math.isnan(value)


def with_derived(metrics: Metrics) -> dict[str, MetricValue]:
    """Return the metrics plus `<stage>_ms` for each stage share, where step_ms is known, and the
    transform shares where a profile lacks them (older profiles had only hot_function_share)."""
    view = dict(metrics)
    step_ms = metrics.get("step_ms")
    for stage in STAGES:
        share = metrics.get(f"{stage}_share")
        if is_number(step_ms) and is_number(share):
            view.setdefault(f"{stage}_ms", share * step_ms)
    # A profile recorded before the per-sample path was measured: its hot function is the transform.
    share = view.get("transform_share")
    if share is None:
        share, _ = transform_shares(metrics.get("hot_function_share"), metrics.get("sample_path_share"), None,
                                    metrics.get("collate_share"))
    share, step_share = transform_shares(share, None, metrics.get("build_wait_share"))
    for name, value in (("transform_share", share), ("transform_step_share", step_share)):
        if view.get(name) is None and value is not None:
            view[name] = value
    return view


class _Missing:
    def __format__(self, spec: str) -> str:
        return "n/a"


class _SummaryFormatter(string.Formatter):
    """Format by metric name; a missing or mistyped value never raises, the sentence still reads."""

    def get_value(self, key, args, kwargs):
        value = kwargs.get(key)
        return _Missing() if value is None else value

    def format_field(self, value, format_spec):
        try:
            return format(value, format_spec)
        except (TypeError, ValueError):
            return str(value)


_ASIDE = re.compile(r"\s?\(([^()]*\{[^()]*)\)")
"""A parenthetical aside of a template that holds at least one field."""


def render(template: str, values: Metrics) -> str:
    """Fill a summary template with metric values.

    An aside in parentheses is left out when a field it names has no value (a diagnosis made
    without a hot function does not read "(in n/a)"); elsewhere a missing value reads "n/a".
    """
    values = dict(values)

    def aside(match: re.Match) -> str:
        names = [name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(match.group(1)) if name]
        return "" if any(values.get(name) is None for name in names) else match.group(0)

    return _SummaryFormatter().vformat(_ASIDE.sub(aside, template), (), values)


def check_template(template: str) -> str:
    """Return the template if it names only known metrics with fitting format specs, else raise."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"{exc}; write literal braces as {{{{ and }}}}") from exc
    for _, name, spec, _ in parsed:
        if name is None:
            continue
        if name not in TEMPLATE_NAMES:
            raise ValueError(
                f"{{{name}}} is not a metric; use expected_speedup or a name "
                "from the table in knowledge_base/README.md"
            )
        # Counts such as num_workers may format as "d": a number spec passes if int or float fits.
        samples = (0.5, 2) if TEMPLATE_NAMES[name].kind == "number" else ("text",)
        if not any(_formats(sample, spec) for sample in samples):
            raise ValueError(f"format spec {spec!r} does not fit the {name!r} metric")
    return template


def _formats(value: object, spec: str) -> bool:
    try:
        format(value, spec)
    except (TypeError, ValueError):
        return False
    return True
