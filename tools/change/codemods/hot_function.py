"""Find the function the profile names (a FunctionRef) in its source file."""
from __future__ import annotations

import ast
from pathlib import Path

from perfloop.contracts.code import FunctionRef
from perfloop.tools.change.codemods.base import CodemodContext, NotApplicable
from perfloop.tools.change.codemods.loops import dotted

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
    return functions_in_target(ctx, ctx.profile.hot_helpers, sources)


def path_in_target(ctx: CodemodContext, sources: dict[str, tuple[str, ast.Module]]
                   ) -> list[tuple[str, ast.FunctionDef]]:
    """(file, function) of the other functions the profile sampled on the per-sample path
    (ProfileFacts.path_functions: the hot function's callers and their other callees), as
    ``helpers_in_target`` reads them."""
    return functions_in_target(ctx, ctx.profile.path_functions, sources)


def functions_in_target(ctx: CodemodContext, refs: list[FunctionRef], sources: dict[str, tuple[str, ast.Module]]
                        ) -> list[tuple[str, ast.FunctionDef]]:
    """(file, function) of each of ``refs`` in the target's own files, in their order; see ``helpers_in_target``."""
    found = []
    for helper in refs:
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


def covered_by_one(tree: ast.Module, callers: list[ast.FunctionDef], rewritten: list[ast.FunctionDef]
                   ) -> tuple[ast.FunctionDef, list[ast.FunctionDef]]:
    """The one of `callers` whose calls within the file (`f(...)` or `self.f(...)`, at any depth) reach the most
    of `rewritten` (itself counted), the earliest on a tie; and those it reaches, in their order. Replaying it on
    captured calls covers all of them."""
    by_name: dict[str, list[ast.FunctionDef]] = {}
    for node, _ in functions(tree):
        by_name.setdefault(node.name, []).append(node)

    def reached(fn: ast.FunctionDef) -> set[str]:
        seen, todo = set(), [fn]
        while todo:
            for node in ast.walk(todo.pop()):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) \
                    and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls") else None
                if name in by_name and name not in seen:
                    seen.add(name)
                    todo += by_name[name]
        return seen

    def covers(fn: ast.FunctionDef) -> list[ast.FunctionDef]:
        calls = reached(fn)
        return [r for r in rewritten if r is fn or r.name in calls]

    best = max(callers, key=lambda fn: (len(covers(fn)), -callers.index(fn)))
    return best, covers(best)


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


def called_per_element(fn: ast.FunctionDef, spelled: bool = False) -> set[str]:
    """Names of the functions and methods `fn` calls inside a loop body or a comprehension (or maps); with
    ``spelled``, each call as written (`self.wordpiece.tokenize`, `wordpiece`) instead of its last name."""
    parts: list[ast.AST] = []
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            parts += node.body + node.orelse
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            parts += [node.elt, *_per_element_parts(node.generators)]
        elif isinstance(node, ast.DictComp):
            parts += [node.key, node.value, *_per_element_parts(node.generators)]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "map" and node.args:
            parts.append(ast.Call(func=node.args[0], args=[], keywords=[]))
    names = set()
    for part in parts:
        for sub in ast.walk(part):
            if isinstance(sub, ast.Call):
                # `self.wordpiece.tokenize`, or `?.strip` where the chain starts at a call (`x.pop().strip()`).
                call = dotted(sub.func) or (f"?.{sub.func.attr}" if isinstance(sub.func, ast.Attribute) else "?")
                names.add(call if spelled else call.rsplit(".", 1)[-1])
    return names


def _per_element_parts(generators: list[ast.comprehension]) -> list[ast.expr]:
    """What a comprehension evaluates per element: its conditions, and the iterables of its inner `for`s
    (`for word in words for piece in wordpiece(word)`)."""
    return [cond for gen in generators for cond in gen.ifs] + [gen.iter for gen in generators[1:]]


def per_element_left_out(candidates: list[ast.FunctionDef], per_element: bool) -> list[ast.FunctionDef]:
    """The candidates, less those another candidate calls per element (in a loop or comprehension) where
    ``per_element`` is False: numpy on one element's short row can cost more than the Python it replaces, so where
    replay refused the whole rewrite the proposer asks again with only the loops over whole samples or batches."""
    if per_element is True:
        return candidates
    if per_element is not False:
        raise ValueError(f"vectorize_hot_function: params per_element must be true or false, got {per_element!r}")
    called = set().union(*(called_per_element(c) for c in candidates))
    kept = [c for c in candidates if c is candidates[0] or c.name not in called]
    if len(kept) == len(candidates):
        raise NotApplicable("no function of the per-sample path is called per element by another: nothing to leave "
                            "out of the rewrite replay refused")
    return kept


MEMO_MIN_SHARE = 0.1
"""A function on the stack in less of its phase than this cannot gain a memo more than about x1.1 (a memo saves at
most the time under it), within the noise floor of most machines: such candidates are tried last."""


def small_shares_last(candidates: list, shares: dict[str, float], name_of) -> list:
    """`candidates` ((file, function) pairs, in the order a codemod would try them) with those the profile saw on the
    stack in less than MEMO_MIN_SHARE of their phase (`ProfileFacts.inclusive_shares`, keyed `file:qualified name`;
    `name_of(file, function)` gives the name) moved to the end, each group in its order; a function the profile
    gives no share keeps its place. The list is reordered in place (it keeps its type and attributes)."""
    def small(pair) -> bool:
        share = shares.get(f"{pair[0]}:{name_of(*pair)}")
        return share is not None and share < MEMO_MIN_SHARE

    candidates[:] = [pair for pair in candidates if not small(pair)] + [pair for pair in candidates if small(pair)]
    return candidates
