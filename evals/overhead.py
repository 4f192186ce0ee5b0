"""What the probe costs: interleaved runs of a target with and without it, by the target's own meter.

    python -m perfloop.evals.overhead [--only NAME[key=value,...] ...] [--runs K] [--steps N]

Each round runs the bare pipeline, then the same pipeline under the probe in light
mode (smoke, noise-floor and final-check runs), in light mode hashing rows only (verify's
timing runs once the smoke run matched row by row: `rows`) and in full mode (the one
profile run per head), in turns so drift hits all of them alike. The figure is the ratio of median steady-state
samples/s (the target's evalkit meter, which knows nothing of the probe): 1.00 means
free, 0.98 means the probe costs 2%.

That ratio is what the probe costs the run's wall clock. What it costs perfloop's *figures*
is another column: the samples/s perfloop itself reads from the probe's record (samples of the
steps after the warm-up over their step times, which leave the probe's clocked work out, as
every speed decision does) over the bare meter's. A probe whose hashing is all clocked reads
close to 1.00 there even where the wall clock pays for the hashing.

Run-to-run swings on a shared or virtual machine (10-15% in samples/s between runs of the bare
pipeline on the 2-core VM this was written on) hide a cost of a few percent in those ratios at any
affordable number of rounds. The column "median step added" reads the cost per step instead: the
meter's median step time of each run (`steady_step_ms_median`: one run's typical step, which
bursts of other work move less than the window's mean), probed minus bare, medians over the rounds,
in ms and as a share of the bare step.

A step's length decides what the probe's per-step work costs in proportion, so a target can be
run at another setting of its config: ``per_step_metrics[batch_size=256]`` sets the config's
``batch_size`` line to 256 in the copy (every ``key: value`` or ``key = value`` line of that
key, at any depth; a key the config lacks is an error naming the file). The table gives each
row's bare step length (rows per step over bare samples/s).
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from perfloop.contracts.layout import RECORD_NAME, Env, Fingerprint
from perfloop.evals.measure import EVALKIT_PREFIX, last_line, pipeline_env, render_command, run_and_wait
from perfloop.evals.workspace import copy_target, read_contract
from perfloop.tools.measure.profiler import PROBE_DIR, samples_per_s
from perfloop.tools.measure.record import ProbeRecord

TARGETS_DIR = Path(__file__).resolve().parent / "targets"
DEFAULT_TARGETS = ("data_bound", "compute_bound", "per_step_metrics")
MODES = ("bare", "light", "rows", "full")
"""rows: light mode hashing rows only (Env.FINGERPRINT), as verify's timing runs do once the smoke run matched."""


def _env(mode: str, steps: int, warmup: int, out_dir: Path) -> dict[str, str]:
    env = pipeline_env(steps, warmup)
    if mode != "bare":
        out_dir.mkdir(parents=True, exist_ok=True)
        env.update({"PYTHONPATH": str(PROBE_DIR), Env.PROBE_DIR: str(out_dir),
                    Env.PROBE_MODE: "light" if mode == "rows" else mode,
                    Env.FINGERPRINT: Fingerprint.ROWS if mode == "rows" else Fingerprint.FULL,
                    # The meter stops the run; the probe's own bound must not come first.
                    Env.MAX_STEPS: str(steps + 1000)})
    return env


def _meter(cwd: Path, command: str, env: dict[str, str]) -> dict:
    import json

    done = run_and_wait(["/bin/sh", "-c", command], cwd, env, timeout_s=900)
    lines = [line[len(EVALKIT_PREFIX):] for line in done.stdout.splitlines() if line.startswith(EVALKIT_PREFIX)]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"`{command}` in {cwd} failed: {last_line(done.stderr) or last_line(done.stdout)}")
    return json.loads(lines[-1])


