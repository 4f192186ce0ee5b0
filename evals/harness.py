"""Run the agent on each target, re-measure its branch against the original and the oracle, and judge it."""
from __future__ import annotations

import json
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from perfloop.evals import checks, measure, workspace
from perfloop.evals.copy_target import TARGETS_DIR

PROJECT_ROOT = Path(__file__).resolve().parents[1]
EXIT_OK, EXIT_FALSE_ACCEPT, EXIT_USAGE = 0, 1, 2


@dataclass
class Options:
    """What the suite runs and how; every field has a command-line flag in evals/__main__.py."""

    work_dir: Path  # every copy and checkout goes here, kept for inspection afterwards
    targets_dir: Path = TARGETS_DIR
    names: list[str] = field(default_factory=list)  # empty: every target
    repeat: int = 1
    runs: int = 3  # re-measuring runs per variant (K)
    eval_steps: int = 60  # EVAL_MAX_STEPS of each re-measuring run
    eval_warmup: int | None = None  # EVAL_WARMUP; None keeps evalkit's default
    max_iters: int | None = None
    llm_base_url: str | None = None
    llm_model: str | None = None
    proposer: str = "default"  # "oracle": a scripted endpoint answers with each target's oracle.patch
    agent_args: list[str] = field(default_factory=list)  # extra `perfloop run` flags
    agent_timeout_s: float = 3600.0
    pipeline_timeout_s: float = 600.0


def progress(message: str) -> None:
    """Tell the person at the terminal what the suite is doing (stderr: stdout carries the table)."""
    print(f"evals: {message}", file=sys.stderr, flush=True)


def agent_argv(repo: Path, options: Options) -> list[str]:
    """Build the unattended `perfloop run` command line for ``repo``."""
    argv = [sys.executable, "-m", "perfloop.agent.cli", "run", str(repo), "--auto-approve", "--json"]
    if options.max_iters is not None:
        argv += ["--max-iters", str(options.max_iters)]
    if options.llm_base_url:
        argv += ["--llm-base-url", options.llm_base_url]
    if options.llm_model:
        argv += ["--llm-model", options.llm_model]
    return argv + options.agent_args


def run_agent(repo: Path, home: Path, options: Options) -> tuple[dict, float]:
    """Run the agent on ``repo``; return its --json summary and wall seconds, or raise RuntimeError."""
    # perfloop's run index stays with this suite's files, not in the user's home.
    env = {**os.environ, "PERFLOOP_HOME": str(home)}
    started = time.monotonic()
    try:
        done = measure.run_and_wait(agent_argv(repo, options), PROJECT_ROOT, env, options.agent_timeout_s)
    except TimeoutError as error:
        raise AgentFailed(str(error), time.monotonic() - started) from None
    wall_s = time.monotonic() - started
    if done.returncode != 0:
        raise AgentFailed(f"agent exited {done.returncode}: {measure.last_line(done.stderr) or 'no output'}", wall_s)
    try:
        return json.loads(done.stdout.strip().splitlines()[-1]), wall_s
    except (IndexError, json.JSONDecodeError):
        raise AgentFailed(f"agent printed no JSON summary: {measure.last_line(done.stdout)!r}", wall_s) from None


def run_agent_with_oracle(repo: Path, home: Path, options: Options, target_dir: Path) -> tuple[dict, float, dict]:
    """Run the agent against a scripted endpoint serving the target's oracle; also return what it was asked."""
    from dataclasses import replace

    from perfloop.evals.oracle_proposer import OracleLLM

    with OracleLLM(target_dir) as server:
        oracle_options = replace(options, llm_base_url=server.base_url, llm_model="oracle")
        summary, wall_s = run_agent(repo, home, oracle_options)
    return summary, wall_s, {"diagnoses_asked": server.diagnoses_asked(), "num_edits": len(server.oracle.edits),
                             "unsayable": server.oracle.unsayable}


class AgentFailed(RuntimeError):
    """The agent run did not end with a summary; carries how long it ran."""

    def __init__(self, message: str, wall_s: float):
        super().__init__(message)
        self.wall_s = wall_s


