"""Find the function the profile names (a FunctionRef) in its source file."""
from __future__ import annotations

import ast
from pathlib import Path

from perfloop.contracts.code import FunctionRef
from perfloop.tools.change.codemods.base import CodemodContext, NotApplicable

_SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", "node_modules", "site-packages"}


def hot_function_of(ctx: CodemodContext) -> FunctionRef:
    """The profile's hot function; NotApplicable when the profile names none."""
    hot = ctx.profile.hot_function
    if hot is None:
        raise NotApplicable("the profile names no hot function")
    if Path(hot.file).is_absolute():
        raise NotApplicable(f"the profile's hot function {hot.where()} is not in the target's files (an installed "
                            "package's code): only the target's own code is rewritten")
    return hot


def load_hot_function(ctx: CodemodContext) -> tuple[str, str, ast.Module, ast.FunctionDef]:
    """Return (file, text, parsed module, function) of the profile's hot function in the target."""
    hot = hot_function_of(ctx)
    # A comprehension or lambda is code of the function that holds it.
    name, file, line, root = hot.defining_name, hot.file, hot.line, ctx.root
    path = Path(root) / file
    if not path.is_file():
        raise NotApplicable(f"the hot function's file {file} is not in the target folder {root}")
    text = path.read_text()
    tree = ast.parse(text)
    return file, text, tree, find_function(tree, name, line)


def sampled_helpers(ctx: CodemodContext, file: str, tree: ast.Module) -> list[ast.FunctionDef]:
    """The functions of `file` the profile sampled under the hot function (ProfileFacts.hot_helpers), in its
    order; those no longer found are left out."""
    found = []
    for helper in ctx.profile.hot_helpers:
        if helper.file != file:
            continue
        try:
            found.append(find_function(tree, helper.defining_name, helper.line))
        except NotApplicable:
            continue
    return found


def helpers_in_target(ctx: CodemodContext, sources: dict[str, tuple[str, ast.Module]]
                      ) -> list[tuple[str, ast.FunctionDef]]:
    """(file, function) of every helper the profile sampled under the hot function, in any of the target's own
    files, in the profile's order; ``sources`` (file -> (text, tree)) gains each file read. Files outside the
    target folder, and functions no longer found, are left out."""
    found = []
    for helper in ctx.profile.hot_helpers:
        path = Path(ctx.root) / helper.file
        if Path(helper.file).is_absolute() or not path.is_file():
            continue
        if helper.file not in sources:
            try:
                text = path.read_text()
                sources[helper.file] = (text, ast.parse(text))
            except (OSError, SyntaxError, UnicodeDecodeError):
                continue
        try:
            found.append((helper.file, find_function(sources[helper.file][1], helper.defining_name, helper.line)))
        except NotApplicable:
            continue
    return found


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


def is_docstring_stmt(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is a docstring (a bare string constant), in a module's or a function's body."""
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)
