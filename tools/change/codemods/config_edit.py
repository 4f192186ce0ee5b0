"""Change one value in a YAML, JSON or TOML config as a targeted text edit."""

import json
import re
import tomllib
from pathlib import PurePath

import yaml

from perfloop.tools.change.codemods.base import NotApplicable

FORMATS = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml"}

# Scalar value tokens each format may hold for a loader option; anything else
# (arrays, tables, multi-line strings) is left for a human to edit.
_VALUE = {
    "yaml": r"""-?[0-9][0-9_.eE+-]*|[Tt]rue|TRUE|[Ff]alse|FALSE|[Yy]es|[Nn]o|[Oo]n|[Oo]ff"""
    r"""|null|Null|NULL|~|"[^"\n]*"|'[^'\n]*'""",
    "json": r'''-?[0-9][0-9.eE+-]*|true|false|null|"(?:[^"\\\n]|\\.)*"''',
    "toml": r"[+-]?[0-9][0-9_.eE+-]*|true|false|[+-]?inf|[+-]?nan"
    r"""|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'""",
}
_SEPARATOR = {"yaml": r"[ \t]*:[ \t]+", "json": r"[ \t]*:[ \t]*", "toml": r"[ \t]*=[ \t]*"}
_VALUE_END = r"(?=[ \t]*(?:#|,|\}|\]|\r?$))"


def config_format(config_path: str) -> str:
    """Return "yaml", "json" or "toml" for a config path, by its suffix."""
    suffix = PurePath(config_path).suffix.lower()
    if suffix not in FORMATS:
        raise NotApplicable(
            f"cannot edit {config_path}: supported config suffixes are {', '.join(FORMATS)}"
        )
    return FORMATS[suffix]


def parse_config(text: str, fmt: str, config_path: str) -> object:
    """Parse a config file's text, or say it cannot be read."""
    try:
        return load_config(text, fmt)
    except (ValueError, yaml.YAMLError) as error:  # JSON and TOML errors are ValueErrors
        raise NotApplicable(f"cannot parse {config_path}: {error}") from error


def load_config(text: str, fmt: str) -> object:
    """Parse config text in the given format."""
    if fmt == "yaml":
        return yaml.safe_load(text)
    if fmt == "json":
        return json.loads(text)
    return tomllib.loads(text)


def render_value(value: object, fmt: str) -> str:
    """Spell a Python value as a scalar token of the config format."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        if fmt == "toml":
            raise NotApplicable("TOML has no null value")
        return "null"
    if isinstance(value, (int, float, str)):
        return json.dumps(value)
    raise NotApplicable(f"cannot write {value!r} as a {fmt} scalar")


def find_key_paths(data: object, name: str, prefix: tuple = ()) -> list[tuple]:
    """List the mapping paths whose last key is `name` and whose value is a scalar."""
    if not isinstance(data, dict):
        return []
    paths = []
    for key, value in data.items():
        if isinstance(value, dict):
            paths += find_key_paths(value, name, prefix + (key,))
        elif key == name and not isinstance(value, list):
            paths.append(prefix + (key,))
    return paths


def value_at(data: object, path: tuple) -> object:
    """Return the value stored at a mapping path."""
    for key in path:
        data = data[key]
    return data


def edit_config_value(text: str, fmt: str, path: tuple, value: object) -> tuple[str, int]:
    """Rewrite only the value token at `path`; return the new text and its 1-based line.

    Every `key: value` spot in the text that could be the one is tried, and an edit
    is kept only if re-parsing shows that exactly `path` changed, to `value`:
    comments, strings and same-named keys elsewhere are left alone by construction.
    """
    data = load_config(text, fmt)
    expected = _unshared_copy(data)
    value_at(expected, path[:-1])[path[-1]] = value
    token = render_value(value, fmt)
    name = re.escape(str(path[-1]))
    pattern = re.compile(
        rf"""(?:(?<![\w-]){name}|"{name}"|'{name}')"""
        rf"{_SEPARATOR[fmt]}(?P<value>{_VALUE[fmt]}){_VALUE_END}",
        re.MULTILINE,
    )
    for match in pattern.finditer(text):
        new_text = text[: match.start("value")] + token + text[match.end("value") :]
        try:
            reparsed = load_config(new_text, fmt)
        except (ValueError, yaml.YAMLError):
            continue  # the spot was inside something else, e.g. a string
        if _same(reparsed, expected):
            return new_text, text.count("\n", 0, match.start("value")) + 1
    raise NotApplicable(
        f"could not change {'.'.join(map(str, path))} alone by a plain value edit "
        "(shared through a YAML anchor, or not written as a simple scalar); edit it by hand"
    )


def _unshared_copy(data: object) -> object:
    """Copy containers, un-sharing YAML aliases so an edit through one shows up as two."""
    if isinstance(data, dict):
        return {key: _unshared_copy(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_unshared_copy(value) for value in data]
    return data


def _same(a: object, b: object) -> bool:
    """Compare parsed configs strictly: types, key order and values (so True is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b or (a != a and b != b)  # NaN equals itself here
