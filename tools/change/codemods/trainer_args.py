"""Find a DataLoader option where a trainer API or a command-line flag sets it, and edit it there.

- a LightningDataModule's `train_dataloader` builds the loader: its `DataLoader(...)` call;
- Hugging Face `TrainingArguments(dataloader_num_workers=...)` hands it to the Trainer;
- `parser.add_argument("--num-workers", type=int, default=0)` feeds `args.num_workers`.
Every edit replaces (or adds) one argument with libcst; the rest of the file is unchanged.
"""
from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from perfloop.tools.change.codemods import call_site as calls
from perfloop.tools.change.codemods.base import CodemodResult, DataLoaderSite, NotApplicable
from perfloop.tools.change.codemods.hot_function import python_files

# TrainingArguments' name for each DataLoader option, and its default when not passed.
TRAINING_ARGUMENTS = {
    "num_workers": ("dataloader_num_workers", 0),
    "pin_memory": ("dataloader_pin_memory", True),
    "persistent_workers": ("dataloader_persistent_workers", False),
    "prefetch_factor": ("dataloader_prefetch_factor", None),
}


def find_train_dataloader(root: Path) -> tuple[DataLoaderSite, calls.CallSite] | None:
    """Return the DataLoader call inside a `train_dataloader` method (Lightning), if one exists."""
    for rel in python_files(root):
        source = _source(root, rel)
        if source is None or "def train_dataloader" not in source:
            continue
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef) and node.name == "train_dataloader":
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Call) and _ast_callee(inner.func).endswith("DataLoader"):
                        site = DataLoaderSite(file=rel, line=inner.lineno)
                        return site, calls.find_call(source, inner.lineno, rel)
    return None


def edit_trainer_option(root: Path, name: str, value: object,
                        via_config=None) -> CodemodResult | None:
    """Set `dataloader_<name>` in the target's TrainingArguments(...) call; None when it has none.

    When the call does not name the keyword but passes `**kwargs`, the keyword may come
    from the training config (`TrainingArguments(**cfg["training"])`): `via_config(keyword)`
    edits that config key if the config has it (None when it has not), and only then is
    the call refused.
    """
    if name not in TRAINING_ARGUMENTS:
        return None
    keyword, default = TRAINING_ARGUMENTS[name]
    found = [(rel, site) for rel in python_files(root)
             for site in _calls(root, rel, lambda callee: callee.endswith("TrainingArguments"))]
    if not found:
        return None
    if len(found) > 1:
        where = ", ".join(f"{rel}:{site.line}" for rel, site in found)
        raise NotApplicable(f"several TrainingArguments(...) calls ({where}); cannot tell which trains")
    rel, site = found[0]
    named = any(a.keyword is not None and a.keyword.value == keyword for a in site.call.args)
    if not named and site.has_splat() and via_config is not None:
        result = via_config(keyword)
        if result is not None:
            return result
    return _set_keyword(rel, site, keyword, value, default, f"TrainingArguments({keyword}=...)")


def edit_argparse_default(root: Path, dest: str, value: object, runtime: object) -> CodemodResult | None:
    """Change the default of the command-line flag stored in `args.<dest>`; None when no flag is."""
    found = []
    for rel in python_files(root):
        for site in _calls(root, rel, lambda callee: callee == "add_argument"):
            if _dest(site.call) == dest:
                found.append((rel, site))
    if not found:
        return None
    if len(found) > 1:
        where = ", ".join(f"{rel}:{site.line}" for rel, site in found)
        raise NotApplicable(f"several flags store {dest} ({where}); cannot tell which one the run parses")
    rel, site = found[0]
    arg = next((a for a in site.call.args if a.keyword is not None and a.keyword.value == "default"), None)
    default = calls.literal_value(arg.value)[1] if arg is not None else None
    if runtime is not None and arg is not None and calls.literal_value(arg.value)[0] and runtime != default:
        raise NotApplicable(
            f"the run got {dest}={runtime!r} but the flag's default at {rel}:{site.line} is {default!r}: "
            "the command passes the flag, so change it in the perfloop contract's command"
        )
    flag = _flag_text(site.call) or dest
    return _set_keyword(rel, site, "default", value, None, f"default of {flag}", knob=dest)


