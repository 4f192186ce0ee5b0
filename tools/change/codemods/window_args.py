"""What a window reduction reduces (`windows.py`): the reduction calls the window rewrite takes (`reduction`), the
element-wise arithmetic on a window it repeats once on the whole array (`window_arg`, `applied`), and the reductions
it does not take, so that its refusal can say which (`unrepeatable`).
"""
from __future__ import annotations

import ast
import copy

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.loops import name_apart, names_loaded

_REDUCTIONS = {"np.max": "max", "np.amax": "max", "numpy.max": "max", "numpy.amax": "max", "np.min": "min",
               "np.amin": "min", "numpy.min": "min", "numpy.amin": "min", "np.sum": "sum", "numpy.sum": "sum",
               "np.mean": "mean", "numpy.mean": "mean"}


def reduction(node: ast.AST, names_too: bool = False) -> tuple[str, bool, ast.expr, ast.expr] | None:
    """(op, builtin, the sliced subscript, what is reduced) for `np.max(e)`, `e.max()` or `max(e)` (max, min, and for
    numpy's own, sum and mean), for `s.size` (op "size"), the builtin `sum(s)` ("seqsum") and `len(s)` ("len"),
    where `e` is a sliced subscript `s` or element-wise arithmetic on one (`window_arg`); `names_too`: a name may
    stand for the subscript (bound to one first)."""
    if isinstance(node, ast.Attribute) and node.attr == "size" and isinstance(node.ctx, ast.Load):
        sub = sliced(node.value, False)  # a count alone is no reason to try windows: of a slice only
        return ("size", False, sub, sub) if sub is not None else None
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in ("max", "min", "sum", "mean") and not node.args:
        arg, op, builtin = func.value, func.attr, False
    elif len(node.args) == 1 and ast.unparse(func) in _REDUCTIONS:
        arg, op, builtin = node.args[0], _REDUCTIONS[ast.unparse(func)], False
    elif len(node.args) == 1 and isinstance(func, ast.Name) and func.id in ("max", "min"):
        arg, op, builtin = node.args[0], func.id, True
    elif len(node.args) == 1 and isinstance(func, ast.Name) and func.id in ("sum", "len"):
        # the builtin sum adds left to right from 0; len counts one axis: of the window itself only
        sub = sliced(node.args[0], names_too and func.id == "sum")
        return ("seqsum" if func.id == "sum" else "len", False, sub, sub) if sub is not None else None
    else:
        return None
    sub = window_arg(arg, names_too)
    return (op, builtin, sub, arg) if sub is not None else None


def applied(arg: ast.expr, sub: ast.expr, stored: set[str], taken: set[str], where: str) -> str:
    """`_window_reduce`'s options for element-wise arithmetic `arg` on the window `sub`: a lambda doing it to the
    whole array, and the values it reads that are not windows (which must be numbers the nest does not change)."""
    var = name_apart("v", taken | names_loaded(arg))
    scalars = []

    class Swap(ast.NodeTransformer):
        def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
            return ast.Name(id=var, ctx=ast.Load()) if ast.dump(node) == ast.dump(sub) else node

    body = Swap().visit(copy.deepcopy(arg))
    for node in ast.walk(body):
        operands = [node.left, node.right] if isinstance(node, ast.BinOp) else [node.operand] \
            if isinstance(node, ast.UnaryOp) else node.args if isinstance(node, ast.Call) \
            and not (isinstance(node.func, ast.Attribute) and node.func.attr == "astype") else []
        for operand in operands:
            if isinstance(operand, (ast.Name, ast.Attribute)) and ast.unparse(operand) != var:
                scalars.append(ast.unparse(operand))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "astype":
            if names_loaded(node.args[0]) & stored:
                raise NotApplicable(f"{where}: `{ast.unparse(node.args[0])}` changes inside the loop")
    if (names_loaded(body) - {var}) & stored:
        raise NotApplicable(f"{where}: `{ast.unparse(arg)}` reads a value that changes inside the loop")
    listed = ", ".join(dict.fromkeys(scalars))
    return f", apply=lambda {var}: {ast.unparse(body)}, scalars=({listed}{',' if len(scalars) == 1 else ''})"


def unrepeatable(node: ast.AST) -> bool:
    """A max, min, sum or mean of something holding a sliced subscript that `_reduction` does not take."""
    if reduction(node) is not None or not isinstance(node, ast.Call):
        return False
    func = node.func
    arg = func.value if isinstance(func, ast.Attribute) and func.attr in ("max", "min", "sum", "mean") \
        and not node.args else node.args[0] if len(node.args) == 1 and ast.unparse(func) in _REDUCTIONS else None
    return arg is not None and any(sliced(sub, False) is not None for sub in ast.walk(arg))


def sliced(node: ast.AST, names_too: bool) -> ast.expr | None:
    if names_too and isinstance(node, ast.Name):
        return node
    if not isinstance(node, ast.Subscript):
        return None
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return node if any(isinstance(p, ast.Slice) for p in parts) else None


_ELEMENTWISE = {"np.abs", "np.absolute", "np.square", "np.sqrt", "numpy.abs", "numpy.absolute", "numpy.square",
                "numpy.sqrt", "abs"}
"""Calls on a window that give each of its values on its own, the same wherever the value sits in an array (IEEE
arithmetic and square roots; numpy's exp or log may round a value by its place in a SIMD block)."""


def window_arg(arg: ast.expr, names_too: bool) -> ast.expr | None:
    """The one sliced subscript (or name) `arg` reduces: `arg` itself, or element-wise arithmetic on it (`+ - *`, a
    square or other non-negative integer power, a division by a non-zero number, `abs`/`np.abs`/`np.square`/
    `np.sqrt`, `.astype(...)`) with values that are not windows; None for anything else."""
    whole = sliced(arg, names_too)
    if whole is not None:
        return whole
    found: list[ast.expr] = []

    def leaf(node: ast.expr) -> bool:
        sub = sliced(node, names_too)
        if sub is not None:
            found.append(sub)
            return True
        if isinstance(node, ast.Constant):
            return type(node.value) in (int, float, bool)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow):
                return leaf(node.left) and isinstance(node.right, ast.Constant) and type(node.right.value) is int \
                    and node.right.value >= 0
            if isinstance(node.op, ast.Div):
                return leaf(node.left) and isinstance(node.right, ast.Constant) \
                    and type(node.right.value) in (int, float) and node.right.value != 0
            return isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)) and leaf(node.left) and leaf(node.right)
        if isinstance(node, ast.UnaryOp):
            return isinstance(node.op, (ast.USub, ast.UAdd)) and leaf(node.operand)
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "astype" and len(node.args) == 1 \
                    and not node.keywords:
                return leaf(node.func.value) and not any(sliced(n, names_too) for n in ast.walk(node.args[0]))
            return ast.unparse(node.func) in _ELEMENTWISE and len(node.args) == 1 and not node.keywords \
                and leaf(node.args[0])
        # a value that is not a window: checked to be one number when the rewrite runs
        return isinstance(node, (ast.Name, ast.Attribute)) and not any(isinstance(n, ast.Call) for n in ast.walk(node))

    if not leaf(arg) or not found or (not names_too and len({ast.unparse(sub) for sub in found}) != 1):
        return None
    return found[0]
