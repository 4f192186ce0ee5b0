"""Model-side codemods for compute-dominated steps: torch.compile, optimizer flags, zero_grad, threads.

Each finds its call site with libcst in the target's Python files (or a switch in its
config) and changes one thing; see tools/change/codemods/README.md for how each is verified.
"""
from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
import torch
from libcst.metadata import MetadataWrapper, PositionProvider

from perfloop.tools.change.codemods import call_site as calls
from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable
from perfloop.tools.change.codemods.config_edit import (
    config_format,
    edit_config,
    find_key_paths,
    parse_config,
    value_at,
)
from perfloop.tools.change.codemods.hot_function import python_files

COMPILE_KEYS = ("compile", "torch_compile", "use_compile", "compile_model", "use_torch_compile")
# First compile on CPU takes tens of seconds (inductor: ~25 s for a 3-layer MLP on a 2-core
# VM; 30-120 s is the usual range); verification measures the real cost.
DEFAULT_COMPILE_COST_S = 60.0
OPTIMIZERS = ("Adam", "AdamW", "SGD", "Adagrad", "RMSprop", "Adamax", "NAdam", "RAdam", "Adadelta")
_EMPTY = cst.Module(body=[])


def _code(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


def _line(module: cst.Module, node: cst.CSTNode) -> int:
    """1-based line where `node` (a node of `module`) starts."""
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)[node].start.line


def _parse(root: Path, rel: str) -> cst.Module | None:
    try:
        return cst.parse_module((Path(root) / rel).read_text())
    except (cst.ParserSyntaxError, UnicodeDecodeError):
        return None


# torch.compile ----------------------------------------------------------------------
def enable_torch_compile(ctx: CodemodContext) -> CodemodResult:
    """Turn on the config's compile switch, else wrap the trained model in torch.compile."""
    backend, mode = ctx.params.get("backend"), ctx.params.get("mode")
    for value, name in ((backend, "backend"), (mode, "mode")):
        if value is not None and not isinstance(value, str):
            raise ValueError(f"enable_torch_compile: params {name} must be a string, got {value!r}")
    cost = float(ctx.params.get("compile_cost_s", DEFAULT_COMPILE_COST_S))
    files = python_files(ctx.root)
    reads_compile = any("torch.compile" in (ctx.root / f).read_text() for f in files)
    if reads_compile:
        switched = _flip_config_switch(ctx, files)
        if switched is not None:
            return switched.model_copy(update={"one_off_cost_s": cost})
    return _wrap_model(ctx, files, backend, mode).model_copy(update={"one_off_cost_s": cost})


def _flip_config_switch(ctx: CodemodContext, files: list[str]) -> CodemodResult | None:
    """Set a False compile-like key to true in the YAML/JSON/TOML config or a `key = value` .py config."""
    if ctx.config_path and not ctx.config_path.endswith(".py"):
        fmt = config_format(ctx.config_path)
        text = (ctx.root / ctx.config_path).read_text()
        data = parse_config(text, fmt, ctx.config_path)
        for key in COMPILE_KEYS:
            for path in find_key_paths(data, key):
                current = value_at(data, path)
                if current is True:
                    raise NotApplicable(f"{'.'.join(map(str, path))} in {ctx.config_path} is already true")
                if current is False:
                    edit = edit_config(text, fmt, path, True)
                    note = edit.note(ctx.config_path)
                    return CodemodResult(files={ctx.config_path: edit.text}, knob="torch.compile",
                                         summary=f"torch.compile on: {'.'.join(map(str, path))} false → true "
                                                 f"in {ctx.config_path}", notes=[note] if note else [],
                                         old_value=False, new_value=True, location=f"{ctx.config_path}:{edit.line}")
    py_configs = [f for f in files if f == ctx.config_path or re.search(r"(^|/)(configs?/|config[^/]*\.py$)", f)]
    for rel in py_configs:
        module = _parse(ctx.root, rel)
        if module is None:
            continue
        for statement in module.body:
            small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
            if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                    and isinstance(small.targets[0].target, cst.Name) \
                    and small.targets[0].target.value in COMPILE_KEYS and isinstance(small.value, cst.Name):
                key = small.targets[0].target.value
                if small.value.value == "True":
                    raise NotApplicable(f"{key} in {rel} is already True")
                if small.value.value == "False":
                    new = module.deep_replace(small.value, cst.Name("True")).code
                    line = _line(module, statement)
                    return CodemodResult(files={rel: new}, knob="torch.compile",
                                         summary=f"torch.compile on: {key} = False → True in {rel}",
                                         old_value=False, new_value=True, location=f"{rel}:{line}")
    return None


