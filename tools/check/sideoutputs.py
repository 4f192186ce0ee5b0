"""What a pipeline prints and writes, recorded per run and compared against the baseline's runs.

Recorded by ``perfloop.tools.measure.written`` after each run (the files the run created
or changed, hashed, with their lines); the run's stdout and stderr are already in the
probe folder.

Compared (``compare_side_outputs``): stdout, stderr and each written file, line by
line. A printed duration or rate (a number followed by s, ms, sec, min, h, it/s, samples/s,
s/it, ...) or logged under a name that says it is one (`'elapsed_s': 1.2`, `train_runtime=12.3`,
`samples_per_second: 45.6`) is masked always: a faster pipeline prints other ones even where the baseline's
runs agreed. Any other number in a line that differs between the baseline's own repeated
runs is masked (timestamps, timings without a unit); every other token must match, numbers within ``rtol``
and the precision they were printed with. Where the baseline's runs do not even agree
on the lines (a worker printing out of order), only lines every baseline run printed
equally often are required, and a line printed by no baseline run is an addition. The worktree a
run ran in and the line numbers of source locations (`train.py:93:`, `File "...", line 93`) are
masked in stdout and stderr: a patch moves them without changing what is said there.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field

from perfloop.tools.measure.folder import ProbeFolder
from perfloop.tools.measure.written import MANIFEST

STREAMS = ProbeFolder.STREAMS
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
# A duration or a rate as a pipeline prints it ("(0.1s)", "12 ms", "3.5 it/s", "900 samples/s",
# "2.1s/it"): a faster pipeline prints other ones whether or not the baseline's own runs varied
# there (a 0.1 s epoch printed "(0.1s)" three times, then "(0.0s)" when it got faster).
_TIMING = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
                     r"(?=\s?(?:ms|msec|us|µs|ns|s|sec|secs|seconds?|mins?|minutes?|hrs?|hours?)\b"
                     r"|\s?(?:it|samples?|examples?|tokens?|images?|imgs?|batch(?:es)?|steps?|items?)/s(?:ec)?\b"
                     r"|\s?s/(?:it|step|batch|epoch)\b)")
TIMING_MARK = "<timing>"
# A duration or a rate logged under its name, as training loops and trainers log them: `'elapsed_s': 1.2`,
# `"train_runtime": 12.3`, `train_samples_per_second=45.6`, `step_time: 0.08`, `stepTime 0.08`. The name's words
# (split at `_`, `-` and case) decide: a word that names time (`time`, `elapsed`, `fps`), a unit as the last word
# (`epoch_s`, `step_ms`) or a rate's tail (`per_second`). A word that only contains one (`timestep`, `sections`) is
# not one. After a bare space, a single short word is too ambiguous (`time 3 of 5`): only `:` or `=` mask it.
_KEYED = re.compile(r"(?<![\w\-])(?P<key>[A-Za-z][A-Za-z0-9_\-]*)['\"]?(?P<sep>\s*[:=]\s*|\s+)"
                    r"(?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)(?![\w.])")
_TIME_WORDS = frozenset({"elapsed", "runtime", "time", "duration", "seconds", "secs", "sec", "ms", "msec",
                         "wall", "walltime", "latency", "throughput", "fps", "eta", "clock"})
_UNAMBIGUOUS = frozenset({"elapsed", "runtime", "duration", "walltime", "latency", "throughput", "fps"})
_UNITS = frozenset({"s", "sec", "secs", "ms", "msec", "us", "ns"})
_RATE_TAILS = frozenset({("per", "second"), ("per", "sec"), ("per", "s"), ("per", "ms")})


def _timing_key(key: str, spaced: bool) -> bool:
    """Whether a logged name says its number is a duration or a rate (`elapsed_s`, `samples_per_second`)."""
    words = [w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", key)]
    if len(words) == 1:
        return words[0] in (_UNAMBIGUOUS if spaced else _TIME_WORDS)
    return (any(w in _TIME_WORDS for w in words) or words[-1] in _UNITS
            or tuple(words[-2:]) in _RATE_TAILS)


def _keyed_timing(match: re.Match) -> str:
    if not _timing_key(match.group("key"), spaced=not match.group("sep").strip()):
        return match.group(0)
    return match.group(0)[:match.start("num") - match.start(0)] + TIMING_MARK


# The head and the candidate run in two worktrees; a path printed in a warning or a traceback
# names its own one, which is no difference in behaviour.
_WORKTREE = re.compile(r"(/worktrees/[^/\s]+/)(?:base|candidate)(?=/)")
# Where in a source file a warning or a traceback points: a patch that adds lines above it moves the
# line number (`train.py:93: UserWarning` becomes `train.py:142: UserWarning`), with the same message.
_SOURCE_LINE = re.compile(r"(\.py:)\d+(?=:)|(File \"[^\"]+\", line )\d+")


def _unplaced(text: str) -> str:
    """``text`` with the worktree a run ran in and the line numbers of source locations masked."""
    text = _WORKTREE.sub(r"\1<tree>", text)
    return _SOURCE_LINE.sub(lambda m: f"{m.group(1) or m.group(2)}<line>", text)


class SideOutputCheck(BaseModel):
    """What the pipeline printed and wrote, compared against the baseline's runs."""

    status: str = Field(description="same | declared (differences the remedy declares) | changed")
    detail: str
    compared: list[str] = Field(default_factory=list, description="Streams and files compared.")
    lines_compared: int = Field(0, description="Lines compared in all candidate runs.")
    numbers_masked: int = Field(0, description="Numbers masked because the baseline's runs differ there.")
    differences: list[str] = Field(default_factory=list, description="The first differences found.")
    declared: list[str] = Field(default_factory=list, description="Differences the remedy declared.")
    not_compared: list[str] = Field(default_factory=list, description="What could not be compared, and why.")


