"""The verification rule a proposal is held to: the remedy's declaration, with the change's own on top.

Decided once, in optimize, when the proposal is made (``decide_rule``); the proposal carries it
(``Proposal.rule``), and approve, verify, the approval prompt and the report read it from there,
so what the user is shown is what the stages enforce. ``resolve_remedy`` is the one lookup of a
scheduled remedy, including the general "fix this bottleneck" remedy ``--proposer llm`` adds.
"""
from __future__ import annotations

from perfloop.agent.state import (
    DataPolicy,
    EnforcedPolicy,
    LoopState,
    LossPolicy,
    Proposal,
    ProposalRule,
    RemedyRef,
    SideOutputPolicy,
)
from perfloop.contracts.tolerances import DTYPE_TOLERANCE, LOSS_TOLERANCE
from perfloop.knowledge_base import Diagnosis, Remedy, Verification, load_entries

GENERAL_REMEDY = "fix_bottleneck"
"""The remedy id of the general "remove this bottleneck" LLM instruction every diagnosis gets with an LLM."""


def general_remedy(diagnosis: Diagnosis) -> Remedy:
    """The general "remove this bottleneck" LLM remedy of a diagnosis; the entry's own remedies are hints in it.

    Its rule is exact where the bottleneck is on the input or host side (the batches and the loss
    stay bit-identical); for compute and memory bottlenecks the data stays identical and the
    loss within the default tolerance (a compiled or fused step may round differently). It is
    never a changes-data remedy, so --auto-approve can accept it.
    """
    evidence = ", ".join(f"{name}={value:.3g}" if isinstance(value, float) else f"{name}={value}"
                         for name, value in diagnosis.evidence.items())
    hints = []
    for remedy in diagnosis.remedies:
        hint = f"- {remedy.summary}"
        if remedy.instructions:
            hint += f" ({' '.join(remedy.instructions.split())})"
        if remedy.verification.tolerance_class == "changes-data":
            hint += " [changes the data: not allowed under this instruction]"
        elif remedy.verification.caveats:
            # What the hint can break (more workers change the random draws of a dataset that draws): a
            # model told only the hint follows it into the check it fails.
            caveats = "; ".join(" ".join(c.split()) for c in remedy.verification.caveats)
            hint += f" [caveat: {caveats[:400]}{'...' if len(caveats) > 400 else ''}]"
        hints.append(hint)
    exact = diagnosis.category in ("input", "host")
    return Remedy(
        id=GENERAL_REMEDY, kind="llm", summary=f"remove the {diagnosis.entry_id} bottleneck",
        instructions=(f"The profile diagnoses {diagnosis.entry_id}: {diagnosis.summary} (evidence: {evidence}). "
                      "Make the change that removes this bottleneck, wherever in the editable files it is: the "
                      "dataset's __init__ or __getitem__, the collate, the training loop, or several of them "
                      "together.\nKnown ways to remove it (hints, not a recipe):\n" + "\n".join(hints)),
        verification=Verification(data="identical", loss="identical" if exact else "within_tolerance",
                                  caveats=["a general instruction: the model chose the change"]),
    )


def resolve_remedy(state: LoopState, ref: RemedyRef) -> tuple[Diagnosis, Remedy]:
    """Return the diagnosis and remedy ``ref`` names among the state's diagnoses (the one lookup)."""
    diagnosis = next(d for d in state.diagnoses if d.entry_id == ref.diagnosis)
    if ref.remedy == GENERAL_REMEDY:
        return diagnosis, general_remedy(diagnosis)
    return diagnosis, next(r for r in diagnosis.remedies if r.id == ref.remedy)


