"""Types the graph carries: settings, proposals, verdicts and the loop state."""
from __future__ import annotations

import operator
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from perfloop.agent.redact import has_credentials
from perfloop.contracts.executors import REMEDIES_AT_ONCE_MAX
from perfloop.knowledge_base import Diagnosis, Verification
from perfloop.tools.check.datacheck import CheckResult
from perfloop.tools.check.sideoutputs import SideOutputCheck
from perfloop.tools.check.stats import SpeedCheck, StartupCheck
from perfloop.tools.contract.target import Target
from perfloop.tools.measure.models import Profile, RunMeasurement

StopReason = Literal["max_iterations", "nothing_actionable", "user_quit", "profile_only", "awaiting_approval"]
"""Why a run stopped. ``awaiting_approval`` is a pause (stdin closed at a proposal), not an end."""
VerdictName = Literal["accepted", "rejected", "declined", "undecided"]
"""undecided: verification could not decide (the machine was busy); the change is neither kept nor held against."""
Decision = Literal["approve", "reject", "quit"]
"""What the user (or --auto-approve) answered at a proposal."""
DECISIONS: tuple[Decision, ...] = ("approve", "reject", "quit")
ProposerChoice = Literal["auto", "codemod", "llm"]
"""Who proposes changes (--proposer): auto (each remedy's own kind), codemods only, or the LLM first."""


class Settings(BaseModel):
    """How the loop behaves, composed once by the CLI."""

    auto_approve: bool = Field(False, description="Apply every proposal without asking (except those that need a "
                                                  "person: changes-data always, precision without allow_precision).")
    allow_precision: bool = Field(False, description="--allow-precision: --auto-approve may accept precision-class "
                                                     "changes (TF32, autocast), judged by the precision rule.")
    max_iters: int = Field(3, ge=1, description="Most proposals verified or declined in one run.")
    llm_base_url: str | None = Field(None, description="OpenAI-compatible endpoint; None = codemods only.")
    llm_model: str | None = Field(None, description="Model name sent to the endpoint.")
    llm_timeout_s: float = Field(120.0, description="Per-request timeout of the LLM call.")
    llm_candidates: int = Field(3, ge=1, le=8, description="Candidate edits asked of the LLM per remedy; "
                                "each is replayed; the best survivor reaches the pipeline (every survivor, in "
                                "blocks side by side, under --executor ray --auto-approve).")
    profile_only: bool = Field(False, description="Stop after the first diagnosis (`perfloop profile`).")
    retry_rejected: bool = Field(False, description="Propose remedies an earlier run rejected at this same head.")
    executor: Literal["local", "ray"] = Field("local", description="local: every pipeline run here; ray: each "
                                              "candidate's verification block on one node of a Ray cluster.")
    ray_address: str | None = Field(None, description="--ray-address: auto, HOST:PORT or ray://HOST:PORT (ray only).")
    block_retries: int = Field(2, ge=0, description="Times a block whose node was lost mid-block is sent again.")
    remedies_at_once: int = Field(1, ge=1, le=REMEDIES_AT_ONCE_MAX, description="Remedies proposed for one head and verified side by "
                                  "side, each in its own block (--executor ray --auto-approve only); the fastest "
                                  "accepted one is committed, then the loop re-profiles.")
    proposer: ProposerChoice = Field("auto", description="auto: each remedy as its entry lists it (codemods and "
                                     "knobs offline, LLM remedies when an endpoint is set); codemod: never ask "
                                     "the LLM; llm: ask the LLM first on every diagnosis, codemods after.")

    def model_post_init(self, _context) -> None:
        if bool(self.llm_base_url) != bool(self.llm_model):
            raise ValueError("--llm-base-url and --llm-model go together: give both, or neither for codemods only")
        if self.proposer == "llm" and not self.llm_base_url:
            raise ValueError("--proposer llm needs an LLM: give --llm-base-url and --llm-model")
        if has_credentials(self.ray_address):
            raise ValueError("ray_address must not carry user:password@ (it would be stored with the run)")
        if has_credentials(self.llm_base_url):  # the CLI strips them: settings are checkpointed and logged
            raise ValueError("llm_base_url must not carry user:password@ (they would be stored with the run)")

    @property
    def llm_ready(self) -> bool:
        """Tell whether LLM remedies can be proposed (an endpoint is set and --proposer allows it)."""
        return bool(self.llm_base_url and self.llm_model) and self.proposer != "codemod"


