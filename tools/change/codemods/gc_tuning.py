"""Fewer garbage-collection pauses: raise the young generation's collection threshold (gc_pauses, offline).

CPython starts a collection of the youngest generation every 700 net container allocations
(`gc.get_threshold()[0]`), and every tenth of those also walks the middle generation. A batch
built from many small Python objects (a dict of accumulators per voxel, lists of tuples per
sample) allocates that many in a fraction of a millisecond, so the loop pauses hundreds of
times a step. This codemod sets the threshold to GEN0_THRESHOLD where the training loader is
built (at module level, after the file's imports, so DataLoader workers forked later inherit it):

    gc.set_threshold(max(gc.get_threshold()[0], 50000), *gc.get_threshold()[1:])

What runs is unchanged: only reference cycles are freed later (at most GEN0_THRESHOLD container
objects' worth), so data and loss stay identical and peak memory may rise a little. Refused where
the file already manages the collector (`gc.set_threshold`, `gc.disable`, `gc.freeze`).
"""
from __future__ import annotations

import ast
import gc

from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable
from perfloop.tools.change.codemods.imports import add_import

GEN0_THRESHOLD = 50000
"""Container allocations between young-generation collections after the change (CPython's default: 700)."""
_MANAGES_GC = ("set_threshold", "disable", "freeze")


def raise_gc_threshold(ctx: CodemodContext) -> CodemodResult:
    """Set gc's young-generation threshold to GEN0_THRESHOLD in the file that builds the training loader."""
    if ctx.sites:
        file, why = ctx.sites[0].file, "where the training DataLoader is built"
    elif ctx.profile.main_hot_functions:
        file, why = ctx.profile.main_hot_functions[0].file, "the training loop's file"
    else:
        raise NotApplicable("no DataLoader site and no training-loop function in the profile: nowhere known to set "
                            "the collector's threshold before the loop runs")
    path = ctx.root / file
    if not path.is_file():
        raise NotApplicable(f"{file} ({why}) is not a file of the target")
    text = path.read_text()
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MANAGES_GC \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "gc":
            raise NotApplicable(f"{file}:{node.lineno} already manages the garbage collector "
                                f"(gc.{node.func.attr}): left as the author set it")
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    lines = text.splitlines(keepends=True)
    at = imports[-1].end_lineno if imports else (1 if tree.body and _docstring(tree.body[0]) else 0)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    setting = (f"# perfloop: a young-generation collection every {GEN0_THRESHOLD} container allocations instead "
               f"of every {gc.get_threshold()[0]}: fewer pauses while batches are built\n"
               f"gc.set_threshold(max(gc.get_threshold()[0], {GEN0_THRESHOLD}), *gc.get_threshold()[1:])\n")
    new_text = add_import("".join(lines[:at] + [setting] + lines[at:]), "gc")
    return CodemodResult(
        files={file: new_text},
        summary=f"collect the young generation every {GEN0_THRESHOLD} allocations instead of 700 ({file}, {why})",
        knob="gc.set_threshold", old_value=f"{gc.get_threshold()[0]} (this Python's default)",
        new_value=str(GEN0_THRESHOLD),
        location=f"{file}:{at + 1}",
        notes=["only reference cycles are freed later, so every value computed is the same; peak memory may rise "
               f"by up to {GEN0_THRESHOLD} container objects' worth",
               "set at module level, after the imports, so DataLoader workers forked later inherit it"],
    )


def _docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
