"""Prove perfloop's CUDA path on one GPU: `python -m perfloop.evals.gpu [--budget-s 480] [--dry-run] [--only NAME ...]`.

One prepared, unattended command for the GPU targets (evals/targets/gpu_*, `gpu = true` in their
expected.toml). Per target, on fresh copies, within a total time budget (`--budget-s`, default 480 s,
shared out fairly between the targets still to run; every pipeline and agent run has a timeout, and
a hard stop 90 s past the budget kills what is left and prints what was measured):

1. **Profile check.** perfloop profiles the original pipeline once (`run_probed(mode="full")` +
   `build_profile`, the API `perfloop profile` and `python -m perfloop.evals.accuracy` use), with a
   counter on `torch.cuda.nvtx` chain-loaded after the probe; then the same command runs once under
   `torch.profiler` with CPU and CUDA activity (the accuracy probe's stage ranges, plus h2d, plus every
   GPU activity booked to the stage whose CPU op launched it). Checked on a GPU:

   - CUDA events: the profile says `device == "cuda"`, its GpuStats are available, the probe recorded
     at least 3 stage events per measured step, every measured step has CUDA-event time for forward,
     backward and optimizer, and their sum is at most 1.2 x the step + 0.5 ms.
   - NVTX: `perfloop:<stage>` ranges pushed and popped in equal numbers, at least 3 per recorded step,
     forward, backward and optimizer among them, a `perfloop step N` mark per step. (Counted where
     the probe calls torch.cuda.nvtx; torch.profiler does not record NVTX, and whether a tool such as
     Nsight received them is not checked: the column says whether one was attached.)
   - NVML: NVML available, at least one utilisation sample, every sample within 0-100 %, the peak
     reserved memory share within (0, 1], the compute capability known; the table shows the GPU idle
     share (1 - median utilisation) the knowledge base reads.
   - Agreement with torch.profiler (first guesses, to recalibrate after the first GPU run):
     * each stage's CUDA-event ms (h2d, forward, backward, optimizer) within
       max(GPU_STAGE_REL = 25 % of, GPU_STAGE_ABS_MS = 0.2 ms from) the span torch.profiler's GPU
       activities of that stage cover per step (first start to last end), for stages where that span is
       at least 0.05 ms;
     * NVML's median utilisation over the measured steps within NVML_GAP_PP = 30 points of the share of
       the measured window torch.profiler saw a kernel or copy running, when NVML took at least
       MIN_NVML_SAMPLES = 5 samples there (its period is 0.2 s);
     * host stage shares within HOST_GAP_PP = 15 points of torch.profiler's (the CPU goal is 10; CUPTI adds
       launch overhead), and the mean step within STEP_REL = 30 %.

2. **The loop, offline.** `perfloop run REPO --auto-approve --allow-precision --json` (codemods only,
   no LLM; `--max-iters 1 --noise-runs 1 --ab-runs 2 --max-ab-runs 3` to fit the budget) on a fresh
   copy, as `python -m perfloop.evals` runs it (harness.evaluate).
3. **Re-measured outside perfloop.** Original, agent's branch (when it moved) and oracle, K = 2 runs of
   60 steps each, interleaved, EVALKIT's own clock, no probe (evals/measure.py), judged by evals/checks.py.

Step counts (Plan): perfloop's profile 10 warm-up + 200 measured steps (NVML samples every 0.2 s and
needs a second or more of them), torch.profiler 10 + 60.

It prints one table, writes the rows as JSON (`--json-out`) and, on a GPU and not with --dry-run,
adds the table as a dated section, with the GPU's name, at the top of evals/RESULTS.md.

Without CUDA it prints one line saying it needs a GPU and what it would do, and exits 0.
`--dry-run` runs the same flow with tiny step counts (on CPU, every GPU assertion is skipped) and
writes no RESULTS.md section. Exit status: 0 when no check failed, nothing was falsely accepted and no
row has an error (a dry run: 0 once the flow ran to its end); 1 otherwise; 2 bad flags; 3 stopped at
the hard limit.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from perfloop.evals.gpu_checks import (  # noqa: F401  (the checks' names, also read as gpu.<name> by the tests)
    COMPUTE,
    FAIL,
    GPU_STAGES,
    NVTX_SITE,
    OK,
    SKIP,
    Check,
    book_gpu,
    book_host,
    check_events,
    check_nvml,
    check_nvtx,
    compare_gpu_stages,
    compare_host,
    compare_nvml,
    measured_window,
    run_torch_profiler,
    write_site,
)

EVALS_DIR = Path(__file__).resolve().parent
TARGETS_DIR = EVALS_DIR / "targets"
RESULTS_MD = EVALS_DIR / "RESULTS.md"
ORDER = ("gpu_pageable_h2d", "gpu_fp32_matmul", "gpu_item_sync", "gpu_input_bound", "gpu_small_kernels")
"""Run order: the compiled oracle (a long first compile) last."""

HARD_STOP_GRACE_S = 90
MIN_RUN_S = 20.0
"""Floor of one pipeline run's timeout: a run killed early is only wasted time."""
MIN_AGENT_S = 60.0
"""Floor of the agent run's timeout. A target whose share is spent early eats into the later ones' shares;
the last ones are skipped when nothing is left (the table says so) rather than the whole run overrunning."""


