"""perfloop's command line: run, profile, resume, log, report, kb.

The CLI composes the configuration once (the target contract with its flags on top,
and the loop's Settings) and hands typed objects down; nothing below it reads argv.
"""
from __future__ import annotations

import argparse
import os
import sys

from perfloop.agent.ui.console import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PIPELINE,
    EXIT_TAMPERED,
    EXIT_USAGE,
    InternalError,
    save_traceback,
    set_json_mode,
)
from perfloop.contracts.interference import INTERFERENCE_MODES
from perfloop.sandbox.errors import BadInput

CONTRACT_FLAGS = ("steps", "warmup_steps", "noise_runs", "ab_runs", "max_ab_runs", "busy_reruns", "interference")
"""Contract keys that a flag of the same name (dashes for underscores) overrides."""


def _add_target_args(parser: argparse.ArgumentParser, many: bool = False) -> None:
    if many:
        parser.add_argument("path", nargs="*", help="folder holding the training pipeline (inside a git repository); "
                            "several: each its own run, one table at the end")
    else:
        parser.add_argument("path", help="folder holding the training pipeline (inside a git repository)")
    parser.add_argument("--config", help="training config, relative to PATH (overrides [tool.perfloop] config)")
    parser.add_argument("--cmd", help="pipeline command; {config} is replaced by the config path")
    parser.add_argument("--steps", type=int, help="steady-state steps measured per run")
    parser.add_argument("--warmup-steps", type=int, help="steps run before measuring")
    parser.add_argument("--noise-runs", type=int, help="light runs of the unchanged pipeline per profile")
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last stdout line")


