"""Define knowledge-base entries: symptoms, expected gain, remedies and how each is verified."""

import operator
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from perfloop.contracts.tolerances import DTYPE_TOLERANCE, LOSS_TOLERANCE
from perfloop.knowledge_base.metrics import KNOWN_METRICS, Metrics, check_template, is_number

Op = Literal["<", "<=", ">", ">=", "==", "!=", "contains", "in"]
Category = Literal["input", "compute", "host", "memory"]
Check = Literal["identical", "within_tolerance"]
ToleranceClass = Literal["exact", "reorder", "precision", "changes-data"]
TOLERANCE_CLASSES: tuple[str, ...] = ("exact", "reorder", "precision", "changes-data")
Scalar = bool | int | float | str
SNAKE_CASE = r"^[a-z][a-z0-9_]*$"
ORDERING_OPS = ("<", "<=", ">", ">=")
# A share of 1.0 would make "remove the stage" infinitely fast; a share that high means the
# other stages went unseen, so the bound is capped at 1 / (1 - 0.99) = 100x.
MAX_SHARE = 0.99

_COMPARE = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    "contains": lambda actual, expected: isinstance(actual, str) and str(expected) in actual,
    "in": lambda actual, expected: actual in expected,
}


class StrictRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


def _known_metric(name: str) -> str:
    if name not in KNOWN_METRICS:
        raise ValueError(
            f"unknown metric {name!r}; use a name from the table in knowledge_base/README.md "
            "(new profiler metrics are added in knowledge_base/metrics.py)"
        )
    return name


class Condition(StrictRecord):
    """One test on one metric; a missing, None or mistyped metric makes it False, never an error."""

    metric: str
    """Metric on the left-hand side (see knowledge_base/README.md)."""
    op: Op
    """Comparison; "contains" tests a substring of a text metric, "in" membership in a list."""
    value: Scalar | list[Scalar] | None = None
    """Constant right-hand side; give this or value_from."""
    value_from: str | None = None
    """Metric whose value is the right-hand side (num_workers < cpu_count); give this or value."""

    @field_validator("metric", "value_from")
    @classmethod
    def _check_metric(cls, name: str | None) -> str | None:
        return None if name is None else _known_metric(name)

    @model_validator(mode="after")
    def _check_operands(self) -> "Condition":
        if (self.value is None) == (self.value_from is None):
            raise ValueError(f"{self.metric} {self.op}: give one of `value` or `value_from`")
        if self.value is None:
            if self.op == "in":
                raise ValueError("op 'in' needs a list `value`, not `value_from`")
            return self
        if self.op in ORDERING_OPS and not is_number(self.value):
            raise ValueError(f"op {self.op!r} needs a number `value`, got {self.value!r}")
        if self.op == "contains" and not isinstance(self.value, str):
            raise ValueError(f"op 'contains' needs a text `value`, got {self.value!r}")
        if (self.op == "in") != isinstance(self.value, list):
            raise ValueError(f"op {self.op!r} with `value` {self.value!r}: only 'in' takes a list")
        return self

    def right_hand(self, metrics: Metrics) -> Any:
        """Return the value the metric is compared against (a constant or another metric)."""
        return self.value if self.value_from is None else metrics.get(self.value_from)

    def holds(self, metrics: Metrics) -> bool:
        """Return whether the condition holds for these metrics."""
        actual, expected = metrics.get(self.metric), self.right_hand(metrics)
        if actual is None or expected is None:
            return False
        # Text against a number is a mistyped metric, not evidence; "!=" would otherwise hold.
        text_vs_number = isinstance(actual, str) != isinstance(expected, str)
        if text_vs_number and self.op not in ("contains", "in"):
            return False
        try:
            return bool(_COMPARE[self.op](actual, expected))
        except TypeError:
            return False


