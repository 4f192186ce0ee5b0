"""GPU codemods: TF32, bf16 autocast, pinned non-blocking copies (host syncs: host_syncs.py).

Each finds its site with libcst in the target's own Python files, whichever way the step is
written: a plain loop, a method of a trainer class that the loop calls, a Lightning ``Trainer`` or
Hugging Face ``TrainingArguments`` where the framework has its own switch. Each refuses, saying why,
on a pipeline whose code never names a ``cuda`` device: these remedies change nothing that matters
on a CPU (and the knowledge base proposes them only on a CUDA profile).

The training step is found by training_step.py. See this folder's README for what each edit does
and how verification judges it.
"""
from __future__ import annotations

import re
from pathlib import Path

import libcst as cst

from perfloop.tools.change.codemods import call_site as calls
from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable
from perfloop.tools.change.codemods.dataloader import set_dataloader_option
from perfloop.tools.change.codemods.hot_function import python_files
from perfloop.tools.change.codemods.imports import add_import
from perfloop.tools.change.codemods.training_step import (
    Source,
    Step,
    after_imports,
    code_of,
    find_steps,
    framework_call,
    is_docstring,
    keyword_arg,
    one_step,
    require_cuda,
    walk,
)

TF32_CAPABILITY = 8.0
"""Compute capability from which tensor cores do TF32 and bfloat16 (Ampere)."""
_DTYPES = {"float", "double", "half", "bfloat16", "float16", "float32", "float64", "int", "long", "int64",
           "int32", "int8", "uint8", "bool", "short", "complex64"}


# TF32 -----------------------------------------------------------------------------------------
TF32_LINES = ('torch.set_float32_matmul_precision("high")  # TF32 tensor cores for float32 matmuls',
              "torch.backends.cudnn.allow_tf32 = True  # and for convolutions")


def allow_tf32(ctx: CodemodContext) -> CodemodResult:
    """Allow TF32 for float32 matmuls and convolutions, at the start of the training entry point."""
    files = python_files(ctx.root)
    require_cuda(ctx, files, "allow_tf32", "TF32 does not exist (float32 matmuls stay float32)")
    capability = ctx.profile.cuda_capability
    if capability is not None and capability < TF32_CAPABILITY:
        raise NotApplicable(f"allow_tf32: the GPU has compute capability {capability:.1f}; TF32 tensor cores "
                            f"need {TF32_CAPABILITY:.1f} (Ampere) or newer")
    for rel in files:
        text = (ctx.root / rel).read_text(errors="replace")
        found = re.search(r"set_float32_matmul_precision\(\s*['\"](high|medium)['\"]|matmul\.allow_tf32\s*=\s*True"
                          r"|fp32_precision\s*=\s*['\"]tf32['\"]", text)
        if found:
            line = text[:found.start()].count("\n") + 1
            raise NotApplicable(f"allow_tf32: {rel}:{line} already allows TF32 ({found.group(0)})")
    rel, src, where = _entry_point(ctx.root, files)
    statements = [cst.parse_statement(line + "\n") for line in TF32_LINES]
    new_module, line = _insert_at_start(src, where, statements)
    code = add_import(new_module.code, "torch")
    line += code.count("\n") - new_module.code.count("\n")
    return CodemodResult(files={rel: code}, knob="tf32", old_value=False, new_value=True,
                         summary=f"allow TF32 for float32 matmuls and convolutions at the start of "
                                 f"{_where_name(where)} in {rel}",
                         location=f"{rel}:{line}",
                         notes=["TF32 keeps float32 storage but a 10-bit mantissa inside matmuls and convolutions "
                                "(on GPUs of compute capability 8.0 and newer): the data are untouched, the loss "
                                "is checked against the precision rule"])


