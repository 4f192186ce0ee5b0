"""The restatements a `for` loop goes through before translation, in order (`restated_loop`).

Each says the loop another way that the translator reads, pass for pass the same: a preallocated list
filled slot by slot as appends, counts per branch and per row, an appending `continue` as the `if`
branch of an if/else, short inner rows written out, and counting `while` loops as `for` loops. Each is taken where its own conditions hold,
on the body the ones before it gave.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.restate import (
    continue_as_else,
    restate_counts,
    rows_unrolled,
    slots_as_appends,
)
from perfloop.tools.change.codemods.whiles import whiles_as_fors

CONTINUE_AS_ELSE = "an appending `continue` as else"


def restated_loop(block: list[ast.stmt], k: int, names: set[str]) -> tuple[list[ast.stmt], list[str]]:
    """The block with its loop `block[k]` restated, and the restatements taken (their rule names, in order)."""
    steps = [("preallocated list", lambda b: slots_as_appends(b, k)),
             ("counts per branch and per row", lambda b: restate_counts(b, k, names)),
             (CONTINUE_AS_ELSE, lambda b: continue_as_else(b, k)),
             ("short rows written out", lambda b: rows_unrolled(b, k, names)),
             ("counting while loops as for loops", lambda b: whiles_as_fors(b, k))]
    taken = []
    for rule, step in steps:
        new = step(block)
        if new is not None:
            block = new
            taken.append(rule)
    return block, taken
