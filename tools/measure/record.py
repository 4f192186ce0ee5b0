"""The probe's record of one process (``main-rank<N>.json``), parsed once into a typed ``ProbeRecord``.

The probe (probe/perfloop_probe.py) runs inside the user's interpreter with only the
standard library and torch, so it writes plain JSON; this module is its one reader.
``run_probed`` parses the record when the run ends and hands the object on
(``ProbeRun.record``); everything downstream (the measurement, the Profile, the data check,
ranks, timeline, headspace) reads its attributes instead of the file again.

Every model allows extra fields, so a newer probe's additions do not break an older
perfloop, and every field a previous probe did not write has a default, so its records
still parse. A record that does not parse raises ``RecordError`` naming the file and the
fields at fault.
"""
from __future__ import annotations

import json
from pathlib import Path

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from perfloop.contracts.layout import RECORD_NAME, SAMPLES_GLOB, WORKER_LOG_GLOB, Fingerprint
from perfloop.contracts.stages import Stage


class RecordError(ValueError):
    """A probe record that cannot be read or does not have the probe's shape."""


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class Step(_Open):
    """One step as the probe's ledger booked it (stage times in ms, which sum to ``step_ms``)."""

    index: int
    loader: int | None = Field(None, description="id() of the DataLoader that drove the step.")
    epoch_start: bool = Field(False, description="The step drew the first batch of a fresh iterator.")
    samples: int = 0
    row_hashes: list[str] = Field(default_factory=list, description="Structural fingerprint of each batch row.")
    value_hashes: list[str] | None = Field(None, description="Per-sample value hashes, whatever the layout.")
    input_hashes: list[str] | None = Field(None, description="Row hashes of what the model was given.")
    input_hashes_error: str | None = None
    leaf_hashes: dict[str, str] | None = Field(None, description="Hash of each non-tensor leaf (text, Python "
                                               "numbers) by path, compared exactly even under a tolerance; "
                                               "None from probes before it.")
    fingerprint_error: str | None = Field(None, description="Why this step's batch has no row hashes.")
    loss: float | None = None
    step_ms: float
    data_wait_ms: float = Field(0.0, validation_alias=AliasChoices("data_wait_ms", "data_ms"),
                                description="Data wait (probes before the shared Stage enum wrote data_ms).")
    h2d_ms: float = 0.0
    forward_ms: float = 0.0
    backward_ms: float = 0.0
    optimizer_ms: float = 0.0
    other_ms: float = 0.0
    gc_ms: float = 0.0
    probe_ms: float = 0.0
    """The probe's own work in this step (fingerprints, kept batches, load snapshots), left out of step_ms."""
    cpu_ms: float | None = Field(None, description="CPU time of the main process (all its threads) during the "
                                                   "step; None from probes before it.")
    sync_calls: int = 0
    sync_ms: float = 0.0
    gpu_ms: dict[str, float] = Field(default_factory=dict, description="CUDA event time per stage (ms).")
    start_wall: float | None = Field(None, description="Wall time the step began (full runs).")
    spans: list[tuple[str, float, float]] | None = Field(None, description="[stage, offset ms, duration ms] "
                                                                             "(full runs).")

    @field_validator("spans")
    @classmethod
    def _stage_names(cls, spans):
        # Probes before the shared Stage enum called data wait "data".
        if spans is None:
            return None
        return [(str(Stage.DATA_WAIT) if stage == "data" else stage, start, length) for stage, start, length in spans]

    @property
    def timed(self) -> bool:
        """True when the step carries its timeline (full runs)."""
        return self.spans is not None and self.start_wall is not None


class Site(_Open):
    file: str = ""
    line: int = 0


class Loader(_Open):
    """A DataLoader as constructed."""

    id: int = 0
    site: Site = Field(default_factory=Site)
    num_workers: int = 0
    batch_size: int | None = None
    pin_memory: bool = False
    persistent_workers: bool = False
    prefetch_factor: int | None = None
    dataset: str = ""
    iterable: bool = False
    collate_fn: str = ""
    read_by_thread: str | None = Field(None, description="Name of a thread other than the loop's that read it.")
    batches_per_epoch: int | None = Field(None, description="len(loader) when constructed; None without a length.")


class Fetch(_Open):
    """One batch build (the main process's in the record; workers' in ``worker-<pid>.jsonl``)."""

    fetch_ms: float
    collate_ms: float = 0.0
    cpu_ms: float | None = None
    runnable_ms: float | None = Field(None, description="On a core or queued for one (ms).")
    end_wall: float | None = None
    start_wall: float | None = Field(None, description="Full runs: the timeline's worker lanes.")
    pid: int | None = None
    profiled: bool = Field(False, description="Built under cProfile (a prefetcher thread's sampled build): slower.")


