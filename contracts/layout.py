"""The probe's layout (environment variables, file names, defaults), as perfloop imports it.

The declarations live in the probe's own stdlib-only file,
``perfloop/tools/measure/probe/perfloop_layout.py``, because the probe reads them inside the
user's interpreter where perfloop's packages are not imported; this module re-exports them.
"""
from pathlib import Path

import perfloop.tools.measure.probe.perfloop_layout as probe_layout
from perfloop.tools.measure.probe.perfloop_layout import (
    CALL_GLOB,
    ENV_PREFIX,
    PROGRESS_NAME,
    RECORD_GLOB,
    REPLAY_REPORT_PREFIX,
    ROW_DIGEST,
    SAMPLES_GLOB,
    STACKS_GLOB,
    WORKER_FACTS_GLOB,
    WORKER_LOG_GLOB,
    Defaults,
    Env,
    Fingerprint,
    call_name,
    capture_notes_name,
    kept_batches_name,
    probe_error_name,
    record_name,
    replay_name,
    samples_name,
    stacks_name,
    worker_facts_name,
    worker_log_name,
)

PROBE_MODULES: tuple[str, ...] = tuple(sorted(
    path.stem for path in Path(probe_layout.__file__).parent.glob("perfloop_*.py")))
"""The probe's own modules (every one is named perfloop_*), as the probe folder holds them."""

RECORD_NAME = record_name(0)
"""The main process's record in a single-process run (rank 0 under torchrun)."""

__all__ = [
    "CALL_GLOB",
    "ENV_PREFIX",
    "PROBE_MODULES",
    "PROGRESS_NAME",
    "RECORD_GLOB",
    "RECORD_NAME",
    "REPLAY_REPORT_PREFIX",
    "ROW_DIGEST",
    "SAMPLES_GLOB",
    "STACKS_GLOB",
    "WORKER_FACTS_GLOB",
    "WORKER_LOG_GLOB",
    "Defaults",
    "Env",
    "Fingerprint",
    "call_name",
    "capture_notes_name",
    "kept_batches_name",
    "probe_error_name",
    "record_name",
    "replay_name",
    "samples_name",
    "stacks_name",
    "worker_facts_name",
    "worker_log_name",
]
