"""Compare what two pipeline runs fed the model: batch rows and the loss curve."""
from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field

# |a - b| <= atol + rtol * |b| per dtype (FIELD_NOTES: fp32 1e-5/1e-5, fp16 1e-3, bf16 1e-2).
DTYPE_TOLERANCE = {"torch.float64": (1e-8, 1e-7), "torch.float32": (1e-5, 1e-5),
                   "torch.float16": (1e-3, 1e-3), "torch.bfloat16": (1e-2, 1e-2)}


class CheckResult(BaseModel):
    """Outcome of one comparison, with the evidence a reviewer needs."""

    status: str = Field(description="identical | within_tolerance | changed | diverged | not_comparable")
    detail: str
    steps_compared: int = 0
    max_abs_diff: float | None = None


def _load(probe_dir: str) -> dict:
    return json.loads((Path(probe_dir) / "main-rank0.json").read_text())


def _row_hashes(record: dict) -> list[list[str]]:
    return [step["row_hashes"] for step in record["steps"]]


def compare_data(baseline_dirs: list[str], candidate_dirs: list[str], allow_tolerance: bool) -> CheckResult:
    """Check the candidate's batches equal the baseline's row by row (or within dtype tolerance)."""
    base = [_row_hashes(_load(d)) for d in baseline_dirs]
    cand = [_row_hashes(_load(d)) for d in candidate_dirs]
    steps = min(len(h) for h in base + cand)
    reference = base[0][:steps]
    for other in base[1:]:
        if other[:steps] != reference:
            return CheckResult(status="not_comparable", steps_compared=steps,
                               detail="the unchanged pipeline fed different batches on repeated runs "
                                      "(unseeded randomness?); batch data cannot be checked")
    for number, run in enumerate(cand):
        for step, (expected, got) in enumerate(zip(reference, run[:steps])):
            if expected == got:
                continue
            if len(expected) != len(got):
                return CheckResult(status="changed", steps_compared=steps,
                                   detail=f"step {step}: batch has {len(got)} rows, baseline {len(expected)}")
            if not allow_tolerance:
                row = next(i for i, (a, b) in enumerate(zip(expected, got)) if a != b)
                return CheckResult(status="changed", steps_compared=steps,
                                   detail=f"candidate run {number + 1}, step {step}, row {row} differs from "
                                          "the baseline")
            return _compare_values(baseline_dirs[0], candidate_dirs[number], steps)
    return CheckResult(status="identical", steps_compared=steps,
                       detail=f"{steps} batches identical row by row in {len(cand)} candidate run(s)")


def _compare_values(baseline_dir: str, candidate_dir: str, steps: int) -> CheckResult:
    import torch

    def load(directory: str) -> dict:
        path = Path(directory) / "batches-rank0.pt"
        return dict(torch.load(path, weights_only=True)) if path.exists() else {}

    base, cand = load(baseline_dir), load(candidate_dir)
    common = sorted(set(base) & set(cand))
    if not common:
        return CheckResult(status="changed", steps_compared=0,
                           detail="rows differ and no batch values were kept to compare within tolerance")
    worst = 0.0
    for step in common:
        base_fields, cand_fields = dict(base[step]), dict(cand[step])
        if base_fields.keys() != cand_fields.keys():
            return CheckResult(status="changed", detail=f"step {step}: batch fields differ")
        for path, expected in base_fields.items():
            got = cand_fields[path]
            if got.shape != expected.shape or got.dtype != expected.dtype:
                return CheckResult(status="changed",
                                   detail=f"step {step} {path}: {got.dtype}{tuple(got.shape)} vs "
                                          f"{expected.dtype}{tuple(expected.shape)}")
            if not expected.is_floating_point():
                if not torch.equal(got, expected):
                    return CheckResult(status="changed", detail=f"step {step} {path}: integer values differ")
                continue
            atol, rtol = DTYPE_TOLERANCE.get(str(expected.dtype), (1e-5, 1e-5))
            diff = (got.double() - expected.double()).abs()
            worst = max(worst, float(diff.max()) if diff.numel() else 0.0)
            if bool((diff > atol + rtol * expected.double().abs()).any()):
                return CheckResult(status="changed", max_abs_diff=worst,
                                   detail=f"step {step} {path}: max |diff| {worst:.3g} beyond atol {atol} rtol {rtol}")
    return CheckResult(status="within_tolerance", steps_compared=len(common), max_abs_diff=worst,
                       detail=f"rows differ bit-wise but {len(common)} of {steps} batches are within dtype "
                              f"tolerance (max |diff| {worst:.3g})")


def compare_losses(baseline: list[list[float | None]], candidate: list[list[float | None]],
                   rtol: float = 1e-4, atol: float = 1e-6) -> CheckResult:
    """Check the candidate's per-step loss equals the baseline's, or stays within tolerance."""
    steps = min(len(run) for run in baseline + candidate)
    reference = baseline[0][:steps]
    if steps == 0 or all(v is None for v in reference):
        return CheckResult(status="not_comparable", detail="no loss was recorded (no backward() on a scalar)")
    worst = 0.0
    identical = True
    for run in candidate:
        for step, (expected, got) in enumerate(zip(reference, run[:steps])):
            if expected == got:
                continue
            identical = False
            if expected is None or got is None:
                return CheckResult(status="diverged", steps_compared=steps, detail=f"step {step}: loss missing")
            diff = abs(got - expected)
            worst = max(worst, diff)
            if diff > atol + rtol * abs(expected):
                return CheckResult(status="diverged", steps_compared=steps, max_abs_diff=diff,
                                   detail=f"step {step}: loss {got:.6g} vs baseline {expected:.6g}")
    if identical:
        return CheckResult(status="identical", steps_compared=steps, detail=f"{steps} losses bit-identical")
    return CheckResult(status="within_tolerance", steps_compared=steps, max_abs_diff=worst,
                       detail=f"{steps} losses within rtol {rtol} (max |diff| {worst:.3g})")
