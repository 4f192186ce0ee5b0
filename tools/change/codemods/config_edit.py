"""Change one value in a YAML, JSON, TOML, INI or argparse arguments config as a targeted text edit.

A comment that trails the edited value on its line (``num_workers: 0  # main-process loading
keeps tracebacks readable``) was written about the old value, so it goes with it: the edit
drops it, and ``ConfigEdit.note`` says which comment on which line. Every other byte stays.

An INI file (``configparser``) is read as sections of scalars: ``[DEFAULT]`` is a section like
any other here (the edit goes where the key is written), keys keep their case, and a value is an
int, a float or a bool where it reads as one (``getint``/``getfloat``/``getboolean`` would), else text.

An arguments file (``.txt``/``.args``: ``python train.py @args.txt`` with ``fromfile_prefix_chars="@"``) holds one
argument per line, as argparse reads it: ``--num-workers=0``, or ``--num-workers`` and then ``0`` on the next line.
It is read as {dest: scalar}, each option named as argparse names its attribute (``num_workers``), its value typed
as an INI value is; a flag with no value reads as True. Only the value's own text changes.
"""

import configparser
import json
import re
import tomllib
from pathlib import PurePath
from typing import NamedTuple

import yaml

from perfloop.tools.change.codemods.base import NotApplicable

FORMATS = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml", ".ini": "ini", ".cfg": "ini",
           ".txt": "args", ".args": "args"}

# Scalar value tokens each format may hold for a loader option; anything else
# (arrays, tables, multi-line strings) is left for a human to edit.
_VALUE = {
    "yaml": r"""-?[0-9][0-9_.eE+-]*|[Tt]rue|TRUE|[Ff]alse|FALSE|[Yy]es|[Nn]o|[Oo]n|[Oo]ff"""
    r"""|null|Null|NULL|~|"[^"\n]*"|'[^'\n]*'""",
    "json": r'''-?[0-9][0-9.eE+-]*|true|false|null|"(?:[^"\\\n]|\\.)*"''',
    "toml": r"[+-]?[0-9][0-9_.eE+-]*|true|false|[+-]?inf|[+-]?nan"
    r"""|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'""",
    "ini": r"[^\s#;][^\r\n#;]*?",
}
_SEPARATOR = {"yaml": r"[ \t]*:[ \t]+", "json": r"[ \t]*:[ \t]*", "toml": r"[ \t]*=[ \t]*", "ini": r"[ \t]*[=:][ \t]*"}
_VALUE_END = {"ini": r"(?=[ \t]*(?:[#;]|\r?$))"}
_VALUE_END_DEFAULT = r"(?=[ \t]*(?:#|,|\}|\]|\r?$))"
# A comment right after the value token, to the end of its line (JSON has none).
_TRAILING_COMMENT = {"yaml": re.compile(r"[ \t]+(#[^\r\n]*)"), "toml": re.compile(r"[ \t]*(#[^\r\n]*)"),
                     "ini": re.compile(r"[ \t]+([#;][^\r\n]*)")}
_INI_BOOLEANS = {**{word: True for word in ("true", "yes", "on")}, **{word: False for word in ("false", "no", "off")}}


def config_format(config_path: str) -> str:
    """Return "yaml", "json", "toml" or "ini" for a config path, by its suffix."""
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
    except (ValueError, yaml.YAMLError, configparser.Error) as error:  # JSON and TOML errors are ValueErrors
        raise NotApplicable(f"cannot parse {config_path}: {error}") from error


def load_config(text: str, fmt: str) -> object:
    """Parse config text in the given format."""
    if fmt == "yaml":
        return yaml.safe_load(text)
    if fmt == "json":
        return json.loads(text)
    if fmt == "ini":
        return load_ini(text)
    if fmt == "args":
        return {dest: value for dest, value, _ in _arguments(text)}
    return tomllib.loads(text)