def _wrap_model(ctx: CodemodContext, files: list[str], backend: str | None, mode: str | None) -> CodemodResult:
    """Insert `model = torch.compile(model)` after the statement that builds the optimized model."""
    reasons = []
    for rel in files:
        module = _parse(ctx.root, rel)
        if module is None:
            continue
        finder = _ModelFinder()
        module.visit(finder)
        if not finder.models:
            continue
        name, block = finder.models[0]
        if f"torch.compile({name}" in module.code:
            raise NotApplicable(f"{name} is already passed to torch.compile in {rel}")
        if not finder.called(name):
            reasons.append(f"{rel}: {name} feeds the optimizer but is never called as {name}(...)")
            continue
        kwargs = "".join(f", {k}={v!r}" for k, v in (("backend", backend), ("mode", mode)) if v is not None)
        wrap = cst.parse_statement(f"{name} = torch.compile({name}{kwargs})\n")
        edited = module.visit(_InsertAfter(block, name, wrap))
        if edited.code == module.code:
            reasons.append(f"{rel}: no `{name} = ...` before the optimizer is built")
            continue
        code = edited.code if re.search(r"^import torch$", edited.code, re.M) else "import torch\n" + edited.code
        line = code.splitlines().index(next(l for l in code.splitlines() if l.strip() == _code(wrap).strip())) + 1
        return CodemodResult(files={rel: code}, knob="torch.compile",
                             summary=f"wrap {name} in torch.compile{f' ({kwargs[2:]})' if kwargs else ''} "
                                     f"after it is built in {rel}",
                             old_value="eager", new_value="torch.compile", location=f"{rel}:{line}")
    raise NotApplicable("no model to wrap: " + ("; ".join(reasons) or
                        "no `torch.optim.X(model.parameters(), ...)` call names a model variable"))


class _ModelFinder(cst.CSTVisitor):
    """Find `Optimizer(<name>.parameters(), ...)` and the statement block it sits in."""

    def __init__(self) -> None:
        self.models: list[tuple[str, object]] = []
        self.blocks: list[object] = []
        self.calls: set[str] = set()

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.blocks.append(node)

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.blocks.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self.calls.add(node.func.value)
        if _callee(node.func) in OPTIMIZERS and node.args:
            first = node.args[0].value
            if isinstance(first, cst.Call) and isinstance(first.func, cst.Attribute) \
                    and first.func.attr.value in ("parameters", "named_parameters") \
                    and isinstance(first.func.value, cst.Name):
                self.models.append((first.func.value.value, self.blocks[-1] if self.blocks else None))

    def called(self, name: str) -> bool:
        return name in self.calls


