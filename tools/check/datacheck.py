"""Compare what two pipeline runs did: the same steps, the same batch rows, the same loss curve.

What is compared (docs/verification.md says the same to users):
- work: every candidate run ends the way the baseline did (stopped by perfloop after the
  same number of steps, or ended by itself after the same number) with the same samples;
- identity: every row of every batch of every run, by the probe's fingerprint over all of
  the batch's leaves; a step the probe could not fingerprint makes the check
  ``not_comparable``;
- tolerance: every row whose fingerprint differs is compared by value wherever the probe
  kept the batch (its storage budget, ``_KEEP_ELEMENTS`` = 2M elements per run, keeps the
  first batches that fit); the rows it could not compare are counted and named in the
  detail ("compared R of T differing rows"), never claimed. A tolerance covers tensors
  only: in every step with a differing row, each non-tensor leaf (text, Python numbers)
  must hash the same as the baseline's (``Step.leaf_hashes``), kept batch or not.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, Field

from perfloop.contracts.layout import Fingerprint
from perfloop.tools.measure.folder import as_probe_folder
from perfloop.tools.measure.record import ProbeRecord

T = TypeVar("T")


class CheckResult(BaseModel):
    """Outcome of one comparison, with the evidence a reviewer needs."""

    status: str = Field(description="identical | within_tolerance | within_envelope (loss of a nondeterministic "
                                    "baseline) | changed | diverged | not_comparable")
    detail: str
    steps_compared: int = 0
    max_abs_diff: float | None = None
    steps_expected: int = Field(0, description="Steps the baseline ran; a candidate must run as many.")
    rows_total: int = Field(0, description="Rows of every batch of every candidate run.")
    rows_differing: int = Field(0, description="Of those, rows whose fingerprint differs from the baseline's.")
    rows_compared: int = Field(0, description="Differing rows compared by value within tolerance.")
    rule: str = Field("loader_output", description="What identity rests on: loader_output (the DataLoader's "
                                                  "batches as they are), layout_free (the same values per sample "
                                                  "in another container layout) or model_input (what the model "
                                                  "was given, with a bit-identical loss).")
    atol: float | None = Field(None, description="Absolute tolerance enforced (the remedy's), when one applied.")
    rtol: float | None = Field(None, description="Relative tolerance enforced (the remedy's), when one applied.")
    ranks: list[int] = Field(default_factory=list, description="The ranks compared, each against the same rank of "
                                                               "the baseline (torchrun); empty for one process.")

    @property
    def label(self) -> str:
        """Status with what it rests on, e.g. 'within_tolerance (compared 96 of 96 differing rows)'."""
        if self.status == "within_tolerance" and self.rows_differing:
            return f"{self.status} (compared {self.rows_compared} of {self.rows_differing} differing rows)"
        if self.status == "identical" and self.rule == "layout_free":
            return "identical (layout changed)"
        if self.status == "identical" and self.rule == "model_input":
            return "identical at model input"
        return self.status


class _Run:
    """One run's main-process record, as run_probed parsed it (a folder given instead is read here, once)."""

    def __init__(self, run: ProbeRecord | str | Path) -> None:
        self.record = run if isinstance(run, ProbeRecord) else ProbeRecord.read(run)
        self.probe_dir = self.record.probe_dir
        self.steps = self.record.steps
        self.hashes = [step.row_hashes for step in self.steps]
        self.values = [step.value_hashes for step in self.steps]
        self.inputs = [step.input_hashes for step in self.steps]
        self.losses = [step.loss for step in self.steps]
        self.leaves = [step.leaf_hashes for step in self.steps]
        self.layout = self.record.layout
        self.exit_reason = self.record.exit_reason

    def unfingerprinted(self) -> str | None:
        """Say why some step's batch has no fingerprint; None when every step has one."""
        for step in self.steps:
            if step.fingerprint_error:
                return f"step {step.index}: {step.fingerprint_error}"
        for error in self.record.errors:
            if error.startswith("fingerprint of step"):  # probes older than fingerprint_error
                return error
        return None


