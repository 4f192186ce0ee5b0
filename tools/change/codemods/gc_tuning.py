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

import libcst as cst

from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable
from perfloop.tools.change.codemods.imports import add_import
from perfloop.tools.change.codemods.training_step import after_imports

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
    comment = (f"# perfloop: a young-generation collection every {GEN0_THRESHOLD} container allocations instead "
               f"of every {gc.get_threshold()[0]}: fewer pauses while batches are built")
    setting = cst.parse_statement(
        f"gc.set_threshold(max(gc.get_threshold()[0], {GEN0_THRESHOLD}), *gc.get_threshold()[1:])\n"
    ).with_changes(leading_lines=[cst.EmptyLine(comment=cst.Comment(comment))])
    module = cst.parse_module(text)
    body = list(module.body)
    at = after_imports(body)
    body.insert(at, setting)
    new_text = add_import(module.with_changes(body=body).code, "gc")
    line = next(i for i, text in enumerate(new_text.splitlines(), 1) if text.startswith("gc.set_threshold(max("))
    return CodemodResult(
        files={file: new_text},
        summary=f"collect the young generation every {GEN0_THRESHOLD} allocations instead of {gc.get_threshold()[0]} "
                f"({file}, {why})",
        knob="gc.set_threshold", old_value=f"{gc.get_threshold()[0]} (this Python's default)",
        new_value=str(GEN0_THRESHOLD),
        location=f"{file}:{line}",
        notes=["only reference cycles are freed later, so every value computed is the same; peak memory may rise "
               f"by up to {GEN0_THRESHOLD} container objects' worth",
               "set at module level, after the imports, so DataLoader workers forked later inherit it"],
    )