class Seen(_Open):
    """What the pipeline did before the probe stopped it (read when no step came)."""

    torch_imported: bool = False
    module_calls: int = 0
    optimizers_constructed: int = 0
    optimizer_steps: int = 0
    dataloaders_constructed: int = 0
    elapsed_s: float = 0.0


class CudaSummary(_Open):
    device: str = ""
    stage_events: int = 0


class Nvml(_Open):
    available: bool = False
    reason: str = ""
    period_s: float | None = None
    samples: list[tuple[float, float, float]] = Field(default_factory=list,
                                                      description="(wall, GPU util %, memory util %).")


class CudaDevice(_Open):
    capability: float | None = None
    matmul_allow_tf32: bool | None = None
    total_bytes: int | None = None
    peak_reserved_bytes: int = 0
    alloc_retries: int | None = None
    ooms: int | None = None


class HotSamples(_Open):
    """A full run's stack samples placed in time (the main process's in the record; workers' in
    ``samples-<pid>.json``): the first ones the sampler took, at most its cap, with a user frame."""

    samples: list[tuple[float, str, str, str, int]] = Field(
        default_factory=list, description="(wall time, label, file, function, line) of the innermost user frame.")
    dropped: int = Field(0, description="Samples past the cap, not kept.")


class Runtime(_Open):
    """The main process's threads, precision settings, memory pressure and GC counts."""

    torch_threads: int | None = None
    autocast_seen: bool | None = None
    gc_collections: int | None = None
    major_faults: int | None = None
    float32_matmul_precision: str | None = None
    cudnn_allow_tf32: bool | None = None
    cuda: CudaDevice | None = None
    versions: dict[str, str] = Field(default_factory=dict, description="Python and the numeric libraries the "
                                                                       "pipeline imported, by name.")


class Replay(_Open):
    """The step loader's batches a full run kept for a headspace replay, or why none."""

    batches: int = 0
    elements: int | None = None
    path: str | None = None
    why_not: str = ""


class Load(_Open):
    """The machine's load around the measured steps (probe/perfloop_load.py).

    Each sample is [closed_steps, wall, busy, idle, steal, tree, cpu_s, preempted, queue_ns]:
    cumulative counters when ``closed_steps`` steps had been closed.
    """

    available: bool = False
    reason: str = Field("", description="Why there are no samples (not Linux, probe before it).")
    hz: int = 100
    cpus: int = 1
    warmup_steps: int = 0
    samples: list[list[float]] = Field(default_factory=list)