class Symptoms(StrictRecord):
    """When an entry applies."""

    all_of: list[Condition] = Field(min_length=1)
    """Conditions that must all hold."""
    any_of: list[Condition] | None = Field(default=None, min_length=1)
    """If given, at least one of these must hold as well."""

    def hold(self, metrics: Metrics) -> bool:
        """Return whether the symptoms are present in these metrics."""
        return all(c.holds(metrics) for c in self.all_of) and (
            self.any_of is None or any(c.holds(metrics) for c in self.any_of)
        )


class ExpectedGain(StrictRecord):
    """Amdahl's bound on what fixing this bottleneck can give: 1 / ((1 - p) + p / n)."""

    share_metric: str
    """Metric holding the fraction p of the step (or measured time) this bottleneck occupies."""
    stage_speedup: float | None = Field(default=None, gt=1.0)
    """Factor n by which the stage gets faster; None means it disappears (bound 1 / (1 - p))."""
    stage_speedup_from: str | None = None
    """Metric holding n instead (e.g. worker_scaling); when missing or <= 1, stage_speedup applies."""

    @field_validator("stage_speedup_from")
    @classmethod
    def _check_speedup_metric(cls, name: str | None) -> str | None:
        return None if name is None else _known_metric(name)

    @field_validator("share_metric")
    @classmethod
    def _check_share(cls, name: str) -> str:
        if not _known_metric(name).endswith("_share"):
            raise ValueError(f"{name!r} is not a share; name a *_share metric")
        return name

    def expected_speedup(self, metrics: Metrics) -> float:
        """Return the expected step speedup (×), 1.0 when the share is missing."""
        share = metrics.get(self.share_metric)
        if not is_number(share):
            return 1.0
        p = min(max(float(share), 0.0), MAX_SHARE)
        factor = self.stage_speedup
        measured = metrics.get(self.stage_speedup_from) if self.stage_speedup_from else None
        if is_number(measured) and measured > 1.0:
            factor = float(measured)
        remaining = 0.0 if factor is None else p / factor
        return 1.0 / ((1.0 - p) + remaining)




