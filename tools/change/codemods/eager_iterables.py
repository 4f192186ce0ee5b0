"""A loop over a list made in its own header (`for t in sorted(set(scores))`), for the translator.

Python evaluates a `for` loop's iterable once, before the first pass. Where that iterable is a builtin that reads its
argument to the end as it is made (`sorted`, `list`, `tuple`, `set`, `frozenset`), every call in it has run, in its
order, before the loop's body starts; the rewrite runs the same expression at the same place, once, and reads the
list it gives as the loop's axis. A set is listed first (`list(set(...))`), so the axis has the order the loop
walked: Python's iteration order of that set, whatever it is. Draws in the iterable stay refused by the effects
check, with its usual words.

``EagerIterables`` binds such a header ahead of ``axes.AxisRules`` in ``translator.Translator``'s bases (the outer
loop only; an inner loop's header would be evaluated once per outer pass). ``listed_once`` in ``counts`` lets the
effects check read it as the one list it is.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.loops import Val, dotted

EAGER_BUILTINS = frozenset({"sorted", "list", "tuple", "set", "frozenset"})
"""Builtins that consume their argument when called and give a finite collection."""


def eager_call(node: ast.AST) -> bool:
    """Whether `node` is a call of one of ``EAGER_BUILTINS`` with one positional argument (a `key=` or `reverse=`
    for `sorted`)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and dotted(node.func) in EAGER_BUILTINS
            and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred)):
        return False
    allowed = {"key", "reverse"} if node.func.id == "sorted" else set()
    return all(k.arg in allowed for k in node.keywords)


class EagerIterables:
    """Loop headers `for x in sorted(...)` / `list(...)` / `set(...)`: the list hoisted once, then bound as an array."""

    def bind_outer(self, target: ast.AST, iterable: ast.AST) -> None:
        if not (isinstance(target, ast.Name) and eager_call(iterable)):
            super().bind_outer(target, iterable)
            return
        listed = iterable
        if iterable.func.id in ("set", "frozenset"):  # walked in the set's own order, which a list keeps
            listed = ast.copy_location(ast.Call(func=ast.Name(id="list", ctx=ast.Load()), args=[iterable],
                                                keywords=[]), iterable)
        self.env[target.id] = Val(self.as_array(listed), 1)
