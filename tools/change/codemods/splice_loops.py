"""Put a function's loop rewrites into its file's text (libcst), and import numpy where they need it.

`vectorize.rewrite_function` decides what replaces which statements (`LoopRewrite`: indices into the
function's body); this module edits the text so the rest of the file keeps its formatting and comments.
"""
from __future__ import annotations

import ast

import libcst as cst

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.hot_function import functions
from perfloop.tools.change.codemods.imports import add_import
from perfloop.tools.change.codemods.loops import LoopRewrite, quiet_lines
from perfloop.tools.change.codemods.windows import with_helpers


def splice(text: str, fn: ast.FunctionDef, rewrites: list[LoopRewrite]) -> str:
    """Replace the rewritten statements of `fn` in `text`, with libcst, and import numpy as np."""
    module = cst.parse_module(text)
    tree = ast.parse(text)
    ordinal = [node for node, _ in functions(tree) if node.name == fn.name].index(
        next(node for node, _ in functions(tree) if node.lineno == fn.lineno and node.name == fn.name))
    blocks = {r.block for r in rewrites}

    def edit_block(statements: list, path: tuple[int, ...]) -> list:
        """The block at ``path`` with its rewrites applied, and the loops holding rewritten blocks edited inside."""
        mine = [r for r in rewrites if r.block == path]
        replace = {r.end: quiet_lines(r.lines) if r.quiet else r.lines for r in mine}
        first: dict[int, dict[str, None]] = {}  # the function body's statement -> conversions put before it, once
        for r in rewrites if not path else ():
            first.setdefault(r.block[0] if r.block else -1, {}).update(dict.fromkeys(r.before))
        remove = {j for r in mine for j in r.remove}
        new_body, index = [], 0
        for statement in statements:
            count = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
            covered = set(range(index, index + count))
            index += count
            if covered & (set(replace) | remove) and count > 1:
                raise NotApplicable("a rewritten statement shares its line with others (`;`)")
            if covered & remove:
                continue
            if covered & set(replace):
                lines = replace[index - 1]
                parsed = [cst.parse_statement(line) for line in lines]
                parsed[0] = parsed[0].with_changes(leading_lines=statement.leading_lines)
                new_body += parsed
                continue
            inner = (*path, index - 1)
            if count == 1 and first.get(index - 1):
                new_body += [cst.parse_statement(line) for line in first[index - 1]]
            if count == 1 and any(block[:len(inner)] == inner for block in blocks):
                if not isinstance(statement, (cst.For, cst.While)) or not isinstance(statement.body, cst.IndentedBlock):
                    raise NotApplicable("an inner loop's outer loop is written on one line")
                body = edit_block(list(statement.body.body), inner)
                statement = statement.with_changes(body=statement.body.with_changes(body=body))
            new_body.append(statement)
        return new_body

    class Edit(cst.CSTTransformer):
        def __init__(self) -> None:
            self.seen = -1

        def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
            if updated.name.value != fn.name:
                return updated
            self.seen += 1
            if self.seen != ordinal:
                return updated
            return updated.with_changes(body=updated.body.with_changes(body=edit_block(list(updated.body.body), ())))

    edited = with_helpers(_import_numpy(module.visit(Edit())).code)  # window reductions' helpers (windows.py)
    if any("math." in line for r in rewrites for line in r.lines):  # a call kept in Python (with_math_names)
        edited = add_import(edited, "math")
    if any("operator.index(" in line for r in rewrites for line in r.lines):  # an enumerate's start (counted_from.py)
        edited = add_import(edited, "operator")
    return edited


def _import_numpy(module: cst.Module) -> cst.Module:
    """Add `import numpy as np` after the last top-level import (in a file with none, after its docstring) unless it
    is there."""
    last_import = -1
    for i, statement in enumerate(module.body):
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        bound = alias.asname.name.value if alias.asname else cst.Module([]).code_for_node(alias.name)
                        if bound == "np":
                            if cst.Module([]).code_for_node(alias.name) != "numpy":
                                raise NotApplicable("`np` is bound to something other than numpy in this file")
                            return module
                    last_import = i
                elif isinstance(small, cst.ImportFrom):
                    last_import = i
    if last_import == -1 and module.body and isinstance(module.body[0], cst.SimpleStatementLine) \
            and isinstance(module.body[0].body[0], cst.Expr) \
            and isinstance(module.body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        last_import = 0  # no import: after the module's docstring, which must stay its first statement
    line = cst.parse_statement("import numpy as np\n")
    body = list(module.body)
    body.insert(last_import + 1, line)
    return module.with_changes(body=body)