def _entry_point(root: Path, files: list[str]) -> tuple[str, Source, cst.CSTNode]:
    """(file, source, where): the function `if __name__ == "__main__":` calls, else that block, else the
    module, in the file that holds the training step (else the first file with such a block)."""
    candidates = []
    for rel in files:
        src = Source.read(root, rel)
        if src is None:
            continue
        guard = next((s for s in src.module.body if isinstance(s, cst.If) and "__name__" in code_of(s.test)
                      and "__main__" in code_of(s.test)), None)
        if guard is None:
            continue
        trains = bool(re.search(r"\.backward\(|\bTrainer\(|\.fit\(|\btrain\(", src.module.code))
        candidates.append((not trains, rel, src, guard))
    if not candidates:
        steps = find_steps(root, files)
        if steps:
            return steps[0].src.rel, steps[0].src, steps[0].src.module
        raise NotApplicable("no entry point: no `if __name__ == \"__main__\":` block and no training step")
    _, rel, src, guard = sorted(candidates, key=lambda c: c[0])[0]
    first = guard.body.body[0] if guard.body.body else None
    small = first.body[0] if isinstance(first, cst.SimpleStatementLine) else None
    call = small.value if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) else None
    if call is None and isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
        call = small.value
    if call is not None and isinstance(call.func, cst.Name):
        function = next((s for s in src.module.body if isinstance(s, cst.FunctionDef)
                         and s.name.value == call.func.value), None)
        if function is not None:
            return rel, src, function
    return rel, src, guard


def _where_name(where: cst.CSTNode) -> str:
    if isinstance(where, cst.FunctionDef):
        return f"{where.name.value}()"
    return "the __main__ block" if isinstance(where, cst.If) else "the module"


def _insert_at_start(src: Source, where: cst.CSTNode, statements: list) -> tuple[cst.Module, int]:
    """Insert `statements` first in `where`'s body (after a docstring; in a module, after the imports)."""
    if isinstance(where, cst.Module):
        body = list(where.body)
        at = after_imports(body)
        line = src.line(body[at]) if at < len(body) else len(src.module.code.splitlines()) + 1
        return where.with_changes(body=body[:at] + statements + body[at:]), line
    body = list(where.body.body)
    at = 1 if body and is_docstring(body[0]) else 0
    line = src.line(body[at]) if at < len(body) else src.line(where) + 1
    new_where = where.with_changes(body=where.body.with_changes(body=body[:at] + statements + body[at:]))
    return src.module.deep_replace(where, new_where), line


# bf16 autocast --------------------------------------------------------------------------------
def autocast_forward(ctx: CodemodContext) -> CodemodResult:
    """Run forward and loss under autocast (bf16; fp16 with a GradScaler where bf16 is unsupported).

    Params: ``dtype``: ``auto`` (default: bfloat16, float16 on a GPU of compute capability below 8.0),
    ``bfloat16`` or ``float16``. A Lightning ``Trainer`` gets ``precision="bf16-mixed"`` and
    ``TrainingArguments`` gets ``bf16=True`` (``16-mixed`` / ``fp16=True`` for float16).
    """
    dtype = ctx.params.get("dtype", "auto")
    if dtype not in ("auto", "bfloat16", "float16"):
        raise ValueError(f'autocast_forward: params dtype must be "auto", "bfloat16" or "float16", got {dtype!r}')
    capability = ctx.profile.cuda_capability
    if dtype == "auto":
        dtype = "float16" if capability is not None and capability < TF32_CAPABILITY else "bfloat16"
    files = python_files(ctx.root)
    for rel in files:
        text = (ctx.root / rel).read_text(errors="replace")
        found = re.search(r"\b(torch\.)?(cuda\.|cpu\.)?amp\.autocast\(|\btorch\.autocast\(|\bautocast\(|GradScaler\(",
                          text)
        if found:
            line = text[:found.start()].count("\n") + 1
            raise NotApplicable(f"autocast_forward: {rel}:{line} already uses mixed precision ({found.group(0)})")
    lightning = framework_call(ctx.root, files, ("Trainer",), r"(lightning|pytorch_lightning)")
    if lightning is not None:
        return _framework_precision(lightning, "precision", "bf16-mixed" if dtype == "bfloat16" else "16-mixed",
                                    ("32", "32-true", 32))
    hf = framework_call(ctx.root, files, ("TrainingArguments", "Seq2SeqTrainingArguments"), "transformers")
    if hf is not None:
        return _framework_precision(hf, "bf16" if dtype == "bfloat16" else "fp16", True, (False,))
    require_cuda(ctx, files, "autocast_forward", "a GPU's tensor cores are not there to gain from "
                                                  "lower-precision matmuls")
    step = one_step(ctx, files, "autocast_forward")
    return _wrap_forward(step, dtype)


