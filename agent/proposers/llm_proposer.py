"""The LLM proposer: ask for up to K candidate edits, replay each on captured calls, keep the best survivor.

Before asking, real calls of the hot function are captured (perfloop.tools.check.replay) so the prompt
can show their argument shapes and dtypes, and so each candidate that edits the hot
function is replayed, old against new, before any pipeline run. A candidate that cannot
be applied or fails replay is dropped with its reason in the audit log
(`llm_candidate`). Replay does not judge what it cannot see: the script's entry point (its
one call is the whole program) is not captured, and a candidate whose function returns the
same numbers in another layout (a list of floats became a tensor, its consumer changed with
it) goes on to the pipeline's data check. The best survivor (passes replay, then fastest on the captured calls)
alone becomes the proposal. When every candidate fails, the reasons go back to the
model once; then the remedy is skipped with them.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from perfloop.agent.context import RunContext
from perfloop.agent.events import LlmAnswerUnusable, LlmCallFailed, LlmCandidateChecked, LlmExchange
from perfloop.agent.proposers.base import ProposedChange
from perfloop.agent.proposers.llm import (
    MAX_ATTEMPTS,
    MAX_TOKENS,
    BadAnswer,
    EditAnswer,
    LLMUnavailable,
    apply_edits,
    chat,
    endpoint_for,
    parse_candidates,
    render_prompt,
)
from perfloop.agent.proposers.llm_context import (
    candidate_fates,
    cap,
    describe_calls,
    earlier_failures,
    find_callers,
    function_source,
)
from perfloop.agent.proposers.llm_files import prompt_files
from perfloop.agent.redact import redacted_url
from perfloop.tools.change.codemods import NotApplicable
from perfloop.tools.change.codemods.base import Tolerance
from perfloop.tools.change.codemods.hot_function import find_function, qualname_of


class HotTarget(BaseModel):
    """The hot function the candidates are replayed against, and its captured calls."""

    file: str
    function: str
    calls_dir: str | None = None
    num_calls: int = 0
    capture_notes: list[str] = []


class Candidate(BaseModel):
    """One applied candidate: its answer, the new file texts, its replay outcome."""

    index: int
    answer: EditAnswer
    texts: dict[str, str]
    replayed: bool = False
    speedup: float | None = None


def _hot_target(ctx: RunContext, diagnosis, root: Path) -> HotTarget | None:
    """Find the hot function in the candidate tree and capture real calls of it (one short pipeline run)."""
    from perfloop.tools.check.replay import capture_calls
    from perfloop.tools.measure.profiler import ProbeSettings

    profile = ctx.state.profile
    hot = (profile.main_hot_functions if diagnosis.category == "host" else profile.hot_functions)[:1]
    if not hot or not (root / hot[0].file).is_file():
        return None
    name = hot[0].name.split(".<")[0] if ".<" in hot[0].name else hot[0].name
    text = (root / hot[0].file).read_text(encoding="utf-8")
    try:
        tree = ast.parse(text)
        qualname = qualname_of(tree, find_function(tree, name, hot[0].line))
    except (SyntaxError, NotApplicable):
        return None
    if _is_entry_point(tree, qualname):
        # Its one call is the whole program (argv, the training loop): replay would rerun it, and cannot.
        return HotTarget(file=hot[0].file, function=qualname,
                         capture_notes=[f"{qualname} is the script's entry point (called at module level); "
                                        "replaying it would rerun the whole program"])
    settings = ProbeSettings(steps=2, warmup_steps=0, limits=ctx.protected(ctx.workspace.candidate_tree).limits,
                             first_step_timeout_s=ctx.state.target.first_step_timeout_s)
    work = ctx.next_run("llm-capture")
    captured = capture_calls(ctx.state.target.rendered_command(), root, work / "capture", hot[0].file, qualname,
                             settings)
    return HotTarget(file=hot[0].file, function=qualname, calls_dir=captured.directory,
                     num_calls=captured.num_calls, capture_notes=captured.notes)


def _is_entry_point(tree: ast.Module, qualname: str) -> bool:
    """Tell whether the module itself calls top-level function ``qualname`` (``if __name__ == "__main__": main()``)."""
    if "." in qualname:
        return False
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue  # a call inside a function is a call from somewhere else
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == qualname:
            return True
        pending.extend(ast.iter_child_nodes(node))
    return False


def _prompt(ctx: RunContext, diagnosis, remedy, root: Path, hot: HotTarget | None, k: int) -> str:
    state = ctx.state
    profile = state.profile
    host = diagnosis.category == "host"
    profile_hot = (profile.main_hot_functions if host else profile.hot_functions)[:1]
    source = callers = shapes = ""
    failures: list[str] = []
    if hot is not None:
        text = (root / hot.file).read_text(encoding="utf-8")
        source = cap(function_source(text, hot.function) or "", what=f"source of {hot.function}")
        callers = cap("\n\n".join(f"# {c['file']}:{c['line']} {c['name']}\n{c['source']}"
                                  for c in find_callers(root, hot.function)), what="callers")
        shapes = cap(describe_calls(Path(hot.calls_dir)) if hot.num_calls else
                     "no call was captured" + (f" ({'; '.join(hot.capture_notes[:2])})" if hot.capture_notes else ""),
                     what="captured calls")
        failures = earlier_failures(ctx.audit.records(), hot.function)
    metrics = profile.typed_metrics()
    files, left_out = prompt_files(state, root, host_first=host)
    verification = remedy.verification
    return render_prompt(
        diagnosis=diagnosis, remedy=remedy, evidence=diagnosis.evidence, editable=state.target.editable,
        step_ms=profile.ledger.step_ms, ledger=_ledger(profile), headspace=profile.headspace,
        hot=profile_hot[0] if profile_hot else None,
        phase="the training loop's own host time" if host else "batch building",
        sample_path=None if host else metrics.sample_path_function, sample_path_share=metrics.sample_path_share,
        data_rule=_rule_text(verification.data, verification.atol, verification.rtol, "bit-identical"),
        loss_rule=_rule_text(verification.loss, verification.loss_atol, verification.loss_rtol,
                             "must stay bit-identical", prefix="must stay "),
        may_change=list(verification.side_output_changes), noise=metrics.noise_pct,
        files=[f.model_dump() for f in files], left_out=left_out, hot_target=hot, hot_source=source,
        environment=environment(state),
        callers=callers, shapes=shapes, earlier=earlier_verdicts(state, diagnosis.entry_id, ctx.audit.records()),
        failure=cap(failures[-1], what="earlier failure") if failures else "", num_candidates=k)


def environment(state) -> str:
    """The machine and the run as the model needs them to judge a change: cores, library versions,
    workers, start-up and the whole run's length (the speed check weighs start-up against it)."""
    profile = state.profile
    versions = ", ".join(f"{name} {version}" for name, version in profile.versions.items()) or "versions not recorded"
    loader = profile.loader
    workers = (f"the DataLoader ({loader.file}:{loader.line}) uses {loader.num_workers} worker process(es)"
               if loader is not None else "no DataLoader was seen")
    steps = state.run_steps
    length = (f"a whole run of this config is {steps} steps" if steps else
              "the config does not say how many steps a whole run is")
    return (f"{profile.cpu_count} usable CPU core(s), device {profile.device}; {versions}; {workers}; start-up "
            f"(launch to the first batch) {profile.startup_s:.1f} s; {length}.")


