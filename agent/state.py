"""Types the graph carries: settings, proposals, verdicts and the loop state."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from knowledge_base import Diagnosis
from tools.datacheck import CheckResult
from tools.models import Profile, RunMeasurement
from tools.sideoutputs import SideOutputCheck
from tools.stats import SpeedCheck, StartupCheck
from tools.target import Target

StopReason = Literal["max_iterations", "nothing_actionable", "user_quit"]
VerdictName = Literal["accepted", "rejected", "declined"]


class Settings(BaseModel):
    """How the loop behaves, composed once by the CLI."""

    auto_approve: bool = Field(False, description="Apply every proposal without asking.")
    max_iters: int = Field(3, ge=1, description="Most proposals verified or declined in one run.")
    llm_base_url: str | None = Field(None, description="OpenAI-compatible endpoint; None = codemods only.")
    llm_model: str | None = Field(None, description="Model name sent to the endpoint.")
    llm_timeout_s: float = Field(120.0, description="Per-request timeout of the LLM call.")


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


class Verdict(BaseModel):
    """What verification concluded about one proposal, with its numbers."""

    proposal_id: str
    verdict: VerdictName
    reason: str
    stage: str = Field(description="Verification stage that decided: approval, a name in "
                                   "agent.nodes.verify.STAGES, or commit.")
    speed: SpeedCheck | None = None
    data: CheckResult | None = None
    loss: CheckResult | None = None
    side_outputs: SideOutputCheck | None = Field(None, description="What the pipeline printed and wrote, compared.")
    startup: StartupCheck | None = Field(None, description="Start-up judged with steady state (whole-run cost).")
    commit: str | None = None
    candidate_runs: list[RunMeasurement] = Field(default_factory=list)


class Iteration(BaseModel):
    """A proposal and its verdict, as the summary reports them."""

    proposal: Proposal
    verdict: Verdict


class LoopState(BaseModel):
    """Everything the graph needs to continue a run, checkpointed after every node."""

    run_id: str
    target: Target
    settings: Settings
    state_dir: str = Field(description="Where this run keeps its audit log, probe files and checkpoints.")
    head: str = Field("", description="Current head of perfloop/<run_id>.")
    first_profile: Profile | None = Field(None, description="The unchanged pipeline's profile.")
    profile: Profile | None = Field(None, description="Profile of the current head.")
    diagnoses: list[Diagnosis] = Field(default_factory=list, description="Ranked, for the current head.")
    tried: list[str] = Field(default_factory=list, description="'head:diagnosis:remedy' keys already tried.")
    skipped: list[dict] = Field(default_factory=list, description="Remedies that produced no change, and why.")
    next_remedy: str | None = Field(None, description="'diagnosis:remedy' chosen by diagnose for optimize.")
    proposal: Proposal | None = None
    decision: str | None = Field(None, description="approve | reject | quit, for the current proposal.")
    decided_by: str | None = None
    history: list[Iteration] = Field(default_factory=list)
    stop_reason: StopReason | None = None
    stop_detail: str = ""
    runs_used: int = Field(0, description="Pipeline runs so far.")