def decide_rule(remedy: Verification, proposal: Proposal) -> ProposalRule:
    """Return the rule enforced on ``proposal``: ``remedy``'s declaration with what the change declares on top.

    A change that declares a tolerance (the vectoriser mapping math.exp to np.exp) is judged
    within its atol/rtol for data and loss, so the class is derived again from those rules
    (reorder, where the remedy said exact): the verdict's tolerance_class names what was
    enforced, and ``tolerance_source`` says whose declaration it was.
    """
    update: dict = {}
    if proposal.atol is not None:
        rtol = proposal.rtol if proposal.rtol is not None else remedy.rtol
        update.update(data="within_tolerance", loss="within_tolerance", atol=proposal.atol, rtol=rtol)
        if remedy.tolerance_class != "changes-data":  # never auto-approved: a tolerance does not lift that
            update["tolerance_class"] = None
    if proposal.one_off_cost_s is not None and not remedy.one_off_cost:
        update["one_off_cost"] = f"{proposal.one_off_cost_s:g} s declared by the change"
    if (proposal.gain_from_epoch or 1) > remedy.gain_from_epoch:  # a memo of per-record calls: timed where it serves
        update["gain_from_epoch"] = proposal.gain_from_epoch
    enforced = Verification.model_validate({**remedy.model_dump(), **update}) if update else remedy
    source = None
    if proposal.atol is not None:
        why = proposal.tolerance_reason or f"the {proposal.source} change"
        source = (f"tolerance from the change's own declaration ({why}; remedy {proposal.diagnosis}/"
                  f"{proposal.remedy}): atol {enforced.atol:g} rtol {enforced.rtol:g}, class "
                  f"{enforced.tolerance_class} where the remedy declares {remedy.tolerance_class}")
    return ProposalRule(remedy=remedy, enforced=enforced, tolerance_source=source,
                        policy=_policy(enforced, declared_by_change=proposal.atol is not None))


def rule_of(state: LoopState, proposal: Proposal) -> ProposalRule:
    """The proposal's rule; for a proposal checkpointed before rules travelled with it, derive it again."""
    if proposal.rule is not None:
        return proposal.rule
    return decide_rule(_remedy_rule(state, proposal), proposal)


def _remedy_rule(state: LoopState, proposal: Proposal) -> Verification:
    """The remedy's declared verification, for proposals that carry no rule (older checkpoints)."""
    for diagnosis in state.diagnoses:
        for remedy in diagnosis.remedies:
            if diagnosis.entry_id == proposal.diagnosis and remedy.id == proposal.remedy:
                return remedy.verification
    for entry in load_entries():
        for remedy in entry.remedies:
            if entry.id == proposal.diagnosis and remedy.id == proposal.remedy:
                return remedy.verification
    return Verification(data=proposal.data_rule, loss=proposal.loss_rule, caveats=proposal.caveats)


def _policy(rule: Verification, declared_by_change: bool) -> EnforcedPolicy:
    """The tolerances the cascade enforces under ``rule``, as its data, loss and side-output stages apply them."""
    tolerant = rule.data == "within_tolerance"
    source = "the remedy's"
    if declared_by_change:
        source = "declared by the change"
    elif dtype := next((name for name, pair in DTYPE_TOLERANCE.items() if pair == (rule.atol, rule.rtol)), None):
        source = f"the {dtype} row of the dtype table"
    return EnforcedPolicy(
        tolerance_class=rule.tolerance_class, enforced=rule.tolerance_class != "changes-data",
        data=DataPolicy(rule=rule.data, atol=rule.atol if tolerant else None, rtol=rule.rtol if tolerant else None,
                        source=source if tolerant else None),
        loss=LossPolicy(rule=rule.loss, atol=rule.loss_atol, rtol=rule.loss_rtol,
                        default=(rule.loss_atol, rule.loss_rtol) == LOSS_TOLERANCE,
                        mean_rtol=rule.loss_mean_rtol if rule.loss == "within_tolerance" else None),
        side_outputs=SideOutputPolicy(compared=["stdout lines", "stderr lines", "files written"],
                                      rtol=rule.loss_rtol if rule.loss == "within_tolerance" else 0.0,
                                      may_change=list(rule.side_output_changes)))
