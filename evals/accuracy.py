"""Check perfloop's profile against independent instruments: `python -m perfloop.evals.accuracy [--only NAME ...]`.

Per target: perfloop's stage ledger next to torch.profiler's (same steps, same bounds), the
loop-owning hot function perfloop names next to the one py-spy's samples give under the same
rule, and how often perfloop names the same function over repeated profiles. See evals/README.md.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field

from perfloop.evals.copy_target import TARGETS_DIR, copy_target, target_names
from perfloop.evals.pyspy import pyspy_executable, pyspy_hot_functions, run_pyspy
from perfloop.evals.torch_ledger import AccuracyRunError, book_stages, run_torch_profiler, shares
from perfloop.tools.contract.target import load_target
from perfloop.tools.measure.models import STAGES, HotFunction, Profile
from perfloop.tools.measure.profiler import (
    PipelineError,
    ProbeSettings,
    build_profile,
    run_probed,
    settings_for,
)

MAX_GAP_PP = 10.0
"""Goal: every stage share within this many percentage points of torch.profiler's."""


class AccuracyOptions(BaseModel):
    """What `python -m perfloop.evals.accuracy` runs."""

    names: list[str] = Field(description="Targets to check, in order.")
    targets_dir: Path = Field(description="Folder of targets.")
    work_dir: Path = Field(description="Where the copies and the instruments' raw files go (kept).")
    stability: int = Field(10, ge=1, description="perfloop profiles per target for the stability count.")
    steps: int | None = Field(None, ge=2, description="Measured steps per run (default: the target's own).")
    warmup_steps: int | None = Field(None, ge=0, description="Warm-up steps per run (default: the target's own).")
    pyspy: bool = Field(True, description="Also run py-spy (skipped with a note when it is not installed).")
    pyspy_rate_hz: int = Field(200, ge=1, description="py-spy samples per second.")


class TargetAccuracy(BaseModel):
    """One target's comparison; ``error`` set when an instrument could not run."""

    target: str
    steps: int = Field(0, description="Measured steps per run.")
    warmup_steps: int = 0
    perfloop_ledger: dict[str, float] = Field(default_factory=dict, description="Mean ms per stage, perfloop's probe.")
    torch_ledger: dict[str, float] = Field(default_factory=dict, description="Mean ms per stage, torch.profiler.")
    perfloop_shares: dict[str, float] = Field(default_factory=dict, description="Share of the step per stage.")
    torch_shares: dict[str, float] = Field(default_factory=dict)
    max_gap_pp: float | None = Field(None, description="Largest |perfloop − torch.profiler| share, in points.")
    phase: str = Field("", description="Where the top function was taken: 'batch_build' or 'main:other'.")
    perfloop_top: str = Field("", description="The loop owner perfloop named first, 'name (file:line)'.")
    pyspy_top: str = Field("", description="The loop owner from py-spy's samples of the same phase.")
    pyspy_note: str = Field("", description="Why py-spy did not run, when it did not.")
    top_agrees: bool | None = None
    stability_tops: list[str] = Field(default_factory=list, description="perfloop's top function per profile.")
    stability_phases: list[str] = Field(default_factory=list, description=(
        "The phase each of stability_tops was taken from: 'batch_build', or 'main:other' (also where a "
        "profile's workers left no batch-build samples, so the rule fell back to the main process)."))
    stable_count: int = Field(0, description="Profiles naming the most frequent top function from the same phase.")
    error: str = ""


def _top(profile: Profile) -> tuple[str, HotFunction | None]:
    """The function perfloop would hand to a rewrite: batch building when input-bound, else main 'other'."""
    ledger = profile.ledger
    if profile.hot_functions and (ledger.share("data_wait") >= ledger.share("other") or not profile.main_hot_functions):
        return "batch_build", profile.hot_functions[0]
    if profile.main_hot_functions:
        return "main:other", profile.main_hot_functions[0]
    return "", None


def _where(hot: HotFunction | None) -> str:
    return hot.where() if hot else "(none)"


def _stability(profiles: list[Profile]) -> tuple[list[str], list[str], int]:
    """Each profile's top function and its phase, and how many profiles name the most frequent (phase, top)."""
    tops = [_top(profile) for profile in profiles]
    phases = [phase for phase, _ in tops]
    names = [_where(hot) for _, hot in tops]
    return names, phases, Counter(zip(phases, names)).most_common(1)[0][1]


