"""The step-time ledger's stages: the probe's ``Stage`` enum, and the sums the knowledge base adds."""
from perfloop.tools.measure.probe.perfloop_layout import TIMED_STAGES, Stage

SUMS: dict[str, tuple[Stage, ...]] = {
    "input": (Stage.DATA_WAIT, Stage.H2D),
    "compute": (Stage.FORWARD, Stage.BACKWARD, Stage.OPTIMIZER),
}
"""Stage sums the knowledge base names: input (TF profiler's input %) and compute."""

METRIC_STAGES: tuple[str, ...] = tuple(
    name for stage in Stage for name in (str(stage), *(s for s, parts in SUMS.items() if parts[-1] is stage)))
"""Every stage or sum with a ``<name>_share`` metric (and a derived ``<name>_ms``), in reading order: each sum
follows the last stage it adds (data_wait, h2d, input, forward, backward, optimizer, compute, other)."""

__all__ = ["METRIC_STAGES", "SUMS", "TIMED_STAGES", "Stage"]
