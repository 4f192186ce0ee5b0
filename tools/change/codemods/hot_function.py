"""Find the function the profile names ("name (file:line)") in its source file."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from perfloop.tools.change.codemods.base import NotApplicable

_SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", "node_modules", "site-packages"}
HOT_FUNCTION = re.compile(r"^(?P<name>[\w.<>]+) \((?P<file>.+):(?P<line>\d+)\)$")


def parse_hot_function(value: object) -> tuple[str, str, int]:
    """Split the metric "name (file:line)" into its parts."""
    match = HOT_FUNCTION.match(value) if isinstance(value, str) else None
    if not match:
        raise NotApplicable(f"the profile names no hot function as 'name (file:line)' (got {value!r})")
    name = match["name"]
    # A comprehension or lambda is code of the function that holds it.
    name = re.sub(r"(\.<locals>)?\.<(listcomp|dictcomp|setcomp|genexpr|lambda)>$", "", name)
    return name, match["file"], int(match["line"])


def load_hot_function(root: Path, hot_function: object) -> tuple[str, str, ast.Module, ast.FunctionDef]:
    """Return (file, text, parsed module, function) of the profile's "name (file:line)" in the target."""
    name, file, line = parse_hot_function(hot_function)
    path = Path(root) / file
    if not path.is_file():
        raise NotApplicable(f"the hot function's file {file} is not in the target folder {root}")
    text = path.read_text()
    tree = ast.parse(text)
    return file, text, tree, find_function(tree, name, line)


def find_function(tree: ast.Module, qualname: str, line: int) -> ast.FunctionDef:
    """Find a function by qualified name ("Cls.method" or "func"), the one nearest `line`."""
    parts = qualname.split(".")
    found = []
    for node, qual in functions(tree):
        if qual == qualname or (len(parts) == 1 and qual.split(".")[-1] == parts[0]):
            found.append(node)
    if not found:
        raise NotApplicable(f"no function {qualname} in the hot function's file")
    return min(found, key=lambda node: abs(node.lineno - line))


def functions(tree: ast.AST, prefix: str = ""):
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node, prefix + node.name
            yield from functions(node, f"{prefix}{node.name}.<locals>.")
        elif isinstance(node, ast.ClassDef):
            yield from functions(node, f"{prefix}{node.name}.")


def qualname_of(tree: ast.Module, fn: ast.FunctionDef) -> str:
    return next(qual for node, qual in functions(tree) if node is fn)


def python_files(root: Path) -> list[str]:
    """Relative paths of the target's own Python files, sorted."""
    found = []
    for path in sorted(Path(root).rglob("*.py")):
        rel = path.relative_to(root)
        if not set(rel.parts[:-1]) & _SKIP_DIRS:
            found.append(str(rel))
    return found
