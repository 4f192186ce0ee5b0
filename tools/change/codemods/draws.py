"""One random draw per element, vectorised as one array draw of the loop's length (element-wise loops).

Per-sample augmentation often draws one number per value: `v + sigma * rng.standard_normal()` in a
loop over a channel, `[x * rng.uniform(0.9, 1.1) for x in row]`. numpy fills an array draw by calling
the same per-value routine in order, so `rng.standard_normal(size=n)` gives the n numbers that n scalar
calls give, and leaves the generator where they left it (numpy's Generator and its legacy
`np.random.*` functions, for the distributions in DRAWS; torch's `randn` does not: it draws arrays of 16
and more another way, and is never rewritten). The rewrite is taken only where that order is the
loop's order:

- exactly one draw call in the loop's body (two per element would interleave: a0 b0 a1 b1 ...);
- unconditional: not under an `if`, a conditional expression, `and`/`or`, a comprehension's filter or
  an inner loop, and the loop has no `continue` guard (every element draws once);
- the receiver (`rng`, `self.rng`, `np.random`) and the distribution's parameters do not change in
  the loop, and no size is given.

What the receiver is cannot be read from the code (Python's `random.Random` has `random()` and
`uniform()` too, without a size): replay runs both versions on captured calls from the same random
state before any pipeline run, so a receiver that takes no size raises there, and a draw that differs
shows as a changed value; verification then compares every batch.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.loop_checks import is_random_call
from perfloop.tools.change.codemods.loops import Val, dotted, names_loaded

# Distribution methods (numpy Generator and legacy np.random) and how many parameters they take before `size`.
DRAWS = {"random": 0, "random_sample": 0, "standard_normal": 0, "standard_exponential": 0, "normal": 2,
         "uniform": 2, "exponential": 1, "laplace": 2, "logistic": 2, "lognormal": 2, "gamma": 2, "beta": 2,
         "poisson": 1, "binomial": 2, "geometric": 1, "integers": 2, "randint": 2}
_LEGACY_DIMS = {"rand": 0, "randn": 0}  # np.random.rand(n): the length is positional
_MODULES = ("np.random", "numpy.random")
_BRANCHING = (ast.If, ast.IfExp, ast.BoolOp, ast.For, ast.While, ast.comprehension, ast.Lambda, ast.Try,
              ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)


def is_draw(call: ast.AST) -> bool:
    """A scalar draw the rewrite knows: a distribution method of a receiver, without a size."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return False
    method, receiver = call.func.attr, dotted(call.func.value)
    params = DRAWS.get(method, _LEGACY_DIMS.get(method) if receiver in _MODULES else None)
    if params is None or any(k.arg in ("size", None) for k in call.keywords) or len(call.args) > params:
        return False
    return not any(isinstance(a, ast.Starred) for a in call.args)


def sole_draw(loop: ast.AST, body: list[ast.AST]) -> ast.Call | None:
    """The loop's one unconditional draw per element (see the module's rules), else None.

    `body` is what runs per element: a `for` loop's statements, or a comprehension's element expression."""
    draws = [n for part in body for n in ast.walk(part) if isinstance(n, ast.Call) and is_random_call(dotted(n.func))]
    if len(draws) != 1 or not is_draw(draws[0]):
        return None
    if any(isinstance(n, ast.Continue) for part in body for n in ast.walk(part)):
        return None
    parents = {id(child): node for part in body for node in ast.walk(part) for child in ast.iter_child_nodes(node)}
    node = draws[0]
    while id(node) in parents:
        node = parents[id(node)]
        if isinstance(node, _BRANCHING):
            return None
    bound = {n.id for n in ast.walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if names_loaded(draws[0].func.value) & bound or any(names_loaded(a) & bound for a in draws[0].args):
        return None
    return draws[0]


def array_draw(call: ast.Call, axis: str, name: str) -> tuple[str, Val]:
    """(the line drawing every element's number at once into `name`, its value along the loop's axis)."""
    receiver, method = ast.unparse(call.func.value), call.func.attr
    args = [ast.unparse(a) for a in call.args] + [f"{k.arg}={ast.unparse(k.value)}" for k in call.keywords]
    if method in _LEGACY_DIMS and dotted(call.func.value) in _MODULES:
        line = f"{name} = {receiver}.{method}(len({axis}))"
    else:
        line = f"{name} = {receiver}.{method}({', '.join(args + [f'size=len({axis})'])})"
    return line, Val(name, 1)


__all__ = ["DRAWS", "array_draw", "is_draw", "sole_draw"]
