"""Where a statement sits in a function: blocks of statements addressed by a path of loop positions.

The vectoriser looks into loops it cannot rewrite whole (`vectorize._block`): a path ``(k1, k2, ...)`` is the
k1-th statement of the function's body (a loop), then the k2-th of that loop's body, and so on.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.loops import names_stored


def construct(stmt: ast.stmt) -> str:
    """Name the kind of statement a refusal is about, as a reader finds it in the file."""
    if isinstance(stmt, ast.For):
        return f"`for {ast.unparse(stmt.target)} in {ast.unparse(stmt.iter)}` loop"
    if isinstance(stmt, ast.While):
        return f"`while {ast.unparse(stmt.test)}` loop"
    kind = "comprehension" if any(isinstance(n, ast.ListComp) for n in ast.walk(stmt)) else "generator"
    return f"{kind} statement"


def stored_by_loops(body: list[ast.stmt], path: tuple[int, ...]) -> set[str]:
    """Names the loops enclosing the block at ``path`` bind or change (their targets and bodies)."""
    stored: set[str] = set()
    for depth in range(1, len(path) + 1):
        stored |= names_stored([stmt_at(body, path[:depth])])
    return stored


def block_at(body: list[ast.stmt], path: tuple[int, ...]) -> list[ast.stmt]:
    """The statements of the block at ``path`` (each step: a loop's index in its block, then its body)."""
    for k in path:
        body = body[k].body
    return body


def stmt_at(body: list[ast.stmt], path: tuple[int, ...]) -> ast.stmt:
    return block_at(body, path[:-1])[path[-1]]


def runs_after(body: list[ast.stmt], path: tuple[int, ...]) -> list[ast.stmt]:
    """What may run after the block at ``path`` ends, in order, for the after-the-loop checks: each enclosing loop
    again (its next pass: its body, the inner loop included), then what follows it in its own block, outwards."""
    after: list[ast.stmt] = []
    for depth in range(len(path), 0, -1):
        after += [stmt_at(body, path[:depth]), *block_at(body, path[:depth - 1])[path[depth - 1] + 1:]]
    return after


__all__ = ["block_at", "construct", "runs_after", "stmt_at", "stored_by_loops"]
