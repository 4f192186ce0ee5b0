"""Add to a file's text where a reader expects it: a plain `import <module>`, a helper after the imports."""
from __future__ import annotations

import ast


def add_import(text: str, module: str, alias: str | None = None) -> str:
    """Add `import <module>` (`as <alias>`) before the first top-level import (in a file with none, after its
    docstring and `from __future__` imports), unless the file already imports it so."""
    tree = ast.parse(text)
    if any(isinstance(n, ast.Import) and any(a.name == module and a.asname == alias for a in n.names)
           for n in tree.body):
        return text
    first = next((n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
                  and not (isinstance(n, ast.ImportFrom) and n.module == "__future__")), None)
    lines = text.splitlines(keepends=True)
    if first is not None:
        at = first.lineno - 1
    else:  # no import yet: after the module's docstring and its `from __future__` imports, which must come first
        at = 0
        for k, node in enumerate(tree.body):
            docstring = k == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            if docstring or (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
                at = node.end_lineno
            else:
                break
    return "".join(lines[:at] + [f"import {module}{f' as {alias}' if alias else ''}\n"] + lines[at:])


def after_imports_text(text: str, block: str) -> str:
    """`text` with `block` (a helper's source) inserted after the module's docstring and its last top-level
    import, set off by blank lines."""
    tree = ast.parse(text)
    at = 0
    for k, node in enumerate(tree.body):
        docstring = k == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if isinstance(node, (ast.Import, ast.ImportFrom)) or docstring:
            at = node.end_lineno
    lines = text.splitlines(keepends=True)
    return "".join(lines[:at] + ["\n\n", block] + lines[at:])


def import_paths(modules) -> dict[str, str]:
    """Each name the parsed ``modules`` import, with the module path it stands for (`np`: numpy, `date`:
    datetime.date; `import a.b` binds `a`)."""
    paths: dict[str, str] = {}
    for tree in modules:
        for node in tree.body:
            if isinstance(node, ast.Import):
                paths.update((a.asname, a.name) if a.asname else (a.name.split(".")[0],) * 2 for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level:
                paths.update((a.asname or a.name, f"{node.module}.{a.name}") for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                paths.update((a.asname or a.name, a.name) for a in node.names)
    return paths


def full_name(name: str, paths: dict[str, str]) -> str:
    """A dotted `name` by the module path its first part was imported as (``import_paths``): `np.zeros` ->
    `numpy.zeros`, `nt` of `from collections import namedtuple as nt` -> `collections.namedtuple`."""
    root = name.split(".")[0]
    return paths.get(root, root) + name[len(root):]