@dataclass
class Plan:
    """Step counts and flags of one run of the script (tiny ones for --dry-run)."""

    profile_warmup: int = 10
    profile_steps: int = 200
    torch_warmup: int = 10
    torch_steps: int = 60
    eval_steps: int = 60
    eval_warmup: int | None = None
    runs: int = 2
    max_iters: int = 1
    agent_args: list[str] = field(default_factory=lambda: ["--allow-precision", "--noise-runs", "1",
                                                           "--ab-runs", "2", "--max-ab-runs", "3"])

    @classmethod
    def dry(cls) -> Plan:
        return cls(profile_warmup=1, profile_steps=3, torch_warmup=1, torch_steps=3, eval_steps=4, eval_warmup=1,
                   runs=1, max_iters=1, agent_args=["--allow-precision", "--steps", "3", "--warmup-steps", "1",
                                                    "--noise-runs", "1", "--ab-runs", "2", "--max-ab-runs", "2"])


class Budget:
    """The time left, shared fairly among the targets still to run."""

    def __init__(self, total_s: float, clock=time.monotonic) -> None:
        self.total_s = total_s
        self.clock = clock
        self.started = clock()

    def elapsed(self) -> float:
        return self.clock() - self.started

    def left(self) -> float:
        return max(0.0, self.total_s - self.elapsed())

    def share(self, targets_left: int) -> float:
        """Seconds the next target may use: what is left over the targets still to run."""
        return self.left() / max(targets_left, 1)


class HardStop(BaseException):
    """The hard limit (budget + grace) passed; a BaseException, so no `except Exception` on the way swallows it."""


# -- one target ----------------------------------------------------------------------------------