class RemedyRef(BaseModel):
    """One remedy of one knowledge-base entry."""

    model_config = ConfigDict(frozen=True)

    diagnosis: str = Field(description="Knowledge-base entry id.")
    remedy: str = Field(description="Remedy id within that entry.")

    def __str__(self) -> str:
        return f"{self.diagnosis}/{self.remedy}"


class Attempt(BaseModel):
    """A remedy tried at one head of the run's branch (each is tried once per head)."""

    model_config = ConfigDict(frozen=True)

    head: str
    remedy: RemedyRef


class Skip(BaseModel):
    """A remedy the loop passed over at one head, and why."""

    head: str
    remedy: RemedyRef
    reason: str

    @property
    def needs_llm(self) -> bool:
        return self.reason.startswith("needs an LLM")


class DataPolicy(BaseModel):
    """How the batches are compared."""

    rule: Literal["identical", "within_tolerance"]
    atol: float | None = Field(None, description="Set when the rule is within_tolerance.")
    rtol: float | None = None
    source: str | None = Field(None, description="Where the tolerance comes from, e.g. 'the float32 row of the "
                                                 "dtype table' or 'declared by the change'.")


class LossPolicy(BaseModel):
    """How the loss curve is compared."""

    rule: Literal["identical", "within_tolerance"]
    atol: float
    rtol: float
    default: bool = Field(description="The default loss tolerance (contracts.tolerances.LOSS_TOLERANCE).")
    mean_rtol: float | None = Field(None, description="The precision rule's bound on the running mean's drift "
                                                      "(knowledge_base Verification.loss_mean_rtol); None: per-step "
                                                      "bounds only.")


class SideOutputPolicy(BaseModel):
    """How what the pipeline prints and writes is compared."""

    compared: list[str]
    rtol: float = Field(description="Printed numbers within this relative tolerance; 0 = to the digit.")
    may_change: list[str] = Field(default_factory=list, description="Patterns the remedy declares may differ.")


class EnforcedPolicy(BaseModel):
    """The numbers the cascade enforces on a proposal, as the approval prompt shows them."""

    tolerance_class: str
    enforced: bool = Field(description="False for changes-data: the checks are reported, not enforced.")
    data: DataPolicy
    loss: LossPolicy
    side_outputs: SideOutputPolicy


class ChangedSetting(BaseModel):
    """What a codemod changed, as data: the option, its values before and after, and where."""

    knob: str = Field(description="The option, e.g. 'num_workers' or 'torch.compile'.")
    old_value: object = Field(None, description="Its value before (the run-time value where the source held an "
                                                "expression).")
    new_value: object = None
    location: str = Field("", description="'relative/path:line' of the edit.")
    function: str | None = Field(None, description="The function a rewrite changed (qualified name), where it names "
                                                   "one: a rejected one is left out of the remedy's next try.")


class ProposalRule(BaseModel):
    """What a proposal is held to, decided once when it is made (agent/rule.py)."""

    remedy: Verification = Field(description="The remedy's declaration in the knowledge base.")
    enforced: Verification = Field(description="What the cascade enforces: the remedy's declaration with the "
                                               "change's own (a tolerance, a one-off cost) on top.")
    tolerance_source: str | None = Field(None, description="Set when the change declared its own tolerance: "
                                                           "whose declaration, its atol/rtol, the remedy's class.")
    policy: EnforcedPolicy

    @property
    def needs_explicit_approval(self) -> bool:
        """A changes-data remedy is never auto-approved."""
        return self.enforced.needs_explicit_approval

    def needs_person(self, allow_precision: bool) -> bool:
        """Whether --auto-approve must stop for a person: changes-data, or precision without --allow-precision."""
        return self.enforced.needs_person(allow_precision)


