"""Add a plain `import <module>` to a file's text, where a reader expects it."""
from __future__ import annotations

import ast


def add_import(text: str, module: str) -> str:
    """Add `import <module>` before the first top-level import, unless the file already imports it so."""
    tree = ast.parse(text)
    if any(isinstance(n, ast.Import) and any(a.name == module and a.asname is None for a in n.names)
           for n in tree.body):
        return text
    first = next((n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
                  and not (isinstance(n, ast.ImportFrom) and n.module == "__future__")), None)
    lines = text.splitlines(keepends=True)
    at = first.lineno - 1 if first is not None else 0
    return "".join(lines[:at] + [f"import {module}\n"] + lines[at:])