def _stability_breakdown(row: TargetAccuracy) -> dict[str, int]:
    """Profiles per '[phase] top function', for the table when not all agree."""
    phases = row.stability_phases or [row.phase] * len(row.stability_tops)
    return dict(Counter(f"[{phase or '-'}] {top}" for phase, top in zip(phases, row.stability_tops)))


def check_target(name: str, options: AccuracyOptions, progress=print) -> TargetAccuracy:
    """Run the three comparisons on a fresh copy of target ``name``."""
    work = options.work_dir / name
    repo = copy_target(name, work / "repo", targets_dir=options.targets_dir)
    target = load_target(repo)
    base = settings_for(target)
    settings = ProbeSettings(steps=options.steps or base.steps,
                             warmup_steps=base.warmup_steps if options.warmup_steps is None else options.warmup_steps,
                             first_step_timeout_s=base.first_step_timeout_s, limits=base.limits)
    command, target_dir = target.rendered_command(), target.target_dir
    num_steps = settings.warmup_steps + settings.steps
    row = TargetAccuracy(target=name, steps=settings.steps, warmup_steps=settings.warmup_steps)
    try:
        profiles = []
        for index in range(options.stability):
            progress(f"[{name}] perfloop profile {index + 1}/{options.stability}")
            full = run_probed(command, target_dir, work / f"perfloop-{index}", settings, mode="full")
            profiles.append(build_profile(full, [], command, target_dir, settings))
        first = profiles[0]
        row.perfloop_ledger = {f"{s}_ms": getattr(first.ledger, f"{s}_ms") for s in STAGES}
        row.perfloop_ledger["step_ms"] = first.ledger.step_ms
        row.perfloop_shares = {s: first.ledger.share(s) for s in STAGES}
        row.phase, hot = _top(first)
        row.perfloop_top = _where(hot)
        row.stability_tops, row.stability_phases, row.stable_count = _stability(profiles)

        progress(f"[{name}] torch.profiler")
        row.torch_ledger = book_stages(run_torch_profiler(command, target_dir, work / "torch-profiler", num_steps),
                                       settings.warmup_steps)
        row.torch_shares = shares(row.torch_ledger)
        row.max_gap_pp = max(abs(row.perfloop_shares[s] - row.torch_shares[s]) for s in STAGES) * 100.0

        if not options.pyspy:
            row.pyspy_note = "skipped (--no-pyspy)"
        elif pyspy_executable() is None:
            row.pyspy_note = "py-spy is not installed (pip install py-spy)"
        elif row.phase:
            progress(f"[{name}] py-spy")
            try:
                raw = run_pyspy(command, target_dir, work / "pyspy", num_steps, rate_hz=options.pyspy_rate_hz)
            except AccuracyRunError as error:  # e.g. a container that forbids reading a child's memory
                row.pyspy_note = f"py-spy could not run: {error}"
            else:
                ranked = pyspy_hot_functions(raw, target_dir, row.phase)
                row.pyspy_top = _where(ranked[0] if ranked else None)
                row.top_agrees = row.pyspy_top == row.perfloop_top
    except (PipelineError, AccuracyRunError) as error:
        row.error = str(error).splitlines()[0]
    return row