def _ledger(profile) -> str:
    led = profile.ledger
    parts = [(name, led.share(name)) for name in ("data_wait", "h2d", "forward", "backward", "optimizer", "other")]
    return ", ".join(f"{name.replace('_', ' ')} {share:.0%}" for name, share in parts if share >= 0.005)


def _rule_text(rule: str, atol, rtol, exact: str, prefix: str = "") -> str:
    if rule == "identical":
        return exact
    return f"{prefix}within atol {atol:g} and rtol {rtol:g}" if atol is not None else f"{prefix}within tolerance"


def earlier_verdicts(state, entry_id: str, records=()) -> list[str]:
    """One line per earlier proposal for this bottleneck in the run: what it did and what was measured.

    An LLM proposal also says what became of its answer's other candidates (from the audit
    ``records``): failed replay and why, not applied and why, or not verified because another
    was chosen.
    """
    fates = candidate_fates(records)
    lines = []
    for item in state.history:
        proposal, verdict = item.proposal, item.verdict
        if proposal.diagnosis != entry_id:
            continue
        line = f"{proposal.source} change \"{proposal.change}\": {verdict.verdict} at {verdict.stage}: {verdict.reason}"
        if verdict.speed is not None:
            lo, hi = verdict.speed.ci
            line += (f" (speed-up {verdict.speed.speedup:.2f}x, interval [{lo:.2f}, {hi:.2f}], noise floor "
                     f"{verdict.speed.noise_pct:.0f}%)")
        for check in (verdict.data, verdict.loss):
            if check is not None and check.status not in ("identical", "within_tolerance"):
                line += f"; {check.detail}"
        line = cap(line, 1200, "verdict")
        siblings = fates.get(proposal.id, [])
        if len(siblings) > 1:
            line += "\n  Its answer's candidates: " + cap("; ".join(siblings), 1500, "candidates")
        if proposal.source == "llm" and verdict.verdict == "rejected":
            line += "\n  Its diff:\n```diff\n" + cap(proposal.patch, 3000, "diff") + "\n```"
        lines.append(line)
    return lines[-4:]