def _same_work(reference: _Run, run: _Run, number: int) -> str | None:
    """Say how ``run`` did less (or other) work than ``reference``; None when it did the same."""
    ran, expected = len(run.steps), len(reference.steps)
    if ran != expected:
        return (f"candidate run {number} ran {ran} of {expected} steps (it ended with '{run.exit_reason}', "
                f"the baseline with '{reference.exit_reason}')")
    if run.exit_reason != reference.exit_reason:
        return f"candidate run {number} ended with '{run.exit_reason}', the baseline with '{reference.exit_reason}'"
    samples, expected_samples = sum(s.samples for s in run.steps), sum(s.samples for s in reference.steps)
    if samples != expected_samples:
        return f"candidate run {number} fed {samples} samples, the baseline {expected_samples}"
    return None


def compare_data(baseline: Sequence[ProbeRecord | str | Path], candidate: Sequence[ProbeRecord | str | Path],
                 allow_tolerance: bool, *, atol: float | None = None, rtol: float | None = None) -> CheckResult:
    """Check every candidate run did the baseline's work with the same rows (or rows within atol/rtol).

    Each run is its parsed ProbeRecord (``ProbeRun.record``; read from a probe folder when one is given).
    """
    if allow_tolerance and (atol is None or rtol is None):
        raise ValueError("compare_data with allow_tolerance needs the remedy's atol and rtol")
    base = [_Run(run) for run in baseline]
    cand = [_Run(run) for run in candidate]
    reference = base[0]
    expected = len(reference.steps)
    schemes = sorted({run.record.row_digest for run in base + cand})
    if len(schemes) > 1:
        return CheckResult(status="not_comparable", steps_expected=expected,
                           detail=f"the runs' row hashes come from different perfloop versions (row digest schemes "
                                  f"{' and '.join(map(str, schemes))}): they never match, so batch data cannot be "
                                  "checked; profile the head again with this version (perfloop run starts afresh)")
    for run in base + cand:
        why = run.unfingerprinted()
        if why:
            return CheckResult(status="not_comparable", steps_expected=expected,
                               detail=f"a batch could not be fingerprinted ({why} in {run.probe_dir}); "
                                      "batch data cannot be checked")
    for other in base[1:]:
        if other.hashes != reference.hashes:
            return CheckResult(status="not_comparable", steps_expected=expected,
                               detail="the unchanged pipeline fed different batches on repeated runs "
                                      "(unseeded randomness?); batch data cannot be checked")
    for number, run in enumerate(cand, start=1):
        short = _same_work(reference, run, number)
        if short:
            return CheckResult(status="changed", steps_expected=expected, detail=short)
    rows_total = sum(len(h) for run in cand for h in run.hashes)
    differing: list[tuple[int, _Run, int, list[int]]] = []
    for number, run in enumerate(cand, start=1):
        for step, (want, got) in enumerate(zip(reference.hashes, run.hashes)):
            if want == got:
                continue
            if len(want) != len(got):
                return CheckResult(status="changed", steps_compared=expected, steps_expected=expected,
                                   detail=f"candidate run {number}, step {step}: batch has {len(got)} rows, "
                                          f"baseline {len(want)}")
            rows = [i for i, (a, b) in enumerate(zip(want, got)) if a != b]
            if not allow_tolerance:
                beyond = _identical_beyond_layout(reference, base, cand, rows_total)
                if beyond is not None:
                    return beyond
                rows_only = [r.probe_dir for r in base + cand if r.record.fingerprint == Fingerprint.ROWS]
                why = (f" (runs in {rows_only[0]} and {len(rows_only) - 1} other(s) hashed rows only, as timing "
                       "runs do after a smoke run matched row by row: no layout-free fallback)") if rows_only else ""
                return CheckResult(status="changed", steps_compared=expected, steps_expected=expected,
                                   rows_total=rows_total, rows_differing=len(rows),
                                   detail=f"candidate run {number}, step {step}, row {rows[0]} differs from "
                                          f"the baseline{why}")
            why = _non_tensor_leaves_differ(reference, run, step)
            if why is not None:
                status, detail = why
                return CheckResult(status=status, steps_compared=expected, steps_expected=expected,
                                   rows_total=rows_total, rows_differing=len(rows), atol=atol, rtol=rtol,
                                   detail=f"candidate run {number}, step {step}: {detail}")
            differing.append((number, run, step, rows))
    if not differing:
        return CheckResult(status="identical", steps_compared=expected, steps_expected=expected,
                           rows_total=rows_total,
                           detail=f"{expected} batches a run, identical row by row in each of {len(cand)} "
                                  f"candidate run(s) ({rows_total} rows in all)")
    return _compare_values(reference, differing, expected, rows_total, atol, rtol)


