"""The verification rule a proposal is held to: the remedy's declaration, with the change's own on top.

verify's cascade and the approval prompt both read it from here, so what the user is shown is
what the stages enforce.
"""
from __future__ import annotations

from perfloop.agent.state import LoopState, Proposal
from perfloop.contracts.tolerances import DTYPE_TOLERANCE, LOSS_TOLERANCE
from perfloop.knowledge_base import Verification, load_entries


def declared_rule(state: LoopState, proposal: Proposal) -> tuple[Verification, str | None]:
    """Return the verification enforced on the proposal, and where its tolerance came from when not the remedy.

    The one place the effective rule is decided: the remedy's declaration, with what the change
    itself declares on top. A change that declares a tolerance (the vectoriser mapping math.exp
    to np.exp) is judged within its atol/rtol for data and loss, so the class is derived again
    from those rules (reorder, where the remedy said exact): the verdict's tolerance_class names
    what was enforced, and the second value says whose declaration it was.
    """
    rule = _remedy_rule(state, proposal)
    update: dict = {}
    source = None
    if proposal.atol is not None:
        rtol = proposal.rtol if proposal.rtol is not None else rule.rtol
        update.update(data="within_tolerance", loss="within_tolerance", atol=proposal.atol, rtol=rtol)
        if rule.tolerance_class != "changes-data":  # never auto-approved: a tolerance does not lift that
            update["tolerance_class"] = None
    if proposal.one_off_cost_s is not None and not rule.one_off_cost:
        update["one_off_cost"] = f"{proposal.one_off_cost_s:g} s declared by the change"
    if not update:
        return rule, None
    applied = Verification.model_validate({**rule.model_dump(), **update})
    if proposal.atol is not None:
        why = proposal.tolerance_reason or f"the {proposal.source} change"
        source = (f"tolerance from the change's own declaration ({why}; remedy {proposal.diagnosis}/"
                  f"{proposal.remedy}): atol {applied.atol:g} rtol {applied.rtol:g}, class "
                  f"{applied.tolerance_class} where the remedy declares {rule.tolerance_class}")
    return applied, source


def _remedy_rule(state: LoopState, proposal: Proposal) -> Verification:
    """Return the remedy's declared verification (tolerances, side-output changes, one-off cost)."""
    for diagnosis in state.diagnoses:
        for remedy in diagnosis.remedies:
            if diagnosis.entry_id == proposal.diagnosis and remedy.id == proposal.remedy:
                return remedy.verification
    for entry in load_entries():
        for remedy in entry.remedies:
            if entry.id == proposal.diagnosis and remedy.id == proposal.remedy:
                return remedy.verification
    return Verification(data=proposal.data_rule, loss=proposal.loss_rule, caveats=proposal.caveats)


def enforced_policy(state: LoopState, proposal: Proposal) -> dict:
    """Return the tolerances the cascade will enforce on ``proposal``, as _data, _loss and _side apply them.

    The approval prompt shows these numbers, so they come from the same rule the checks read.
    """
    rule, _ = declared_rule(state, proposal)
    tolerant = rule.data == "within_tolerance"
    source = "the remedy's"
    if proposal.atol is not None:
        source = "declared by the change"
    elif dtype := next((name for name, pair in DTYPE_TOLERANCE.items() if pair == (rule.atol, rule.rtol)), None):
        source = f"the {dtype} row of the dtype table"
    return {
        "tolerance_class": rule.tolerance_class,
        "enforced": rule.tolerance_class != "changes-data",
        "data": {"rule": rule.data, "atol": rule.atol if tolerant else None,
                 "rtol": rule.rtol if tolerant else None, "source": source if tolerant else None},
        "loss": {"rule": rule.loss, "atol": rule.loss_atol, "rtol": rule.loss_rtol,
                 "default": (rule.loss_atol, rule.loss_rtol) == LOSS_TOLERANCE},
        "side_outputs": {"compared": ["stdout lines", "stderr lines", "files written"],
                         "rtol": rule.loss_rtol if rule.loss == "within_tolerance" else 0.0,
                         "may_change": list(rule.side_output_changes)},
    }