def _tolerance(remedy) -> Tolerance | None:
    verification = remedy.verification
    if verification.data == "identical":
        return None
    return Tolerance(atol=verification.atol or 0.0, rtol=verification.rtol or 0.0,
                     reason="the remedy's declared verification tolerance")


def _check(ctx: RunContext, root: Path, hot: HotTarget | None, remedy, attempt: int, index: int,
           answer: EditAnswer) -> tuple[Candidate | None, str]:
    """Apply one candidate in memory and replay it when it edits the hot function; return (survivor, reason)."""
    from perfloop.tools.check.replay import replay

    summary = answer.summary.splitlines()[0]
    try:
        texts = apply_edits(root, answer, ctx.state.target.editable)
    except BadAnswer as error:
        ctx.record(LlmCandidateChecked(attempt=attempt, index=index, summary=summary, outcome="dropped",
                                       reason=str(error)))
        return None, f"candidate {index} ({summary}) cannot be applied: {error}"
    candidate = Candidate(index=index, answer=answer, texts=texts)
    if hot is None or hot.file not in texts:
        return candidate, "it does not edit the hot function"
    old_text = (root / hot.file).read_text(encoding="utf-8")
    if function_source(old_text, hot.function) == function_source(texts[hot.file], hot.function):
        return candidate, "it does not edit the hot function"
    if not hot.num_calls:
        return candidate, "no captured calls to replay it on; the pipeline's data check decides"
    work = ctx.next_run(f"llm-replay-{attempt}-{index}")
    work.mkdir(parents=True, exist_ok=True)
    caller_changed = _edits_a_caller(root, hot.function, texts)
    outcome = replay(root, hot.file, hot.function, old_text, texts[hot.file], Path(hot.calls_dir),
                     tolerance=_tolerance(remedy), work_dir=work, lists_became_arrays=caller_changed)
    if outcome.verdict == "layout_changed":
        # The same numbers in another layout (a list of floats became a tensor) and, with it, what consumes
        # them: the pipeline's data check judges that (identical after layout, or at model input).
        return candidate, outcome.reason
    crashed = outcome.verdict == "error" or (outcome.verdict == "different" and "new raised" in outcome.reason)
    if crashed and caller_changed:
        # The candidate changes what the caller passes, so the old captured arguments may not fit
        # the new function: a crash here says nothing; the pipeline's data check decides.
        return candidate, f"replay on the old arguments crashed and a caller changed too: {outcome.reason[:200]}"
    if crashed and _edits_the_init(old_text, texts[hot.file], hot.function):
        # A method's captured `self` was built by the old __init__: what the new one sets is not there.
        return candidate, (f"replay on the old arguments crashed and the class's __init__ changed too (the captured "
                           f"self was built by the old one): {outcome.reason[:200]}")
    if not outcome.ok and outcome.verdict != "no_calls":
        ctx.record(LlmCandidateChecked(attempt=attempt, index=index, summary=summary, outcome="failed_replay",
                                       function=hot.function, reason=outcome.reason,
                                       replay_verdict=outcome.verdict, speedup=outcome.speedup))
        return None, f"candidate {index} ({summary}) failed replay: {outcome.reason}"
    candidate.replayed, candidate.speedup = outcome.ok, outcome.speedup
    return candidate, outcome.reason


def _edits_a_caller(root: Path, function: str, texts: dict[str, str]) -> bool:
    """Tell whether the candidate also changes a caller: then a list may become an array on purpose, and
    replay compares values, shapes and dtype kinds; the pipeline's data check still compares the batches."""
    for caller in find_callers(root, function):
        if caller["file"] in texts:
            old = function_source((root / caller["file"]).read_text(encoding="utf-8"), caller["name"])
            if old != function_source(texts[caller["file"]], caller["name"]):
                return True
    return False