class _PrintVersion(argparse.Action):
    """`perfloop --version`: the installed package's version, read from its metadata only when asked."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import PackageNotFoundError, version

        try:
            print(f"perfloop {version('perfloop')}")
        except PackageNotFoundError:  # run from a checkout that was never installed
            print("perfloop (not installed: no package metadata)")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="perfloop", description="Make a PyTorch training pipeline faster "
                                     "without breaking it: profile, diagnose, optimize, verify.")
    parser.add_argument("--version", action=_PrintVersion, help="print perfloop's version and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the loop and commit verified speed-ups on perfloop/<run_id>")
    _add_target_args(run, many=True)
    run.set_defaults(run_parser=run)
    run.add_argument("--targets", metavar="FILE", help="run every target FILE lists (a line each: PATH or PATH CONFIG), "
                     "each its own run, one table at the end")
    run.add_argument("--jobs", type=int, metavar="K", help="with several targets, run K at once (default 1; their "
                     "profiles share this machine)")
    run.add_argument("--auto-approve", action="store_true", help="apply proposals without asking (changes that "
                     "alter the data always wait for you; lower-precision ones unless --allow-precision)")
    run.add_argument("--allow-precision", action="store_true",
                     help="let --auto-approve accept precision changes (TF32, bf16/fp16 autocast), each judged by "
                          "the precision rule on the loss curve")
    # Defaults of loop options are Settings' own (agent/state.py): a flag left out is not passed.
    run.add_argument("--max-iters", type=int, help="most proposals verified or declined in one run")
    run.add_argument("--ab-runs", type=int, help="interleaved timing runs per side when verifying")
    run.add_argument("--max-ab-runs", type=int, help="runs per side while the speed verdict is undecided")
    run.add_argument("--busy-reruns", type=int, help="most contaminated pairs re-run per decision (default 4)")
    run.add_argument("--interference", choices=INTERFERENCE_MODES,
                     help="rerun (default): runs the machine's other work disturbed are left out and run again; "
                          "report: measured and reported only (default from PERFLOOP_INTERFERENCE)")
    run.add_argument("--llm-base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
    run.add_argument("--llm-model", help="model name for that endpoint")
    run.add_argument("--llm-candidates", type=int, help="candidate edits asked of the LLM per remedy, each replayed "
                     "on captured calls; the best survivor is verified (every survivor, side by side, "
                     "under --executor ray --auto-approve)")
    run.add_argument("--llm-timeout", type=float, metavar="S",
                     help="seconds one LLM request may take (default 120; a local model on CPU may need more)")
    run.add_argument("--proposer", choices=("auto", "codemod", "llm"),
                     help="who proposes changes: auto (default: codemods and knobs first, then the LLM when an "
                     "endpoint is given), codemod (never ask the LLM), llm (ask the LLM first on every diagnosis; "
                     "codemods after)")
    run.add_argument("--executor", choices=("local", "ray"),
                     help="where candidates are verified: local (default: here) or ray (each candidate's block on one "
                          "node of a Ray cluster; needs perfloop[ray]); default from [tool.perfloop] executor")
    run.add_argument("--ray-address", metavar="ADDR", help="the Ray cluster: auto (default: $RAY_ADDRESS or this "
                     "machine's), HOST:PORT or ray://HOST:10001")
    run.add_argument("--block-retries", type=int, help="times a block whose node was lost is sent again (default 2)")
    run.add_argument("--remedies-at-once", type=int, metavar="N",
                     help="remedies proposed for one head and verified side by side, each in its own block; the "
                          "fastest accepted is committed (default 3 with --executor ray --auto-approve, else 1)")
    run.add_argument("--retry-rejected", action="store_true",
                     help="propose remedies an earlier run rejected on this same commit")
    profile = sub.add_parser("profile", help="profile and diagnose only; change nothing")
    _add_target_args(profile)
    profile.add_argument("--trace", metavar="FILE", help="also write the full run's timeline as a Chrome trace "
                         "(JSON; open it in https://ui.perfetto.dev or chrome://tracing)")
    resume = sub.add_parser("resume", help="continue a stopped or interrupted run")
    resume.add_argument("run", help="run id or run folder")
    resume.add_argument("--auto-approve", action="store_true")
    resume.add_argument("--allow-precision", action="store_true",
                        help="let --auto-approve accept precision changes (TF32, autocast)")
    resume.add_argument("--json", action="store_true")
    log = sub.add_parser("log", help="print a run's audit log and check its hash chain")
    log.add_argument("run", help="run id or run folder")
    log.add_argument("--diff", action="store_true", help="show each proposal's diff")
    log.add_argument("--json", action="store_true", help="print the records and the chain's state as one JSON object")
    report = sub.add_parser("report", help="write a run's HTML report")
    report.add_argument("run", help="run id or run folder")
    report.add_argument("-o", "--output", help="where to write the HTML (default: in the run folder)")
    kb = sub.add_parser("kb", help="list the knowledge base, or show one entry and its track record")
    kb.add_argument("entry", nargs="*", metavar="[show] ENTRY", help="entry id (`kb show ID` or `kb ID`)")
    kb.add_argument("--json", action="store_true", help="print the entries (or the entry and its track record) as JSON")
    runs = sub.add_parser("runs", help="list the runs perfloop remembers (per-user index)")
    runs.add_argument("path", nargs="?", help="only runs of the target at PATH (and below)")
    runs.add_argument("--json", action="store_true", help="print the runs as one JSON object")
    return parser


def _target(args: argparse.Namespace):
    """Load the target contract with the flags given on top."""
    from perfloop.tools.contract.target import load_target

    overrides = {name: getattr(args, name, None) for name in CONTRACT_FLAGS}
    return load_target(args.path, args.config, args.cmd, overrides)


def _url_without_credentials(url: str | None) -> str | None:
    """Strip user:password@ from ``url``; keep them only in this process's environment for the HTTP client.

    Settings are checkpointed and logged, so the URL they hold must not carry a secret. A resumed
    run reads the credentials from PERFLOOP_LLM_BASIC_AUTH (or PERFLOOP_LLM_API_KEY) again.
    """
    from perfloop.agent.proposers.llm import BASIC_AUTH_ENV
    from perfloop.agent.redact import split_credentials
    from perfloop.agent.ui.console import say

    bare, userinfo = split_credentials(url)
    if userinfo is not None:
        os.environ[BASIC_AUTH_ENV] = userinfo
        say(f"the credentials in --llm-base-url are sent as basic auth and stored nowhere; "
            f"`perfloop resume` reads them from {BASIC_AUTH_ENV}=user:password")
    return bare


def _batch(args: argparse.Namespace) -> int:
    """Several targets (`run A B C`, `--targets FILE`): each its own perfloop run (agent/batch.py)."""
    from perfloop.agent.batch import TargetSpec, passed_flags, read_targets, run_batch

    specs = [TargetSpec(path) for path in args.path] + (read_targets(args.targets) if args.targets else [])
    return run_batch(specs, passed_flags(args.run_parser, args), args.config, args.jobs or 1, args.json)


def _remedies_at_once(flag: int | None, contract: int | None, executor: str | None, auto_approve: bool) -> int:
    """Remedies verified side by side at one head: where blocks run in parallel unattended (--executor ray
    --auto-approve) the flag, else the contract, else REMEDIES_AT_ONCE_ON_CLUSTER; elsewhere 1 (the contract's
    value waits for such a run; the flag above 1 is refused)."""
    from perfloop.contracts.executors import REMEDIES_AT_ONCE_MAX, REMEDIES_AT_ONCE_ON_CLUSTER

    if flag is not None and not 1 <= flag <= REMEDIES_AT_ONCE_MAX:
        raise BadInput(f"--remedies-at-once must be 1 to {REMEDIES_AT_ONCE_MAX}, got {flag}")
    if executor == "ray" and auto_approve:
        return flag if flag is not None else contract if contract is not None else REMEDIES_AT_ONCE_ON_CLUSTER
    if flag is not None and flag > 1:
        raise BadInput(f"--remedies-at-once {flag} verifies remedies side by side on a cluster, unattended: add "
                       "--executor ray --auto-approve, or leave it out")
    return 1


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "run" and (args.targets or len(args.path) != 1):
        if not args.path and not args.targets:
            raise BadInput("perfloop run needs a PATH (several for several runs, or --targets FILE)")
        return _batch(args)
    if args.command == "run":
        args.path = args.path[0]
        from perfloop.agent.driver import start_run
        from perfloop.agent.state import Settings

        if bool(args.llm_base_url) != bool(args.llm_model):
            raise BadInput("--llm-base-url and --llm-model go together: give both, or neither for codemods only")
        if args.proposer == "llm" and not args.llm_base_url:
            raise BadInput("--proposer llm needs an LLM: give --llm-base-url URL --llm-model NAME")
        if args.llm_timeout is not None and args.llm_timeout <= 0:
            raise BadInput(f"--llm-timeout must be a positive number of seconds, got {args.llm_timeout:g}")
        target = _target(args)
        timeout = args.llm_timeout if args.llm_timeout is not None else target.llm_timeout_s  # flag, else contract
        if args.block_retries is not None and args.block_retries < 0:
            raise BadInput(f"--block-retries must be 0 or more, got {args.block_retries}")
        executor = args.executor or target.executor  # flag, else contract
        address = args.ray_address or target.ray_address
        if address and executor != "ray":
            raise BadInput("--ray-address (or [tool.perfloop] ray_address) is for --executor ray: add it, or drop "
                           "the address")
        given = {"max_iters": args.max_iters, "llm_candidates": args.llm_candidates, "proposer": args.proposer,
                 "llm_timeout_s": timeout, "executor": executor, "ray_address": address,
                 "block_retries": args.block_retries,
                 "remedies_at_once": _remedies_at_once(args.remedies_at_once, target.remedies_at_once, executor,
                                                       args.auto_approve)}
        if args.allow_precision and not args.auto_approve:
            from perfloop.agent.ui.console import say

            say("--allow-precision only matters with --auto-approve: you are asked about every proposal anyway")
        settings = Settings(auto_approve=args.auto_approve, allow_precision=args.allow_precision,
                            llm_base_url=_url_without_credentials(args.llm_base_url), llm_model=args.llm_model,
                            retry_rejected=args.retry_rejected,
                            **{name: value for name, value in given.items() if value is not None})
        return start_run(target, settings, args.json)
    if args.command == "resume":
        from perfloop.agent.driver import resume_run

        return resume_run(args.run, args.auto_approve, args.json, allow_precision=args.allow_precision)
    if args.command == "profile":
        from perfloop.agent.driver import profile_target

        return profile_target(_target(args), args.json, trace=args.trace)
    if args.command == "log":
        from perfloop.agent.ui.logview import print_log

        return print_log(args.run, show_diff=args.diff, as_json=args.json)
    if args.command == "report":
        from perfloop.agent.ui.html_report import write_report

        print(write_report(args.run, args.output))
        return EXIT_OK
    if args.command == "runs":
        from perfloop.agent.ui.runlist import print_runs

        return print_runs(args.path, as_json=args.json)
    from perfloop.agent.ui.logview import print_kb

    words = args.entry[1:] if args.entry[:1] == ["show"] else args.entry
    if len(words) > 1:
        raise BadInput(f"`perfloop kb` takes one entry id, got {' '.join(words)}")
    return print_kb(words[0] if words else None, as_json=args.json)


def _hold_closed_stdin() -> None:
    """With stdin closed, park /dev/null on descriptor 0 so no file perfloop opens lands there.

    Otherwise the next file opened (the audit log, say) would become descriptor 0 and every
    pipeline run would inherit it as its stdin. ``sys.stdin`` stays None: the approval prompt still pauses.
    """
    try:
        os.fstat(0)
    except OSError:
        fd = os.open(os.devnull, os.O_RDONLY)
        if fd != 0:
            os.dup2(fd, 0)
            os.close(fd)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `perfloop` console script."""
    _hold_closed_stdin()
    args = build_parser().parse_args(argv)
    set_json_mode(getattr(args, "json", False))  # under --json progress is plain lines on stderr, no live line
    from perfloop.agent.audit import AuditLogDamaged, AuditWriteError
    from perfloop.tools.measure.profiler import PipelineError

    try:
        code = _dispatch(args)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at exit
        return code
    except InternalError as error:
        print(f"perfloop: {error}", file=sys.stderr)
        return EXIT_INTERNAL
    except AuditLogDamaged as error:
        print(f"perfloop: {error}", file=sys.stderr)
        return EXIT_TAMPERED
    except AuditWriteError as error:
        print(f"perfloop: {error}", file=sys.stderr)
        return EXIT_INTERNAL
    except PipelineError as error:
        print(f"perfloop: the pipeline failed: {error}", file=sys.stderr)
        return EXIT_PIPELINE
    except BadInput as error:  # raised on purpose at the front door; any other ValueError is a bug
        print(f"perfloop: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("perfloop: interrupted; `perfloop resume RUN` continues where it stopped", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # stdout closed early (`perfloop log RUN | head`): stop quietly, as a shell tool does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit's flush must not raise again
        return EXIT_BROKEN_PIPE
    except Exception:  # a bug outside any run: say so plainly, keep the traceback for the report
        from perfloop.agent.runs import state_home

        path = save_traceback(state_home())
        print(f"perfloop: internal error in `perfloop {args.command}`; traceback saved to {path}",
              file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