class Verification(StrictRecord):
    """What must stay the same for a remedy to be kept."""

    data: Check
    """Batches versus the baseline for the same seed: bit-identical or within atol/rtol."""
    loss: Check
    """Loss curve versus the baseline with a fixed seed: bit-identical or within loss_atol/loss_rtol."""
    atol: float = Field(default=DTYPE_TOLERANCE["float32"][0], ge=0.0)
    """Absolute data tolerance for within_tolerance (fp32 default; see DTYPE_TOLERANCE)."""
    rtol: float = Field(default=DTYPE_TOLERANCE["float32"][1], ge=0.0)
    """Relative data tolerance: |a - b| <= atol + rtol * |b|."""
    loss_atol: float = Field(default=LOSS_TOLERANCE[0], ge=0.0)
    """Absolute per-step loss tolerance for loss: within_tolerance."""
    loss_rtol: float = Field(default=LOSS_TOLERANCE[1], ge=0.0)
    """Relative per-step loss tolerance for loss: within_tolerance."""
    loss_mean_rtol: float | None = Field(default=None, ge=0.0)
    """The precision rule's bound on the running mean's drift: after k steps the candidate's mean loss is
    within loss_atol + max(loss_mean_rtol, loss_rtol/sqrt(k))·|mean| of the baseline's. Set for the
    precision class (default loss_rtol / 5 there); None elsewhere: per-step bounds only."""
    side_output_changes: list[str] = []
    """Regular expressions for stdout/stderr lines or output file paths the remedy may add, drop or change."""
    one_off_cost: str | None = None
    """What the remedy pays once per run (e.g. "compilation"); a slower start-up is then judged by break-even."""
    caveats: list[str] = []
    """Known ways the check can legitimately differ, told to the user, never hidden."""
    gain_from_epoch: int = Field(default=1, ge=1, le=2)
    """The epoch the change starts paying off in: 1 (from the first step), or 2 for a cache that fills
    during the first epoch. With 2, verification times steps of the second epoch (and checks its
    batches) where one epoch fits the timing runs' bound, and charges the first epoch as start-up."""
    tolerance_class: ToleranceClass = "exact"
    """How far the change may move numbers: exact (bit-identical data and loss); reorder (float
    reassociation, data and loss within the dtype table); precision (AMP/TF32: data identical, a
    wider loss tolerance); changes-data (batch size, subsampling, resolution: not equivalent, never
    auto-approved, accepted only with explicit approval). Omitted: derived from data and loss
    (within_tolerance data -> reorder; within_tolerance loss only -> precision when loss_rtol is
    wider than the default, else reorder; otherwise exact)."""

    @model_validator(mode="before")
    @classmethod
    def _derive_class(cls, values: Any) -> Any:
        if isinstance(values, dict) and values.get("tolerance_class") is None:
            values = dict(values)
            values["tolerance_class"] = derive_tolerance_class(values.get("data"), values.get("loss"),
                                                               values.get("loss_rtol"))
        if isinstance(values, dict) and values.get("tolerance_class") == "precision" \
                and values.get("loss_mean_rtol") is None:
            values = {**values, "loss_mean_rtol": float(values.get("loss_rtol", LOSS_TOLERANCE[1])) / 5}
        return values

    @model_validator(mode="after")
    def _check_class(self) -> "Verification":
        if self.tolerance_class == "exact" and (self.data, self.loss) != ("identical", "identical"):
            raise ValueError("tolerance_class exact needs data: identical and loss: identical")
        if self.tolerance_class == "precision" and self.data != "identical":
            raise ValueError("tolerance_class precision keeps the data identical (data: identical); "
                             "use reorder or changes-data")
        if self.tolerance_class == "precision" and self.loss != "within_tolerance":
            raise ValueError("tolerance_class precision needs loss: within_tolerance (lower precision moves the loss)")
        return self

    @field_validator("side_output_changes")
    @classmethod
    def _check_patterns(cls, patterns: list[str]) -> list[str]:
        import re

        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"side_output_changes: {pattern!r} is not a regular expression ({error})") from None
        return patterns

    @property
    def needs_explicit_approval(self) -> bool:
        """Whether a human must approve the change explicitly (never --auto-approve): changes-data."""
        return self.tolerance_class == "changes-data"

    def needs_person(self, allow_precision: bool = False) -> bool:
        """Whether --auto-approve may not accept it: changes-data always; precision unless --allow-precision."""
        return self.needs_explicit_approval or (self.tolerance_class == "precision" and not allow_precision)

    @property
    def equivalence(self) -> str:
        """Say in a few words what the class promises, as shown to the human."""
        return {
            "exact": "equivalent: bit-identical data and loss",
            "reorder": "equivalent within dtype tolerance (float reordering)",
            "precision": "same data, lower precision arithmetic: loss within a wider tolerance",
            "changes-data": "not equivalent: the data fed to the model change",
        }[self.tolerance_class]


def derive_tolerance_class(data: str | None, loss: str | None, loss_rtol: float | None = None) -> str:
    """Return the class implied by the data and loss rules of remedies that declare none.

    Same data with a loss tolerance is float reordering (fused kernels, compile, thread counts)
    unless the loss tolerance is wider than the default, which only lower precision needs.
    """
    if data == "within_tolerance":
        return "reorder"
    if loss == "within_tolerance":
        wider = loss_rtol is not None and float(loss_rtol) > LOSS_TOLERANCE[1]
        return "precision" if wider else "reorder"
    return "exact"