def _non_tensor_leaves_differ(reference: _Run, run: _Run, step: int) -> tuple[str, str] | None:
    """Say (status, why) when a step's text or Python-number leaves differ from the baseline's; None when equal.

    Under a tolerance only tensors may differ (reordered float arithmetic); a file name, a
    label list or a Python float is compared exactly, by the probe's hash of each leaf.
    """
    want, got = reference.leaves[step], run.leaves[step]
    if want is None or got is None:
        older = reference.probe_dir if want is None else run.probe_dir
        return ("not_comparable",
                f"rows differ and the probe record in {older or '(memory)'} has no leaf_hashes (a probe from "
                "before non-tensor leaves were hashed), so its text and Python-number leaves cannot be checked "
                "under a tolerance; run the baseline and the candidate again with this perfloop")
    for path in sorted(want.keys() | got.keys()):
        if want.get(path) == got.get(path):
            continue
        if path not in got or path not in want:
            side = "candidate" if path in got else "baseline"
            what = f"non-tensor leaf {path} is only in the {side}'s batch"
        else:
            what = f"non-tensor leaf {path} differs from the baseline"
        return ("changed", f"{what}; a tolerance covers tensors only, so text and Python numbers must match "
                           "exactly")
    return None


def _layout(leaves: list[str]) -> str:
    """Say a batch layout briefly: its first leaves as path:dtype:shape, and how many there are."""
    shown = [leaf.replace("|", ":") for leaf in leaves[:3]]
    count = leaves[-1] if leaves and leaves[-1].startswith("… (") else f"… ({len(leaves)} leaves)"  # the probe's total
    more = f", {count}" if len(leaves) > 3 else ""
    return "{" + ", ".join(shown) + more + "}"


def _identical_beyond_layout(reference: _Run, base: list[_Run], cand: list[_Run], rows_total: int) -> CheckResult | None:
    """Find identity where the loader's batches changed shape but not substance; None when there is none.

    First the same values per sample, whatever container and dtype hold them (a list of
    per-position tensors vs one stacked tensor; float64 holding float32 values). Failing
    that, the same model input at every step with a bit-identical loss: work moved between
    the dataset, the collate function and the loop. A change to anything the loss reads
    (labels included) changes the loss, so it cannot hide behind an unchanged model input;
    and where model inputs were recorded, same values in the loader's batches are not enough
    if the loop then feeds the model something else (a cast that loses precision).
    """
    steps = len(reference.steps)

    def same(field: str) -> bool:
        want = getattr(reference, field)
        if any(not hashes for hashes in want):
            return False
        return all(getattr(run, field) == want for run in base[1:] + cand)

    inputs_known = all(hashes for run in base + cand for hashes in run.inputs)
    if same("values") and (not inputs_known or same("inputs")):
        return CheckResult(status="identical", rule="layout_free", steps_compared=steps, steps_expected=steps,
                           rows_total=rows_total,
                           detail=f"{steps} batches a run hold the same values sample by sample in each of "
                                  f"{len(cand)} candidate run(s) ({rows_total} rows in all); the layout changed "
                                  f"from {_layout(reference.layout)} "
                                  f"to {_layout(cand[0].layout)}")
    if same("inputs") and all(run.losses == reference.losses and None not in run.losses for run in cand):
        return CheckResult(status="identical", rule="model_input", steps_compared=steps, steps_expected=steps,
                           rows_total=rows_total,
                           detail=f"the DataLoader's batches changed, but at every one of {steps} steps the model "
                                  f"was given identical tensors and the loss is bit-identical in {len(cand)} "
                                  "candidate run(s)")
    return None