def _framework_precision(found: tuple[calls.CallSite, str], keyword: str, value: object,
                         replaceable: tuple) -> CodemodResult:
    site, rel = found
    callee = code_of(site.call.func)
    existing = keyword_arg(site.call, keyword)
    if existing is not None:
        ok, current = calls.literal_value(existing.value)
        if not ok or current not in replaceable:
            raise NotApplicable(f"autocast_forward: {callee}(...) at {rel}:{site.line} already sets "
                                f"{keyword}={code_of(existing.value)}")
        code = calls.replace_node(site, existing.value, cst.parse_expression(f'"{value}"') if isinstance(value, str)
                                  else calls.literal_node(value))
        old = current
    else:
        if site.has_splat():
            raise NotApplicable(f"autocast_forward: {callee}(...) at {rel}:{site.line} takes **kwargs, which may "
                                f"already set {keyword}")
        code, old = calls.add_keyword(site, keyword, value), None
    if isinstance(value, str) and '"' in code_of(site.call) and "'" not in value:
        code = code.replace(f"{keyword}={value!r}", f'{keyword}="{value}"', 1)  # the file's quotes
    return CodemodResult(files={rel: code}, knob=keyword, old_value=old, new_value=value,
                         summary=f"{callee}(..., {keyword}={value!r}) in {rel}: the framework's own mixed precision",
                         location=f"{rel}:{site.line}",
                         notes=[f"{callee} runs forward and loss under autocast and keeps the optimizer step in "
                                "float32; the loss is checked against the precision rule"])


def _wrap_forward(step: Step, dtype: str) -> CodemodResult:
    src, block = step.src, step.block
    body = list(block.body)
    at_backward = body.index(step.backward)
    at_loss = next((i for i in range(at_backward - 1, -1, -1) if _assigns(body[i], step.loss)), None)
    if at_loss is None:
        raise NotApplicable(f"autocast_forward: {src.rel}:{src.line(step.backward)}: `{step.loss}` is not "
                            "computed in the block that calls backward, so forward and loss cannot be wrapped")
    start = at_loss
    while start > 0:
        before = body[start - 1]
        if not isinstance(before, cst.SimpleStatementLine) or not _assigns_any(before) \
                or re.search(r"\.(zero_grad|step|backward)\(", code_of(before)):
            break
        start -= 1
    # From the forward: the first of those statements that calls the model the optimizer trains.
    models = _model_names(step.src)
    forward = next((i for i in range(start, at_loss + 1)
                    if any(re.search(rf"(?<![\w.]){re.escape(m)}\(", code_of(body[i])) for m in models)), None)
    if forward is None and not _calls_anything(body[at_loss]):
        raise NotApplicable(f"autocast_forward: {src.rel}:{src.line(body[at_loss])}: no model call found before "
                            f"`{step.loss}` is computed")
    start = forward if forward is not None else at_loss
    wrapped = body[start:at_loss + 1]
    first_line, last_line = src.line(wrapped[0]), src.line(wrapped[-1])
    device = _device_type(step)
    torch_dtype = "torch.bfloat16" if dtype == "bfloat16" else "torch.float16"
    leading = wrapped[0].leading_lines
    wrapped[0] = wrapped[0].with_changes(leading_lines=[])
    item = cst.WithItem(item=cst.parse_expression(f"torch.autocast(device_type={device}, dtype={torch_dtype})"))
    with_node = cst.With(items=[item], body=cst.IndentedBlock(body=wrapped), leading_lines=leading)
    new_body = body[:start] + [with_node] + body[at_loss + 1:]
    notes = ["forward and loss run under autocast; backward and the optimizer step stay outside it, in float32 "
             "master weights; the data are untouched and the loss is checked against the precision rule"]
    scaler_notes: list[str] = []
    if dtype == "float16":
        new_body, scaler_notes = _with_grad_scaler(step, new_body)
    scaler = None
    if dtype == "float16":
        if step.loop is None:
            raise NotApplicable("autocast_forward: float16 needs the training loop, to create the GradScaler "
                                "before it")
        scaler = cst.parse_statement(f"scaler = torch.amp.GradScaler({device})\n")

    class Edit(cst.CSTTransformer):
        def _body(self, original, updated):
            body = list(new_body) if original is block else list(updated.body)
            if scaler is not None:
                at = next((i for i, s in enumerate(original.body) if s is step.loop), None)
                if at is not None:
                    body.insert(at, scaler)
            return updated.with_changes(body=body)

        def leave_IndentedBlock(self, original, updated):
            return self._body(original, updated)

        def leave_Module(self, original, updated):
            return self._body(original, updated)

    module = src.module.visit(Edit())
    code = add_import(module.code, "torch")
    line = first_line + code.count("\n") - module.code.count("\n")
    lines = f"{first_line}-{last_line}" if last_line > first_line else str(first_line)
    return CodemodResult(files={src.rel: code}, knob="autocast", old_value="float32", new_value=dtype,
                         summary=f"forward and loss under torch.autocast({dtype}) in {src.rel} (lines {lines})",
                         location=f"{src.rel}:{line}", notes=notes + scaler_notes)


