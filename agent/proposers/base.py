"""The proposer seam: codemods and the LLM answer the same question with the same shape.

A proposer turns one scheduled remedy into a ``ProposedChange``: the new text of each file it
changes, and what the change declares about itself. It writes nothing into a worktree; optimize
computes the diff against the branch head with ``Workspace.diff_files``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, Field

from perfloop.agent.state import ChangedSetting

if TYPE_CHECKING:
    from perfloop.agent.context import RunContext
    from perfloop.knowledge_base import Diagnosis, Remedy


class DeclaredTolerance(BaseModel):
    """A tolerance the change itself needs (a reordered reduction), and why."""

    atol: float
    rtol: float
    reason: str


class ProposedChange(BaseModel):
    """One proposer's answer to one remedy."""

    source: Literal["codemod", "llm"]
    change: str = Field(description="One line saying what changes.")
    files: dict[str, str] = Field(description="Path relative to the target folder -> its full new text.")
    tolerance: DeclaredTolerance | None = Field(None, description="None: data and loss must stay as the remedy says.")
    one_off_cost_s: float | None = Field(None, description="A one-off start-up cost the change declares.")
    gain_from_epoch: int | None = Field(None, description="The epoch the change pays off from, where the change "
                                                          "declares a later one than its remedy (None: the remedy's).")
    notes: list[str] = Field(default_factory=list, description="What a reviewer should know.")
    setting: ChangedSetting | None = Field(None, description="What a codemod changed, as data.")
    alternatives: list[ProposedChange] = Field(default_factory=list, description="Other changes for the same "
                                               "remedy that also survived (the LLM's other candidates, best first); "
                                               "verified beside this one only where blocks run in parallel.")


class Proposer(Protocol):
    """Propose one change for a remedy; raise NotApplicable when there is none to make."""

    source: Literal["codemod", "llm"]

    def propose(self, ctx: RunContext, diagnosis: Diagnosis, remedy: Remedy) -> ProposedChange: ...
