"""Turn stack-sampler call paths into hot functions: the loop to change first, its helpers as evidence.

Each sample is one user call path, outermost first, of (file, function, first line, line).
Per function we count *inclusive* samples (it is on the path), *self* samples (it is the
innermost user frame) and *loop* samples (its frame sits on a line inside one of its own
``for``/``while``/comprehension loops, so whatever its callees do in that loop counts too).

The function named first owns the hot loop: start from the function with the most loop
samples, then, while a user function called under it holds at least ``_DESCEND`` of that in
a loop of its own, move down to it. A training loop driver thus gives way to the transform
it calls, while a per-character helper without a loop (the leaf that self time would pick)
never outranks the loop that calls it; it is reported under its owner with its self share.

After the loop owner the list is ranked by inclusive samples (time along user call paths,
callees counted in their callers), then self samples; the loop owner keeps the first place
even where a caller (the loop driving it) has more inclusive time.
"""
from __future__ import annotations

import ast
import json
import tokenize
from collections import Counter
from functools import lru_cache
from pathlib import Path

from perfloop.contracts.code import COMPREHENSIONS
from perfloop.contracts.layout import STACKS_GLOB
from perfloop.tools.measure.models import HotFunction, HotHelper

_TOP = 8
_NUM_HELPERS = 5
_LOOP_LINES = 30  # a hot loop longer than this is shown from its header down
_DESCEND = 0.5
"""A callee's loop must hold at least this fraction of the current owner's loop samples to take over."""
LOOP_NODES = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

Frame = tuple[str, str, int, int]
"""(file, qualified name, first line, sampled line) of one user frame."""
Key = tuple[str, str, int]
"""(file, qualified name, first line): one function."""


def relative_to_target(path: str, target_dir: Path) -> str:
    """Show ``path`` relative to the target folder when it lies inside it."""
    try:
        return str(Path(path).resolve().relative_to(target_dir.resolve()))
    except ValueError:
        return path


def _count(value) -> int:
    return value if isinstance(value, int) and value > 0 else 0


def _merge(stacks: list, label: str, keep_module: bool) -> tuple[int, dict[tuple[Frame, ...], int]]:
    """Sum the samples and the call paths of ``label`` over sampler snapshots, skipping malformed rows."""
    total = 0
    paths: dict[tuple[Frame, ...], int] = {}
    for stack in stacks:
        if not isinstance(stack, dict):
            continue
        totals = stack.get("totals")
        total += _count(totals.get(label)) if isinstance(totals, dict) else 0
        for row in stack.get("paths") or []:
            if not (isinstance(row, list) and len(row) == 3 and row[0] == label and _count(row[2])):
                continue
            frames = parse_frames(row[1], keep_module)
            if frames:
                paths[frames] = paths.get(frames, 0) + row[2]
    return total, paths


def parse_frames(raw, keep_module: bool) -> tuple[Frame, ...]:
    frames: list[Frame] = []
    for item in raw if isinstance(raw, list) else []:
        if not (isinstance(item, list) and len(item) == 4):
            continue
        file, name, first, line = item
        if not (isinstance(file, str) and isinstance(name, str) and isinstance(first, int)):
            continue
        if name == "<module>" and not keep_module:
            continue
        if frames and _is_comprehension_of(name, frames[-1][1]):
            # Before 3.12 a comprehension is its own frame, called on its enclosing function's line
            # (which lies inside the comprehension's loop): the loop belongs to that function.
            continue
        # A sample without a line (CPython 3.11 can report f_lineno None) goes to the function's first line.
        frames.append((file, name, first, line if isinstance(line, int) and line > 0 else first))
    return tuple(frames)


def _is_comprehension_of(name: str, parent: str) -> bool:
    """Whether ``name`` is a comprehension of ``parent``'s, directly or nested in others of its comprehensions
    (`f.<locals>.<listcomp>.<locals>.<listcomp>`: the outer one's frame was already folded into f)."""
    outer, _, inner = name.rpartition(".<locals>.")
    if inner not in COMPREHENSIONS:
        return False
    while True:
        if (outer or "<module>") == parent:
            return True
        rest, _, last = outer.rpartition(".<locals>.")
        if last not in COMPREHENSIONS:
            return False
        outer = rest


