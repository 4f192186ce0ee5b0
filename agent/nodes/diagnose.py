"""diagnose: match the profile against the knowledge base and rank the bottlenecks it finds."""
from __future__ import annotations

from perfloop.agent.context import RunContext
from perfloop.agent.events import Diagnosed, RemedySkipped
from perfloop.agent.state import LoopState, RemedyRef, Skip
from perfloop.agent.ui.console import say
from perfloop.knowledge_base import Diagnosis, bottleneck_moved, compare
from perfloop.knowledge_base import diagnose as match_entries


def _after_accepted_change(state: LoopState, diagnoses: list[Diagnosis]) -> tuple[str | None, list[Skip]]:
    """Say whether the last accepted change moved the dominant bottleneck; if not, hold back that remedy.

    The diagnoses still in the state are those of the head before the change (``needs_diagnosis``
    is set), so their top one, with the shares it kept, is the "before". Only the accepted remedy
    itself is held back, and only when it tuned an option to a number (`num_workers` again): the entry's other
    remedies are different changes that compose with it (a cache, then the vectorised loops the
    first epoch still runs; more workers, then keeping them alive), and a rewrite of code may
    apply again at the next hot function the new profile names. A bottleneck that stayed is
    exactly where they are needed; a cache that serves from the second epoch cannot move the
    bottleneck in a profile of the first.
    """
    if not state.history or state.history[-1].verdict.verdict != "accepted" or not state.diagnoses:
        return None, []
    before_top, after_top = state.diagnoses[0], (diagnoses[0] if diagnoses else None)
    text = compare(before_top.shares, state.profile.metrics(), before_top, after_top)
    if bottleneck_moved(before_top, after_top):
        return text, []
    accepted = state.history[-1].proposal
    tuned = accepted.setting.new_value if accepted.setting is not None and accepted.setting.knob else None
    if not isinstance(tuned, (int, float)) or isinstance(tuned, bool):
        return text, []  # not an option tuned to a number (num_workers, prefetch_factor): a rewrite
    reason = (f"the accepted {accepted.diagnosis}/{accepted.remedy} did not move the dominant bottleneck "
              f"({text}); not trying it again (the entry's other remedies stay)")
    same_kind = [RemedyRef(diagnosis=d.entry_id, remedy=r.id)
                 for d in diagnoses if d.entry_id == accepted.diagnosis for r in d.remedies
                 if r.id == accepted.remedy]
    return text, [Skip(head=state.head, remedy=ref, reason=reason) for ref in same_kind]


def diagnose(state: LoopState) -> dict:
    """Rank the knowledge base's matches by expected gain when the profile changed (schedule picks a remedy)."""
    ctx = RunContext(state, "diagnose")
    diagnoses = state.diagnoses
    skipped: list[Skip] = []
    if state.needs_diagnosis:
        diagnoses = match_entries(state.profile.metrics())
        change, skipped = _after_accepted_change(state, diagnoses)
        extra = {"bottleneck_change": change} if change else {}
        ctx.record(Diagnosed(head=state.head, ranked=diagnoses, **extra))
        if change:
            say(change)
        for skip in skipped:
            say(f"{skip.remedy}: skipped, {skip.reason}")
            ctx.record(RemedySkipped(diagnosis=skip.remedy.diagnosis, remedy=skip.remedy.remedy, reason=skip.reason))
        for d in diagnoses:
            say(f"diagnosis {d.entry_id} (up to {d.expected_speedup:.2f}x, {d.confidence} confidence): {d.summary}")
        if not diagnoses:
            say("no known bottleneck matches this profile")
    return {"diagnoses": diagnoses, "needs_diagnosis": False, "skipped": skipped}
