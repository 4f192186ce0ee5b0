"""Records that cross the codemod boundary: what a codemod reads and what it returns."""

from pathlib import Path

from pydantic import BaseModel, Field

from perfloop.contracts.code import FunctionRef


class DataLoaderSite(BaseModel):
    """Where the probe saw a DataLoader constructed, and with which values."""

    file: str
    """Path of the source file relative to the target folder, e.g. "train.py"."""
    line: int
    """1-based line the DataLoader( call starts on, as the Python frame reported it."""
    kwargs: dict = Field(default_factory=dict)
    """Values the DataLoader got at run time: num_workers, batch_size, pin_memory, ..."""
    built: int = 1
    """Loader objects the run built here: more than 1 when the loop builds its DataLoader every epoch or fold."""


class ProfileFacts(BaseModel):
    """What a codemod may know of the profile: the hot function as an object, the loader's numbers."""

    hot_function: FunctionRef | None = None
    """The function a data-side rewrite changes (the profile's transform hot function); None when none."""
    hot_helpers: list[FunctionRef] = []
    """Functions of the target sampled under the hot function, most self time first: where a loop that
    only dispatches (`for t in self.transforms: x = t(x)`) spends its time, which no call by name shows."""
    path_functions: list[FunctionRef] = []
    """The other functions of the target the profile sampled on the per-sample path (batch building, or the
    loop's own get_batch()), most inclusive time first: the hot function's callers and their other callees.
    A memo of the hot function can cost what it saves (a byte loop over a three-character trigram), where one of
    its caller (`word_trigrams(word)`, the words repeating) saves the callee's work too."""
    num_workers: int | None = None
    """DataLoader workers of the training loader; None without one."""
    workers_needed: int | None = None
    """ceil(batch build ms / compute ms): workers that would hide batch building."""
    cpu_count: int | None = None
    """CPU cores available to the run."""
    cuda_capability: float | None = None
    """The GPU's compute capability (8.0 for an A100); None on the CPU or when NVML could not say."""
    samples_per_epoch: int | None = None
    """Samples the training loader hands out in one epoch (len(loader) x batch_size as built); None unknown."""
    sample_build_ms: float | None = None
    """Median time to build one sample (a batch's build time / its batch size, ms); None unknown."""
    main_hot_functions: list[FunctionRef] = []
    """The main process's hot functions outside any stage (the training loop's per-step host work),
    loop owner first: what a rewrite of per-step metrics or logging changes."""
    main_sampled_lines: dict[str, list[int]] = {}
    """Per main-process hot function (`file:name`), its most sampled lines, callees counted: a loop of the
    training loop's function that holds none of them (a summary built once after the loop) cannot shorten a
    step."""
    inclusive_shares: dict[str, float] = {}
    """Per sampled function of the target (`file:name`), the fraction of its phase's samples with it on the stack
    (batch building for the per-sample path, the training loop's host time for the main process's), its callees,
    library code included, counted in it: the most a memo of it can save."""


class CodemodContext(BaseModel):
    """Everything a codemod may read: the target folder, its config, the probe's findings."""

    root: Path
    """The target folder (a git worktree); every relative path below is resolved here."""
    config_path: str | None = None
    """Training config relative to root: YAML (.yaml/.yml), JSON (.json) or TOML (.toml)."""
    sites: list[DataLoaderSite] = Field(default_factory=list)
    """DataLoader construction sites, the training DataLoader first."""
    profile: ProfileFacts = Field(default_factory=ProfileFacts)
    """The profile's findings a codemod reads; any of them may be None."""
    params: dict = Field(default_factory=dict)
    """Remedy parameters from the knowledge base, e.g. {"value": "auto"} or {"value": 4}."""


class Tolerance(BaseModel):
    """A declared tolerance: where the change reorders floating-point work, and how far it may drift."""

    atol: float
    """Absolute tolerance: |a - b| <= atol + rtol * |b|."""
    rtol: float
    """Relative tolerance."""
    reason: str
    """Why results may differ, e.g. "math.exp -> np.exp may differ in the last bit"."""


class ReplayTarget(BaseModel):
    """The function a rewrite changed, to replay on captured calls before any pipeline run."""

    file: str
    """Path relative to the target folder, e.g. "data.py"."""
    function: str
    """Qualified name in that file, e.g. "frame_energy" or "ClipDataset.__getitem__"."""
    lists_became_arrays: bool = False
    """The rewrite returns arrays where the old code returned lists of numbers, on purpose:
    replay compares values, shapes and dtype kinds, not the container type."""
    per_element: bool = False
    """The function is called per element by another of the per-sample path (a memo's per-word helper): its
    arguments can repeat within one epoch, whatever the captured calls show."""
    per_step: bool = False
    """A memo of the training loop's own per-step work (a metric's helper): a result serves only a later call with
    the same arguments, so where the captured calls (of three steps) never repeat one, it is refused before any
    pipeline run."""
    keys_data: bool = False
    """A memo that keys lists and numpy arrays by their contents too (`_memo_key_data`): replay counts such
    arguments as keys."""


class CodemodResult(BaseModel):
    """One proposed change: the new text of every file it touches, and what it does."""

    files: dict[str, str]
    """Relative path -> full new text, for the files that change only."""
    summary: str
    """One line for a human, e.g. "num_workers 0 → 2 in configs/train.yaml (data.num_workers)"."""
    knob: str
    """The option changed, e.g. "num_workers"."""
    old_value: object
    """Its value before the change (the run-time value where the source held an expression)."""
    new_value: object
    """Its value after the change."""
    location: str
    """Where the change is, as "relative/path:line"."""
    tolerance: Tolerance | None = None
    """None: data (and loss) must stay bit-identical; else the tolerance the change needs and why."""
    replay: ReplayTarget | None = None
    """Set by source rewrites: replay this function (perfloop.tools.check.replay) before any pipeline run."""
    one_off_cost_s: float | None = None
    """Declared one-off cost (e.g. torch.compile's first compile) that start-up pays once; the verify
    stage measures the real extra start-up and the break-even step count against it."""
    gain_from_epoch: int | None = None
    """Declared by the proposer from replay's evidence: the change pays off from this epoch on, where the remedy
    says less (a memo whose captured calls never repeated an argument serves from the second epoch); None: the
    remedy's."""
    notes: list[str] = Field(default_factory=list)
    """What a reviewer should know: loops left alone and why, numerics caveats."""


class NotApplicable(Exception):
    """The codemod does not apply to this target; the message says why."""