class Proposal(BaseModel):
    """One change, as a patch against the branch head, and why it is worth trying."""

    id: str = Field(description="Unique within the run, e.g. 'p2'; goes into the commit trailer.")
    diagnosis: str = Field(description="Knowledge-base entry id this change addresses.")
    remedy: str = Field(description="Remedy id of that entry.")
    source: Literal["codemod", "llm"]
    change: str = Field(description="One line saying what changes.")
    patch: str = Field(description="Unified diff, repo-relative paths.")
    touched: list[str] = Field(description="Repo-relative paths the patch touches.")
    expected_speedup: float = Field(description="Amdahl estimate from the diagnosis.")
    evidence: dict = Field(default_factory=dict, description="Profile metrics the diagnosis cites.")
    data_rule: Literal["identical", "within_tolerance"] = "identical"
    loss_rule: Literal["identical", "within_tolerance"] = "identical"
    caveats: list[str] = Field(default_factory=list)
    base_head: str = Field(description="Branch head the patch was made against.")
    atol: float | None = Field(None, description="Tolerance the change itself declares (e.g. a vectorised "
                                                 "math.exp); overrides the remedy's.")
    rtol: float | None = None
    tolerance_reason: str | None = Field(None, description="Why the change declares its tolerance, e.g. "
                                                           "'math.exp -> np.exp may differ in the last bit'.")
    one_off_cost_s: float | None = Field(None, description="One-off start-up cost the change declares "
                                                          "(torch.compile's first compile).")
    gain_from_epoch: int | None = Field(None, ge=1, le=2, description="The epoch the change pays off from, where it "
                                        "declares a later one than its remedy (a memo of per-record calls); None: "
                                        "the remedy's.")
    notes: list[str] = Field(default_factory=list, description="What the proposer says a reviewer should know "
                                                               "(loops left alone and why, numerics caveats).")
    setting: ChangedSetting | None = Field(None, description="What a codemod changed, as data (None for an LLM edit).")
    rule: ProposalRule | None = Field(None, description="What verification holds it to; None in proposals made "
                                                        "before the rule travelled with them (then re-derived).")
    alternatives: list[Proposal] = Field(default_factory=list, description="Other candidates at the same head, each "
                                         "verified in its own block beside this one (--executor ray, unattended): "
                                         "the same remedy's other LLM candidates (ids '<id>c2', ...) and, with "
                                         "remedies_at_once, other remedies' proposals (their own ids); the fastest "
                                         "accepted one is committed.")


class ApprovalRequest(BaseModel):
    """What the user needs to decide on a proposal (the approval interrupt's payload, the paused summary's pending)."""

    proposal_id: str
    change: str
    source: str
    diff: str
    diagnosis: str
    why: str = Field("", description="The diagnosis's summary.")
    evidence: dict = Field(default_factory=dict)
    expected_speedup: float
    verification: list[str] | str = Field(description="The policy in plain lines (one string in requests paused "
                                                       "by an older perfloop).")
    policy: EnforcedPolicy | None = Field(None, description="The same numbers; None in older paused requests.")
    caveats: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    where: str = Field("", description="Where a codemod's edit is, and the values it changes.")


class ApprovalAnswer(BaseModel):
    """The answer to an ApprovalRequest: from the terminal, or --auto-approve."""

    decision: Decision
    by: str = Field("user", description="'user' or 'auto-approve'.")
    reason: str = ""
    edited_patch: str | None = Field(None, description="The patch as the user edited it (approve only).")