@lru_cache(maxsize=256)
def source_lines(file: str) -> tuple[str, ...]:
    """Read ``file``'s lines as the interpreter would decode them; empty when it cannot be read."""
    if not file or file.startswith("<"):
        return ()  # <frozen ...>, <string>, <stdin>: no file on disk
    try:
        with tokenize.open(file) as handle:
            return tuple(handle.read().splitlines())
    except (OSError, SyntaxError, UnicodeDecodeError):
        pass
    try:  # a wrong or missing coding cookie: show what we can rather than nothing
        return tuple(Path(file).read_bytes().decode("utf-8", "replace").splitlines())
    except OSError:
        return ()


@lru_cache(maxsize=256)
def loop_spans(file: str) -> tuple[tuple[int, int], ...]:
    """Return (first, last) line of every for/while/comprehension in ``file``; none when it does not parse."""
    try:
        tree = ast.parse("\n".join(source_lines(file)))
    except (SyntaxError, ValueError):
        return ()
    return tuple(sorted((node.lineno, node.end_lineno or node.lineno)
                        for node in ast.walk(tree) if isinstance(node, LOOP_NODES)))


def _loop_line(frame: Frame) -> int | None:
    """Return the header line of the innermost loop of the frame's own function around its sampled line."""
    file, _, first, line = frame
    header = None
    for start, end in loop_spans(file):
        # A loop starting before the function's first line belongs to an enclosing scope.
        if first <= start <= line <= end and (header is None or start >= header):
            header = start
    return header


def _shown_lines(file: str, hot_lines: list[int], loop_line: int | None) -> list[int]:
    """The hottest lines, and with a hot loop its whole body (at most _LOOP_LINES lines), in file order.

    The three most-sampled lines alone depend on which lines a sampler happened to catch most:
    the knowledge base matches words in this source ("tokeniz", ".lower()"), and a word two lines
    away in the same loop must not decide a diagnosis by chance.
    """
    shown = set(hot_lines)
    if loop_line is not None:
        end = max((last for first, last in loop_spans(file) if first == loop_line), default=loop_line)
        shown.update(range(loop_line, min(end, loop_line + _LOOP_LINES - 1) + 1))
    return sorted(shown)


def _source(file: str, line_numbers: list[int]) -> str:
    lines = source_lines(file)
    # A file edited since sampling may be shorter now: lines past its end show as empty.
    return "\n".join(lines[n - 1].rstrip() if 0 < n <= len(lines) else "" for n in line_numbers).strip("\n")


class _Tally:
    """Inclusive, self and loop samples per function over one phase's call paths."""

    def __init__(self, paths: dict[tuple[Frame, ...], int]) -> None:
        self.paths = paths
        self.inclusive: Counter = Counter()
        self.self: Counter = Counter()
        self.loop: Counter = Counter()
        self.owned: Counter = Counter()  # samples whose innermost loop frame is this function's
        self.lines: dict[Key, Counter] = {}
        self.loop_lines: dict[Key, Counter] = {}
        for frames, count in paths.items():
            keys = [frame[:3] for frame in frames]
            for key in set(keys):
                self.inclusive[key] += count
            self.self[keys[-1]] += count
            in_loop: set[tuple[Key, int]] = set()
            owner = None
            for key, line in {(key, frame[3]) for key, frame in zip(keys, frames)}:
                self.lines.setdefault(key, Counter())[line] += count
            for key, frame in zip(keys, frames):
                header = _loop_line(frame)
                if header is not None:
                    in_loop.add((key, header))
                    owner = key
            for key in {key for key, _ in in_loop}:
                self.loop[key] += count
            for key, header in in_loop:
                self.loop_lines.setdefault(key, Counter())[header] += count
            if owner is not None:
                self.owned[owner] += count

    def loop_owner(self) -> Key | None:
        """Return the innermost function that owns the hot loop (see the module docstring)."""
        if not self.loop:
            return None
        order = lambda key: (self.loop[key], self.owned[key], key)  # noqa: E731 - deterministic ties
        best = max(self.loop, key=order)
        seen = {best}
        while True:
            below = {key for frames in self.paths for key in self._under(best, frames)}
            takers = [key for key in below - seen if self.loop[key] >= _DESCEND * self.loop[best]]
            if not takers:
                return best
            best = max(takers, key=order)
            seen.add(best)

    @staticmethod
    def _under(key: Key, frames: tuple[Frame, ...]) -> list[Key]:
        keys = [frame[:3] for frame in frames]
        return keys[keys.index(key) + 1:] if key in keys else []

    def helpers(self, key: Key, denominator: int, target_dir: Path) -> list[HotHelper]:
        """Return the leaf functions sampled under ``key``, by their self samples there."""
        leaves: Counter = Counter()
        for frames, count in self.paths.items():
            under = self._under(key, frames)
            if under:
                leaves[under[-1]] += count
        return [HotHelper(name=name, file=relative_to_target(file, target_dir), line=first,
                          self_share=count / denominator)
                for (file, name, first), count in leaves.most_common(_NUM_HELPERS)]


