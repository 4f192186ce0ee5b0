"""Turn stack-sampler counts into named hot functions with file:line and source."""
from __future__ import annotations

import json
import linecache
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
        total += stack["totals"].get(label, 0)
        for row_label, name, file, first, count in stack["functions"]:
            if row_label == label and (keep_module or name != "<module>"):
                functions[(name, file, first)] = functions.get((name, file, first), 0) + count
        for row_label, file, lineno, name, count in stack["lines"]:
            if row_label == label:
                lines[(name, file, lineno)] = lines.get((name, file, lineno), 0) + count
    return total, functions, lines


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
        source = "\n".join(linecache.getline(file, n).rstrip() for n in top_lines).strip("\n")
        hot.append((self_count, HotFunction(name=name, file=relative_to_target(file, target_dir), line=first,
                                            share=count / denominator, phase=phase, hot_lines=top_lines,
                                            source=source)))
    hot.sort(key=lambda item: (item[0], item[1].share), reverse=True)
    return [function for _, function in hot[:_TOP]]


def batch_build_hotspots(record: dict, out_dir: Path, target_dir: Path) -> list[HotFunction]:
    """Rank user functions by their share of batch-building time (workers and in-process fetches)."""
    stacks = [json.loads(path.read_text()) for path in sorted(out_dir.glob("stacks-*.json"))]
    if record.get("stacks"):
        stacks.append(record["stacks"])
    total, functions, lines = _merge(stacks, "fetch")
    return _rank(total, functions, lines, "batch_build", target_dir)


def main_hotspots(record: dict, target_dir: Path) -> list[HotFunction]:
    """Rank user functions in the main process's 'other' time, as shares of all step time."""
    stack = record.get("stacks")
    if not stack:
        return []
    # Scripts often run their loop at module level, so "<module>" is a real answer here.
    total, functions, lines = _merge([stack], "other", keep_module=True)
    all_samples = sum(stack["totals"].values())
    return _rank(total, functions, lines, "main:other", target_dir, denominator=all_samples)
