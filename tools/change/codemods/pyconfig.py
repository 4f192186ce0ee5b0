"""Read and edit Python config files of top-level `key = value` lines (configurator style).

Such a file (nanoGPT's `config/train_shakespeare_char.py`, say) is exec'd over a
script's defaults, so its knobs are the module-level assignments of plain literals.
Edits go through libcst and replace one value node: comments, spacing and every other
line print back byte for byte, except the comment trailing the edited line, which
described the old value and goes with it (see config_edit.ConfigEdit).
"""
from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.call_site import literal_node, literal_value
from perfloop.tools.change.codemods.config_edit import ConfigEdit
from perfloop.tools.contract.runlength import read_python_config


def is_python_config(config_path: str | None) -> bool:
    """Say whether a training config path is a Python file."""
    return bool(config_path) and config_path.endswith(".py")


def read_py_config(text: str, config_path: str = "config") -> dict[str, object]:
    """Return the top-level `key = literal` assignments; a later one wins, like exec."""
    try:
        return read_python_config(text)
    except SyntaxError as error:
        raise NotApplicable(f"cannot parse {config_path}: {error}") from error


def edit_py_config_value(text: str, key: str, value: object, config_path: str = "config") -> ConfigEdit:
    """Replace the value of the last top-level `key = literal`, dropping the comment that trails its line."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(text))
    except cst.ParserSyntaxError as error:
        raise NotApplicable(f"cannot parse {config_path}: {error}") from error
    positions = wrapper.resolve(PositionProvider)
    found, line = None, None
    for statement in wrapper.module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            target = _single_name(small)
            if target == key:
                found, line = small, statement  # the last assignment is the one exec leaves in force
    if found is None:
        raise NotApplicable(f"{config_path} has no top-level `{key} = ...` line")
    if not literal_value(found.value)[0]:
        raise NotApplicable(f"{key} in {config_path} is an expression, not a plain value; edit it by hand")
    edited = found.with_changes(value=literal_node(value))
    comment = line.trailing_whitespace.comment if len(line.body) == 1 else None  # `a = 1; b = 2  # ...`: kept
    trailing = line.trailing_whitespace if comment is None else line.trailing_whitespace.with_changes(
        whitespace=cst.SimpleWhitespace(""), comment=None)
    new_text = wrapper.module.deep_replace(line, line.with_changes(
        body=[edited if small is found else small for small in line.body], trailing_whitespace=trailing)).code
    assert read_py_config(new_text, config_path).get(key) == value, "the edit must set exactly this key"
    return ConfigEdit(new_text, positions[found].start.line, comment.value.rstrip() if comment else None)


def _single_name(small: cst.BaseSmallStatement) -> str | None:
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value
    if isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(small.target, cst.Name):
        return small.target.value
    return None