def check_profile(name: str, work: Path, plan: Plan, timeout_s: float, cuda: bool, dry_run: bool) -> dict:
    """Profile target ``name`` with perfloop and torch.profiler; return the checks and the numbers seen."""
    from perfloop.evals.copy_target import copy_target
    from perfloop.evals.torch_ledger import shares
    from perfloop.sandbox.runner import RunLimits
    from perfloop.tools.contract.target import load_target
    from perfloop.tools.measure.models import STAGES
    from perfloop.tools.measure.profiler import PROBE_DIR, ProbeSettings, build_profile, run_probed, settings_for

    out: dict = {"checks": []}
    repo = copy_target(name, work / "profile-repo", targets_dir=TARGETS_DIR)
    target = load_target(repo)
    base = settings_for(target)
    settings = ProbeSettings(steps=plan.profile_steps, warmup_steps=plan.profile_warmup,
                             first_step_timeout_s=base.first_step_timeout_s,
                             limits=RunLimits(timeout_s=max(timeout_s, 1.0), memory_mb=base.limits.memory_mb,
                                              network=base.limits.network))
    command = target.rendered_command()
    nvtx_out = work / "nvtx.json"
    nvtx_site = write_site(work / "nvtx-site", NVTX_SITE)
    extra = {"PYTHONPATH": os.pathsep.join([str(PROBE_DIR), str(nvtx_site)]),
             "GPUCHECK_NVTX_OUT": str(nvtx_out), "GPUCHECK_PROBE_GPU": str(PROBE_DIR / "perfloop_gpu.py")}
    started = time.monotonic()
    full = run_probed(command, target.target_dir, work / "perfloop", settings, mode="full", extra_env=extra)
    profile = build_profile(full, [], command, target.target_dir, settings)
    record = full.record
    metrics = profile.metrics()
    out["perfloop"] = {"step_ms": profile.ledger.step_ms, "shares": {s: profile.ledger.share(s) for s in STAGES},
                       "stage_gpu_ms": dict(profile.gpu.stage_gpu_ms), "device": profile.device,
                       "device_name": profile.gpu.device_name, "util_p50": profile.gpu.util_p50,
                       "gpu_idle_share": metrics.get("gpu_idle_share"), "gpu_busy_share": metrics.get("gpu_busy_share"),
                       "memory_peak_share": profile.gpu.memory_peak_share, "capability": profile.gpu.capability,
                       "sync_calls_per_step": profile.sync_calls_per_step, "h2d_share": metrics.get("h2d_share"),
                       "nvml_samples": len(record.nvml.samples), "stage_events": (record.cuda.stage_events
                                                                                   if record.cuda else 0)}
    nvtx = json.loads(nvtx_out.read_text()) if nvtx_out.exists() else None
    out["nvtx_counts"] = nvtx
    util_in_window, nvml_n = None, 0
    if cuda:
        out["checks"].append(check_events(profile, record, settings))
        out["checks"].append(check_nvtx(nvtx, len(record.steps)))
        nvml_check, util_in_window, nvml_n = check_nvml(profile, record, settings)
        out["checks"].append(nvml_check)
    else:
        for what in ("cuda events", "nvtx", "nvml"):
            out["checks"].append(Check(what, SKIP, "no CUDA"))

    left = timeout_s - (time.monotonic() - started)
    raw = run_torch_profiler(command, target.target_dir, work / "torch-profiler",
                             plan.torch_warmup + plan.torch_steps, max(left, 1.0))
    host = book_host(raw, plan.torch_warmup)
    out["torch"] = {"step_ms": host["step_ms"], "shares": shares(host)}
    out["checks"].append(compare_host(out["perfloop"]["shares"], out["torch"]["shares"], profile.ledger.step_ms,
                                      host["step_ms"], judged=not dry_run))
    if cuda and raw.get("cuda"):
        gpu = book_gpu(raw, plan.torch_warmup)
        out["torch"]["gpu"] = gpu
        out["checks"].append(compare_gpu_stages(profile.gpu.stage_gpu_ms, gpu))
        out["checks"].append(compare_nvml(util_in_window, nvml_n, gpu["busy_share"]))
    else:
        out["checks"].append(Check("gpu vs torch", SKIP, "no CUDA"))
        out["checks"].append(Check("nvml vs torch", SKIP, "no CUDA"))
    return out


def loop_row(name: str, work: Path, plan: Plan, agent_timeout_s: float, pipeline_timeout_s: float,
             run_agent: bool) -> dict:
    """Run the agent on a fresh copy and re-measure original, agent and oracle (harness.evaluate)."""
    from perfloop.evals import harness, workspace

    options = harness.Options(work_dir=work, targets_dir=TARGETS_DIR, names=[name], runs=plan.runs,
                              eval_steps=plan.eval_steps, eval_warmup=plan.eval_warmup, max_iters=plan.max_iters,
                              agent_args=list(plan.agent_args), agent_timeout_s=max(agent_timeout_s, 1.0),
                              pipeline_timeout_s=max(pipeline_timeout_s, 1.0))
    if run_agent:
        return harness.evaluate(name, name, options)
    expected = workspace.read_expected(TARGETS_DIR, name)
    base = work / name
    repo = workspace.copy_target(TARGETS_DIR, name, base / "repo")
    head = workspace.git(repo, "rev-parse", "HEAD").strip()
    row = {"label": name, "target": name, "expected_diagnosis": expected.diagnosis, "agent_skipped": True,
           "commits": {"original": head, "agent": head}, "agent_is_original": True}
    row["measured"], row["oracle_error"] = harness.remeasure(name, name, repo, base, row["commits"], options)
    row.update(harness.judge(row["measured"], []))
    return row


