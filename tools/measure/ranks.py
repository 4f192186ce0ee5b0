"""Every rank of a multi-process job (torchrun): its own step time and data wait, and the straggler.

Under torchrun each rank's probe writes ``main-rank<N>.json`` into the same run folder.
With synchronous data parallelism the slowest rank sets the pace: the others wait for
it inside the gradient all-reduce, so a slow loader on one rank looks like
communication wait on all the rest. Comparing each rank's own data wait and step time
names the rank that holds the job back.
"""
from __future__ import annotations

import statistics
from pathlib import Path

from pydantic import BaseModel, Field

from perfloop.contracts.layout import RECORD_GLOB, RECORD_NAME
from perfloop.tools.measure.record import ProbeRecord


class RankStats(BaseModel):
    """One rank's measured steps."""

    rank: int
    num_steps: int = Field(description="Measured steps this rank recorded.")
    step_ms: float = Field(description="Median step wall time on this rank (ms).")
    data_wait_ms: float = Field(description="Median time this rank waited for its next batch (ms).")
    compute_ms: float = Field(description="Median forward + backward + optimizer time, collectives included (ms).")


class RankReport(BaseModel):
    """All ranks side by side, and which one the others wait for."""

    ranks: list[RankStats]
    slowest_rank: int = Field(description="The rank with the most data wait: the others wait for it.")
    excess_ms: float = Field(description="Its data wait beyond the median rank's (ms per step).")
    excess_pct: float = Field(description="excess_ms as a share of the median step time, in %.")

    def sentence(self) -> str:
        """Say it for a person."""
        waits = ", ".join(f"rank {r.rank} {r.data_wait_ms:.1f}" for r in self.ranks)
        return (f"{len(self.ranks)} ranks; data wait per step (ms): {waits}; rank {self.slowest_rank} is the "
                f"straggler, {self.excess_ms:.1f} ms ({self.excess_pct:.0f}% of a step) beyond the median rank")


def read_ranks(main: ProbeRecord, out_dir: Path, warmup_steps: int, steps: int) -> RankReport | None:
    """Return the per-rank report of a run folder, or None when only one rank recorded.

    ``main`` is the rank-0 record the run already parsed; only the other ranks' files are read.
    """
    stats = []
    for path in sorted(Path(out_dir).glob(RECORD_GLOB)):
        record = main if path.name == RECORD_NAME else ProbeRecord.read(path)
        measured = record.measured(warmup_steps, steps)
        if not measured:
            continue
        rank = record.rank if "rank" in record.model_fields_set else int(path.stem.removeprefix("main-rank"))
        stats.append(RankStats(
            rank=rank, num_steps=len(measured),
            step_ms=statistics.median(s.step_ms for s in measured),
            data_wait_ms=statistics.median(s.data_wait_ms for s in measured),
            compute_ms=statistics.median(s.forward_ms + s.backward_ms + s.optimizer_ms for s in measured)))
    if len(stats) < 2:
        return None
    stats.sort(key=lambda r: r.rank)
    slowest = max(stats, key=lambda r: r.data_wait_ms)
    median_wait = statistics.median(r.data_wait_ms for r in stats)
    median_step = statistics.median(r.step_ms for r in stats)
    excess = slowest.data_wait_ms - median_wait
    return RankReport(ranks=stats, slowest_rank=slowest.rank, excess_ms=excess,
                      excess_pct=100.0 * excess / median_step if median_step else 0.0)
