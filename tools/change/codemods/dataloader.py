"""Set one DataLoader option where the training loader takes it: its config, or the call."""

import ast
from pathlib import Path

import libcst as cst

from perfloop.tools.change.codemods import call_site as calls
from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, DataLoaderSite, NotApplicable
from perfloop.tools.change.codemods.choose import choose_config_path
from perfloop.tools.change.codemods.config_edit import (
    config_format,
    edit_config,
    find_key_paths,
    parse_config,
    render_value,
    value_at,
)
from perfloop.tools.change.codemods.pyconfig import edit_py_config_value, is_python_config, read_py_config
from perfloop.tools.change.codemods.trainer_args import (
    edit_argparse_default,
    edit_init_default,
    edit_trainer_option,
    find_train_dataloader,
)

# What torch.utils.data.DataLoader uses when an option is not passed.
DEFAULTS = {
    "num_workers": 0, "pin_memory": False, "persistent_workers": False, "prefetch_factor": None,
}


def set_dataloader_option(ctx: CodemodContext, name: str, value: object) -> CodemodResult:
    """Return the edit that makes the training DataLoader get `name=value`.

    The config is edited when the call reads the option through an expression, may
    get it through **kwargs, or cannot be found; a literal or an absent argument
    means the config never reaches this loader, so the call itself is edited.
    """
    site = ctx.sites[0] if ctx.sites else None
    found, not_found = None, ("no DataLoader was seen: the probe recorded none, and the target has no "
                              "Lightning train_dataloader and no TrainingArguments(...) call")
    if site is not None:
        try:
            found = calls.find_call(_read(ctx.root, site.file), site.line, site.file)
        except NotApplicable as error:
            not_found = str(error)
    if found is None:
        # A trainer API builds the loader inside a library (the site, if any, is there):
        # a LightningDataModule's train_dataloader, else TrainingArguments(dataloader_*=...).
        located = find_train_dataloader(ctx.root)
        if located is not None:
            site, found = located
    arg = found.argument(name) if found else None
    hint = found.key_hint(arg.value) if found and arg else []
    if ctx.config_path and _config_may_feed(found, arg):
        result = _edit_config(ctx, name, value, hint)
        if result is not None:
            return result
    flag = _parsed_flag(found, arg.value) if found is not None and arg is not None else None
    if flag is not None:
        # The call reads args.<flag> from parse_args(): the flag's default feeds it.
        result = edit_argparse_default(ctx.root, flag, value, runtime_value(ctx, name))
        if result is not None:
            return result
    if found is not None and arg is not None:
        # self.num_workers in a LightningDataModule: the default of its __init__ parameter.
        result = edit_init_default(site.file, found, arg.value, value, runtime_value(ctx, name))
        if result is not None:
            return result
    if found is None:
        via_config = (lambda keyword: _edit_config(ctx, keyword, value, [])) if ctx.config_path else None
        result = edit_trainer_option(ctx.root, name, value, via_config)
        if result is not None:
            return result
        raise NotApplicable(not_found)
    return _edit_call(ctx, site, found, arg, name, value)


def runtime_value(ctx: CodemodContext, name: str) -> object:
    """Return what the training DataLoader got for `name` at run time, or None if unknown."""
    if ctx.sites and name in ctx.sites[0].kwargs:
        return ctx.sites[0].kwargs[name]
    return getattr(ctx.profile, name, None)


def _parsed_flag(found: calls.CallSite, expr: cst.BaseExpression, depth: int = 0) -> str | None:
    """Return `name` when the expression reads `args.name` of `args = parser.parse_args(...)`, else None."""
    latest = {}
    for line, name, value in sorted(found.assignments, key=lambda item: item[0]):
        if line < found.line:
            latest[name] = value
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "int" and expr.args:
        return _parsed_flag(found, expr.args[0].value, depth)
    if isinstance(expr, cst.Name) and expr.value in latest and depth < 5:
        return _parsed_flag(found, latest[expr.value], depth + 1)
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
        root = latest.get(expr.value.value)
        if isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute) and root.func.attr.value == "parse_args":
            return expr.attr.value
    return None


def _config_may_feed(found: calls.CallSite | None, arg: cst.Arg | None) -> bool:
    if found is None:
        return True
    if arg is None:
        return found.has_splat()
    return not calls.literal_value(arg.value)[0]