def _arguments(text: str) -> list[tuple[str, object, tuple[int, int] | None]]:
    """(dest, value, the value's span in `text` or None for a bare flag) per option of an arguments file."""
    lines, at = [], 0
    for line in text.splitlines(keepends=True):
        lines.append((line.rstrip("\r\n"), at))
        at += len(line)
    found, k = [], 0
    while k < len(lines):
        line, start = lines[k]
        if not line.startswith("-") or line in ("-", "--"):
            raise ValueError(f"line {k + 1}: `{line}` is not an option (`--name=value`, or `--name` and its value "
                             "on the next line)")
        name, equals, raw = line.partition("=")
        dest = name.lstrip("-").replace("-", "_")
        if equals:
            found.append((dest, _ini_scalar(raw), (start + len(name) + 1, start + len(line))))
        elif k + 1 < len(lines) and not lines[k + 1][0].startswith("-"):
            k += 1
            found.append((dest, _ini_scalar(lines[k][0]), (lines[k][1], lines[k][1] + len(lines[k][0]))))
        else:
            found.append((dest, True, None))
        k += 1
    return found


def load_ini(text: str) -> dict:
    """Parse INI text as {section: {key: scalar}}, keys in their written case, [DEFAULT] as its own section."""
    parser = configparser.ConfigParser(default_section="\0none", interpolation=None, inline_comment_prefixes=("#", ";"))
    parser.optionxform = str
    parser.read_string(text)
    return {section: {key: _ini_scalar(raw) for key, raw in parser[section].items()} for section in parser.sections()}


def _ini_scalar(raw: str) -> object:
    """An INI value as configparser's typed getters would read it: int, float, bool, else the text."""
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    return _INI_BOOLEANS.get(raw.lower(), raw)


def render_value(value: object, fmt: str) -> str:
    """Spell a Python value as a scalar token of the config format."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        if fmt in ("toml", "ini"):
            raise NotApplicable(f"{fmt.upper()} has no null value")
        return "null"
    if fmt in ("ini", "args") and isinstance(value, (int, float, str)):
        return str(value)
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


class ConfigEdit(NamedTuple):
    """A value edit: the new text, the line it is on, and the trailing comment it dropped (None if none)."""

    text: str
    line: int
    dropped_comment: str | None

    def note(self, config_path: str) -> str | None:
        """Say which comment was dropped, for the change's notes; None when none was."""
        if self.dropped_comment is None:
            return None
        return (f"dropped the comment '{self.dropped_comment}' on line {self.line} of {config_path}, "
                "which described the old value")


def edit_config_value(text: str, fmt: str, path: tuple, value: object) -> tuple[str, int]:
    """Rewrite only the value token at `path` (and drop the comment trailing it); return the new text and its line.

    See edit_config for the comment it drops.
    """
    edit = edit_config(text, fmt, path, value)
    return edit.text, edit.line


def edit_config(text: str, fmt: str, path: tuple, value: object) -> ConfigEdit:
    """Rewrite only the value token at `path`, dropping the comment that trails it on its line.

    Every `key: value` spot in the text that could be the one is tried, and an edit
    is kept only if re-parsing shows that exactly `path` changed, to `value`:
    comments elsewhere, strings and same-named keys elsewhere are left alone by construction.
    The comment right after the old value (``key: 0  # why 0``) described that value, so it is
    removed with it; a comment after more of the line (a flow mapping's ``}``) stays.
    """
    data = load_config(text, fmt)
    expected = _unshared_copy(data)
    value_at(expected, path[:-1])[path[-1]] = value
    token = render_value(value, fmt)
    if fmt == "args":
        spans = [span for dest, _, span in _arguments(text) if dest == path[-1] and span is not None]
        if len(spans) == 1:
            (start, end), = spans
            new_text = text[:start] + token + text[end:]
            if _same(load_config(new_text, fmt), expected):
                return ConfigEdit(new_text, text.count("\n", 0, start) + 1, None)
    name = re.escape(str(path[-1]))
    pattern = re.compile(
        rf"""(?:(?<![\w-]){name}|"{name}"|'{name}')"""
        rf"{_SEPARATOR[fmt]}(?P<value>{_VALUE[fmt]}){_VALUE_END.get(fmt, _VALUE_END_DEFAULT)}",
        re.MULTILINE,
    )
    for match in pattern.finditer(text):
        comment = _TRAILING_COMMENT[fmt].match(text, match.end("value")) if fmt in _TRAILING_COMMENT else None
        rest = match.end("value") if comment is None else comment.end()
        new_text = text[: match.start("value")] + token + text[rest:]
        try:
            reparsed = load_config(new_text, fmt)
        except (ValueError, yaml.YAMLError, configparser.Error):
            continue  # the spot was inside something else, e.g. a string
        if _same(reparsed, expected):
            return ConfigEdit(new_text, text.count("\n", 0, match.start("value")) + 1,
                              comment.group(1).rstrip() if comment else None)
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