def _edits_the_init(old_text: str, new_text: str, function: str) -> bool:
    """Tell whether the candidate changes (or adds) the `__init__` of the class whose method `function` is."""
    if "." not in function:
        return False
    init = f"{function.rsplit('.', 1)[0]}.__init__"
    return function_source(old_text, init) != function_source(new_text, init)


def _rank(candidate: Candidate) -> tuple:
    """Replayed candidates first, fastest on the captured calls first; then the model's own order."""
    return not candidate.replayed, -(candidate.speedup or 0.0), candidate.index


def _best(survivors: list[Candidate]) -> Candidate:
    return min(survivors, key=_rank)


class LlmProposer:
    """Ask the model behind the OpenAI-compatible endpoint for candidate edits; propose the best survivor."""

    source: Literal["llm"] = "llm"

    def propose(self, ctx: RunContext, diagnosis, remedy) -> ProposedChange:
        return propose_with_llm(ctx, diagnosis, remedy)


def propose_with_llm(ctx: RunContext, diagnosis, remedy) -> ProposedChange:
    """Ask for up to K candidates (one more round with the failures fed back); return the best one's files.

    Raises LLMUnavailable (a NotApplicable) when the endpoint fails, NotApplicable when
    no candidate survives. Each answer's token usage and latency go to its
    `llm_exchange` audit record; each candidate's fate to an `llm_candidate` record.
    """
    state = ctx.state
    ws = ctx.workspace
    endpoint = endpoint_for(state)
    model = state.settings.llm_model
    k = state.settings.llm_candidates
    root = ws.target_dir(ws.candidate_tree)
    ws.reset_candidate()
    hot = _hot_target(ctx, diagnosis, root)
    messages = [{"role": "user", "content": _prompt(ctx, diagnosis, remedy, root, hot, k)}]
    reasons: list[str] = []
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            reply = chat(endpoint, model, messages)
        except LLMUnavailable as error:
            ctx.record(LlmCallFailed(model=model, endpoint=redacted_url(endpoint.url), attempt=attempt,
                                     reason=str(error)))
            raise
        content = reply.content
        ctx.record(LlmExchange(model=model, attempt=attempt, prompt=messages[-1]["content"], answer=content,
                               **reply.model_dump(exclude={"content"})))
        try:
            if reply.finish_reason == "length":
                raise BadAnswer(f"the answer was cut off at {MAX_TOKENS} tokens; answer with less text")
            answers = parse_candidates(content, k)
        except BadAnswer as error:
            ctx.record(LlmAnswerUnusable(attempt=attempt, reason=str(error)))
            reasons = [str(error)]
            messages += [{"role": "assistant", "content": content},
                         {"role": "user", "content": f"That answer cannot be applied: {error}. "
                                                     "Answer again in the required JSON format."}]
            continue
        survivors, reasons = [], []
        for index, answer in enumerate(answers, 1):
            survivor, reason = _check(ctx, root, hot, remedy, attempt, index, answer)
            (survivors.append(survivor) if survivor else reasons.append(reason))
        if survivors:
            best = _best(survivors)
            for candidate in survivors:
                ctx.record(LlmCandidateChecked(
                    attempt=attempt, index=candidate.index, summary=candidate.answer.summary.splitlines()[0],
                    outcome="chosen" if candidate is best else "survived", speedup=candidate.speedup,
                    function=hot.function if hot else None, replay_verdict="passed" if candidate.replayed else None,
                    reason="passed replay" if candidate.replayed else "not replayed"))
            ws.reset_candidate()  # what the capture run left
            ranked = sorted(survivors, key=_rank)  # best first: the others go along as alternatives
            changes = [ProposedChange(source="llm", change=c.answer.summary.splitlines()[0], files=c.texts)
                       for c in ranked]
            return changes[0].model_copy(update={"alternatives": changes[1:]})
        ctx.record(LlmAnswerUnusable(attempt=attempt, reason="; ".join(reasons)))
        messages += [{"role": "assistant", "content": content},
                     {"role": "user", "content": "None of those candidates can be used:\n- " + "\n- ".join(reasons)
                                                 + "\nAnswer again in the required JSON format."}]
    raise NotApplicable(f"no usable answer from {model} after {MAX_ATTEMPTS} attempts: " + "; ".join(reasons))
