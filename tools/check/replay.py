"""Function-level replay: capture real calls of a function, then run old and new versions on them.

A source rewrite (a CodemodResult with `replay` set) is checked here before any
pipeline run: `capture_calls` runs the pipeline briefly under the probe with
`perfloop_capture` armed for the function, and `replay` runs both versions of the
file's function on every captured call in a sandboxed subprocess and compares the
outputs (bit-identical, or within the rewrite's declared tolerance).
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path

from pydantic import BaseModel, Field

from perfloop.contracts.layout import CALL_GLOB, REPLAY_REPORT_PREFIX, Defaults, Env
from perfloop.sandbox.runner import RunLimits, run_command
from perfloop.tools.change.codemods.base import CodemodResult, Tolerance
from perfloop.tools.measure.folder import ProbeFolder
from perfloop.tools.measure.profiler import PROBE_DIR, ProbeSettings

CHILD = Path(__file__).resolve().parent / "replay_child.py"


class CapturedCalls(BaseModel):
    """Calls of one function recorded during a bounded pipeline run."""

    directory: str = Field(description="Folder holding one pickle per captured call (contracts.layout.call_name).")
    num_calls: int = Field(description="Calls captured (all processes).")
    notes: list[str] = Field(default_factory=list, description="Calls skipped and why (too big, unpicklable).")
    returncode: int | None = Field(description="Exit status of the capture run (the probe ends it early).")


# A rewrite this much slower on the captured calls (old time / new time below it), timed over at least
# MIN_TIMED_S in all, is not run in the pipeline: numpy's per-call overhead on small inputs, say.
SLOWER_THAN = 0.8
MIN_TIMED_S = 0.02
# A rewrite whose replayed speed-up, read this many times better, still saves less of the step than the gain floor
# (by the profile's share of the function) is not run in the pipeline: a fast rewrite of a loop that is not the cost.
SPEEDUP_SLACK = 1.25


class ReplayResult(BaseModel):
    """How the new version of a function compared with the old one on captured calls."""

    ok: bool = Field(description="True when every replayed call matched (identically or within tolerance).")
    verdict: str = Field(description="'identical', 'within_tolerance', 'layout_changed' (same values, another "
                                     "container or dtype: not ok, the pipeline's data check decides), 'different', "
                                     "'no_calls' or 'error'.")
    reason: str = Field(description="One line for the audit log: what matched, or the first mismatch.")
    num_calls: int = 0
    num_identical: int = 0
    num_within_tolerance: int = 0
    skipped: list[str] = Field(default_factory=list, description="Captured calls that could not be restored.")
    old_s: float = Field(0.0, description="Total seconds the old version took on the calls (the checking pass).")
    new_s: float = Field(0.0, description="Total seconds the new version took on the calls (the checking pass).")
    old_best_s: float = Field(0.0, description="The old version's fastest time on each matching call, summed, over "
                                               "repeated alternating rounds after the check (0: not timed).")
    new_best_s: float = Field(0.0, description="The same for the new version.")
    keyed_calls: int = Field(0, description="Captured calls whose arguments (a method's object aside) are all of "
                                           "types a memo keys exactly: str, bytes, int, float, bool, None, tuples.")
    distinct_keys: int = Field(0, description="How many different keys those calls pass (the memo's keys: floats by "
                                             "their bits): fewer than keyed_calls where an argument repeated.")
    timed_s: float = Field(0.0, description="Seconds spent in those timed rounds, both versions (short calls are "
                                            "timed as runs of repeated calls, so this passes MIN_TIMED_S where "
                                            "the checking pass alone does not).")

    def timed_enough(self) -> bool:
        """Whether the calls were timed long enough in all for their speed-up to be read."""
        return self.old_s + self.new_s >= MIN_TIMED_S or self.timed_s >= MIN_TIMED_S

    def _timed(self) -> tuple[float, float]:
        """(old, new) seconds on the calls: the fastest of repeated rounds where they ran (the checking pass
        alone times imports and first-call warm-up), else the checking pass."""
        if self.old_best_s > 0 and self.new_best_s > 0:
            return self.old_best_s, self.new_best_s
        return self.old_s, self.new_s

    @property
    def speedup(self) -> float | None:
        """Old time over new time on the captured calls (`_timed`): a rough figure on a few calls, not a verdict."""
        old, new = self._timed()
        return old / new if new > 0 else None

    def clearly_slower(self) -> str | None:
        """Why the rewrite is not worth a pipeline run: slower than the old version on the captured calls by
        more than run-to-run jitter (old and new alternate per call, so the machine's load falls on both),
        over enough time to tell; None otherwise."""
        speedup = self.speedup
        if not self.ok or speedup is None or speedup >= SLOWER_THAN or not self.timed_enough():
            return None
        old, new = self._timed()
        return (f"the rewrite is slower on the {self.num_calls} captured calls: x{speedup:.2f} "
                f"({old * 1000:.1f} ms before, {new * 1000:.1f} ms after)")

    def too_small(self, function_share: float, wait_share: float, min_gain_pct: float) -> str | None:
        """Why the rewrite cannot reach the gain floor, or None: the function is `function_share` of batch
        building, which is `wait_share` of the step, so making it `speedup` times faster saves at most
        wait_share * function_share * (1 - 1 / speedup) of the step. The speed-up is read SPEEDUP_SLACK times
        more favourably than measured (a few calls, a busy machine). Only over enough timed calls."""
        speedup = self.speedup
        if not self.ok or speedup is None or not self.timed_enough():
            return None
        ceiling = wait_share * function_share * max(0.0, 1.0 - 1.0 / (speedup * SPEEDUP_SLACK))
        if ceiling * 100 >= min_gain_pct:
            return None
        return (f"x{speedup:.2f} on the {self.num_calls} captured calls, on a function that is "
                f"{function_share:.0%} of batch building, which is {wait_share:.0%} of the step: at most "
                f"{ceiling:.1%} of the step (speed-up read x{SPEEDUP_SLACK:g} better than measured), below the "
                f"{min_gain_pct:g}% gain floor")


def capture_env(target_dir: Path, file: str, function: str, out_dir: Path, max_calls: int = Defaults.CAPTURE_MAX_CALLS,
                max_bytes: int = Defaults.CAPTURE_MAX_BYTES,
                max_self_bytes: int = Defaults.CAPTURE_MAX_SELF_BYTES) -> dict[str, str]:
    """Environment variables that arm perfloop_capture for `function` in `file` (relative to target_dir)."""
    return {
        Env.CAPTURE: f"{(Path(target_dir) / file).resolve()}:{function}",
        Env.CAPTURE_DIR: str(out_dir),
        Env.CAPTURE_MAX_CALLS: str(max_calls),
        Env.CAPTURE_MAX_BYTES: str(max_bytes),
        Env.CAPTURE_MAX_SELF_BYTES: str(max_self_bytes),
    }


def capture_calls(command: str, target_dir: Path, out_dir: Path, file: str, function: str,
                  settings: ProbeSettings, max_calls: int = Defaults.CAPTURE_MAX_CALLS,
                  max_bytes: int = Defaults.CAPTURE_MAX_BYTES,
                  max_self_bytes: int = Defaults.CAPTURE_MAX_SELF_BYTES) -> CapturedCalls:
    """Run the pipeline for settings' warm-up + steps under the probe and record calls of `function`."""
    out_dir = Path(out_dir)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    calls_dir = out_dir / "calls"
    calls_dir.mkdir(parents=True)
    env = {
        "PYTHONPATH": os.pathsep.join(filter(None, [str(PROBE_DIR), os.environ.get("PYTHONPATH", "")])),
        Env.PROBE_DIR: str(out_dir / "probe"),
        Env.MAX_STEPS: str(settings.warmup_steps + settings.steps),
        Env.WARMUP_STEPS: str(settings.warmup_steps),
        Env.SUPERVISOR_PID: str(os.getpid()),
        Env.PROBE_MODE: "light",
        "PYTHONUNBUFFERED": "1",
        **capture_env(target_dir, file, function, calls_dir, max_calls, max_bytes, max_self_bytes),
    }
    (out_dir / "probe").mkdir()
    result = run_command(command, cwd=target_dir, extra_env=env, limits=settings.limits,
                         stdout_path=ProbeFolder(out_dir).stdout, stderr_path=ProbeFolder(out_dir).stderr)
    notes = [line for path in sorted(calls_dir.glob("notes-*.txt")) for line in path.read_text().splitlines()]
    if result.timed_out or result.memory_exceeded:
        notes.append("the capture run was stopped at its time or memory limit")
    return CapturedCalls(directory=str(calls_dir), num_calls=len(list(calls_dir.glob(CALL_GLOB))),
                         notes=notes, returncode=result.returncode)


def replay(target_dir: Path, file: str, function: str, old_source: str, new_source: str, calls_dir: Path,
           tolerance: Tolerance | None = None, limits: RunLimits | None = None,
           work_dir: Path | None = None, lists_became_arrays: bool = False,
           argv: list[str] | None = None, keep_object: bool = False, keys_data: bool = False) -> ReplayResult:
    """Run old and new `function` of `file` on every captured call, sandboxed, and compare the outputs.

    ``keys_data``: the memo keys lists and numpy arrays by their contents too, so such arguments count as keys.

    ``keep_object``: a method's timed rounds run on one copy of its object per version, kept from call to call
    (a memo that keeps its results on the object serves them again, as in the pipeline); otherwise every timed
    call gets a fresh copy."""
    if not any(Path(calls_dir).glob(CALL_GLOB)):
        return ReplayResult(ok=False, verdict="no_calls",
                            reason=f"no captured calls of {function} to replay: the capture run never called it")
    work_dir = Path(work_dir or calls_dir).resolve()
    spec_path = work_dir / "replay-spec.json"
    spec_path.write_text(json.dumps({
        "file": str((Path(target_dir) / file).resolve()), "function": function,
        "old_source": old_source, "new_source": new_source, "calls_dir": str(Path(calls_dir).resolve()),
        "atol": tolerance.atol if tolerance else None, "rtol": tolerance.rtol if tolerance else None,
        "lists_became_arrays": lists_became_arrays, "argv": argv, "keep_object": keep_object, "keys_data": keys_data,
        "call_glob": CALL_GLOB, "report_prefix": REPLAY_REPORT_PREFIX, "memo_helpers": memo_helpers(),
    }))
    limits = limits or RunLimits(timeout_s=120, memory_mb=4096)
    result = run_command(f"{sys.executable} {CHILD} {spec_path}", cwd=Path(target_dir), extra_env={},
                         limits=limits)
    line = next((l for l in result.stdout_tail.splitlines() if l.startswith(REPLAY_REPORT_PREFIX)), None)
    if result.returncode != 0 or line is None:
        why = "ran past its time limit" if result.timed_out else f"exited with {result.returncode}"
        return ReplayResult(ok=False, verdict="error",
                            reason=f"replay of {function} {why}: {result.stderr_tail[-800:]}")
    report = json.loads(line.removeprefix(REPLAY_REPORT_PREFIX))
    common = dict(num_calls=report["num_calls"], num_identical=report["identical"],
                  num_within_tolerance=report["within_tolerance"], skipped=report["skipped"],
                  old_s=report["old_s"], new_s=report["new_s"], old_best_s=report.get("old_best_s", 0.0),
                  new_best_s=report.get("new_best_s", 0.0), timed_s=report.get("timed_s", 0.0),
                  keyed_calls=report.get("keyed", 0), distinct_keys=report.get("distinct", 0))
    if report["mismatch"]:
        return ReplayResult(ok=False, verdict="different",
                            reason=f"replay of {function}: {report['mismatch']}", **common)
    if report["num_calls"] == 0:
        return ReplayResult(ok=False, verdict="no_calls",
                            reason=f"no captured call of {function} could be restored: {report['skipped'][:2]}",
                            **common)
    if report.get("layout_changed"):
        # The same numbers in another container or dtype (a list of floats became a tensor): whatever consumes
        # them must have changed with it, which replay of this one function cannot see.
        return ReplayResult(ok=False, verdict="layout_changed",
                            reason=f"replay of {function}: the same values in another layout in "
                                   f"{report['layout_changed']} of {report['num_calls']} calls ({report['layout']}); "
                                   "only the pipeline's data check can judge it", **common)
    verdict = "within_tolerance" if report["within_tolerance"] else "identical"
    return ReplayResult(ok=True, verdict=verdict,
                        reason=f"replay of {function}: {report['identical']} of {report['num_calls']} calls "
                               f"identical, {report['within_tolerance']} within tolerance", **common)


def memo_helpers() -> str:
    """The source of the memo's key functions (`_memo_key`, `_memo_key_data`), which the replay child runs to judge
    which captured calls a memo keys, and how many differ: the same functions the memoised file holds."""
    from perfloop.tools.change.codemods.memo_runtime import HELPER_SOURCE

    return HELPER_SOURCE


def check_rewrite(result: CodemodResult, target_dir: Path, command: str, work_dir: Path,
                  settings: ProbeSettings) -> ReplayResult:
    """Capture calls of the rewritten function and replay them; the one call the optimize node needs."""
    assert result.replay is not None, "check_rewrite needs a CodemodResult with `replay` set"
    file, function = result.replay.file, result.replay.function
    captured = capture_calls(command, target_dir, Path(work_dir) / "capture", file, function, settings)
    old_source = (Path(target_dir) / file).read_text()
    outcome = replay(target_dir, file, function, old_source, result.files[file], Path(captured.directory),
                     tolerance=result.tolerance, work_dir=Path(work_dir),
                     lists_became_arrays=result.replay.lists_became_arrays, argv=script_argv(command, file),
                     keep_object=result.knob == "memoize" and "." in function, keys_data=result.replay.keys_data)
    if captured.notes:
        outcome.skipped += captured.notes
    return outcome


def script_argv(command: str, file: str) -> list[str]:
    """sys.argv of the pipeline's script (`python train.py config.py` -> [train.py, config.py]), for module code
    that reads it at import (configurator-style scripts); just [file] when the command runs no .py file."""
    words = shlex.split(command)
    first = next((k for k, word in enumerate(words) if word.endswith(".py")), None)
    return words[first:] if first is not None else [file]
