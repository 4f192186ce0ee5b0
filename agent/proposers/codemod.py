"""The codemod proposer: a deterministic rewrite, replayed on captured calls before any pipeline run."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from perfloop.agent.context import RunContext
from perfloop.agent.events import ReplayChecked
from perfloop.agent.proposers.base import DeclaredTolerance, ProposedChange
from perfloop.agent.state import ChangedSetting
from perfloop.agent.ui.console import say
from perfloop.contracts.code import FunctionRef
from perfloop.knowledge_base import Diagnosis, Remedy
from perfloop.tools.change.codemods import (
    CodemodContext,
    CodemodResult,
    DataLoaderSite,
    NotApplicable,
    ProfileFacts,
    apply_codemod,
)
from perfloop.tools.measure.models import Profile


def codemod_facts(profile: Profile) -> ProfileFacts:
    """The slice of the profile a codemod reads: the hot function as an object, the loader's numbers."""
    metrics = profile.typed_metrics()
    # Only the target's own code is rewritten: a hot function of an installed package (torch's Subset.__getitem__
    # walked by a per-step loop) is named by its absolute path, and left out.
    # Each hot function of the training loop, then the target's functions sampled under it, most self time first
    # (a metric helper of another module the loop calls: blind12 a6's `class_iou` under `on_train_batch_end`).
    main = list({(ref.file, ref.name): ref for h in profile.main_hot_functions
                 for ref in [h, *sorted(h.helpers, key=lambda helper: -helper.self_share)]
                 if ref.name != "<module>" and not Path(ref.file).is_absolute()}.values())
    sampled = {f"{h.file}:{h.name}": list(h.hot_lines) for h in profile.main_hot_functions if h.hot_lines}
    main = [FunctionRef(name=h.name, file=h.file, line=h.line) for h in main]
    hot = profile.transform_hot_function()
    helpers = [FunctionRef(name=h.name, file=h.file, line=h.line) for h in (hot.helpers if hot else [])
               if not Path(h.file).is_absolute()]
    # The rest of the per-sample path, by inclusive time (comprehensions are code of the function holding them).
    path = [FunctionRef(name=h.name, file=h.file, line=h.line) for h in profile.build_hot_functions()
            if h is not hot and "<" not in h.name and not Path(h.file).is_absolute()]
    loader, build = profile.loader, profile.data_build
    batch = loader.batch_size if loader is not None and loader.batch_size else None
    return ProfileFacts(hot_function=hot, hot_helpers=helpers, path_functions=path, num_workers=metrics.num_workers,
                        workers_needed=metrics.workers_needed, cpu_count=profile.cpu_count, main_hot_functions=main,
                        main_sampled_lines=sampled,
                        inclusive_shares=_inclusive_shares(profile),
                        cuda_capability=metrics.cuda_capability,
                        samples_per_epoch=loader.batches_per_epoch * batch if batch and loader.batches_per_epoch
                        else None,
                        sample_build_ms=build.build_ms / batch if batch and build is not None else None)


def _inclusive_shares(profile: Profile) -> dict[str, float]:
    """`file:qualified name` -> the largest inclusive share the profile gives it in any phase (a comprehension's
    samples are its function's)."""
    shares: dict[str, float] = {}
    for h in [*profile.main_hot_functions, *profile.build_hot_functions()]:
        key = f"{h.file}:{h.defining_name}"
        shares[key] = max(shares.get(key, 0.0), h.share)
    return shares


def _sites(profile: Profile) -> list[DataLoaderSite]:
    if profile.loader is None:
        return []
    loader = profile.loader
    return [DataLoaderSite(file=loader.file, line=loader.line, built=loader.built, kwargs={
        "num_workers": loader.num_workers, "batch_size": loader.batch_size, "pin_memory": loader.pin_memory,
        "persistent_workers": loader.persistent_workers, "prefetch_factor": loader.prefetch_factor})]


MEMO_MIN_REPLAY_SPEEDUP = 2.0
"""A remembered helper must replay at least this much faster (its calls repeat across timing rounds)."""


