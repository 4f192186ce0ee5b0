"""The tolerance tables: how far a number may move and still count as the same (FIELD_NOTES).

Both bounds read ``|a - b| <= atol + rtol * |b|``. A remedy's data tolerance defaults to the
float32 row; verify enforces exactly what the remedy (or the change itself) declares.
"""
from typing import NamedTuple


class Tolerance(NamedTuple):
    atol: float
    rtol: float


DTYPE_TOLERANCE: dict[str, Tolerance] = {
    "float64": Tolerance(1e-8, 1e-7),
    "float32": Tolerance(1e-5, 1e-5),
    "float16": Tolerance(1e-3, 1e-3),
    "bfloat16": Tolerance(1e-2, 1e-2),
}
"""Data tolerance per dtype (fp32 1e-5/1e-5, fp16 1e-3, bf16 1e-2)."""

FP32 = DTYPE_TOLERANCE["float32"]
"""The default data tolerance, and what a rewrite onto numpy's float64/float32 kernels declares."""

LOSS_TOLERANCE = Tolerance(atol=1e-6, rtol=1e-4)
"""Per-step loss within_tolerance default."""

__all__ = ["DTYPE_TOLERANCE", "FP32", "LOSS_TOLERANCE", "Tolerance"]