def _model_names(src: Source) -> list[str]:
    """What the optimizer's parameters come from (`model`, `self.net`), as code."""
    names = []
    for call in walk(src.module, cst.Call):
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("parameters", "named_parameters"):
            names.append(code_of(call.func.value))
    return names or ["model"]


def _assigns(statement: cst.CSTNode, name: str) -> bool:
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
    targets = []
    if isinstance(small, cst.Assign):
        targets = [t.target for t in small.targets]
    elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        targets = [small.target]
    names = [n.value for t in targets for n in walk(t, cst.Name)]
    return name in names


def _assigns_any(statement: cst.CSTNode) -> bool:
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
    return isinstance(small, (cst.Assign, cst.AnnAssign))


def _calls_anything(statement: cst.CSTNode) -> bool:
    return bool(walk(statement, cst.Call))


def _device_type(step: Step) -> str:
    """The autocast device_type expression: from the device the step copies its batch to."""
    for scope in step.scopes():
        for call in walk(scope, cst.Call):
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "cuda":
                return '"cuda"'
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "to" and call.args:
                target = _copy_target(call)
                if target is None:
                    continue
                if isinstance(target, cst.SimpleString):
                    return f'"{str(target.evaluated_value).split(":")[0]}"'
                return f"torch.device({code_of(target)}).type"
    return '"cuda"'


def _copy_target(call: cst.Call) -> cst.BaseExpression | None:
    """The device a `.to(...)` call copies to, or None when it is a dtype-only or host copy."""
    device = keyword_arg(call, "device")
    value = device.value if device is not None else next((a.value for a in call.args if a.keyword is None), None)
    if value is None:
        return None
    text = code_of(value)
    if text.startswith("torch.") and text.split(".")[-1] in _DTYPES:
        return None
    if isinstance(value, cst.SimpleString) and str(value.evaluated_value).startswith("cpu"):
        return None
    if "dtype" in text:
        return None
    return value


def _with_grad_scaler(step: Step, body: list) -> tuple[list, list[str]]:
    """fp16: `scaler.scale(loss).backward()`, `scaler.step(opt)` and `scaler.update()`, in the step's block."""
    if step.step_function is not None:
        raise NotApplicable("autocast_forward: float16 needs a GradScaler created outside the step function "
                            f"{step.step_function.name.value}; only a plain loop is rewritten for float16")
    out, stepped = [], False
    for statement in body:
        text = code_of(statement).strip()
        if statement is step.backward:
            out.append(cst.parse_statement(f"scaler.scale({step.loss}).backward()\n").with_changes(
                leading_lines=statement.leading_lines))
            continue
        found = re.fullmatch(r"(\w+)\.step\(\)", text)
        if found and not stepped:
            out.append(cst.parse_statement(f"scaler.step({found.group(1)})\n").with_changes(
                leading_lines=statement.leading_lines))
            out.append(cst.parse_statement("scaler.update()\n"))
            stepped = True
            continue
        if "clip_grad" in text:
            raise NotApplicable("autocast_forward: float16 with gradient clipping needs scaler.unscale_ before "
                                "the clip; not rewritten")
        out.append(statement)
    if not stepped:
        raise NotApplicable("autocast_forward: float16 needs the optimizer's `opt.step()` in the same block as "
                            "backward, to pass through the GradScaler")
    return out, ["float16 on a GPU without bfloat16 (compute capability below 8.0): a GradScaler scales the "
                 "loss so small gradients do not underflow"]


