"""The probe's layout, declared once: stage names, environment variables, file names and defaults.

Standard library only. The probe imports it inside the user's interpreter (this folder is on
the pipeline's ``PYTHONPATH``); perfloop imports the same file as
``perfloop.tools.measure.probe.perfloop_layout``, re-exported by ``perfloop.contracts``. A name
the probe and perfloop both use is spelled here and nowhere else.
"""
from __future__ import annotations

import enum


class Stage(enum.StrEnum):
    """A stage of the step-time ledger: each interval of a step is booked to exactly one."""

    DATA_WAIT = "data_wait"
    """Blocked in the DataLoader iterator (or the loop's own get_batch()), epoch starts included."""
    H2D = "h2d"
    """Host-to-device copies outside the other stages; 0 on CPU."""
    FORWARD = "forward"
    BACKWARD = "backward"
    OPTIMIZER = "optimizer"
    """optimizer.step(), without the forward and backward a closure runs inside it."""
    OTHER = "other"
    """The remainder: main-process host code in no stage."""


TIMED_STAGES: tuple[Stage, ...] = tuple(stage for stage in Stage if stage is not Stage.OTHER)
"""The stages the probe times; OTHER is what is left of the step."""


class Fingerprint(enum.StrEnum):
    """What a run's probe hashes per step (Env.FINGERPRINT)."""

    FULL = "full"
    """Row hashes, layout-free value hashes and the model's input (the default)."""
    ROWS = "rows"
    """Row and non-tensor leaf hashes only: verify's timing runs after a smoke run matched row by row."""


ROW_DIGEST = 2
"""The row digest's scheme (perfloop_fingerprint), written into each record as ``row_digest``: 2 puts every word
through splitmix64's finaliser (1, before 2026-12-04, summed (word ^ key) * odd, which let two top-bit changes
cancel; records without the field are 1). Hashes of different schemes never compare equal, so the data check
refuses to compare runs across them."""


class Env(enum.StrEnum):
    """Environment variables perfloop sets on a pipeline run and the probe reads."""

    PROBE_DIR = "PERFLOOP_PROBE_DIR"
    """Folder for the run's output files; the probe is inert without it."""
    MAX_STEPS = "PERFLOOP_MAX_STEPS"
    """Stop the process after this many steps (warm-up + measured); 0 = never."""
    WARMUP_STEPS = "PERFLOOP_WARMUP_STEPS"
    """Steps before the measured window: the probe reads the machine's load at its edges."""
    SUPERVISOR_PID = "PERFLOOP_SUPERVISOR_PID"
    """The perfloop process running the pipeline: it and the processes between it and the pipeline
    (shell, guard) count as the pipeline's own CPU in the load snapshots, not as a neighbour's."""
    PROBE_MODE = "PERFLOOP_PROBE_MODE"
    """"full" (stage timers, stack sampler, NVTX), "light" (timing, fingerprints, loss) or "off"."""
    FINGERPRINT = "PERFLOOP_FINGERPRINT"
    """A Fingerprint: "rows" in verify's timing runs once the smoke run's batches matched the head's row
    by row, so the layout-free fallbacks cannot be needed (a row that then differs fails)."""
    SAMPLE_MS = "PERFLOOP_SAMPLE_MS"
    """Stack sampler period in ms."""
    KEEP_ELEMENTS = "PERFLOOP_KEEP_ELEMENTS"
    """Cap on batch elements kept for tolerance checks."""
    DEFER_HASH_BYTES = "PERFLOOP_DEFER_HASH_BYTES"
    """In rows-only runs, bytes of batch copies whose hashing waits for the end of the run (0: hash each
    batch as it arrives)."""
    FIRST_STEP_TIMEOUT_S = "PERFLOOP_FIRST_STEP_TIMEOUT_S"
    """Stop a process that imported torch but reached no step by then."""
    REPLAY_KEEP = "PERFLOOP_REPLAY_KEEP"
    """In a full run, keep up to this many batch elements for the headspace replay."""
    REPLAY_FROM = "PERFLOOP_REPLAY_FROM"
    """A replay file written by a full run: feed its batches with the DataLoader bypassed."""
    CAPTURE = "PERFLOOP_CAPTURE"
    """"path/to/file.py:qualname": record the calls of that function for function-level replay."""
    CAPTURE_DIR = "PERFLOOP_CAPTURE_DIR"
    CAPTURE_MAX_CALLS = "PERFLOOP_CAPTURE_MAX_CALLS"
    CAPTURE_MAX_BYTES = "PERFLOOP_CAPTURE_MAX_BYTES"
    CAPTURE_MAX_SELF_BYTES = "PERFLOOP_CAPTURE_MAX_SELF_BYTES"
    """A method's `self` (a dataset holding its samples) is kept once per object, up to this many bytes."""