def gpu_targets(targets_dir: Path = TARGETS_DIR) -> list[str]:
    """The targets whose expected.toml says ``gpu = true``, in run order."""
    from perfloop.evals import workspace

    names = [n for n in workspace.target_names(targets_dir) if workspace.read_expected(targets_dir, n).raw.get("gpu")]
    return sorted(names, key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))


def run_target(name: str, work: Path, plan: Plan, share_s: float, cuda: bool, dry_run: bool, run_agent: bool,
               pipeline_timeout_s: float, agent_timeout_s: float, progress) -> dict:
    """Profile check, agent and re-measure of one target within ``share_s`` seconds."""
    started = time.monotonic()
    row: dict = {"target": name, "share_s": share_s}
    profile_s = max((0.5 if not run_agent else 0.2) * share_s, 2 * MIN_RUN_S)
    progress(f"{name}: profile check ({profile_s:.0f} s at most)")
    try:
        row["profile"] = check_profile(name, work / "profile", plan, min(profile_s, 2 * pipeline_timeout_s), cuda,
                                       dry_run)
    except Exception as error:  # noqa: BLE001 - one target's failure is a row, not the end of the script
        row["profile"] = {"checks": [Check("profile", FAIL, f"{type(error).__name__}: {str(error).splitlines()[0]}")]}
    left = share_s - (time.monotonic() - started)
    agent_s = min(agent_timeout_s, max(0.65 * left, MIN_AGENT_S)) if run_agent else 0.0
    measure_runs = plan.runs * (3 if run_agent else 2)
    per_run = min(pipeline_timeout_s, max((left - agent_s) / max(measure_runs, 1), MIN_RUN_S))
    progress(f"{name}: {'agent (' + format(agent_s, '.0f') + ' s at most), then ' if run_agent else ''}"
             f"re-measure ({per_run:.0f} s a run at most)")
    try:
        row["loop"] = loop_row(name, work / "loop", plan, agent_s, per_run, run_agent)
    except Exception as error:  # noqa: BLE001
        row["loop"] = {"error": f"{type(error).__name__}: {str(error).splitlines()[0]}"}
    row["wall_s"] = time.monotonic() - started
    return row


# -- the table -----------------------------------------------------------------------------------

COLUMNS = ["target", "expected", "top diagnosis", "verdicts", "agent", "oracle", "data same", "false acc",
           "cuda events", "nvtx", "nvml", "gpu vs torch", "nvml vs torch", "host vs torch", "idle", "wall s", "note"]


def _x(value) -> str:
    return "-" if value is None else f"{value:.2f}x"


def row_cells(row: dict) -> list[str]:
    """One row's cells, in COLUMNS order."""
    loop = row.get("loop") or {}
    profile = row.get("profile") or {}
    checks = {c.name: c for c in profile.get("checks", [])}
    top = loop.get("top_diagnosis")
    mark = {True: " ✓", False: " ✗", None: ""}[loop.get("diagnosis_ok")]
    diagnosis = "-" if "top_diagnosis" not in loop else f"{top or '(none)'}{mark}"
    idle = (profile.get("perfloop") or {}).get("gpu_idle_share")
    note = loop.get("error") or loop.get("false_accept_reason") or ""
    if not note and checks.get("profile"):
        note = checks["profile"].detail
    if not note and loop.get("oracle_error"):
        note = f"oracle: {loop['oracle_error']}"
    if not note and loop.get("agent_skipped"):
        note = "agent not run (--no-agent)"
    yes_no = {True: "yes", False: "no", None: "-"}
    return [
        row["target"], loop.get("expected_diagnosis") or "-", diagnosis, loop.get("verdicts") or "-",
        "-" if loop.get("agent_skipped") else _x(loop.get("agent_speedup")), _x(loop.get("oracle_speedup")),
        "-" if loop.get("agent_skipped") else yes_no[loop.get("data_identical")],
        "-" if loop.get("agent_skipped") else yes_no[loop.get("false_accept")],
        *[(checks[name].cell() if name in checks else "-") for name in COLUMNS[8:14]],
        "-" if idle is None else f"{idle:.0%}", f"{row.get('wall_s', 0):.0f}", note.splitlines()[0] if note else "",
    ]


