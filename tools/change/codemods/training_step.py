"""The training step of a target, as the GPU codemods find it, and what they share.

The step is found from its ``<loss>.backward()`` call (or ``scaler.scale(<loss>).backward()``): the
statement block that holds it (a loop body or the step function's body) is where forward and loss
are, and the innermost loop around it (or around the call of the step function) is the per-step
loop. ``require_cuda`` is the refusal every GPU codemod makes on code that never names a ``cuda``
device.
"""
from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from perfloop.tools.change.codemods import call_site as calls
from perfloop.tools.change.codemods.base import CodemodContext, NotApplicable

_EMPTY = cst.Module(body=[])


def code_of(node: cst.CSTNode) -> str:
    """The source text of one node."""
    return _EMPTY.code_for_node(node)


def mentions_cuda(text: str) -> bool:
    """Whether the code (not its comments) names a CUDA device: a `cuda` name, attribute or string."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.NAME, tokenize.STRING) and re.search(r"\bcuda\b", token.string):
                return True
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return "cuda" in text
    return False


def require_cuda(ctx: CodemodContext, files: list[str], remedy: str, why: str) -> None:
    """NotApplicable unless some target file names a CUDA device (the CPU-only refusal)."""
    if any(mentions_cuda((ctx.root / rel).read_text(errors="replace")) for rel in files):
        return
    shown = ", ".join(files[:4]) + (f" and {len(files) - 4} more" if len(files) > 4 else "")
    raise NotApplicable(f"{remedy}: no `cuda` device in the target's code ({shown or 'no Python files'}): "
                        f"this pipeline runs on the CPU, where {why}")


@dataclass
class Source:
    """One parsed file, with the parent and position of every node (the nodes of `module`)."""

    rel: str
    module: cst.Module
    parents: dict
    positions: dict

    @classmethod
    def read(cls, root: Path, rel: str, text: str | None = None) -> Source | None:
        try:
            module = cst.parse_module((Path(root) / rel).read_text() if text is None else text)
        except (cst.ParserSyntaxError, UnicodeDecodeError):
            return None
        wrapper = MetadataWrapper(module)
        return cls(rel, wrapper.module, wrapper.resolve(ParentNodeProvider), wrapper.resolve(PositionProvider))

    def line(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    def ancestors(self, node: cst.CSTNode):
        while node in self.parents:
            node = self.parents[node]
            yield node

    def statement_of(self, node: cst.CSTNode) -> cst.SimpleStatementLine | None:
        return next((a for a in [node, *self.ancestors(node)] if isinstance(a, cst.SimpleStatementLine)), None)


def walk(node: cst.CSTNode, kind: type | tuple, into_defs: bool = True) -> list:
    """Every node of `kind` under `node` (nested function and class bodies too unless into_defs is False)."""
    found: list = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if isinstance(n, kind):
                found.append(n)
            return into_defs or n is node or not isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda))

    node.visit(Collect())
    return found


@dataclass
class Step:
    """The training step of one file: where `loss.backward()` is, its block, its loop."""

    src: Source
    backward: cst.SimpleStatementLine
    """The statement calling `<loss>.backward()`."""
    loss: str
    block: cst.IndentedBlock | cst.Module
    """The block holding that statement: a loop body, or the step function's body."""
    function: cst.FunctionDef | None
    """The step function, when the statement is in one (a trainer class's `train_step`)."""
    loop: cst.For | cst.While | None
    """The innermost loop around the step, or around the call of the step function."""

    @property
    def step_function(self) -> cst.FunctionDef | None:
        """The function holding the step when the loop is outside it (`for b in loader: self.train_step(b)`)."""
        if self.function is not None and (self.loop is None or self.function not in self.src.ancestors(self.loop)):
            return self.function
        return None

    def scopes(self) -> list[cst.CSTNode]:
        """The per-step code: the loop's body, and the step function's body when it has one."""
        out: list[cst.CSTNode] = [self.loop.body] if self.loop is not None else []
        if self.step_function is not None:
            out.append(self.step_function.body)
        return out


def find_steps(root: Path, files: list[str], texts: dict[str, str] | None = None) -> list[Step]:
    """Every file's training step, in file order (a file may have none)."""
    steps = []
    for rel in files:
        src = Source.read(root, rel, (texts or {}).get(rel))
        if src is None:
            continue
        step = step_of(src)
        if step is not None:
            steps.append(step)
    return steps


def step_of(src: Source) -> Step | None:
    for call in walk(src.module, cst.Call):
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "backward"):
            continue
        loss = _backward_receiver(func.value)
        if loss is None:
            continue
        statement = src.statement_of(call)
        if statement is None or src.parents.get(statement) is None:
            continue
        block = src.parents[statement]
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            continue
        function = next((a for a in src.ancestors(statement) if isinstance(a, cst.FunctionDef)), None)
        loop = None
        for parent in src.ancestors(statement):
            if parent is function:
                break
            if isinstance(parent, (cst.For, cst.While)):
                loop = parent
                break
        if loop is None and function is not None:
            loop = _loop_calling(src, function.name.value)
        return Step(src, statement, loss, block, function, loop)
    return None


def _backward_receiver(value: cst.BaseExpression) -> str | None:
    """The loss name of `loss.backward()` or `scaler.scale(loss).backward()` (AMP's GradScaler)."""
    if isinstance(value, cst.Name):
        return value.value
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "scale" \
            and len(value.args) == 1 and isinstance(value.args[0].value, cst.Name):
        return value.args[0].value.value
    return None


def _loop_calling(src: Source, name: str) -> cst.For | cst.While | None:
    """The innermost loop of the file whose body calls `name(...)` or `<x>.name(...)`."""
    best = None
    for call in walk(src.module, cst.Call):
        callee = call.func.value if isinstance(call.func, cst.Name) else (
            call.func.attr.value if isinstance(call.func, cst.Attribute) else None)
        if callee != name:
            continue
        loop = next((a for a in src.ancestors(call) if isinstance(a, (cst.For, cst.While))), None)
        if loop is not None and (best is None or best in src.ancestors(loop)):
            best = loop
    return best


def one_step(ctx: CodemodContext, files: list[str], remedy: str, texts: dict[str, str] | None = None) -> Step:
    steps = find_steps(ctx.root, files, texts)
    if not steps:
        raise NotApplicable(f"{remedy}: no training step found: no `<loss>.backward()` call in the target's files")
    return steps[0]


def framework_call(root: Path, files: list[str], names: tuple[str, ...],
                    module_hint: str) -> tuple[calls.CallSite, str] | None:
    """The first call of a class in `names` in a file that imports `module_hint` (Lightning's Trainer,
    transformers' TrainingArguments), as a CallSite."""
    for rel in files:
        text = (Path(root) / rel).read_text(errors="replace")
        if not re.search(rf"^\s*(import|from)\s+{module_hint}", text, re.M):
            continue
        src = Source.read(root, rel)
        if src is None:
            continue
        for call in walk(src.module, cst.Call):
            callee = call.func.value if isinstance(call.func, cst.Name) else (
                call.func.attr.value if isinstance(call.func, cst.Attribute) else "")
            if callee in names:
                return calls.CallSite(src.module, call, src.line(call)), rel
    return None


def keyword_arg(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def is_docstring(statement: cst.CSTNode) -> bool:
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
    return isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))


def after_imports(body: list) -> int:
    """Index in a module's statements just past its docstring and its top-level imports."""
    at = 0
    for i, statement in enumerate(body):
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
        if isinstance(small, (cst.Import, cst.ImportFrom)) or (i == 0 and is_docstring(statement)):
            at = i + 1
    return at