def _outputs(probe_dir: str) -> dict[str, dict]:
    """Return stream and file name -> {sha256, lines}; a "__no_manifest__" key when files were not recorded."""
    folder = Path(probe_dir)
    found: dict[str, dict] = {}
    for stream in STREAMS:
        path = folder / stream
        text = _unplaced(path.read_text(errors="replace") if path.exists() else "")
        found[stream] = {"sha256": hashlib.sha256(text.encode()).hexdigest(), "lines": text.splitlines()}
    manifest = folder / MANIFEST
    if not manifest.exists():
        return {**found, "__no_manifest__": {}}
    for name, entry in json.loads(manifest.read_text())["files"].items():
        found[f"file {name}"] = entry
    return found


def untimed(lines: list[str]) -> tuple[list[str], int]:
    """The lines with every printed duration or rate replaced by TIMING_MARK, and how many were replaced."""
    out, count = [], 0
    for line in lines:
        line, n = _TIMING.subn(TIMING_MARK, line)
        keyed = _KEYED.sub(_keyed_timing, line)
        n += keyed.count(TIMING_MARK) - line.count(TIMING_MARK)
        out.append(keyed)
        count += n
    return out, count


def _tokens(line: str) -> list[str]:
    return [token for token in _NUMBER.split(line)]


def _numbers(line: str) -> list[str]:
    return _NUMBER.findall(line)


def _close(got: str, want: str, rtol: float) -> bool:
    """Tell whether two printed numbers agree within rtol plus half a unit of the coarser printed digit."""
    if got == want:
        return True
    if rtol <= 0:
        return False
    try:
        a, b = float(got), float(want)
    except ValueError:
        return False

    def unit(text: str) -> float:
        mantissa, _, exponent = text.lower().partition("e")
        decimals = len(mantissa.partition(".")[2])
        return 10.0 ** (-decimals + (int(exponent) if exponent else 0))

    return abs(a - b) <= rtol * abs(b) + max(unit(got), unit(want)) / 2


class _Lines:
    """One stream or text file across the baseline's runs: what is stable and what is masked."""

    def __init__(self, runs: list[list[str]]) -> None:
        self.runs = runs
        self.aligned = len({len(run) for run in runs}) == 1
        self.masks: list[set[int] | None] = []  # per line: masked number positions; None = the whole line varies
        if self.aligned:
            for lines in zip(*runs):
                shapes = {tuple(_tokens(line)) for line in lines}
                if len(shapes) > 1:
                    self.masks.append(None)
                    continue
                numbers = [_numbers(line) for line in lines]
                self.masks.append({i for i, values in enumerate(zip(*numbers)) if len(set(values)) > 1})

    def compare(self, got: list[str], rtol: float) -> tuple[list[tuple[str, str]], int, int]:
        """Return (differences as (what, line), lines compared, numbers masked)."""
        reference = self.runs[0]
        if self.aligned and len(got) == len(reference):
            out, masked = [], 0
            for number, (want, line, mask) in enumerate(zip(reference, got, self.masks), start=1):
                if mask is None:
                    masked += 1
                    continue
                masked += len(mask)
                if _tokens(line) != _tokens(want):
                    out.append((f"line {number} changed: {line!r}, baseline {want!r}", line))
                    continue
                pairs = zip(_numbers(line), _numbers(want))
                if any(i not in mask and not _close(a, b, rtol) for i, (a, b) in enumerate(pairs)):
                    out.append((f"line {number} changed: {line!r}, baseline {want!r}", line))
            return out, len(got), masked
        if self.aligned:
            return self._by_count(got, rtol, f"{len(got)} lines, baseline {len(reference)}")
        return self._by_count(got, rtol, "")

    def _by_count(self, got: list[str], rtol: float, why: str) -> tuple[list[tuple[str, str]], int, int]:
        """Compare as multisets: lines every baseline run printed equally often must be there as often."""
        counts = [Counter(run) for run in self.runs]
        stable = {line: n for line, n in counts[0].items() if all(c.get(line) == n for c in counts[1:])}
        seen_shapes = {tuple(_tokens(line)) for run in self.runs for line in run}
        have = Counter(got)
        out = []
        for line, n in stable.items():
            if have.get(line, 0) != n and not (rtol > 0 and _near_any(line, got, rtol)):
                out.append((f"line {'dropped' if have.get(line, 0) < n else 'repeated'}: {line!r}"
                            + (f" ({why})" if why else ""), line))
        for line in have:
            if tuple(_tokens(line)) not in seen_shapes:
                out.append((f"line added: {line!r}" + (f" ({why})" if why else ""), line))
        # Lines whose numbers vary (a timing) still come as often on every baseline run.
        shapes = [Counter(tuple(_tokens(line)) for line in run) for run in self.runs]
        got_shapes = Counter(tuple(_tokens(line)) for line in got)
        for shape, n in shapes[0].items():
            if all(c.get(shape) == n for c in shapes[1:]) and got_shapes.get(shape, 0) != n:
                example = next(line for line in self.runs[0] if tuple(_tokens(line)) == shape)
                text = f"lines like {example!r}: {got_shapes.get(shape, 0)}, baseline {n}"
                if not any(text in what for what, _ in out):
                    out.append((text, example))
        return out, len(got), 0