def summarize(rows: list[dict]) -> dict:
    """Counts over every row: checks by status, diagnoses, false accepts, errors."""
    checks = [c for row in rows for c in (row.get("profile") or {}).get("checks", [])]
    loops = [row.get("loop") or {} for row in rows]
    judged = [loop for loop in loops if loop.get("expected_diagnosis") and "top_diagnosis" in loop]
    return {"ok": sum(c.status == OK for c in checks), "failed": sum(c.status == FAIL for c in checks),
            "skipped": sum(c.status == SKIP for c in checks),
            "diagnosis_correct": sum(1 for loop in judged if loop.get("diagnosis_ok")),
            "diagnosis_judged": len(judged), "false_accepts": sum(1 for loop in loops if loop.get("false_accept")),
            "errors": sum(1 for loop in loops if loop.get("error"))}


def format_table(rows: list[dict], wall_s: float, budget_s: float) -> str:
    """The header, one line per target, a totals line and the failed checks spelled out."""
    grid = [COLUMNS, *(row_cells(row) for row in rows)]
    widths = [max(len(line[i]) for line in grid) for i in range(len(COLUMNS) - 1)]
    lines = ["  ".join([*(cell.ljust(w) for cell, w in zip(line, widths)), line[-1]]).rstrip() for line in grid]
    rule = "-" * max(len(line) for line in lines)
    t = summarize(rows)
    total = (f"checks {t['ok']} ok, {t['failed']} failed, {t['skipped']} skipped · diagnosis "
             f"{t['diagnosis_correct']}/{t['diagnosis_judged']} · false accepts {t['false_accepts']} · "
             f"errors {t['errors']} · {wall_s:.0f} s of a {budget_s:.0f} s budget")
    failed = [f"  {row['target']}: {c.name}: {c.detail}" for row in rows
              for c in (row.get("profile") or {}).get("checks", []) if c.status == FAIL]
    return "\n".join([lines[0], rule, *lines[1:], rule, total, *(["failed checks:", *failed] if failed else [])])


def results_section(table: str, argv: list[str], device: dict, date: str) -> str:
    """The RESULTS.md section: date, GPU, command, the table."""
    return (f"## {date} — the CUDA path on {device.get('name', 'a GPU')}: `python -m perfloop.evals.gpu` (issue 24)\n\n"
            f"Machine: {device.get('name')} (compute capability {device.get('capability')}, "
            f"{device.get('memory_gib', 0):.0f} GiB), {os.cpu_count()} CPUs, torch {device.get('torch')}, "
            f"CUDA {device.get('cuda')}. Command: `python -m perfloop.evals.gpu {shlex.join(argv)}`. "
            "Bounds: `evals/gpu.py`'s docstring (first guesses, set before this run). Agent: offline, "
            "`--auto-approve --allow-precision`; speed-ups re-measured outside perfloop.\n\n"
            f"```\n{table}\n```\n")


def add_to_results(path: Path, section: str) -> None:
    """Insert ``section`` above the newest dated section (after the file's introduction)."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Eval results\n"
    at = text.find("\n## ")
    if at < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        text = text[:at + 1] + section + "\n" + text[at + 1:]
    path.write_text(text, encoding="utf-8")


def device_facts() -> dict:
    """The GPU's name, capability, memory; torch and CUDA versions."""
    import torch

    props = torch.cuda.get_device_properties(0)
    return {"name": torch.cuda.get_device_name(0), "capability": f"{props.major}.{props.minor}",
            "memory_gib": props.total_memory / 2**30, "torch": torch.__version__, "cuda": torch.version.cuda}


# -- the command line ----------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m perfloop.evals.gpu", description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true",
                        help="the same flow with tiny step counts (on CPU: GPU assertions skipped); no RESULTS.md")
    parser.add_argument("--budget-s", type=float, default=480.0, help="total seconds for everything (default 480)")
    parser.add_argument("--only", nargs="+", metavar="NAME", default=[], help="GPU targets to run (default: all)")
    parser.add_argument("--no-agent", action="store_true", help="profile checks and re-measuring only")
    parser.add_argument("--runs", type=int, help="re-measuring runs per variant (default 2; dry run 1)")
    parser.add_argument("--pipeline-timeout", type=float, default=120.0, help="seconds per pipeline run at most")
    parser.add_argument("--agent-timeout", type=float, default=240.0, help="seconds per agent run at most")
    parser.add_argument("--work-dir", type=Path, help="where copies and raw files go (default: a new temp dir)")
    parser.add_argument("--json-out", type=Path, default=Path("gpu-check-results.json"), help="JSON rows")
    parser.add_argument("--results", type=Path, default=RESULTS_MD, help="the RESULTS.md a GPU run adds to")
    return parser