def _replayed(ctx: RunContext, result: CodemodResult, root) -> None:
    """Replay a source rewrite on captured real calls of the function it changed; NotApplicable when it differs.

    A rewrite that fails replay is never run in the pipeline. Where no call could be captured
    (arguments over 1 MiB a call, or a method's object over 256 MiB: the object is kept once for all its
    calls), the data check of the pipeline runs decides.
    """
    from perfloop.tools.check.replay import check_rewrite
    from perfloop.tools.measure.profiler import ProbeSettings

    # A per-step memo's calls must show whether they repeat from step to step: three steps, for a helper called once
    # a step after the step's work (the run ends at the last step's end).
    settings = ProbeSettings(steps=3 if result.replay.per_step else 2, warmup_steps=0,
                             limits=ctx.protected(ctx.workspace.candidate_tree).limits,
                             first_step_timeout_s=ctx.state.target.first_step_timeout_s)
    outcome = check_rewrite(result, root, ctx.state.target.rendered_command(), ctx.next_run("replay"), settings)
    ctx.record(ReplayChecked(file=result.replay.file, function=result.replay.function, ok=outcome.ok,
                             verdict=outcome.verdict, reason=outcome.reason, num_calls=outcome.num_calls,
                             speedup=outcome.speedup))
    say(outcome.reason if outcome.reason.startswith("replay of ") else f"replay of {result.replay.function}: "
        f"{outcome.reason}")
    if not outcome.ok and outcome.verdict != "no_calls":
        raise NotApplicable(f"function-level replay failed, so the pipeline was not run: {outcome.reason}")
    if result.replay.lists_became_arrays:  # arrays handed on save time the replay does not see
        return
    if result.knob == "memoize" and outcome.num_calls and not outcome.keyed_calls:
        # Keys are keys, for a method's memo too (its timing keeps one copy of the object per version: keep_object).
        kinds = ("str, bytes, int, float, bool, None, dates and times, tuples and lists of them and numpy arrays of "
                 "numbers; tensors and other objects are computed every time" if result.replay.keys_data else
                 "str, bytes, int, float, bool, None, dates and times and tuples of them; lists, arrays and tensors "
                 "are computed every time, since it may change what it is given")
        raise Unkeyed(f"replay of {result.replay.function}: none of the {outcome.num_calls} captured calls "
                      f"passes arguments a memo can key exactly ({kinds}), so the pipeline was not run")
    if result.knob == "memoize" and result.replay.per_step and outcome.keyed_calls >= 2 \
            and outcome.distinct_keys == outcome.keyed_calls:
        raise NotApplicable(f"replay of {result.replay.function}: the {outcome.keyed_calls} calls captured over three "
                            "steps never repeated an argument, so a remembered result would never serve; the "
                            "pipeline was not run")
    if result.knob == "memoize" and outcome.speedup is not None and outcome.speedup < MEMO_MIN_REPLAY_SPEEDUP:
        # (A method keeps its results on its object: replay keeps one copy of it per version through the timed
        # rounds, `keep_object`.) Replay times each call over several rounds, so a remembered result serves every
        # round after the first:
        # a rewrite that is not faster there found no exact key in the arguments (lists, arrays), or computing is
        # as cheap as looking up. Whether the pipeline's arguments repeat, its timed runs decide.
        raise NotApplicable(f"replay of {result.replay.function}: x{outcome.speedup:.2f} on the {outcome.num_calls} "
                            "captured calls, called again in every timing round: their arguments have no exact key "
                            "(lists, arrays, tensors) or computing costs no more than looking up, so the pipeline "
                            "was not run")
    _per_record(result, outcome)
    slower = outcome.clearly_slower()
    if slower:
        raise NotApplicable(f"replay of {result.replay.function}: {slower}, so the pipeline was not run")
    shares = _batch_build_shares(ctx.state.profile, result.replay.file, result.replay.function)
    small = outcome.too_small(*shares, ctx.state.target.min_gain_pct) if shares is not None else None
    if small:
        raise NotApplicable(f"replay of {result.replay.function}: {small}, so the pipeline was not run")


PER_RECORD_MIN_CALLS = 4
"""Captured calls with exact keys, none repeating, that make a memo's function a per-record one."""


def _per_record(result: CodemodResult, outcome) -> None:
    """Time a memo from the second epoch where replay shows per-record calls: a function no other in the path calls
    per element, whose captured calls (PER_RECORD_MIN_CALLS or more, all with exact keys) never repeated an argument
    (a record's bytes, a file's id). Its results first serve when the records come round again; timed in the first
    epoch it reads as no gain, and a stale result (state that changes between epochs) would go unseen there."""
    if result.knob != "memoize" or result.replay is None or result.replay.per_element or result.replay.per_step:
        return
    if outcome.keyed_calls < PER_RECORD_MIN_CALLS or outcome.distinct_keys != outcome.keyed_calls:
        return
    result.gain_from_epoch = 2
    result.notes.append(f"replay: the {outcome.keyed_calls} captured calls of {result.replay.function} passed "
                        f"{outcome.distinct_keys} different arguments (per record, not per element): timed from the "
                        "second epoch, where a remembered result first serves, and its batches compared there")


def _batch_build_shares(profile: Profile | None, file: str, function: str) -> tuple[float, float] | None:
    """(the function's inclusive share of batch building, batch building's share of the step) by the profile, where
    the sampler listed the function among batch building's hot functions and the loader's wait is known.

    Batch building's share of the step is the larger of the loop's wait for it and the headspace (the step time
    free data saves): a loader thread that keeps up but takes the GIL from the loop costs the step far more than
    the loop waits (hidden_input_contention), and a faster build gives that back."""
    if profile is None or profile.loader is None or profile.data_build is None:
        return None
    metrics = profile.typed_metrics()
    wait = max((share for share in (metrics.build_wait_share, metrics.headspace_share) if share is not None),
               default=None)
    listed = next((h for h in profile.hot_functions if h.file == file and h.name == function), None)
    if wait is None or listed is None:
        return None
    return listed.share, wait