def _set_keyword(rel: str, site: calls.CallSite, keyword: str, value: object, default: object,
                 how: str, knob: str | None = None) -> CodemodResult:
    """Replace the keyword's literal value, or add `keyword=value`; refuse an expression or **kwargs."""
    location = f"{rel}:{site.line}"
    arg = next((a for a in site.call.args if a.keyword is not None and a.keyword.value == keyword), None)
    if arg is None:
        if site.has_splat():
            raise NotApplicable(f"the call at {location} passes **kwargs that may already set {keyword}")
        old, new_source = default, calls.add_keyword(site, keyword, value)
    else:
        is_literal, old = calls.literal_value(arg.value)
        if not is_literal:
            raise NotApplicable(f"{keyword} at {location} is the expression {site.code(arg.value)}; "
                                "edit what it reads instead")
        new_source = calls.replace_node(site, arg.value, calls.literal_node(value))
    knob = knob or keyword
    if old == value and type(old) is type(value):
        raise NotApplicable(f"{knob} is already {value!r} at {location}")
    ast.parse(new_source)  # libcst emits valid code; a failure here is a bug, not user input
    return CodemodResult(files={rel: new_source}, summary=f"{knob} {old!r} → {value!r} in {location} ({how})",
                         knob=knob, old_value=old, new_value=value, location=location)


def _calls(root: Path, rel: str, wanted) -> list[calls.CallSite]:
    """Every call in a file whose callee's last name passes `wanted`, each as a CallSite."""
    source = _source(root, rel)
    if source is None:
        return []
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except cst.ParserSyntaxError:
        return []
    positions = wrapper.resolve(PositionProvider)
    found = []

    class Collect(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            callee = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else ""
            if wanted(callee):
                found.append(node)

    wrapper.module.visit(Collect())
    return [calls.CallSite(wrapper.module, call, positions[call].start.line) for call in found]


def _dest(call: cst.Call) -> str | None:
    """The attribute argparse stores a flag in: dest=..., else the first long option, dashes → _."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "dest":
            ok, value = calls.literal_value(arg.value)
            return value if ok else None
    flag = _flag_text(call)
    return flag.lstrip("-").replace("-", "_") if flag else None


def _flag_text(call: cst.Call) -> str | None:
    options = [calls.literal_value(a.value)[1] for a in call.args if a.keyword is None and not a.star]
    options = [o for o in options if isinstance(o, str)]
    return next((o for o in options if o.startswith("--")), next(iter(options), None))


def _ast_callee(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _source(root: Path, rel: str) -> str | None:
    try:
        source = (Path(root) / rel).read_text(encoding="utf-8")
        ast.parse(source)
    except (OSError, UnicodeDecodeError, SyntaxError):
        return None
    return source


def edit_init_default(rel: str, site: calls.CallSite, expr: cst.BaseExpression, value: object,
                      runtime: object) -> CodemodResult | None:
    """Change the `__init__` default behind `self.x` / `self.hparams.x` in the loader's class; None if none."""
    name = _self_attribute(expr)
    cls = _enclosing_class(site.module, site.call) if name else None
    init = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),
                None) if cls else None
    if init is None:
        return None
    param_name = _param_behind(init, name)
    params = [*init.params.params, *init.params.kwonly_params]
    param = next((p for p in params if p.name.value == param_name and p.default is not None), None)
    if param is None or not calls.literal_value(param.default)[0]:
        return None
    old = calls.literal_value(param.default)[1]
    location = f"{rel}:{site.line}"
    if runtime is not None and runtime != old:
        raise NotApplicable(f"the loader at {location} got {runtime!r} but {cls.name.value}.__init__ defaults "
                            f"{param_name} to {old!r}: the caller passes it, so change it there")
    if old == value and type(old) is type(value):
        raise NotApplicable(f"{param_name} is already {value!r} in {cls.name.value}.__init__")
    new_source = calls.replace_node(site, param.default, calls.literal_node(value))
    ast.parse(new_source)
    return CodemodResult(
        files={rel: new_source},
        summary=f"{param_name} {old!r} → {value!r} in {location} (default of {cls.name.value}.__init__)",
        knob=param_name, old_value=old, new_value=value, location=location)


def _self_attribute(expr: cst.BaseExpression) -> str | None:
    """`self.x` or `self.hparams.x` -> "x"."""
    if not isinstance(expr, cst.Attribute):
        return None
    base = expr.value
    if isinstance(base, cst.Attribute) and base.attr.value == "hparams":
        base = base.value
    return expr.attr.value if isinstance(base, cst.Name) and base.value == "self" else None


def _param_behind(init: cst.FunctionDef, name: str) -> str:
    """The parameter `self.name = param` stores in __init__, else `name` itself (save_hyperparameters)."""
    for assign in _walk(init, cst.Assign):
        target = assign.targets[0].target if len(assign.targets) == 1 else None
        if (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self"
                and target.attr.value == name and isinstance(assign.value, cst.Name)):
            return assign.value.value
    return name


def _enclosing_class(module: cst.Module, call: cst.Call) -> cst.ClassDef | None:
    for cls in _walk(module, cst.ClassDef):
        if any(node is call for node in _walk(cls, cst.Call)):
            return cls
    return None


def _walk(node: cst.CSTNode, kind: type) -> list:
    found = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, child: cst.CSTNode) -> bool:
            if isinstance(child, kind):
                found.append(child)
            return True

    node.visit(Collect())
    return found