# pinned, non-blocking copies ------------------------------------------------------------------
def pinned_non_blocking_copies(ctx: CodemodContext) -> CodemodResult:
    """`non_blocking=True` on the step's host-to-device copies and `pin_memory=True` on the loader, together."""
    files = python_files(ctx.root)
    require_cuda(ctx, files, "pinned_non_blocking_copies", "there is no host-to-device copy to overlap")
    pinned = bool(ctx.sites) and ctx.sites[0].kwargs.get("pin_memory") is True
    changed: dict[str, str] = {}
    parts, notes, location = [], [], ""
    pin_result = None
    if not pinned:
        try:
            pin_result = set_dataloader_option(ctx, "pin_memory", True)
        except NotApplicable as why:
            raise NotApplicable(f"pinned_non_blocking_copies: non_blocking copies gain nothing from pageable "
                                f"memory, and pin_memory cannot be set: {why}") from None
        changed.update(pin_result.files)
        parts.append(pin_result.summary)
        location = pin_result.location
    steps = find_steps(ctx.root, files, changed)
    if not steps and pin_result is None:
        raise NotApplicable("pinned_non_blocking_copies: the loader already pins memory and no training step "
                            "(`<loss>.backward()`) is in the target's files to make the copies non-blocking")
    if not steps:
        return pin_result.model_copy(update={"notes": [
            "no `<loss>.backward()` in the target's files: the framework copies the batch (Lightning and "
            "Hugging Face copy pinned batches with non_blocking=True themselves); pinning alone"]})
    step = steps[0]
    copies = _batch_copies(step)
    blocking = [c for c in copies if keyword_arg(c, "non_blocking") is None]
    explicit = [c for c in copies if keyword_arg(c, "non_blocking") is not None
                and code_of(keyword_arg(c, "non_blocking").value) != "True"]
    if explicit:
        notes.append(f"left alone: {len(explicit)} copy(ies) passing non_blocking explicitly (line "
                     f"{step.src.line(explicit[0])})")
    if blocking:
        module = step.src.module

        class AddFlag(cst.CSTTransformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
                if any(original is c for c in blocking):
                    site = calls.CallSite(cst.Module(body=[]), updated, 0)
                    return _with_keyword(site, "non_blocking", True)
                return updated

        changed[step.src.rel] = module.visit(AddFlag()).code
        lines = sorted({step.src.line(c) for c in blocking})
        parts.append(f"non_blocking=True on {len(blocking)} host-to-device cop{'y' if len(blocking) == 1 else 'ies'} "
                     f"in {step.src.rel} (line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})")
        location = location or f"{step.src.rel}:{lines[0]}"
    elif not copies and not pinned:
        notes.append("the batch is not copied in the training step's code (a framework moves it): pinning alone")
    if not parts:
        raise NotApplicable("pinned_non_blocking_copies: the loader already pins memory and every copy of the "
                            "batch in the step already passes non_blocking")
    if pinned:
        notes.append("the loader already sets pin_memory=True")
    return CodemodResult(files=changed, knob="non_blocking", old_value=False, new_value=True,
                         summary="; ".join(parts), location=location,
                         notes=notes + ["a host-to-device copy from pinned memory with non_blocking=True is queued "
                                        "on the current stream, so the model still sees the copied values; the "
                                        "host no longer waits for it"])


def _batch_copies(step: Step) -> list[cst.Call]:
    """`.to(<device>)` and `.cuda()` calls in the per-step code (not dtype casts, host copies or the model's)."""
    found = []
    for scope in step.scopes():
        for call in walk(scope, cst.Call, into_defs=False):
            if not isinstance(call.func, cst.Attribute):
                continue
            receiver = code_of(call.func.value)
            if re.search(r"\b(model|net|module)\b", receiver):
                continue
            if call.func.attr.value == "cuda" or (call.func.attr.value == "to" and _copy_target(call) is not None):
                found.append(call)
    return found


def _with_keyword(site: calls.CallSite, name: str, value: object) -> cst.Call:
    """The call with `name=value` appended, in its own argument style."""
    code = calls.add_keyword(calls.CallSite(cst.Module(body=[cst.SimpleStatementLine([cst.Expr(site.call)])]),
                                            site.call, 0), name, value)
    return cst.parse_expression(code.strip())