def _edit_config(
    ctx: CodemodContext, name: str, value: object, hint: list[str]
) -> CodemodResult | None:
    """Edit the config key the loader reads; None when the config has no such key."""
    if is_python_config(ctx.config_path):
        return _edit_py_config(ctx, name, value)
    fmt = config_format(ctx.config_path)
    text = _read(ctx.root, ctx.config_path)
    data = parse_config(text, fmt, ctx.config_path)
    paths = find_key_paths(data, name)
    if not paths:
        return None
    path = choose_config_path(paths, hint, name)
    old, dotted = value_at(data, path), ".".join(map(str, path))
    where = f"{ctx.config_path} ({dotted})"
    if old == value and type(old) is type(value):
        raise NotApplicable(f"{name} is already {render_value(value, fmt)} in {where}")
    edit = edit_config(text, fmt, path, value)
    old_token = repr(old) if isinstance(old, str) else render_value(old, fmt)
    note = edit.note(ctx.config_path)
    return CodemodResult(
        files={ctx.config_path: edit.text},
        summary=f"{name} {old_token} → {render_value(value, fmt)} in {where}",
        knob=name, old_value=old, new_value=value, location=f"{ctx.config_path}:{edit.line}",
        notes=[note] if note else [],
    )


def _edit_py_config(ctx: CodemodContext, name: str, value: object) -> CodemodResult | None:
    """Edit `name = value` in a Python config the script exec's; None when it has no such line."""
    text = _read(ctx.root, ctx.config_path)
    values = read_py_config(text, ctx.config_path)
    if name not in values:
        return None
    old = values[name]
    if old == value and type(old) is type(value):
        raise NotApplicable(f"{name} is already {value!r} in {ctx.config_path}")
    edit = edit_py_config_value(text, name, value, ctx.config_path)
    note = edit.note(ctx.config_path)
    return CodemodResult(
        files={ctx.config_path: edit.text},
        summary=f"{name} {old!r} → {value!r} in {ctx.config_path} ({name} = ...)",
        knob=name, old_value=old, new_value=value, location=f"{ctx.config_path}:{edit.line}",
        notes=[note] if note else [],
    )


def _edit_call(
    ctx: CodemodContext, site: DataLoaderSite, found: calls.CallSite,
    arg: cst.Arg | None, name: str, value: object,
) -> CodemodResult:
    """Replace the argument's value or its .get() default, or add the keyword to the call."""
    location = f"{site.file}:{found.line}"
    runtime = runtime_value(ctx, name)
    new_node = calls.literal_node(value)
    if arg is None:
        if found.has_splat():
            raise NotApplicable(
                f"the DataLoader call at {location} passes **kwargs that may already set "
                f"{name}; adding it again would raise TypeError"
            )
        old = runtime if runtime is not None else DEFAULTS.get(name)
        new_source, how = calls.add_keyword(found, name, value), "added keyword argument"
    elif calls.literal_value(arg.value)[0]:
        old, how = calls.literal_value(arg.value)[1], ""
        new_source = calls.replace_node(found, arg.value, new_node)
    elif (default := calls.get_default(arg.value)) and calls.literal_value(default.value)[0]:
        old = runtime if runtime is not None else calls.literal_value(default.value)[1]
        how = f"default of {found.code(arg.value)}"
        new_source = calls.replace_node(found, default.value, new_node)
    else:
        old = runtime if runtime is not None else found.code(arg.value)
        how = f"replaced expression {found.code(arg.value)} with a literal"
        new_source = calls.replace_node(found, arg.value, new_node)
    if old == value and type(old) is type(value):
        raise NotApplicable(f"{name} is already {value!r} at {location}")
    ast.parse(new_source)  # libcst emits valid code; a failure here is a bug, not user input
    suffix = f" ({how})" if how else ""
    return CodemodResult(
        files={site.file: new_source},
        summary=f"{name} {old!r} → {value!r} in {location}{suffix}",
        knob=name, old_value=old, new_value=value, location=location,
    )


def _read(root: Path, relative: str) -> str:
    path = root / relative
    if not path.is_file():
        raise NotApplicable(f"{relative} not found under {root}")
    return path.read_text(encoding="utf-8")
