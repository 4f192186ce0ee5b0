"""The matcher's answers: a diagnosis (a claim with its numbers) and the explanation of a verdict."""

from typing import Any, Literal

from pydantic import computed_field

from perfloop.knowledge_base.metrics import MetricValue
from perfloop.knowledge_base.schema import Category, Condition, Remedy, StrictRecord


class Diagnosis(StrictRecord):
    """A matched entry with the numbers behind it; what the matcher hands to the agent."""

    entry_id: str
    """Id of the matched entry."""
    title: str
    """The entry's title."""
    category: Category
    """The entry's category."""
    expected_speedup: float
    """Amdahl bound on the step speedup from fixing this (×, >= 1)."""
    evidence: dict[str, MetricValue]
    """Cited metric -> value; None where the profile lacks it."""
    remedies: list[Remedy]
    """Changes to try, best first; empty means nothing actionable offline."""
    summary: str
    """One sentence with the numbers, for the user."""
    confidence: Literal["high", "medium", "low"] = "medium"
    """How far to trust the claim: low when evidence is missing or the gain is within the noise,
    high when every threshold is cleared by a wide margin (see perfloop.knowledge_base.match)."""
    confidence_reason: str = ""
    """Why the confidence is what it is, with the numbers."""
    symptoms_held: list[str] = []
    """The conditions that held, with their values, e.g. "data_wait_share = 0.62 >= 0.2"."""
    confirm_by: str = ""
    """The measurement that would confirm the diagnosis (what the next profile should show)."""
    first_remedy: str | None = None
    """Id of the remedy to try first (the entry's order); None when nothing is actionable."""
    shares: dict[str, float | None] = {}
    """input_share, compute_share and other_share of the profile diagnosed: where the step went,
    kept so that the next profile can say whether the bottleneck moved."""


class ConditionCheck(StrictRecord):
    """How one condition fared against a profile."""

    condition: Condition
    """The condition tested."""
    actual: MetricValue
    """The metric's value, None when missing."""
    expected: Any
    """The right-hand side used (the constant or the value_from metric's value)."""
    status: Literal["held", "failed", "missing"]
    """missing: a metric it needs is absent or None, so it counts as failed."""

    @computed_field
    @property
    def text(self) -> str:
        """Render the check for a human, e.g. "data_wait_share = 0.62 >= 0.2: held"."""
        c = self.condition
        rhs = repr(c.value) if c.value_from is None else f"{c.value_from} ({self.expected!r})"
        return f"{c.metric} = {self.actual!r} {c.op} {rhs}: {self.status}"


class Explanation(StrictRecord):
    """Which of an entry's conditions held for a profile; for `perfloop kb` and the audit log."""

    entry_id: str
    """Id of the entry explained."""
    matched: bool
    """Whether the entry's symptoms are present."""
    all_of: list[ConditionCheck]
    """One check per all_of condition."""
    any_of: list[ConditionCheck]
    """One check per any_of condition; empty when the entry has none."""

    def render(self) -> str:
        """Return a few lines of text: the verdict, then every check."""
        lines = [f"{self.entry_id}: {'matched' if self.matched else 'not matched'}"]
        lines += [f"  all of: {check.text}" for check in self.all_of]
        lines += [f"  any of: {check.text}" for check in self.any_of]
        return "\n".join(lines)