def render(rows: list[TargetAccuracy]) -> str:
    """One block per target (stage shares side by side, top functions, stability), then a summary."""
    out = []
    for row in rows:
        out.append(f"== {row.target} ({row.steps} steps after {row.warmup_steps} warm-up) ==")
        if row.error and not row.perfloop_shares:
            out.append(f"error: {row.error}")
            continue
        out.append(f"{'stage':<10} {'perfloop':>9} {'torch.prof':>10} {'gap pp':>7}")
        for stage in STAGES:
            mine = row.perfloop_shares.get(stage)
            theirs = row.torch_shares.get(stage)
            gap = f"{abs(mine - theirs) * 100:7.1f}" if mine is not None and theirs is not None else "      -"
            out.append(f"{stage:<10} {_pct(mine):>9} {_pct(theirs):>10} {gap}")
        step_theirs = row.torch_ledger.get("step_ms")
        out.append(f"{'step ms':<10} {row.perfloop_ledger.get('step_ms', 0):9.1f} "
                   f"{step_theirs if step_theirs is not None else float('nan'):10.1f}")
        agree = {True: "✓ same", False: "✗ differs", None: "-"}[row.top_agrees]
        out.append(f"top [{row.phase or '-'}]: perfloop {row.perfloop_top} · py-spy "
                   f"{row.pyspy_top or (row.pyspy_note.splitlines() or ['-'])[0]}"
                   f" · {agree}")
        out.append(f"stable: {row.stable_count}/{len(row.stability_tops)}"
                   + ("" if row.stable_count == len(row.stability_tops) else f" ({_stability_breakdown(row)})"))
        if row.error:
            out.append(f"error: {row.error}")
        out.append("")
    out.append(summary(rows))
    return "\n".join(out)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def summary(rows: list[TargetAccuracy]) -> str:
    """The goals, target by target, in one table."""
    lines = [f"{'target':<18} {'max gap pp':>10} {'≤10pp':>6} {'top agrees':>10} {'stable':>7}", "-" * 56]
    for row in rows:
        gap = "-" if row.max_gap_pp is None else f"{row.max_gap_pp:.1f}"
        ok = "-" if row.max_gap_pp is None else ("yes" if row.max_gap_pp <= MAX_GAP_PP else "no")
        agrees = {True: "yes", False: "no", None: "-"}[row.top_agrees]
        stable = f"{row.stable_count}/{len(row.stability_tops)}" if row.stability_tops else "-"
        lines.append(f"{row.target:<18} {gap:>10} {ok:>6} {agrees:>10} {stable:>7}")
    gaps_ok = sum(1 for r in rows if r.max_gap_pp is not None and r.max_gap_pp <= MAX_GAP_PP)
    agree = sum(1 for r in rows if r.top_agrees)
    stable = sum(1 for r in rows if r.stability_tops and r.stable_count == len(r.stability_tops))
    lines.append("-" * 56)
    lines.append(f"stage shares within {MAX_GAP_PP:g} pp: {gaps_ok}/{len(rows)} · same top function as py-spy: "
                 f"{agree}/{len(rows)} · fully stable: {stable}/{len(rows)} · errors: {sum(1 for r in rows if r.error)}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """Describe the flags."""
    parser = argparse.ArgumentParser(prog="python -m perfloop.evals.accuracy", description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", default=[], help="targets to check (default: all)")
    parser.add_argument("--stability", type=int, default=10, help="perfloop profiles per target (default 10)")
    parser.add_argument("--steps", type=int, help="measured steps per run (default: the target's own)")
    parser.add_argument("--warmup-steps", type=int, help="warm-up steps per run (default: the target's own)")
    parser.add_argument("--no-pyspy", action="store_true", help="skip the py-spy comparison")
    parser.add_argument("--pyspy-rate", type=int, default=200, help="py-spy samples per second (default 200)")
    parser.add_argument("--targets-dir", type=Path, default=TARGETS_DIR, help="folder of targets")
    parser.add_argument("--work-dir", type=Path, help="where copies and raw files go (default: a new temp dir)")
    parser.add_argument("--json-out", default="accuracy-results.json", help="where to write the JSON results")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    known = target_names(args.targets_dir)
    unknown = [name for name in args.only if name not in known]
    if unknown or not known:
        print(f"unknown target(s) {unknown}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    try:
        options = AccuracyOptions(names=args.only or known, targets_dir=args.targets_dir.resolve(),
                                  work_dir=(args.work_dir or Path(tempfile.mkdtemp(prefix="perfloop-accuracy-"))).resolve(),
                                  stability=args.stability, steps=args.steps, warmup_steps=args.warmup_steps,
                                  pyspy=not args.no_pyspy, pyspy_rate_hz=args.pyspy_rate)
    except ValueError as error:
        print(f"bad flags: {error}", file=sys.stderr)
        return 2
    options.work_dir.mkdir(parents=True, exist_ok=True)
    progress = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    progress(f"working in {options.work_dir} (kept: copies, probe files, raw profiler output)")
    rows = [check_target(name, options, progress) for name in options.names]
    Path(args.json_out).write_text(json.dumps([row.model_dump(mode="json") for row in rows], indent=2))
    print(render(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