def _kept_batches(probe_dir: str, rank: int = 0) -> dict[int, dict[str, object]]:
    """Return the batches the probe kept on ``rank``: step index -> {leaf path -> value}."""
    import torch

    from perfloop.contracts.layout import kept_batches_name

    path = as_probe_folder(probe_dir).kept_batches if not rank else Path(probe_dir) / kept_batches_name(rank)
    if not probe_dir or not path.exists():
        return {}
    return {step: dict(leaves) for step, leaves in torch.load(path, weights_only=True)}


def _compare_values(reference: _Run, differing: list[tuple[int, _Run, int, list[int]]], steps: int, rows_total: int,
                    atol: float, rtol: float) -> CheckResult:
    """Compare every differing row the probe kept by value; count the rows it could not compare."""
    import torch

    base = _kept_batches(reference.probe_dir, reference.record.rank)
    kept: dict[str, dict] = {}
    worst, compared = 0.0, 0
    num_differing = sum(len(rows) for _, _, _, rows in differing)
    common = dict(steps_compared=steps, steps_expected=steps, rows_total=rows_total, rows_differing=num_differing,
                  atol=atol, rtol=rtol)
    for number, run, step, rows in differing:
        if run.probe_dir not in kept:
            kept[run.probe_dir] = _kept_batches(run.probe_dir, run.record.rank)
        want, got = base.get(step), kept[run.probe_dir].get(step)
        if want is None or got is None:
            continue  # beyond the storage budget: counted as not compared
        where = f"candidate run {number}, step {step}"
        if want.keys() != got.keys():
            return CheckResult(status="changed", max_abs_diff=worst, rows_compared=compared, **common,
                               detail=f"{where}: batch fields differ ({sorted(got)} vs {sorted(want)})")
        row_diff = {row: False for row in rows}
        for path, expected in want.items():
            value = got[path]
            if not isinstance(expected, torch.Tensor) or not isinstance(value, torch.Tensor):
                if value != expected:
                    return CheckResult(status="changed", max_abs_diff=worst, rows_compared=compared, **common,
                                       detail=f"{where} {path}: non-tensor values differ")
                continue
            if value.shape != expected.shape or value.dtype != expected.dtype:
                return CheckResult(status="changed", max_abs_diff=worst, rows_compared=compared, **common,
                                   detail=f"{where} {path}: {value.dtype}{tuple(value.shape)} vs "
                                          f"{expected.dtype}{tuple(expected.shape)}")
            if expected.dim() == 0 or expected.shape[0] <= max(rows):
                pairs = [(None, expected, value)]  # not one entry per row: compare it whole
            else:
                pairs = [(row, expected[row], value[row]) for row in rows]
            for row, want_row, got_row in pairs:
                if torch.equal(want_row, got_row):
                    continue
                for marked in ([row] if row is not None else rows):
                    row_diff[marked] = True
                if not want_row.is_floating_point():
                    return CheckResult(status="changed", max_abs_diff=worst, rows_compared=compared, **common,
                                       detail=f"{where} {path}: integer values differ")
                diff = (got_row.double() - want_row.double()).abs()
                worst = max(worst, float(diff.max()) if diff.numel() else 0.0)
                if bool((diff > atol + rtol * want_row.double().abs()).any()) or bool(diff.isnan().any()):
                    return CheckResult(status="changed", max_abs_diff=worst, rows_compared=compared, **common,
                                       detail=f"{where} {path}: max |diff| {worst:.3g} beyond atol {atol} "
                                              f"rtol {rtol}")
        unexplained = [row for row, seen in row_diff.items() if not seen]
        if unexplained:
            return CheckResult(status="changed", max_abs_diff=worst, rows_compared=compared, **common,
                               detail=f"{where}, row {unexplained[0]}: fingerprint differs but every kept tensor "
                                      "is equal, so a leaf the probe does not keep (text, numbers) changed")
        compared += len(rows)
    if compared == 0:
        return CheckResult(status="changed", max_abs_diff=None, rows_compared=0, **common,
                           detail=f"{num_differing} rows differ and none was kept to compare within tolerance")
    result = CheckResult(status="within_tolerance", max_abs_diff=worst, rows_compared=compared, **common,
                         detail="")
    result.detail = (f"{result.label}: rows differ bit-wise but every compared row is within atol {atol} "
                     f"rtol {rtol} (max |diff| {worst:.3g}); {rows_total - num_differing} of {rows_total} rows "
                     "identical by fingerprint")
    return result