def rank_paths(total: int, paths: dict[tuple[Frame, ...], int], phase: str, target_dir: Path,
          denominator: int | None = None) -> list[HotFunction]:
    denominator = denominator or total
    if not paths:
        return []
    tally = _Tally(paths)
    denominator = max(denominator, max(tally.inclusive.values()))  # malformed totals must not give shares > 1
    owner = tally.loop_owner()
    # After the loop owner: inclusive time along user call paths, then self time (ties by name: deterministic).
    ranked = sorted(tally.inclusive, reverse=True,
                    key=lambda key: (key == owner, tally.inclusive[key], tally.self[key], key))
    hot = []
    for key in ranked[:_TOP]:
        file, name, first = key
        hot_lines = [line for line, _ in tally.lines[key].most_common(3)]
        loop_line = tally.loop_lines[key].most_common(1)[0][0] if key in tally.loop_lines else None
        hot.append(HotFunction(
            name=name, file=relative_to_target(file, target_dir), line=first, phase=phase,
            share=tally.inclusive[key] / denominator, self_share=tally.self[key] / denominator,
            loop_share=tally.loop[key] / denominator, loop_line=loop_line, hot_lines=hot_lines,
            source=_source(file, _shown_lines(file, hot_lines, loop_line)), helpers=tally.helpers(key, denominator, target_dir)))
    return hot


def worker_json(out_dir: Path, glob: str) -> list:
    """The JSON of every worker file matching `glob`; a file that is empty or cut short is left out.

    A worker of a loader that restarts its workers every epoch can be ended by the pipeline
    at any moment; what it left must never stop the profile (it is one worker's samples).
    """
    found = []
    for path in sorted(Path(out_dir).glob(glob)):
        try:
            found.append(json.loads(path.read_text()))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
    return found


def _clear_caches() -> None:
    # The agent edits these files between profiles.
    source_lines.cache_clear()
    loop_spans.cache_clear()


def batch_build_hotspots(main_stacks: dict | None, out_dir: Path, target_dir: Path,
                         thread_stacks: dict | None = None) -> list[HotFunction]:
    """Rank user functions by their share of batch-building time (workers and in-process fetches).

    ``main_stacks`` is the main process's sampler snapshot (``ProbeRecord.stacks``) and
    ``thread_stacks`` a prefetcher thread's builds as tools/measure/thread_builds.py lays them out; the
    workers' are read from ``out_dir``.
    """
    _clear_caches()
    stacks = worker_json(out_dir, STACKS_GLOB)
    stacks += [stack for stack in (main_stacks, thread_stacks) if stack]
    total, paths = _merge(stacks, "fetch", keep_module=False)
    return rank_paths(total, paths, "batch_build", target_dir)


def main_hotspots(stack: dict | None, target_dir: Path) -> list[HotFunction]:
    """Rank user functions in the main process's 'other' time (``stack``: ``ProbeRecord.stacks``), as shares of
    all step time."""
    _clear_caches()
    if not isinstance(stack, dict):
        return []
    # Scripts often run their loop at module level, so "<module>" is a real answer here.
    total, paths = _merge([stack], "other", keep_module=True)
    all_samples = sum(_count(v) for v in (stack.get("totals") or {}).values())
    return rank_paths(total, paths, "main:other", target_dir, denominator=all_samples)
