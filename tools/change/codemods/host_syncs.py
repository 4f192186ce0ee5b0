"""Per-step host syncs taken off the step: `acc += loss.item()` sums and `xs.append(v.item())` lists kept on
the device and read back once after the loop (``defer_host_syncs``), with numbers that add exactly as
Python's did. See this folder's README for the rules and the refusals.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from perfloop.tools.change.codemods import call_site as calls
from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable
from perfloop.tools.change.codemods.hot_function import python_files
from perfloop.tools.change.codemods.imports import add_import
from perfloop.tools.change.codemods.training_step import (
    Source,
    after_imports,
    code_of,
    one_step,
    require_cuda,
    walk,
)

# host syncs -----------------------------------------------------------------------------------
ON_DEVICE_HELPERS = '''

def _on_device(value, as_float=False):
    """`value.item()` without waiting for the GPU: a 0-dim tensor that adds like the number .item() returns
    (float64 for floating values, int64 for integers), read back once with _to_host."""
    if not isinstance(value, torch.Tensor):
        return float(value) if as_float else value.item()
    if value.numel() != 1:
        raise RuntimeError(f"a Tensor with {value.numel()} elements cannot be converted to Scalar")
    value = value.detach().reshape(())
    return value.double() if as_float or value.is_floating_point() else value.long()


def _to_host(value):
    """The Python number an accumulator built with _on_device holds."""
    return value.item() if isinstance(value, torch.Tensor) else value
'''


@dataclass
class _Sync:
    """One per-step read of a device value that the rewrite defers."""

    statement: cst.SimpleStatementLine
    name: str
    kind: str  # "sum" (acc += v.item()) or "list" (xs.append(v.item()))
    new: cst.SimpleStatementLine


def defer_host_syncs(ctx: CodemodContext) -> CodemodResult:
    """Per-step `.item()`/`float(loss)` reads that only feed an accumulator or a list become device values,
    read back once after the loop: the printed and returned numbers stay bit for bit the same."""
    files = python_files(ctx.root)
    require_cuda(ctx, files, "defer_host_syncs", "reading a value with .item() does not wait for a device")
    step = one_step(ctx, files, "defer_host_syncs")
    if step.loop is None:
        raise NotApplicable(f"defer_host_syncs: no loop around the training step in {step.src.rel}")
    src, loop = step.src, step.loop
    if walk(loop.body, (cst.Return, cst.Yield), into_defs=False):
        raise NotApplicable(f"defer_host_syncs: the loop at {src.rel}:{src.line(loop)} returns or yields from "
                            "inside, so a read-back after it could be skipped")
    syncs, refused = [], []
    for statement in walk(loop.body, cst.SimpleStatementLine, into_defs=False):
        if not _reads(statement, step.loss):
            continue
        found = _deferrable(src, loop, statement, step.loss)
        if isinstance(found, str):
            if found:
                refused.append(found)
        else:
            syncs.append(found)
    if not syncs:
        why = "; ".join(refused) if refused else "no per-step .item() or float(loss) in the loop feeds an " \
                                                 "accumulator or a list"
        raise NotApplicable(f"defer_host_syncs: nothing to defer in the loop at {src.rel}:{src.line(loop)}: {why}")
    replace = {s.statement: s.new for s in syncs}
    names = []
    for sync in syncs:
        if sync.name not in names:
            names.append(sync.name)
    after = [cst.parse_statement(f"{n} = _to_host({n})\n") if kind == "sum" else
             cst.parse_statement(f"{n}[:] = [_to_host(v) for v in {n}]\n")
             for n, kind in ((n, next(s.kind for s in syncs if s.name == n)) for n in names)]
    after[0] = after[0].with_changes(leading_lines=[cst.EmptyLine(comment=cst.Comment(
        "# one read of the device values after the loop, instead of one wait per step"))])

    class Rewrite(cst.CSTTransformer):
        def leave_SimpleStatementLine(self, original, updated):
            return replace.get(original, updated)

        def _after_loop(self, original, updated):
            body = list(updated.body)
            for i, (orig, _) in enumerate(zip(original.body, updated.body)):
                if orig is loop:
                    return updated.with_changes(body=body[:i + 1] + after + body[i + 1:])
            return updated

        def leave_IndentedBlock(self, original, updated):
            return self._after_loop(original, updated)

        def leave_Module(self, original, updated):
            return self._after_loop(original, updated)

    code = src.module.visit(Rewrite()).code
    code = _add_helpers(code)
    lines = sorted({src.line(s.statement) for s in syncs})
    notes = [f"left alone: {why}" for why in refused]
    return CodemodResult(
        files={src.rel: add_import(code, "torch")}, knob="host_syncs", old_value=len(syncs), new_value=0,
        summary=f"{len(syncs)} per-step device read(s) ({', '.join(names)}) kept on the device and read back once "
                f"after the loop in {src.rel} (line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})",
        location=f"{src.rel}:{lines[0]}",
        notes=notes + ["sums are kept as float64 (int64 for integer values) device tensors, so they add exactly as "
                       "the Python numbers did; lists hold device tensors until the loop ends"])


def _deferrable(src: Source, loop: cst.CSTNode, statement: cst.SimpleStatementLine, loss: str) -> _Sync | str:
    """The rewrite of one statement, or why it is left alone ("" for statements that are not reads)."""
    small = statement.body[0] if len(statement.body) == 1 else None
    line = src.line(statement)
    if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) \
            and isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)):
        name, value = small.target.value, small.value
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) \
            and isinstance(small.value.func, cst.Attribute) and small.value.func.attr.value == "append" \
            and isinstance(small.value.func.value, cst.Name) and len(small.value.args) == 1:
        name, value = small.value.func.value.value, small.value.args[0].value
        reads = _reads(value, loss)
        if not reads or not _is_read(value, loss):
            return f"line {line}: `{code_of(statement).strip()}` appends more than one device read"
        if _used_elsewhere(loop, name, statement):
            return f"line {line}: the list {name} is also used inside the loop"
        new_value = cst.parse_expression(_on_device_call(value, as_float=False))
        new = statement.with_changes(body=[small.with_changes(value=small.value.with_changes(
            args=[small.value.args[0].with_changes(value=new_value)]))])
        return _Sync(statement, name, "list", new)
    else:
        return f"line {line}: `{code_of(statement).strip()}` reads a device value for something other than a sum or " \
               "a list (printing or branching on it needs the value now)"
    init = _initial_literal(src, loop, name)
    if init is None:
        return f"line {line}: {name} does not start from a number literal before the loop"
    if _used_elsewhere(loop, name, statement):
        return f"line {line}: {name} is also read or set elsewhere in the loop"
    if _is_read(value, loss):
        new_value = cst.parse_expression(_on_device_call(value, as_float=isinstance(init, float)))
    else:
        if not isinstance(init, float):
            return (f"line {line}: {name} starts as an int and `{code_of(value)}` combines a device read with other "
                    "values, whose int or float type cannot be told from the code")
        if not _arithmetic_only(value, loss):
            return f"line {line}: `{code_of(value)}` is not + - * / of device reads and plain numbers"
        new_value = _replace_reads(value, loss)
    new = statement.with_changes(body=[small.with_changes(value=new_value)])
    return _Sync(statement, name, "sum", new)


def _is_read(node: cst.BaseExpression, loss: str) -> bool:
    """`x.item()` or `float(<loss>)`."""
    if not isinstance(node, cst.Call):
        return False
    if isinstance(node.func, cst.Attribute) and node.func.attr.value == "item" and not node.args:
        return True
    return code_of(node.func) == "float" and len(node.args) == 1 and code_of(node.args[0].value).split(".")[0] == loss


def _reads(node: cst.CSTNode, loss: str) -> list[cst.Call]:
    return [c for c in walk(node, cst.Call) if _is_read(c, loss)]


def _on_device_call(read: cst.Call, as_float: bool) -> str:
    inner = code_of(read.func.value) if isinstance(read.func, cst.Attribute) else code_of(read.args[0].value)
    as_float = as_float or code_of(read.func) == "float"
    return f"_on_device({inner}{', as_float=True' if as_float else ''})"


def _replace_reads(node: cst.BaseExpression, loss: str) -> cst.BaseExpression:
    class Swap(cst.CSTTransformer):
        def leave_Call(self, original, updated):
            if _is_read(original, loss):
                return cst.parse_expression(_on_device_call(original, as_float=True))
            return updated

    return node.visit(Swap())


def _arithmetic_only(node: cst.BaseExpression, loss: str) -> bool:
    """Only + - * / between device reads, names, attributes, constants and len()/.size() calls."""
    if _is_read(node, loss):
        return True
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)) \
            and _arithmetic_only(node.left, loss) and _arithmetic_only(node.right, loss)
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.Attribute)):
        return not _reads(node, loss)
    if isinstance(node, cst.Call):
        text = code_of(node.func)
        return (text == "len" or text.endswith(".size")) and not _reads(node, loss)
    return False


def _initial_literal(src: Source, loop: cst.CSTNode, name: str) -> int | float | None:
    """The number `name` is set to before the loop, in the loop's block or an enclosing one."""
    child = loop
    for parent in src.ancestors(loop):
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef)):
            break
        if not isinstance(parent, (cst.IndentedBlock, cst.Module)):
            child = parent
            continue
        body = list(parent.body)
        at = next((i for i, s in enumerate(body) if s is child), len(body))
        for statement in reversed(body[:at]):
            small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
            if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                    and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name:
                ok, value = calls.literal_value(small.value)
                return value if ok and type(value) in (int, float) else None
        child = parent
    return None


def _used_elsewhere(loop: cst.CSTNode, name: str, statement: cst.CSTNode) -> bool:
    """Whether `name` appears in the loop (header included) outside `statement`."""
    others = [n for n in walk(loop, cst.Name) if n.value == name]
    mine = [n for n in walk(statement, cst.Name) if n.value == name]
    return len(others) > len(mine)


def _add_helpers(code: str) -> str:
    """Put `_on_device` and `_to_host` after the module's imports (once)."""
    if "def _on_device(" in code:
        return code
    module = cst.parse_module(code)
    body = list(module.body)
    at = after_imports(body)
    helpers = list(cst.parse_module(ON_DEVICE_HELPERS).body)
    helpers[0] = helpers[0].with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
    if at < len(body):
        body[at] = body[at].with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine(),
                                                        *[ln for ln in body[at].leading_lines if ln.comment]])
    return module.with_changes(body=body[:at] + helpers + body[at:]).code
