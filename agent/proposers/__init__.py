"""Proposers: codemods and the LLM behind one interface (``base.Proposer``), one answer shape (``ProposedChange``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perfloop.agent.proposers.base import Proposer
    from perfloop.knowledge_base import Remedy


def proposer_for(remedy: Remedy) -> Proposer:
    """The proposer that handles ``remedy``'s kind (the LLM client is imported only when needed)."""
    if remedy.kind == "codemod":
        from perfloop.agent.proposers.codemod import CodemodProposer

        return CodemodProposer()
    from perfloop.agent.proposers.llm_proposer import LlmProposer

    return LlmProposer()