def first_top_diagnosis(audit_log: Path) -> str | None:
    """Return the top entry of the first "diagnoses" event in the audit log (the initial profile's)."""
    with open(audit_log, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if record.get("event") == "diagnoses":
                ranked = record.get("data", {}).get("ranked") or []
                return ranked[0]["entry_id"] if ranked else None
    return None


def evaluate(name: str, label: str, options: Options) -> dict:
    """Run the agent on a fresh copy of target ``name``, re-measure, judge; return one result row."""
    expected = workspace.read_expected(options.targets_dir, name)
    row: dict = {"label": label, "target": name, "expected_diagnosis": expected.diagnosis,
                 "also_acceptable": list(expected.also_acceptable), "expected": expected.raw}
    base = Path(options.work_dir) / label.replace("#", "-")
    repo = workspace.copy_target(options.targets_dir, name, base / "repo")
    original = workspace.git(repo, "rev-parse", "HEAD").strip()
    progress(f"{label}: running the agent")
    try:
        if options.proposer == "oracle":
            summary, row["agent_wall_s"], row["oracle_proposer"] = run_agent_with_oracle(
                repo, base / "perfloop-home", options, options.targets_dir / name)
        else:
            summary, row["agent_wall_s"] = run_agent(repo, base / "perfloop-home", options)
    except AgentFailed as error:
        return {**row, "agent_wall_s": error.wall_s, "error": str(error)}
    row.update(read_summary(summary))
    row["diagnosis_ok"] = checks.diagnosis_matches(row["top_diagnosis"], expected.diagnosis, expected.also_acceptable)
    # The verdict's label, e.g. "identical (layout changed)", where the summary has one.
    accepted_checks = [it.get("data_detail") or it["data_check"] or "not_run"
                       for it in row["iterations"] if it["verdict"] == "accepted"]
    agent_head = workspace.git(repo, "rev-parse", summary["branch"]).strip() if summary.get("branch") else original
    if accepted_checks and agent_head == original:
        row["error"] = (f"agent reports {len(accepted_checks)} accepted change(s) but {summary.get('branch')} "
                        "does not move past the original commit")
    row["commits"] = {"original": original, "agent": agent_head}
    # Nothing accepted: the agent's pipeline is the original, 1.00x by construction. Timing
    # it again would only report this machine's noise as the agent's gain or loss.
    row["agent_is_original"] = agent_head == original
    # A change verify timed from the second epoch (a cache) pays nothing inside the first: the
    # re-measuring runs then run to the pipeline's own end, the first epoch in the clock, as a user's would.
    row["remeasured_natural"] = any(it.get("timed_from_step") for it in row["iterations"]
                                    if it["verdict"] == "accepted")
    row["measured"], row["oracle_error"] = remeasure(name, label, repo, base, row["commits"], options,
                                                     natural=row["remeasured_natural"])
    row.update(judge(row["measured"], accepted_checks))
    if row.get("error") is None and row["measured"]["original"]["median_samples_per_s"] is None:
        why = (row["measured"]["original"]["errors"] or ["no throughput in its EVALKIT line"])[0]
        row["error"] = f"original pipeline failed: {why}"
    return row


def read_summary(summary: dict) -> dict:
    """Take what a row keeps from the agent's --json summary and its audit log."""
    iterations = summary.get("iterations", [])
    return {
        "top_diagnosis": first_top_diagnosis(Path(summary["audit_log"])),
        "runs_used": summary.get("runs_used"),
        # The first profile's headspace: the most any data-side change could gain on the original.
        "headspace": (summary.get("baseline") or {}).get("headspace"),
        "headspace_note": (summary.get("baseline") or {}).get("headspace_note", ""),
        "verdicts": checks.verdict_letters(it.get("verdict", "?") for it in iterations),
        "accepted": sum(1 for it in iterations if it.get("verdict") == "accepted"),
        "agent": {k: summary.get(k) for k in ("run_id", "branch", "audit_log", "baseline", "final", "speedup",
                                               "stop_reason", "bottleneck", "runs_used")},
        "iterations": [{k: it.get(k) for k in ("proposal_id", "diagnosis", "change", "source", "verdict", "stage",
                                                "reason", "speedup", "ci", "data_check", "data_detail", "loss_check",
                                                "commit", "timed_from_step")}
                       for it in iterations],
    }


def remeasure(name: str, label: str, repo: Path, base: Path, commits: dict,
              options: Options, natural: bool = False) -> tuple[dict, str | None]:
    """Check out original, agent (when it differs) and oracle, time them interleaved; return stats per variant.

    ``natural``: every run goes to the pipeline's own end instead of ``options.eval_steps`` steps.
    The second value says why the oracle could not be set up (None when it was, or there is none).
    """
    checkouts = {"original": workspace.checkout(repo, commits["original"], base / "original")}
    if commits["agent"] != commits["original"]:
        checkouts["agent"] = workspace.checkout(repo, commits["agent"], base / "agent")
    oracle_error = None
    if workspace.has_oracle(options.targets_dir, name):
        try:
            checkouts["oracle"] = workspace.copy_target(options.targets_dir, name, base / "oracle", with_oracle=True)
        except RuntimeError as error:
            # A stale oracle.patch costs the oracle column, not the agent's row.
            oracle_error = str(error)
    contract = workspace.read_contract(checkouts["original"])
    command = measure.render_command(contract.command, contract.config)
    steps = None if natural else options.eval_steps
    length = "to their own end (a change timed from the second epoch)" if natural else f"{steps} steps each"
    progress(f"{label}: re-measuring {', '.join(checkouts)} × {options.runs}, {length}")
    raw = measure.measure_interleaved(checkouts, command, options.runs, steps, options.eval_warmup,
                                      options.pipeline_timeout_s)
    measured = {variant: {**measure.summarize(records), "runs": records} for variant, records in raw.items()}
    measured.setdefault("agent", measured["original"])
    return measured, oracle_error


def judge(measured: dict, accepted_checks: list[str]) -> dict:
    """Compare the agent's and the oracle's measurements with the original's; return the verdict fields."""
    orig, agent = measured["original"], measured["agent"]
    oracle = measured.get("oracle")
    agent_speedup = checks.ratio(agent["median_samples_per_s"], orig["median_samples_per_s"])
    oracle_speedup = checks.ratio(oracle["median_samples_per_s"], orig["median_samples_per_s"]) if oracle else None
    have_both = orig["batch_digest"] is not None and agent["batch_digest"] is not None
    data_identical = agent["batch_digest"] == orig["batch_digest"] if have_both else None
    loss_identical = agent["losses"] == orig["losses"] if have_both else None
    is_false, why = checks.false_accept(accepted_checks, agent_speedup, orig["spread"], data_identical, loss_identical)
    if is_false and agent["errors"] and agent_speedup is None:
        why = f"{why}: {agent['errors'][0]}"
    return {
        "noise": orig["spread"],
        "agent_speedup": agent_speedup,
        "oracle_speedup": oracle_speedup,
        "share_of_oracle_gain": checks.share_of_oracle_gain(agent_speedup, oracle_speedup),
        "log_share_of_oracle_gain": checks.log_share_of_oracle_gain(agent_speedup, oracle_speedup),
        "data_identical": data_identical,
        "loss_identical": loss_identical,
        "final_loss_rel_diff": checks.relative_diff(agent["final_loss"], orig["final_loss"]),
        "extra_identical": agent["extra"] == orig["extra"] if have_both else None,
        "oracle_data_identical": (oracle["batch_digest"] == orig["batch_digest"]
                                  if oracle and oracle["batch_digest"] and orig["batch_digest"] else None),
        "false_accept": is_false,
        "false_accept_reason": why,
    }


def totals(rows: list[dict]) -> dict:
    """Add up the rows: diagnosis accuracy, false accepts, median (log) share of oracle gain, errors."""
    judged = [row for row in rows if row.get("expected_diagnosis")]
    shares = [row["share_of_oracle_gain"] for row in rows if row.get("share_of_oracle_gain") is not None]
    log_shares = [row["log_share_of_oracle_gain"] for row in rows if row.get("log_share_of_oracle_gain") is not None]
    return {
        "diagnosis_correct": sum(1 for row in judged if row.get("diagnosis_ok")),
        "diagnosis_expected": len(judged),
        "false_accepts": sum(1 for row in rows if row.get("false_accept")),
        "median_share_of_oracle_gain": checks.median(shares),
        "median_log_share_of_oracle_gain": checks.median(log_shares),
        "errors": sum(1 for row in rows if row.get("error")),
    }


def cuda_available() -> bool:
    """Say whether this machine has a CUDA device torch can use."""
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def default_targets(targets_dir: Path) -> list[str]:
    """Every target, less those whose expected.toml says ``gpu = true`` when there is no CUDA device.

    On CPU those would only run slowly and pointlessly; `python -m perfloop.evals.gpu` is their
    suite. Named with --only they run anyway.
    """
    names = workspace.target_names(targets_dir)
    gpu = [name for name in names if workspace.read_expected(targets_dir, name).raw.get("gpu")]
    if gpu and not cuda_available():
        progress(f"skipping {len(gpu)} GPU target(s), no CUDA device here: {', '.join(gpu)} "
                 "(python -m perfloop.evals.gpu runs them)")
        names = [name for name in names if name not in gpu]
    return names


def run_suite(options: Options) -> dict:
    """Evaluate every selected target ``options.repeat`` times; return rows, totals and settings."""
    names = options.names or default_targets(options.targets_dir)
    rows = []
    for name in names:
        for index in range(1, options.repeat + 1):
            label = f"{name}#{index}" if options.repeat > 1 else name
            try:
                rows.append(evaluate(name, label, options))
            except (RuntimeError, ValueError, OSError, KeyError) as error:
                # One broken target must not cost the rest of the suite its results.
                rows.append({"label": label, "target": name, "error": f"{type(error).__name__}: {error}"})
            progress(f"{label}: done{' with an error: ' + rows[-1]['error'] if rows[-1].get('error') else ''}")
    settings = {key: (str(value) if isinstance(value, Path) else value) for key, value in vars(options).items()}
    return {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "settings": settings, "cpu_count": os.cpu_count(),
            "rows": rows, "totals": totals(rows)}


def exit_code(report: dict) -> int:
    """Return 1 when any row is a false accept (so CI can gate on it), else 0."""
    return EXIT_FALSE_ACCEPT if report["totals"]["false_accepts"] else EXIT_OK


def split_agent_args(text: str | None) -> list[str]:
    """Split the --agent-args string the way a shell would."""
    return shlex.split(text) if text else []
