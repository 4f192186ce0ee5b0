"""Turn the probe's cProfile call graph of a prefetcher thread's batch builds into sampler-like call paths.

The probe profiles every few batch builds of a thread other than the main one
(tools/measure/probe/perfloop_threadprof.py), because a sampler that needs the GIL only sees such a
thread where it releases the GIL. The call graph it saves has no sampled lines, so this
module places each function's time on a call path the batch-build ranking
(tools/measure/hotspots.py) reads like stack samples:

- a user function's *own* time (its bytecode, plus the builtins, numpy and torch calls it
  makes) sits on the function itself, at the header line of its first loop when it has one
  and calls those more often than it is called (a per-element loop), else at its first line;
- the path above it follows each function's heaviest user caller up to a function no user
  code calls (the dataset's ``__getitem__`` under the DataLoader's fetch);
- a caller sits on its loop's line where it calls the function below more often than it is
  called itself, so the loop owner of tools/measure/hotspots.py is found as in sampled stacks.

Counts are sample equivalents: seconds scaled by builds seen / builds profiled and divided by
the sampler's period, so they add to the workers' and main process's samples.
"""
from __future__ import annotations

import ast
from functools import lru_cache

from perfloop.tools.measure.hotspots import LOOP_NODES, source_lines

Key = tuple[str, str, int]
_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def thread_build_stacks(raw: dict | None, label: str = "fetch") -> dict | None:
    """Return a sampler snapshot (``totals``, ``paths``) for ``raw`` (``ProbeRecord.thread_builds``), or None."""
    if not isinstance(raw, dict) or not raw.get("profiled") or not raw.get("period_s"):
        return None
    _own_loops.cache_clear()  # the agent edits these files between profiles
    scale = raw["builds"] / raw["profiled"] / raw["period_s"]  # profiled seconds -> samples over all builds
    rows = {(r[0], r[1], r[2]): r for r in raw.get("functions") or [] if isinstance(r, list) and len(r) == 8}
    callers: dict[Key, list[tuple[float, Key, int]]] = {}
    for key, row in rows.items():
        for callee in row[7]:
            callers.setdefault(tuple(callee[:3]), []).append((callee[4], key, callee[3]))
    paths = []
    for key, row in rows.items():
        count = round((row[4] + row[5]) * scale)
        if count <= 0:
            continue
        repeated = row[6] > row[3]  # calls into the library more often than it is called: a loop
        frames = [[*key, _loop_line(key) if repeated else None]]
        seen = {key}
        while callers.get(key):
            _, parent, calls = max(callers[key])
            if parent in seen:
                break  # recursion: the path stops at the cycle
            seen.add(parent)
            frames.append([*parent, _loop_line(parent) if calls > rows[parent][3] else None])
            key = parent
        paths.append([label, [[f, n, first, line or first] for f, n, first, line in reversed(frames)], count])
    return {"totals": {label: round(raw["profiled_s"] * scale)}, "dropped": 0, "paths": paths}


def _loop_line(key: Key) -> int | None:
    """Return the header line of the first loop in the function's own body, None without one."""
    file, _, first = key
    return _own_loops(file).get(first)


@lru_cache(maxsize=64)
def _own_loops(file: str) -> dict[int, int]:
    """Map each function's first line (its first decorator's, as code objects count it) to its first loop."""
    try:
        tree = ast.parse("\n".join(source_lines(file)))
    except (SyntaxError, ValueError):
        return {}
    found = {}
    for node in ast.walk(tree):
        if not isinstance(node, _FUNCTION_NODES):
            continue
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        loops = [n.lineno for n in _own_nodes(node) if isinstance(n, LOOP_NODES)]
        if loops:
            found[first] = min(loops)
    return found


def _own_nodes(function):
    """Walk a function's body without entering the functions and classes defined inside it."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (*_FUNCTION_NODES, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