def compare_losses(baseline: list[list[float | None]], candidate: list[list[float | None]],
                   rtol: float = 1e-4, atol: float = 1e-6, mean_rtol: float | None = None) -> CheckResult:
    """Check the candidate's per-step loss against the baseline's: bit-identical, within tolerance, or diverged.

    When the baseline's own repeated runs disagree (a nondeterministic pipeline), the
    candidate must lie inside their envelope at every step, widened by atol + rtol·|loss|;
    the result is then ``within_envelope`` or ``diverged``, never ``not_comparable``.

    ``mean_rtol`` (the precision rule, for TF32 and autocast) also bounds the drift of the running
    mean: after k steps, the mean of the candidate's first k losses must lie within
    atol + max(mean_rtol, rtol / sqrt(k))·|m| of the mean m of some baseline run's first k. Rounding
    noise that is independent from step to step averages out like 1/sqrt(k), so the bound starts
    at the per-step one and narrows to ``mean_rtol``; a bias that every step shares (a loss 0.5%
    high throughout, each step within its per-step bound) does not average out and is caught.
    """
    expected_steps = len(baseline[0]) if baseline else 0
    for number, run in enumerate(candidate, start=1):
        if len(run) != expected_steps:
            return CheckResult(status="diverged", steps_expected=expected_steps,
                               detail=f"candidate run {number} ran {len(run)} of {expected_steps} steps")
    reference = baseline[0]
    if expected_steps == 0 or all(v is None for v in reference):
        return CheckResult(status="not_comparable", steps_expected=expected_steps,
                           detail="no loss was recorded (no backward() on a scalar)")
    envelope = any(run != reference for run in baseline[1:])
    common = dict(steps_compared=expected_steps, steps_expected=expected_steps, atol=atol, rtol=rtol)
    worst = 0.0
    identical = not envelope
    for number, run in enumerate(candidate, start=1):
        for step, got in enumerate(run):
            seen = [b[step] for b in baseline if len(b) > step]
            if got in seen and not envelope:
                continue
            identical = False
            if got is None or any(v is None for v in seen):
                return CheckResult(status="diverged", **common, detail=f"candidate run {number}, step {step}: "
                                                                       "loss missing on one side")
            low, high = min(seen), max(seen)
            slack = atol + rtol * max(abs(low), abs(high))
            diff = max(0.0, low - got, got - high)
            worst = max(worst, min(abs(got - v) for v in seen))
            if diff > slack or got != got:
                what = f"[{low:.6g}, {high:.6g}] of {len(baseline)} baseline runs" if envelope else f"{low:.6g}"
                return CheckResult(status="diverged", **common, max_abs_diff=worst,
                                   detail=f"candidate run {number}, step {step}: loss {got:.6g} outside {what} "
                                          f"(rtol {rtol}, atol {atol})")
    if identical:
        return CheckResult(status="identical", **common, detail=f"{expected_steps} losses bit-identical")
    drift_note = ""
    if mean_rtol is not None:
        drifted, drift_note = _mean_drift(baseline, candidate, rtol, atol, mean_rtol)
        if drifted:
            return CheckResult(status="diverged", **common, max_abs_diff=worst, detail=drifted)
    if envelope:
        return CheckResult(status="within_envelope", **common, max_abs_diff=worst,
                           detail=f"{expected_steps} losses inside the envelope of {len(baseline)} baseline runs "
                                  f"that themselves differ (max |diff| to the nearest baseline {worst:.3g})")
    return CheckResult(status="within_tolerance", **common, max_abs_diff=worst,
                       detail=f"{expected_steps} losses within rtol {rtol} atol {atol} (max |diff| {worst:.3g})"
                              + drift_note)


