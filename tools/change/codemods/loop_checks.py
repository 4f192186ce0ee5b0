"""Refuse loops that cannot become array code: early exits, random draws, side effects (every loop rewrite)."""
from __future__ import annotations

import ast
import re

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import MATH_NAMES, dotted

RANDOM_CALL = re.compile(r"(^|\.)(random|rand|randn|randint|randperm|normal|uniform|choice|choices|"
                     r"shuffle|sample|bernoulli|multinomial|poisson|integers|standard_normal|gauss|"
                     r"permutation|permuted|random_sample|exponential|standard_exponential|lognormal|laplace|"
                     r"binomial|geometric|rayleigh|dirichlet|randrange|getrandbits|triangular|expovariate|"
                     r"normalvariate|gammavariate|betavariate|cauchy|log_normal)$")


def is_random_call(name: str) -> bool:
    """Whether a call's dotted name is a random draw: a distribution's name, or anything under a `random` module."""
    return bool(RANDOM_CALL.search(name)) or ".random." in f".{name}."

# Modules whose functions compute from their arguments only (their random parts are refused by name).
# A call is judged by the module its name was imported from (`from datetime import date as D`: `D.fromisoformat`
# is `datetime.date.fromisoformat`); the clock's readers (`now`, `today`, ...) are refused by name (IMPURE_CALL).
PURE_MODULES = ("math.", "np.", "numpy.", "torch.", "F.", "json.", "ast.", "re.", "statistics.", "itertools.",
                "functools.", "operator.", "string.", "unicodedata.", "struct.", "zlib.", "hashlib.", "bisect.",
                "cmath.", "datetime.", "calendar.", "collections.", "copy.", "decimal.", "fractions.", "base64.",
                "binascii.", "csv.", "io.", "textwrap.", "difflib.", "colorsys.", "html.", "shlex.", "fnmatch.",
                "urllib.parse.", "array.")
GENERATOR_CALL = re.compile(r"(^|\.)(default_rng|RandomState|Random|SystemRandom|Generator|SeedSequence|"
                            r"PCG64|MT19937|Philox|SFC64)$")
IMPURE_CALL = re.compile(r"(^|\.)(time|perf_counter|monotonic|now|utcnow|today|urandom|get_worker_info|getpid|"
                         r"manual_seed|seed|set_rng_state|default_rng|Generator)$")
PURE_BUILTINS = frozenset({"abs", "min", "max", "float", "int", "len", "round", "bool"})
# The binary searches the translator writes as np.searchsorted (by the module's name only: a bare `bisect_left`
# may be the target's own function).
BISECT_CALLS = frozenset({"bisect.bisect_left", "bisect.bisect_right", "bisect.bisect"})
# What the element-wise translator also reads without side effects: reductions and sorts of rows.
PURE_REDUCTIONS = frozenset({"sum", "sorted", "statistics.median", "any", "all"})


LOOP_CALLS = ("only arithmetic, abs/min/max/float, sum/sorted/statistics.median of rows, bisect.* and math.* are "
              "vectorised")


def refuse_effects(node: ast.AST, appends_to: set[str] = frozenset(), *, pure_calls: set[str] = PURE_BUILTINS,
                   math_calls: bool = True, tolist: bool = False, subscript_writes: bool = False,
                   calls_allowed: str = LOOP_CALLS, draw: ast.Call | None = None) -> None:
    """Refuse early exits, random draws and side effects anywhere under `node`: the one refusal of loop rewrites.

    The element-wise translator and the gather rewrite both ask it; they differ only in what
    they let through: which calls are pure (``pure_calls``, ``math.*``, an argument-less
    ``.tolist()``), appends to the lists a loop builds, and writes to subscripts (a gather's
    own output), and the loop's one draw per element that `draws.sole_draw` found (``draw``, by position).
    """
    at = (draw.lineno, draw.col_offset) if draw is not None else None
    for sub in ast.walk(node):
        where = f"line {getattr(sub, 'lineno', '?')}"
        if isinstance(sub, (ast.Break, ast.Continue, ast.Return, ast.Raise, ast.Yield, ast.YieldFrom)):
            kind = type(sub).__name__.lower()
            raise NotApplicable(f"{where}: early exit ({kind}) inside the loop; every element must be computed")
        if isinstance(sub, (ast.Global, ast.Nonlocal, ast.NamedExpr, ast.Delete, ast.With, ast.Try,
                            ast.While)):
            raise NotApplicable(f"{where}: `{type(sub).__name__}` inside the loop is not an element-wise computation")
        if isinstance(sub, ast.Call) and (getattr(sub, "lineno", None), getattr(sub, "col_offset", None)) != at:
            _refuse_call(sub, where, appends_to, pure_calls, math_calls, tolist, calls_allowed)
        for target in _targets(sub):
            if isinstance(target, (ast.Name, ast.Tuple)) or (subscript_writes and isinstance(target, ast.Subscript)):
                continue
            raise NotApplicable(f"{where}: side effect: the loop writes `{ast.unparse(target)}`")


def _refuse_call(call: ast.Call, where: str, appends_to: set[str], pure_calls: set[str], math_calls: bool,
                 tolist: bool, calls_allowed: str) -> None:
    name = dotted(call.func)
    if is_random_call(name):
        raise NotApplicable(f"{where}: random draw {name}() inside the loop; vectorising would change "
                            "the order of draws")
    if isinstance(call.func, ast.Attribute):
        if call.func.attr == "append" and name.split(".")[0] in appends_to:
            return
        if tolist and call.func.attr == "tolist" and not call.args:
            return
        if tolist and call.func.attr in ("index", "count") and len(call.args) == 1 and not call.keywords:
            return  # list.index: the translator rewrites it on rows of the loop's values only, else refuses
    if name in pure_calls or (math_calls and name.startswith("math.") and name[5:] in MATH_NAMES):
        return
    if math_calls and name in BISECT_CALLS and len(call.args) == 2 and not call.keywords:
        return  # the translator rewrites a search of a fixed sorted list, and refuses any other
    if isinstance(call.func, ast.Name) and name in ("range", "zip", "enumerate"):
        return
    raise NotApplicable(f"{where}: call to {name or ast.unparse(call.func)}() inside the loop may have "
                        f"side effects; {calls_allowed}")


def _targets(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    return []