class ProbeRecord(_Open):
    """The record of one process of a probed run, as ``perfloop_probe._Probe._write_main`` writes it."""

    version: int = 1
    pid: int = 0
    rank: int = 0
    mode: str = "light"
    fingerprint: str = Field(Fingerprint.FULL, description="Env.FINGERPRINT of the run: full, or rows (row and leaf hashes "
                                                 "only: no value or model-input hashes).")
    row_digest: int = Field(1, description="Scheme of the row hashes (contracts.layout.ROW_DIGEST); records "
                                           "without it are scheme 1.")
    exit_reason: str = Field("", description="max_steps | exit | signal | no_step | ...")
    install_wall: float | None = None
    first_batch_wall: float | None = None
    max_steps: int = 0
    loaders: list[Loader] = Field(default_factory=list)
    step_loader: int | None = Field(None, description="Index in ``loaders`` of the one that drives the steps.")
    step_source: str | None = Field(None, description="loader | optimizer: what ends a step.")
    seen: Seen = Field(default_factory=Seen)
    steps: list[Step]
    main_fetches: list[Fetch] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    stacks: dict | None = Field(None, description="The stack sampler's raw snapshot (tools/measure/hotspots.py skips "
                                                  "malformed rows itself).")
    hot_samples: HotSamples | None = Field(None, description="Timestamped stack samples (full runs).")
    thread_builds: dict | None = Field(None, description="cProfile call graph of sampled batch builds run by "
                                                         "threads other than the main one (tools/measure/thread_builds.py).")
    loader_threads: list[str] = Field(default_factory=list, description="Names of threads other than the loop's "
                                                                        "that read a DataLoader.")
    layout: list[str] = Field(default_factory=list, description="Leaves of the first batch, path|dtype|shape.")
    sampler: str | None = None
    cuda: CudaSummary | None = None
    nvml: Nvml = Field(default_factory=Nvml)
    cpu_count: int | None = None
    load: Load = Field(default_factory=lambda: Load(reason="recorded by a probe before load snapshots"))
    runtime: Runtime = Field(default_factory=Runtime)
    replay: Replay | None = None

    _path: Path | None = PrivateAttr(None)

    @field_validator("loaders", "main_fetches", "errors", "layout", "seen", "nvml", "runtime", mode="before")
    @classmethod
    def _null_is_empty(cls, value, info):
        if value is not None:
            return value
        return {} if info.field_name in ("seen", "nvml", "runtime") else []

    @property
    def path(self) -> Path | None:
        """The file this record was read from (None when built in memory)."""
        return self._path

    @property
    def probe_dir(self) -> str:
        """The run folder holding the record and its side files ('' when built in memory)."""
        return str(self._path.parent) if self._path is not None else ""

    @classmethod
    def read(cls, path: Path | str) -> "ProbeRecord":
        """Parse a record file, or the rank-0 record of a run folder; raise RecordError when it is malformed."""
        path = Path(path)
        if path.is_dir():
            path = path / RECORD_NAME
        try:
            data = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError) as error:
            raise RecordError(f"probe record {path} cannot be read: {error}") from None
        except json.JSONDecodeError as error:
            raise RecordError(f"probe record {path} is not JSON ({error}): the process may have been killed "
                              "while writing it") from None
        return cls.parse(data, path)

    @classmethod
    def read_other_ranks(cls, folder: Path | str) -> dict[int, "ProbeRecord"]:
        """The records of a torchrun job's other ranks in a run folder (``main-rank<N>.json``, N > 0), by rank."""
        from perfloop.contracts.layout import RECORD_GLOB

        found = {}
        for path in sorted(Path(folder).glob(RECORD_GLOB)):
            if path.name != RECORD_NAME:
                record = cls.read(path)
                found[record.rank] = record
        return found

    @classmethod
    def parse(cls, data, path: Path | str | None = None) -> "ProbeRecord":
        """Validate already-loaded JSON; ``path`` names it in errors and sets ``probe_dir``."""
        where = f"probe record {path}" if path is not None else "probe record"
        if not isinstance(data, dict):
            raise RecordError(f"{where} is malformed: expected a JSON object, got {type(data).__name__}")
        try:
            record = cls.model_validate(data)
        except ValidationError as error:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(top)'}: {e['msg']}"
                                 for e in error.errors()[:5])
            more = f" (and {error.error_count() - 5} more)" if error.error_count() > 5 else ""
            raise RecordError(f"{where} is malformed: {problems}{more}") from None
        record._path = Path(path) if path is not None else None
        return record

    def measured(self, warmup_steps: int, steps: int) -> list[Step]:
        """The steps perfloop measures: after ``warmup_steps``, at most ``steps`` of them."""
        return self.steps[warmup_steps: warmup_steps + steps]

    def step_loader_info(self) -> Loader | None:
        """The DataLoader that drives the steps, when one does."""
        index = self.step_loader
        if index is None or index < 0 or index >= len(self.loaders):
            return None
        return self.loaders[index]


def worker_fetches(out_dir: Path) -> list[Fetch]:
    """Every batch build the run's DataLoader workers logged (``worker-<pid>.jsonl``), each file in order."""
    fetches = []
    for path in sorted(Path(out_dir).glob(WORKER_LOG_GLOB)):
        pid = int(path.stem.split("-", 1)[1])
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if not line:
                continue
            try:
                fetch = Fetch.model_validate_json(line)
            except ValidationError as error:
                raise RecordError(f"worker log {path}, line {number}, is malformed: "
                                  f"{error.errors()[0]['msg']}") from None
            if fetch.pid is None:
                fetch.pid = pid
            fetches.append(fetch)
    return fetches


def worker_hot_samples(out_dir: Path) -> dict[int, HotSamples]:
    """The timestamped stack samples of each DataLoader worker (``samples-<pid>.json``), by pid."""
    found = {}
    for path in sorted(Path(out_dir).glob(SAMPLES_GLOB)):
        try:
            found[int(path.stem.split("-", 1)[1])] = HotSamples.model_validate_json(path.read_text())
        except OSError as error:
            raise RecordError(f"worker samples {path} cannot be read: {error}") from None
        except ValidationError as error:
            raise RecordError(f"worker samples {path} are malformed: {error.errors()[0]['msg']}") from None
    return found