class Remedy(StrictRecord):
    """One change that addresses a diagnosis."""

    id: str = Field(pattern=SNAKE_CASE)
    """Snake_case id, unique across the knowledge base."""
    kind: Literal["codemod", "llm"]
    """codemod: a deterministic rewrite by tools/; llm: an edit the LLM writes from instructions."""
    codemod: str | None = Field(default=None, validate_default=True)
    """Codemod id, required when kind is codemod."""
    params: dict[str, Any] = {}
    """Parameters passed to the codemod (or the instructions' template)."""
    instructions: str | None = Field(default=None, validate_default=True)
    """What the LLM should change and must preserve, required when kind is llm."""
    summary: str = Field(pattern=r"^[^\n]+$")
    """One line: what the change does."""
    verification: Verification
    """How the change is verified."""
    when: list[Condition] | None = Field(default=None, min_length=1)
    """Offered only when at least one of these holds: a remedy for one kind of input among those
    the entry covers (an image decoder's reduced-size decode, never for JSON records)."""

    def offered(self, metrics: Metrics) -> bool:
        """Whether this remedy fits the variant of the bottleneck these metrics show."""
        return self.when is None or any(c.holds(metrics) for c in self.when)

    @field_validator("codemod")
    @classmethod
    def _check_codemod(cls, codemod: str | None, info: ValidationInfo) -> str | None:
        kind = info.data.get("kind")
        if kind == "codemod" and not codemod:
            raise ValueError("a codemod remedy needs `codemod: <codemod id>`, e.g. set_num_workers")
        if kind == "llm" and codemod:
            raise ValueError("an llm remedy names no codemod; use kind: codemod or drop `codemod`")
        return codemod

    @field_validator("instructions")
    @classmethod
    def _check_instructions(cls, text: str | None, info: ValidationInfo) -> str | None:
        kind = info.data.get("kind")
        if kind == "llm" and not (text or "").strip():
            raise ValueError("an llm remedy needs `instructions`: what to change and what to keep")
        if kind == "codemod" and text:
            raise ValueError("a codemod remedy takes `params`, not `instructions`")
        return text


class Entry(StrictRecord):
    """One known bottleneck: how to recognise it, what fixing it can gain, how to fix it."""

    id: str = Field(pattern=SNAKE_CASE)
    """Snake_case id, equal to the YAML file's stem."""
    title: str = Field(pattern=r"^[^\n]+$")
    """One-line name shown to the user."""
    description: str
    """What happens, why it costs time, and where the thresholds come from."""
    category: Category
    """Which side of the pipeline the bottleneck sits on."""
    symptoms: Symptoms
    """When the entry applies."""
    evidence: list[str] = Field(min_length=1)
    """Metrics to cite in the diagnosis."""
    expected_gain: ExpectedGain
    """Amdahl bound used to rank diagnoses."""
    summary_template: str
    """One sentence with {metric:spec} fields and {expected_speedup}; missing values read n/a."""
    remedies: list[Remedy] = []
    """Changes to try, best first; empty means informational, nothing actionable offline."""
    references: list[str] = Field(min_length=1)
    """Tools or documents the thresholds and remedies come from."""
    confirm: str | None = None
    """The check that would confirm the diagnosis, a template like summary_template; omitted, the
    matcher says what the first remedy should do to the entry's share metric."""

    @field_validator("summary_template", "confirm")
    @classmethod
    def _check_template(cls, template: str | None) -> str | None:
        return None if template is None else check_template(template)

    @field_validator("evidence")
    @classmethod
    def _check_evidence(cls, names: list[str]) -> list[str]:
        return [_known_metric(name) for name in names]

    @field_validator("remedies")
    @classmethod
    def _check_remedy_ids(cls, remedies: list[Remedy]) -> list[Remedy]:
        ids = [r.id for r in remedies]
        if len(ids) != len(set(ids)):
            raise ValueError(f"remedy ids repeat in {ids}; give each remedy its own id")
        return remedies


def check_unique_ids(entries: Sequence[Entry]) -> None:
    """Raise ValueError if two entries, or two remedies anywhere, share an id."""
    seen: dict[str, str] = {}
    for entry in entries:
        for kind, id_ in [("entry", entry.id)] + [("remedy", r.id) for r in entry.remedies]:
            key = f"{kind} {id_}"
            if key in seen:
                raise ValueError(f"{key} is defined twice ({seen[key]}, {entry.id}); rename one")
            seen[key] = entry.id