MEMO_TRIES = 3
"""Functions of one per-sample path a memo remedy tries in turn where replay refuses the one before. A function none of
whose captured calls had an exact key (`Unkeyed`: a snapshot of lists, a tensor) does not count: that refusal is
certain and costs one capture run. No more than twice as many are tried in all."""


class Unkeyed(NotApplicable):
    """Replay refused a memo because no captured call passed arguments it can key exactly."""


def _next_params(result: CodemodResult, params: dict, tried: int) -> dict | None:
    """What to ask the codemod for after replay refused `result`, or None: a memo skips the function it chose (up to
    MEMO_TRIES in all; so does the training loop's vectorised per-step work, to its next hot function); a vectorised
    per-sample path leaves out, once, the functions called per element (numpy on one element's
    short row can cost more than the Python it replaces, and a wrong one spoils the whole)."""
    if result.knob == "memoize" and tried + 1 < MEMO_TRIES:
        return {"skip": [*params.get("skip", ()), result.replay.function]}
    if result.knob == "vectorize" and params.get("target") == "main":
        # The training loop's next hot function (blind13 a6: `main` was rewritten and failed replay, and the metric
        # helper the time was in was never tried).
        return {"skip": [*params.get("skip", ()), result.replay.function]} if tried + 1 < MEMO_TRIES else None
    if result.knob == "vectorize" and params.get("per_element", True) is True:
        return {"per_element": False}
    return None


def _replayed_choice(ctx: RunContext, codemod: str, codemod_ctx: CodemodContext, root) -> CodemodResult:
    """Run the codemod and replay its rewrite; where replay refuses it, ask the codemod again as `_next_params` says
    (a memo's next function, a vectorised path without its per-element helpers). The refusals of what was tried
    first go into the result's notes, and into the refusal where nothing passes."""
    tried: list[str] = []
    counted = 0  # refusals that count towards a memo's MEMO_TRIES (not `Unkeyed`)
    while True:
        try:
            result = apply_codemod(codemod, codemod_ctx)
        except NotApplicable as none_left:
            if not tried:
                raise
            raise NotApplicable("; ".join(tried) + f"; no other function to try: {none_left}") from None
        if result.replay is None:
            return result
        try:
            _replayed(ctx, result, root)
            result.notes.extend(tried)
            return result
        except NotApplicable as refusal:
            counted += not isinstance(refusal, Unkeyed)
            again = _next_params(result, codemod_ctx.params, counted - 1) if len(tried) + 1 < 2 * MEMO_TRIES else None
            if again is None:
                raise NotApplicable("; ".join([*tried, str(refusal)])) from None
            tried.append(f"{result.replay.function} tried first: {refusal}")
            codemod_ctx.params.update(again)
        finally:
            ctx.workspace.reset_candidate()  # the capture run's outputs


def rejected_functions(state, diagnosis: str, remedy: str) -> list[str]:
    """The functions this remedy's codemod rewrote at the current head whose change verification rejected."""
    return [item.proposal.setting.function for item in state.history
            if item.proposal.base_head == state.head and (item.proposal.diagnosis, item.proposal.remedy)
            == (diagnosis, remedy) and item.proposal.source == "codemod" and item.verdict.verdict == "rejected"
            and item.verdict.stage != "approval" and item.proposal.setting is not None
            and item.proposal.setting.function]


class CodemodProposer:
    """Run the remedy's codemod on the branch head's files (read from the candidate worktree, not written)."""

    source: Literal["codemod"] = "codemod"

    def propose(self, ctx: RunContext, diagnosis: Diagnosis, remedy: Remedy) -> ProposedChange:
        ws = ctx.workspace
        ws.reset_candidate()  # the head's files, and nothing a pipeline run left there
        root = ws.target_dir(ws.candidate_tree)
        profile = ctx.state.profile
        params = dict(remedy.params)
        rejected = rejected_functions(ctx.state, diagnosis.entry_id, remedy.id)
        if rejected:  # a retry after verification rejected this remedy's rewrite of these (schedule.codemod_retry)
            params["skip"] = [*params.get("skip", ()), *rejected]
        codemod_ctx = CodemodContext(root=root, config_path=ctx.state.target.config, sites=_sites(profile),
                                     profile=codemod_facts(profile), params=params)
        result = _replayed_choice(ctx, remedy.codemod, codemod_ctx, root)
        tolerance = None
        if result.tolerance is not None:  # the change itself needs a tolerance (a reordered reduction)
            tolerance = DeclaredTolerance(atol=result.tolerance.atol, rtol=result.tolerance.rtol,
                                          reason=f"codemod {remedy.codemod}: {result.tolerance.reason}")
        return ProposedChange(source="codemod", change=result.summary, files=result.files, tolerance=tolerance,
                              one_off_cost_s=result.one_off_cost_s, gain_from_epoch=result.gain_from_epoch,
                              notes=list(result.notes),
                              setting=ChangedSetting(knob=result.knob, old_value=result.old_value,
                                                     new_value=result.new_value, location=result.location,
                                                     function=result.replay.function if result.replay else None))