def needs_gpu_line(names: list[str], budget_s: float) -> str:
    return (f"perfloop.evals.gpu: needs a CUDA GPU (torch.cuda.is_available() is False here); on one it profiles "
            f"{len(names)} GPU targets ({', '.join(names)}), checks CUDA events, NVTX ranges and NVML samples "
            "against torch.profiler, runs `perfloop run --auto-approve --allow-precision` on each, re-measures "
            f"original, agent and oracle, and adds the table to evals/RESULTS.md, in {budget_s:.0f} s at most; "
            "--dry-run runs the same flow here without the GPU checks.")


def _descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (Linux /proc), children first."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _kill_descendants() -> None:
    for pid in _descendants(os.getpid()):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    names = gpu_targets()
    unknown = [n for n in args.only if n not in names]
    if unknown or not names or args.budget_s <= 0 or (args.runs is not None and args.runs < 1):
        print(f"perfloop.evals.gpu: bad flags: unknown GPU target(s) {unknown}; known: {', '.join(names)}"
              if unknown or not names else "perfloop.evals.gpu: bad flags: --budget-s and --runs must be positive",
              file=sys.stderr)
        return 2
    names = [n for n in names if n in args.only] if args.only else names
    import torch

    cuda = torch.cuda.is_available()
    if not cuda and not args.dry_run:
        print(needs_gpu_line(names, args.budget_s))
        return 0
    plan = Plan.dry() if args.dry_run else Plan()
    if args.runs:
        plan.runs = args.runs
    work = (args.work_dir or Path(tempfile.mkdtemp(prefix="perfloop-gpu-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)

    def progress(message: str) -> None:
        print(f"gpu check [{budget.elapsed():4.0f} s]: {message}", file=sys.stderr, flush=True)

    budget = Budget(args.budget_s)
    progress(f"working in {work} (kept); {'dry run, ' if args.dry_run else ''}"
             f"{'CUDA: ' + torch.cuda.get_device_name(0) if cuda else 'no CUDA'}; targets {', '.join(names)}")

    def hard_stop(_signum, _frame):
        raise HardStop()

    previous = signal.signal(signal.SIGALRM, hard_stop)
    signal.alarm(int(args.budget_s) + HARD_STOP_GRACE_S)
    rows: list[dict] = []
    stopped = False
    try:
        for index, name in enumerate(names):
            share = budget.share(len(names) - index)
            if share < 5.0:
                rows.append({"target": name, "loop": {"error": "skipped: the time budget is spent"},
                             "profile": {"checks": []}, "wall_s": 0.0})
                continue
            rows.append(run_target(name, work / name, plan, share, cuda, args.dry_run, not args.no_agent,
                                   args.pipeline_timeout, args.agent_timeout, progress))
    except HardStop:
        stopped = True
        _kill_descendants()
        rows.append({"target": names[len(rows)] if len(rows) < len(names) else "?",
                     "loop": {"error": f"hard stop at {budget.elapsed():.0f} s"}, "profile": {"checks": []}})
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)

    table = format_table(rows, budget.elapsed(), args.budget_s)
    print(table)
    payload = {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "argv": argv, "dry_run": args.dry_run, "cuda": cuda,
               "device": device_facts() if cuda else None, "totals": summarize(rows),
               "rows": [_jsonable(row) for row in rows]}
    args.json_out.write_text(json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8")
    progress(f"rows written to {args.json_out}")
    if cuda and not args.dry_run:
        add_to_results(args.results, results_section(table, argv, payload["device"], time.strftime("%Y-%m-%d")))
        progress(f"table added to {args.results}")
    if stopped:
        return 3
    if args.dry_run:
        return 0
    totals = summarize(rows)
    return 0 if not (totals["failed"] or totals["false_accepts"] or totals["errors"]) else 1


def _jsonable(value):
    if isinstance(value, Check):
        return {"name": value.name, "status": value.status, "detail": value.detail}
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


if __name__ == "__main__":
    sys.exit(main())