class _InsertAfter(cst.CSTTransformer):
    """Insert `wrap` after the last `name = ...` statement that precedes the optimizer in `block`."""

    def __init__(self, block: object, name: str, wrap: cst.BaseStatement) -> None:
        self.block, self.name, self.wrap = block, name, wrap

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        if original is not self.block:
            return updated
        return updated.with_changes(body=self._insert(list(updated.body)))

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if self.block is not None:
            return updated
        return updated.with_changes(body=self._insert(list(updated.body)))

    def _insert(self, body: list) -> list:
        position = None
        for i, statement in enumerate(body):
            text = _code(statement)
            if re.search(rf"\b{re.escape(self.name)}\s*\.\s*(named_)?parameters\(", text):
                break
            small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
            if isinstance(small, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                if any(isinstance(t, cst.Name) and t.value == self.name for t in targets):
                    position = i
        if position is None:
            return body
        return body[: position + 1] + [self.wrap] + body[position + 1:]


def _callee(func: cst.BaseExpression) -> str:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return ""


# optimizer flags, zero_grad, threads -------------------------------------------------
def set_optimizer_flag(ctx: CodemodContext) -> CodemodResult:
    """Pass fused=True or foreach=True to the torch.optim optimizer (one multi-tensor kernel per step)."""
    flag = ctx.params.get("flag")
    if flag not in ("fused", "foreach"):
        raise ValueError(f'set_optimizer_flag: params flag must be "fused" or "foreach", got {flag!r}')
    for rel in python_files(ctx.root):
        module = _parse(ctx.root, rel)
        if module is None:
            continue
        found: list[cst.Call] = []

        class Collect(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                if _callee(node.func) in OPTIMIZERS and (isinstance(node.func, cst.Name) or "optim" in _code(node.func)):
                    found.append(node)

        module.visit(Collect())
        if not found:
            continue
        call = found[0]
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        other = "foreach" if flag == "fused" else "fused"
        if flag in keywords:
            raise NotApplicable(f"the optimizer in {rel} already passes {flag}={_code(keywords[flag].value)}")
        if other in keywords and _code(keywords[other].value) == "True":
            raise NotApplicable(f"the optimizer in {rel} passes {other}=True; fused and foreach exclude each other")
        if any(a.star == "**" for a in call.args):
            raise NotApplicable(f"the optimizer in {rel} takes **kwargs, which may already set {flag}")
        site = calls.CallSite(module, call, 0)
        new = calls.add_keyword(site, flag, True)
        line = _line(module, call)
        return CodemodResult(files={rel: new}, knob=flag, old_value=None, new_value=True,
                             summary=f"{_callee(call.func)}(..., {flag}=True) in {rel}", location=f"{rel}:{line}")
    raise NotApplicable(f"no torch.optim optimizer ({', '.join(OPTIMIZERS)}) is constructed in the target's files")


def set_zero_grad_to_none(ctx: CodemodContext) -> CodemodResult:
    """Make zero_grad free gradients instead of filling them with zeros."""
    for rel in python_files(ctx.root):
        module = _parse(ctx.root, rel)
        if module is None:
            continue
        hits: list[cst.Call] = []

        class Collect(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                if isinstance(node.func, cst.Attribute) and node.func.attr.value == "zero_grad":
                    hits.append(node)

        module.visit(Collect())
        for call in hits:
            explicit = [a for a in call.args if a.keyword is not None and a.keyword.value == "set_to_none"]
            if explicit and _code(explicit[0].value) == "False":
                new = module.deep_replace(explicit[0].value, cst.Name("True")).code
                line = _line(module, call)
                return CodemodResult(files={rel: new}, knob="set_to_none", old_value=False, new_value=True,
                                     summary=f"zero_grad(set_to_none=False → True) in {rel}",
                                     location=f"{rel}:{line}")
            if not call.args and int(torch.__version__.split(".")[0]) < 2:
                new = calls.add_keyword(calls.CallSite(module, call, 0), "set_to_none", True)
                line = _line(module, call)
                return CodemodResult(files={rel: new}, knob="set_to_none", old_value=False, new_value=True,
                                     summary=f"zero_grad(set_to_none=True) in {rel}", location=f"{rel}:{line}")
    raise NotApplicable(f"no zero_grad(set_to_none=False) to change; since torch 2.0 (this is "
                        f"{torch.__version__}) zero_grad() already sets gradients to None")


def set_intra_op_threads(ctx: CodemodContext) -> CodemodResult:
    """Cap torch's intra-op threads so workers + threads fit the cores (no oversubscription)."""
    workers, cpus = ctx.profile.num_workers, ctx.profile.cpu_count
    if not isinstance(workers, int) or not isinstance(cpus, int):
        raise NotApplicable(f"needs the profile's num_workers and cpu_count; got {workers!r} and {cpus!r}")
    if workers == 0:
        raise NotApplicable("no DataLoader workers compete with the training process's threads")
    threads = int(ctx.params.get("value", max(1, cpus - workers)))
    for rel in python_files(ctx.root):
        module = _parse(ctx.root, rel)
        if module is None:
            continue
        hits: list[cst.Call] = []

        class Collect(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                if _code(node.func) == "torch.set_num_threads" and len(node.args) == 1:
                    hits.append(node)

        module.visit(Collect())
        if hits:
            ok, current = calls.literal_value(hits[0].args[0].value)
            if not ok or not isinstance(current, int):
                raise NotApplicable(f"{rel} sets the thread count from an expression; change it by hand")
            if current + workers <= cpus or threads >= current:
                raise NotApplicable(f"{current} thread(s) + {workers} workers on {cpus} cores: "
                                    f"no fewer threads to set (would be {threads})")
            new = module.deep_replace(hits[0].args[0].value, cst.Integer(str(threads))).code
            line = _line(module, hits[0])
            return CodemodResult(files={rel: new}, knob="intra_op_threads", old_value=current, new_value=threads,
                                 summary=f"torch.set_num_threads({current} → {threads}) in {rel} "
                                         f"({workers} workers, {cpus} cores)", location=f"{rel}:{line}")
    if not ctx.sites:
        raise NotApplicable("no DataLoader site to put torch.set_num_threads before")
    site = ctx.sites[0]
    if torch.get_num_threads() + workers <= cpus:
        raise NotApplicable(f"torch's default {torch.get_num_threads()} threads + {workers} workers fit {cpus} cores")
    text = (ctx.root / site.file).read_text()
    wrapper = MetadataWrapper(cst.parse_module(text))
    statement = cst.parse_statement(f"torch.set_num_threads({threads})  # {workers} DataLoader workers share "
                                    f"{cpus} cores\n")
    inserter = _InsertBefore(wrapper.resolve(PositionProvider), site.line, statement)
    new = wrapper.module.visit(inserter).code
    if inserter.line is None:
        raise NotApplicable(f"no statement at {site.file}:{site.line} to put torch.set_num_threads before")
    index = inserter.line - 1
    return CodemodResult(files={site.file: new}, knob="intra_op_threads", old_value=torch.get_num_threads(),
                         new_value=threads, summary=f"torch.set_num_threads({threads}) before the DataLoader "
                                                    f"in {site.file} ({workers} workers, {cpus} cores)",
                         location=f"{site.file}:{index + 1}")


class _InsertBefore(cst.CSTTransformer):
    """Insert a statement before the simple statement that spans `line` (the DataLoader's)."""

    def __init__(self, positions, line: int, statement: cst.BaseStatement) -> None:
        self.positions, self.target, self.statement = positions, line, statement
        self.line: int | None = None

    def _visit_body(self, original, updated):
        body = list(updated.body)
        for i, (orig, _) in enumerate(zip(original.body, updated.body)):
            span = self.positions.get(orig)
            if self.line is None and isinstance(orig, cst.SimpleStatementLine) and span \
                    and span.start.line <= self.target <= span.end.line:
                self.line = span.start.line
                body.insert(i, self.statement)
                return updated.with_changes(body=body)
        return updated

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        return self._visit_body(original, updated)

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        return self._visit_body(original, updated)