ENV_PREFIX = "PERFLOOP_"
"""Every variable above starts with it; a patch that sets one can change what is measured."""


class Defaults:
    """What the probe assumes when a variable is not set; perfloop's settings start from the same."""

    SAMPLE_MS = 2.0
    KEEP_ELEMENTS = 2_000_000
    DEFER_HASH_BYTES = 64 << 20
    FIRST_STEP_TIMEOUT_S = 120.0
    REPLAY_KEEP = 20_000_000
    CAPTURE_MAX_CALLS = 8
    CAPTURE_MAX_BYTES = 1 << 20
    CAPTURE_MAX_SELF_BYTES = 256 << 20
    NO_STEP_EXIT_CODE = 3
    """Exit status of a process the probe stopped because it reached no step in time."""


def record_name(rank: int | str = 0) -> str:
    """The main process's record of one rank: ``main-rank<N>.json``."""
    return f"main-rank{rank}.json"


def kept_batches_name(rank: int | str = 0) -> str:
    """The batches a full run keeps for tolerance checks."""
    return f"batches-rank{rank}.pt"


def replay_name(rank: int | str = 0) -> str:
    """The batches a full run stores for the headspace replay."""
    return f"replay-rank{rank}.pt"


RECORD_GLOB = "main-rank*.json"
PROGRESS_NAME = "progress.json"
"""Steps done so far, rewritten as the run goes (the live progress line reads it)."""
WORKER_LOG_GLOB = "worker-*.jsonl"
"""One line per batch a DataLoader worker built, one file per worker process."""


WORKER_FACTS_GLOB = "worker-facts-*.json"
STACKS_GLOB = "stacks-*.json"
SAMPLES_GLOB = "samples-*.json"


def worker_log_name(pid: int) -> str:
    return f"worker-{pid}.jsonl"


def worker_facts_name(pid: int) -> str:
    return f"worker-facts-{pid}.json"


def stacks_name(pid: int) -> str:
    """The stack sampler's counts of one process."""
    return f"stacks-{pid}.json"


def samples_name(pid: int) -> str:
    """The stack sampler's timed samples of one process (full runs)."""
    return f"samples-{pid}.json"


def probe_error_name(pid: int) -> str:
    """A traceback of the probe's own, written instead of breaking the pipeline."""
    return f"probe-error-{pid}.txt"


CALL_GLOB = "call-*.pkl"
"""The captured calls of the function under replay, one pickle each."""


def call_name(pid: int, number: int) -> str:
    return f"call-{pid}-{number}.pkl"


def self_name(pid: int, number: int) -> str:
    """A method's `self`, pickled once for every captured call made on that object (a call's "self_file")."""
    return f"self-{pid}-{number}.pkl"


def capture_notes_name(pid: int) -> str:
    """Why a call of the captured function could not be kept."""
    return f"notes-{pid}.txt"


REPLAY_REPORT_PREFIX = "PERFLOOP_REPLAY "
"""The line the function-level replay child prints its JSON verdict after."""
