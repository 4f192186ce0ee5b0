"""Refuse loops that cannot become array code: early exits, random draws, side effects."""
from __future__ import annotations

import ast
import re

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import EXACT_MATH, INEXACT_MATH, dotted

RANDOM_CALL = re.compile(r"(^|\.)(random|rand|randn|randint|randperm|normal|uniform|choice|choices|"
                     r"shuffle|sample|bernoulli|multinomial|poisson|integers|standard_normal|gauss)$")
_PURE_BUILTINS = {"abs", "min", "max", "float", "int", "len", "round", "bool"}


def refuse_effects(node: ast.AST, list_names: set[str]) -> None:
    """Refuse early exits, random draws and side effects anywhere under `node`."""
    for sub in ast.walk(node):
        where = f"line {getattr(sub, 'lineno', '?')}"
        if isinstance(sub, (ast.Break, ast.Continue, ast.Return, ast.Raise, ast.Yield, ast.YieldFrom)):
            kind = type(sub).__name__.lower()
            raise NotApplicable(f"{where}: early exit ({kind}) inside the loop; every element must be computed")
        if isinstance(sub, (ast.Global, ast.Nonlocal, ast.NamedExpr, ast.Delete, ast.With, ast.Try,
                            ast.While)):
            raise NotApplicable(f"{where}: `{type(sub).__name__}` inside the loop is not an element-wise computation")
        if isinstance(sub, ast.Call):
            name = dotted(sub.func)
            if RANDOM_CALL.search(name) or ".random." in f".{name}":
                raise NotApplicable(f"{where}: random draw {name}() inside the loop; vectorising would change "
                                    "the order of draws")
            if isinstance(sub.func, ast.Attribute) and sub.func.attr == "append" and name.split(".")[0] in list_names:
                continue
            if name in _PURE_BUILTINS or (name.startswith("math.") and name[5:] in EXACT_MATH | INEXACT_MATH):
                continue
            if isinstance(sub.func, ast.Name) and name in ("range", "zip", "enumerate"):
                continue
            raise NotApplicable(f"{where}: call to {name or ast.unparse(sub.func)}() inside the loop may have "
                                "side effects; only arithmetic, abs/min/max/float and math.* are vectorised")
        for target in _targets(sub):
            if not isinstance(target, (ast.Name, ast.Tuple)):
                raise NotApplicable(f"{where}: side effect: the loop writes `{ast.unparse(target)}`")


def _targets(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    return []
