"""Read and edit Python config files of top-level `key = value` lines (configurator style).

Such a file (nanoGPT's `config/train_shakespeare_char.py`, say) is exec'd over a
script's defaults, so its knobs are the module-level assignments of plain literals.
Edits go through libcst and replace one value node: comments, spacing and every other
line print back byte for byte.
"""
from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.call_site import literal_node, literal_value
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


def edit_py_config_value(text: str, key: str, value: object, config_path: str = "config") -> tuple[str, int]:
    """Replace the value of the last top-level `key = literal`; return the new text and its line."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(text))
    except cst.ParserSyntaxError as error:
        raise NotApplicable(f"cannot parse {config_path}: {error}") from error
    positions = wrapper.resolve(PositionProvider)
    found = None
    for statement in wrapper.module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            target = _single_name(small)
            if target == key:
                found = small  # the last assignment is the one exec leaves in force
    if found is None:
        raise NotApplicable(f"{config_path} has no top-level `{key} = ...` line")
    if not literal_value(found.value)[0]:
        raise NotApplicable(f"{key} in {config_path} is an expression, not a plain value; edit it by hand")
    new_text = wrapper.module.deep_replace(found.value, literal_node(value)).code
    assert read_py_config(new_text, config_path).get(key) == value, "the edit must set exactly this key"
    return new_text, positions[found].start.line


def _single_name(small: cst.BaseSmallStatement) -> str | None:
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value
    if isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(small.target, cst.Name):
        return small.target.value
    return None