class Verdict(BaseModel):
    """What verification concluded about one proposal, with its numbers."""

    proposal_id: str
    verdict: VerdictName
    reason: str
    tolerance_class: str | None = Field(None, description="exact | reorder | precision | changes-data: the class "
                                                          "enforced (the remedy's, or the one a tolerance the "
                                                          "change declares implies).")
    tolerance_source: str | None = Field(None, description="Set when the change declared its own tolerance: whose "
                                                           "declaration, its atol/rtol, and the remedy's class.")
    stage: str = Field(description="Verification stage that decided: approval, a name in "
                                   "perfloop.agent.nodes.verify.STAGES, or commit.")
    speed: SpeedCheck | None = None
    data: CheckResult | None = None
    loss: CheckResult | None = None
    side_outputs: SideOutputCheck | None = Field(None, description="What the pipeline printed and wrote, compared.")
    startup: StartupCheck | None = Field(None, description="Start-up judged with steady state (whole-run cost).")
    timed_from_step: int | None = Field(None, description="Set when the change pays off from the second epoch (a "
                                                          "cache): its timing runs were timed from this step, the "
                                                          "first epoch charged to start-up.")
    commit: str | None = None
    candidate_runs: list[RunMeasurement] = Field(default_factory=list)


class Iteration(BaseModel):
    """A proposal and its verdict, as the summary reports them."""

    proposal: Proposal
    verdict: Verdict


class LoopState(BaseModel):
    """Everything the graph needs to continue a run, checkpointed after every node.

    ``history``, ``tried`` and ``skipped`` grow by reducer: a node returns only the
    items it adds.
    """

    run_id: str
    target: Target
    settings: Settings
    state_dir: str = Field(description="Where this run keeps its audit log, probe files and checkpoints.")
    head: str = Field("", description="Current head of perfloop/<run_id>.")
    base: str = Field("", description="The user's HEAD when the run started (the branch grew from it).")
    first_profile: Profile | None = Field(None, description="The unchanged pipeline's profile.")
    profile: Profile | None = Field(None, description="Profile of the current head.")
    diagnoses: list[Diagnosis] = Field(default_factory=list, description="Ranked, for the current head.")
    needs_diagnosis: bool = Field(True, description="The profile changed since `diagnoses` were ranked.")
    tried: Annotated[list[Attempt], operator.add] = Field(default_factory=list,
                                                          description="Remedies already tried, per head.")
    skipped: Annotated[list[Skip], operator.add] = Field(default_factory=list,
                                                         description="Remedies passed over, per head, and why.")
    next_remedy: RemedyRef | None = Field(None, description="Chosen by diagnose for optimize.")
    also_remedies: list[RemedyRef] = Field(default_factory=list, description="With remedies_at_once: the next "
                                           "remedies schedule chose for the same head, proposed beside next_remedy.")
    proposal: Proposal | None = None
    decision: Decision | None = Field(None, description="The answer given for the current proposal.")
    decided_by: str | None = Field(None, description="'user' or 'auto-approve'.")
    history: Annotated[list[Iteration], operator.add] = Field(default_factory=list,
                                                              description="Every proposal and its verdict.")
    stop_reason: StopReason | None = None
    stop_detail: str = ""
    runs_used: int = Field(0, description="Pipeline runs so far (also numbers the probe folders).")
    second_epoch_unseen: bool = Field(False, description="A change that pays off from the second epoch was timed in "
                                      "the first: the loader has no length and no run reached a second epoch.")

    @property
    def run_steps(self) -> int | None:
        """Steps of a whole run: the target's when its sources give them, else its epochs times the
        batches of an epoch the profile's probe saw (len() of the step loader); None when neither."""
        if self.target.run_steps is not None:
            return self.target.run_steps
        loader = self.profile.loader if self.profile is not None else None
        if self.target.run_epochs is not None and loader is not None and loader.batches_per_epoch:
            return self.target.run_epochs * loader.batches_per_epoch
        return None

    def was_tried(self, ref: RemedyRef) -> bool:
        """Tell whether ``ref`` was tried or skipped at the current head."""
        return (Attempt(head=self.head, remedy=ref) in self.tried
                or any(s.head == self.head and s.remedy == ref for s in self.skipped))


def ends_before_it_serves(run_steps: int | None, epoch: int, warmup_steps: int) -> bool:
    """Whether a whole run of `run_steps` ends before a change that pays off from the second epoch is timed: within
    one epoch and the warm-up after it."""
    return run_steps is not None and run_steps <= epoch + warmup_steps + 1
