"""Turn stack-sampler counts into named hot functions with file:line and source."""
from __future__ import annotations

import json
import tokenize
from functools import lru_cache
from pathlib import Path

from tools.models import HotFunction

_TOP = 8


def relative_to_target(path: str, target_dir: Path) -> str:
    """Show ``path`` relative to the target folder when it lies inside it."""
    try:
        return str(Path(path).resolve().relative_to(target_dir.resolve()))
    except ValueError:
        return path


def _merge(stacks: list[dict], label: str, keep_module: bool = False) -> tuple[int, dict, dict]:
    total = 0
    functions: dict[tuple, int] = {}
    lines: dict[tuple, int] = {}
    for stack in stacks:
        total += _count(stack.get("totals", {}).get(label))
        first_lines: dict[tuple, int] = {}
        for row in _rows(stack, "functions", (0, 1, 2)):
            row_label, name, file, first, count = row
            if row_label == label and isinstance(first, int) and (keep_module or name != "<module>"):
                functions[(name, file, first)] = functions.get((name, file, first), 0) + count
                first_lines[(name, file)] = first
        for row_label, file, lineno, name, count in _rows(stack, "lines", (0, 1, 3)):
            if row_label == label:
                # A sample without a line (CPython 3.11 can report f_lineno None) goes to the function's first line.
                lineno = lineno if isinstance(lineno, int) and lineno > 0 else first_lines.get((name, file), 0)
                lines[(name, file, lineno)] = lines.get((name, file, lineno), 0) + count
    return total, functions, lines


def _count(value) -> int:
    return value if isinstance(value, int) and value > 0 else 0


def _rows(stack: dict, key: str, text_fields: tuple[int, ...]) -> list[list]:
    """Return the well-formed rows of one sampler table (five fields, text where expected, a count last)."""
    return [row for row in stack.get(key) or []
            if isinstance(row, list) and len(row) == 5 and _count(row[-1])
            and all(isinstance(row[i], str) for i in text_fields)]


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


def _source(file: str, line_numbers: list[int]) -> str:
    lines = source_lines(file)
    # A file edited since sampling may be shorter now: lines past its end show as empty.
    return "\n".join(lines[n - 1].rstrip() if 0 < n <= len(lines) else "" for n in line_numbers).strip("\n")


def _rank(total: int, functions: dict, lines: dict, phase: str, target_dir: Path,
          denominator: int | None = None) -> list[HotFunction]:
    denominator = denominator or total
    if not total or not functions:
        return []
    # Rank by self samples (leaf user frame): a loop driver or __getitem__ that only
    # dispatches is on every stack, but the time goes where the leaf lines are.
    hot: list[tuple[int, HotFunction]] = []
    for (name, file, first), count in functions.items():
        own = sorted(((c, lineno) for (n, f, lineno), c in lines.items() if n == name and f == file), reverse=True)
        self_count = sum(c for c, _ in own)
        top_lines = [lineno for _, lineno in own[:3]]
        source = _source(file, top_lines)
        hot.append((self_count, HotFunction(name=name, file=relative_to_target(file, target_dir), line=first,
                                            share=count / denominator, phase=phase, hot_lines=top_lines,
                                            source=source)))
    hot.sort(key=lambda item: (item[0], item[1].share), reverse=True)
    return [function for _, function in hot[:_TOP]]


def batch_build_hotspots(record: dict, out_dir: Path, target_dir: Path) -> list[HotFunction]:
    """Rank user functions by their share of batch-building time (workers and in-process fetches)."""
    source_lines.cache_clear()  # the agent edits these files between profiles
    stacks = [json.loads(path.read_text()) for path in sorted(out_dir.glob("stacks-*.json"))]
    if record.get("stacks"):
        stacks.append(record["stacks"])
    total, functions, lines = _merge(stacks, "fetch")
    return _rank(total, functions, lines, "batch_build", target_dir)


def main_hotspots(record: dict, target_dir: Path) -> list[HotFunction]:
    """Rank user functions in the main process's 'other' time, as shares of all step time."""
    source_lines.cache_clear()  # the agent edits these files between profiles
    stack = record.get("stacks")
    if not stack:
        return []
    # Scripts often run their loop at module level, so "<module>" is a real answer here.
    total, functions, lines = _merge([stack], "other", keep_module=True)
    all_samples = sum(stack["totals"].values())
    return _rank(total, functions, lines, "main:other", target_dir, denominator=all_samples)