def _near_any(line: str, got: list[str], rtol: float) -> bool:
    shape, numbers = _tokens(line), _numbers(line)
    return any(_tokens(other) == shape and all(_close(a, b, rtol) for a, b in zip(_numbers(other), numbers))
               for other in got)


def compare_side_outputs(baseline_dirs: list[str], candidate_dirs: list[str], declared: list[str] = (),
                         rtol: float = 0.0) -> SideOutputCheck:
    """Compare what each candidate run printed and wrote with the baseline runs, masking what they vary in.

    ``declared``: regular expressions (the remedy's ``side_output_changes``); a difference
    whose line or file name matches one is reported as declared, not as a change.
    ``rtol``: relative tolerance for printed numbers (the remedy's loss tolerance when its
    loss may differ within tolerance; 0 demands the same digits).
    """
    patterns = [re.compile(p) for p in declared]
    base = [_outputs(d) for d in baseline_dirs]
    cand = [_outputs(d) for d in candidate_dirs]
    not_compared = []
    if any("__no_manifest__" in run for run in base + cand):
        not_compared.append("written files (a run kept no record of them)")
    base_names = [set(run) - {"__no_manifest__"} for run in base]
    stable_names = set.intersection(*base_names)
    some_names = set.union(*base_names)
    differences: list[str] = []
    allowed: list[str] = []
    lines, masked = 0, 0

    def note(what: str, subject: str) -> None:
        (allowed if any(p.search(subject) for p in patterns) else differences).append(what)

    for number, run in enumerate(cand, start=1):
        prefix = f"run {number}: " if len(cand) > 1 else ""
        names = set(run) - {"__no_manifest__"}
        if "__no_manifest__" in run or any("__no_manifest__" in b for b in base):
            names = {n for n in names if not n.startswith("file ")}
            stable = {n for n in stable_names if not n.startswith("file ")}
        else:
            stable = stable_names
        for name in sorted(stable - names):
            note(f"{prefix}{name} no longer written", name)
        for name in sorted(names - some_names):
            note(f"{prefix}{name} newly written", name)
        for name in sorted(names & stable):
            entries = [b[name] for b in base]
            if any(e["lines"] is None for e in entries + [run[name]]):
                hashes = {e["sha256"] for e in entries}
                if len(hashes) == 1 and run[name]["sha256"] not in hashes:
                    note(f"{prefix}{name} changed (binary or large: compared by hash)", name)
                elif len(hashes) > 1:
                    not_compared.append(f"{name} (binary and different on every baseline run)")
                continue
            got, timings = untimed(run[name]["lines"])
            found, count, hidden = _Lines([untimed(e["lines"])[0] for e in entries]).compare(got, rtol)
            lines += count
            masked += hidden + timings
            for what, line in found:
                note(f"{prefix}{name} {what}", f"{name}: {line}")
    compared = sorted(stable_names)
    base_note = f"{len(base)} baseline run(s), {masked} numbers or lines masked where they vary or as timings"
    if differences:
        status, detail = "changed", f"{len(differences)} difference(s), first: {differences[0]} ({base_note})"
    elif allowed:
        status, detail = "declared", f"only differences the remedy declares: {allowed[0]} ({base_note})"
    else:
        status, detail = "same", f"{lines} lines in {len(compared)} streams/files as the baseline ({base_note})"
    return SideOutputCheck(status=status, detail=detail, compared=compared, lines_compared=lines,
                           numbers_masked=masked, differences=differences[:20], declared=allowed[:20],
                           not_compared=sorted(set(not_compared)))