def _mean_drift(baseline: list[list[float | None]], candidate: list[list[float | None]], rtol: float,
                atol: float, mean_rtol: float) -> tuple[str, str]:
    """(why the running mean drifted too far, or ""; a note with the largest drift seen) for the precision rule."""
    def running(run: list[float | None]) -> list[float]:
        total, out = 0.0, []
        for k, value in enumerate(run, start=1):
            total += float(value)
            out.append(total / k)
        return out

    bases = [running(run) for run in baseline]
    largest = 0.0
    for number, run in enumerate(candidate, start=1):
        for k, mean in enumerate(running(run), start=1):
            allowed_rtol = max(mean_rtol, rtol / math.sqrt(k))
            nearest = min(bases, key=lambda b: abs(b[k - 1] - mean))[k - 1]
            drift = abs(mean - nearest)
            largest = max(largest, drift / max(abs(nearest), 1e-30))
            if drift > atol + allowed_rtol * abs(nearest):
                return (f"candidate run {number}: the running mean of the first {k} losses, {mean:.6g}, drifted "
                        f"{drift / max(abs(nearest), 1e-30):.2%} from the baseline's {nearest:.6g} (bound atol {atol} + "
                        f"{allowed_rtol:.2%}: max(loss_mean_rtol {mean_rtol}, rtol {rtol}/sqrt({k})))"), ""
    return "", f"; running mean within loss_mean_rtol {mean_rtol} (largest drift {largest:.2%})"


PASSING = {"identical", "within_tolerance", "within_envelope"}
"""Statuses a per-rank comparison may end in and still go on to the next rank."""


def compare_ranks(baseline: list[dict[int, T]], candidate: list[dict[int, T]],
                  compare: Callable[[list[T], list[T]], CheckResult], what: str) -> CheckResult:
    """Compare every rank of a torchrun job with the same rank of the baseline: each rank's own batches
    and losses, not rank 0's alone. ``baseline`` and ``candidate`` hold, per run, rank -> that rank's
    evidence (its record, its losses); ``compare`` is the one-process check.

    The result is the first rank whose check does not pass (its detail says which rank), else the
    rank-0 result with every rank's detail, naming the ranks compared. A rank the baseline has and a
    candidate run lacks is ``changed``: the job no longer runs the same ranks.
    """
    ranks = sorted(set().union(*[set(run) for run in baseline])) if baseline else []
    if len(ranks) <= 1 and all(set(run) <= set(ranks) for run in candidate):
        only = ranks[0] if ranks else 0
        return compare([run[only] for run in baseline], [run[only] for run in candidate])
    results = []
    for rank in ranks:
        missing = [number for number, run in enumerate(candidate, start=1) if rank not in run]
        if missing:
            return CheckResult(status="changed", ranks=ranks, detail=f"rank {rank}: candidate run {missing[0]} "
                                                                     f"wrote no {what} for this rank")
        result = compare([run[rank] for run in baseline if rank in run], [run[rank] for run in candidate])
        if result.status not in PASSING:
            return result.model_copy(update={"ranks": ranks, "detail": f"rank {rank} of {len(ranks)}: {result.detail}"})
        results.append((rank, result))
    extra = sorted(set().union(*[set(run) for run in candidate]) - set(ranks))
    if extra:
        return CheckResult(status="changed", ranks=ranks, detail=f"rank {extra[0]}: the candidate ran a rank the "
                                                                 f"baseline did not ({len(ranks)} ranks there)")
    first = results[0][1]
    worst = next((r for _, r in results if r.status != "identical"), first)
    detail = "; ".join(f"rank {rank}: {result.detail}" for rank, result in results)
    return worst.model_copy(update={"ranks": ranks, "detail": f"every one of {len(ranks)} ranks compared: {detail}",
                                    "rows_total": sum(r.rows_total for _, r in results),
                                    "rows_differing": sum(r.rows_differing for _, r in results),
                                    "rows_compared": sum(r.rows_compared for _, r in results)})