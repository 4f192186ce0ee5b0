"""Run perfloop's evaluation suite: `python -m perfloop.evals [--only NAME ...] [--runs K] ...` (see evals/README.md)."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from perfloop.evals import harness, table, workspace

EVALS_DIR = Path(__file__).resolve().parent
WAVES = ("blind", "blind2", "blind3", "blind4", "blind5", "blind6", "blind7", "blind8", "blind9", "blind10", "blind11",
         "blind12", "blind13", "blind14", "blind15",
         "blind16", "blind17", "blind18", "blind19", "blind20", "blind21", "blind22", "blind23",
         "blind24", "blind25", "blind26")
SUITES = {"targets": EVALS_DIR / "targets", **{wave: EVALS_DIR / wave for wave in WAVES}}


def build_parser() -> argparse.ArgumentParser:
    """Describe the suite's flags."""
    parser = argparse.ArgumentParser(prog="python -m perfloop.evals", description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", default=[], help="targets to run (default: all)")
    parser.add_argument("--repeat", type=int, default=1, help="agent runs per target; rows are labelled NAME#i")
    parser.add_argument("--runs", type=int, default=3, help="re-measuring runs per variant, interleaved (K)")
    parser.add_argument("--eval-steps", type=int, default=60, help="EVAL_MAX_STEPS of each re-measuring run")
    parser.add_argument("--eval-warmup", type=int, help="EVAL_WARMUP of each re-measuring run (evalkit's default: 5)")
    parser.add_argument("--json-out", default="eval-results.json", help="where to write the JSON results")
    parser.add_argument("--max-iters", type=int, help="passed to `perfloop run --max-iters`")
    parser.add_argument("--llm-base-url", help="passed to the agent (default: offline, codemods only)")
    parser.add_argument("--llm-model", help="passed to the agent with --llm-base-url")
    parser.add_argument("--proposer", choices=["default", "oracle"], default="default",
                        help="oracle: a scripted endpoint on 127.0.0.1 answers the agent's LLM remedies with each "
                             "target's oracle.patch as search/replace edits (the loop's ceiling)")
    parser.add_argument("--agent-args", help="more `perfloop run` flags in one string, e.g. \"--steps 8 --ab-runs 2\"")
    parser.add_argument("--suite", choices=sorted(SUITES), default="targets",
                        help=f"targets: evals/targets (the suite perfloop was developed against); blind, blind2 ... {WAVES[-1]}: "
                             "evals/blind*, waves written without reading the codemods, each frozen after its "
                             "first measurement")
    parser.add_argument("--targets-dir", type=Path, help="folder of targets (overrides --suite)")
    parser.add_argument("--work-dir", type=Path, help="where copies and checkouts go (default: a new temp dir)")
    parser.add_argument("--pipeline-timeout", type=float, default=600.0, help="seconds per re-measuring run")
    parser.add_argument("--agent-timeout", type=float, default=3600.0, help="seconds per agent run")
    parser.add_argument("--adversarial", action="store_true",
                        help="serve the wrong edits of evals/adversarial/corpus.py through the LLM path and print "
                             "where verify rejects each (--only filters by mutant or target name)")
    return parser


def parse_options(argv: list[str] | None) -> tuple[harness.Options, Path]:
    """Parse and check the flags; raise ValueError naming the bad one."""
    args = build_parser().parse_args(argv)
    args.targets_dir = args.targets_dir or SUITES[args.suite]
    known = workspace.target_names(args.targets_dir)
    if not known:
        raise ValueError(f"no targets (folders with perfloop.toml) in {args.targets_dir}")
    unknown = [name for name in args.only if name not in known]
    if unknown:
        raise ValueError(f"unknown target(s) {', '.join(unknown)}; known: {', '.join(known)}")
    for flag, value in (("--repeat", args.repeat), ("--runs", args.runs), ("--eval-steps", args.eval_steps)):
        if value < 1:
            raise ValueError(f"{flag} must be at least 1, got {value}")
    if bool(args.llm_base_url) != bool(args.llm_model):
        raise ValueError("--llm-base-url and --llm-model go together; give both or neither")
    if args.proposer == "oracle" and args.llm_base_url:
        raise ValueError("--proposer oracle serves its own endpoint; drop --llm-base-url/--llm-model")
    work_dir = args.work_dir or Path(tempfile.mkdtemp(prefix="perfloop-evals-"))
    work_dir.mkdir(parents=True, exist_ok=True)
    options = harness.Options(
        work_dir=work_dir.resolve(), targets_dir=args.targets_dir.resolve(), names=args.only, repeat=args.repeat,
        runs=args.runs, eval_steps=args.eval_steps, eval_warmup=args.eval_warmup, max_iters=args.max_iters,
        llm_base_url=args.llm_base_url, llm_model=args.llm_model, proposer=args.proposer,
        agent_args=harness.split_agent_args(args.agent_args), agent_timeout_s=args.agent_timeout,
        pipeline_timeout_s=args.pipeline_timeout)
    return options, Path(args.json_out)


def main(argv: list[str] | None = None) -> int:
    """Run the suite, print the table, write the JSON; exit 1 on any false accept, 2 on bad flags."""
    args = build_parser().parse_args(argv)
    if args.adversarial:
        return _adversarial(args)
    try:
        options, json_out = parse_options(argv)
    except ValueError as error:
        print(f"evals: {error}", file=sys.stderr)
        return harness.EXIT_USAGE
    harness.progress(f"working in {options.work_dir} (kept: audit logs and checkouts)")
    report = harness.run_suite(options)
    print(table.format_table(report["rows"], report["totals"]))
    json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    harness.progress(f"results written to {json_out}")
    return harness.exit_code(report)


def _adversarial(args: argparse.Namespace) -> int:
    """Run the adversarial corpus; exit 1 when any mutant was accepted."""
    from perfloop.evals.adversarial.run import format_rows, rows_json, run_adversarial

    work_dir = (args.work_dir or Path(tempfile.mkdtemp(prefix="perfloop-adversarial-"))).resolve()
    work_dir.mkdir(parents=True, exist_ok=True)
    harness.progress(f"working in {work_dir}")
    rows = run_adversarial(work_dir, args.only)
    print(format_rows(rows))
    Path(args.json_out).write_text(json.dumps(rows_json(rows), indent=2) + "\n", encoding="utf-8")
    accepted = [row for row in rows if row.verdict == "accepted" and not row.kind.endswith("(control)")]
    return harness.EXIT_FALSE_ACCEPT if accepted else harness.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