def parse_variant(spec: str) -> tuple[str, dict[str, str]]:
    """"name[key=value,...]" -> (name, {key: value}); a plain name has no settings."""
    match = re.fullmatch(r"([\w.-]+)(?:\[([^\]]*)\])?", spec)
    if not match:
        raise ValueError(f"{spec!r}: expected NAME or NAME[key=value,...]")
    settings = {}
    for item in filter(None, (match.group(2) or "").split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{spec!r}: {item!r} is not key=value")
        settings[key.strip()] = value.strip()
    return match.group(1), settings


def set_config(path: Path, settings: dict[str, str]) -> None:
    """Set each key's value on every `key: value` / `key = value` line of the config at ``path``."""
    text = path.read_text()
    for key, value in settings.items():
        pattern = re.compile(rf"^(\s*{re.escape(key)}\s*[:=]\s*)([^#\n]*?)(\s*(?:#.*)?)$", re.MULTILINE)
        text, count = pattern.subn(lambda m: m.group(1) + value + m.group(3), text)
        if not count:
            raise ValueError(f"{path}: no `{key}:` or `{key} =` line to set to {value}")
    path.write_text(text)


def measure(name: str, runs: int, steps: int, warmup: int, targets_dir: Path = TARGETS_DIR,
            rows_per_step: list[float] | None = None,
            probe_ms: dict[str, list[float]] | None = None,
            readings: dict[str, list[float]] | None = None,
            step_ms: dict[str, list[float]] | None = None) -> dict[str, list[float]]:
    """Return mode -> samples/s of each run, the modes interleaved round by round; ``name`` may carry
    config settings (parse_variant). ``rows_per_step`` gets the bare runs' rows per step; ``probe_ms``
    gets, per probed mode, each run's median probe_ms a step after the warm-up (the probe's own time
    on the step's path as it clocks it: hashing, kept batches; not its hooks' call overhead); ``readings``
    gets, per probed mode, each run's samples/s as perfloop reads it from the record (samples_per_s);
    ``step_ms`` gets, per mode (bare included), each run's median steady step time by the meter."""
    name, settings = parse_variant(name)
    with tempfile.TemporaryDirectory(prefix=f"perfloop-overhead-{name}-") as folder:
        repo = copy_target(targets_dir, name, Path(folder) / name)
        contract = read_contract(repo)
        if settings:
            set_config(repo / contract.config, settings)
        command = render_command(contract.command, contract.config)
        results: dict[str, list[float]] = {mode: [] for mode in MODES}
        for round_number in range(runs):
            order = MODES if round_number % 2 == 0 else tuple(reversed(MODES))
            for mode in order:
                out_dir = Path(folder) / "probe" / f"{round_number}-{mode}"
                record = _meter(repo, command, _env(mode, steps, warmup, out_dir))
                results[mode].append(float(record["steady_samples_per_s"]))
                if step_ms is not None and record.get("steady_step_ms_median"):
                    step_ms.setdefault(mode, []).append(float(record["steady_step_ms_median"]))
                if mode == "bare" and rows_per_step is not None and record.get("steps"):
                    rows_per_step.append(record["samples"] / record["steps"])
                if mode != "bare" and not (out_dir / RECORD_NAME).exists():
                    raise RuntimeError(f"the probe did not attach to {name} in {mode} mode (no record in {out_dir})")
                if mode != "bare" and (probe_ms is not None or readings is not None):
                    measured = ProbeRecord.read(out_dir).steps[warmup:]
                    own = [s.probe_ms for s in measured]
                    if own and probe_ms is not None:
                        probe_ms.setdefault(mode, []).append(statistics.median(own))
                    if readings is not None and samples_per_s(measured):
                        readings.setdefault(mode, []).append(samples_per_s(measured))
        return results


def added_per_step(medians: dict[str, list[float]]) -> str:
    """"+0.09 ms (1.8%), ..." for light, rows and full: each mode's median step time over the rounds minus
    the bare pipeline's, and that as a share of the bare step ("-" where the meter gave no step times)."""
    if not medians.get("bare"):
        return "-"
    bare = statistics.median(medians["bare"])
    cells = []
    for mode in MODES[1:]:
        if not medians.get(mode) or not bare:
            cells.append("-")
            continue
        added = statistics.median(medians[mode]) - bare
        cells.append(f"{added:+.2f} ms ({100.0 * added / bare:+.1f}%)")
    return ", ".join(cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perfloop.evals.overhead", description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=list(DEFAULT_TARGETS), help="targets to measure")
    parser.add_argument("--runs", type=int, default=5, help="rounds (each runs every mode once)")
    parser.add_argument("--steps", type=int, default=60, help="steps per run (the meter's bound)")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--targets-dir", type=Path, default=TARGETS_DIR)
    args = parser.parse_args(argv)
    print(f"# probe overhead, {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs, "
          f"{args.runs} interleaved rounds of {args.steps} steps")
    print("| target | bare samples/s | bare step | light / bare | rows / bare | full / bare | median step added "
          "(light, rows, full) | probe ms a step (light, rows) | perfloop's reading / bare (light, rows) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.only:
        rows: list[float] = []
        own: dict[str, list[float]] = {}
        read: dict[str, list[float]] = {}
        medians: dict[str, list[float]] = {}
        results = measure(name, args.runs, args.steps, args.warmup, args.targets_dir, rows, own, read, medians)
        bare = statistics.median(results["bare"])
        ratios = {mode: statistics.median(results[mode]) / bare for mode in MODES[1:]}
        batch = statistics.median(rows) if rows else None
        step = f"{1000.0 * batch / bare:.1f} ms ({batch:g} rows)" if batch and bare else "-"
        clocked = ", ".join(f"{statistics.median(own[m]):.2f}" if own.get(m) else "-" for m in ("light", "rows"))
        seen = ", ".join(f"{statistics.median(read[m]) / bare:.3f}" if read.get(m) and bare else "-"
                         for m in ("light", "rows"))
        print(f"| {name} | {bare:.1f} | {step} | " + " | ".join(f"{ratios[m]:.3f}" for m in MODES[1:]) +
              f" | {added_per_step(medians)} | {clocked} | {seen} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
