"""Inline a same-file scalar helper called per element, so the loop that calls it can be vectorised.

Pipelines often keep the per-element work in a small function of their own
(`[ulaw2linear(b) for b in payload]`, `[clamp(v, 0, 255) for v in row]`). The translator
refuses a call it does not know, so the loop stayed in Python. A helper whose body is an
expression in disguise (assignments to local names, `if test: return a`, the last `return`)
is substituted into the call as one expression: `if` becomes a conditional expression, which
the translator turns into `np.where`. The helper itself stays in the file for other callers.

What is inlined, and what is not (the reason reaches the refusal when the loop is refused):
- module-level functions of the same file, called by name, and the other methods of the class of a
  method being rewritten, called as `self.name(...)` (`self` bound to the caller's; a @staticmethod
  too); not the function being rewritten, without other decorators, `*args`, `**kwargs` or
  keyword-only parameters; defaults only constants;
- bodies of assignments to names (`=`, chained `a = b = 0`, `a, b = x, y`, `+=`, annotated), `if`/`else`
  whose branches assign names or `return`, and `return` (a docstring is skipped); a name read before the helper
  sets it, or a helper that can end without `return`, is refused;
- a helper's global names must not be names of the caller (they would be captured);
- an argument that holds a call is passed only to a parameter the helper reads, so the checks
  that run on the inlined loop see it (a dropped argument would drop its effect).
Nested helpers are inlined in turn (recursion is refused). Evaluation is the helper's: each
parameter's expression is substituted where the helper reads it.
"""
from __future__ import annotations

import ast
import copy

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.hot_function import is_docstring_stmt
from perfloop.tools.change.codemods.loops import dotted, names_loaded, names_stored

# A local read several times is substituted each time: a helper whose expression grows past this is left alone.
MAX_NODES = 400


def helpers_of(module: ast.Module, fn: ast.FunctionDef) -> dict[str, ast.FunctionDef]:
    """What `fn` may call that can be inlined, by how it calls it: the module-level functions of `module`
    (`name`) and, when `fn` is a method, the other methods of its class (`self.name`, with `fn`'s own name
    for its first parameter). A name defined twice is left out; so is `fn` itself."""
    found = _unique(node for node in module.body if isinstance(node, ast.FunctionDef))
    for cls in (node for node in ast.walk(module) if isinstance(node, ast.ClassDef)):
        if any(member is fn for member in cls.body) and fn.args.args:
            me = fn.args.args[0].arg
            methods = _unique(node for node in cls.body if isinstance(node, ast.FunctionDef))
            found |= {f"{me}.{name}": node for name, node in methods.items()}
    return {key: node for key, node in found.items() if node is not fn}


def _unique(nodes) -> dict[str, ast.FunctionDef]:
    by_name: dict[str, list[ast.FunctionDef]] = {}
    for node in nodes:
        by_name.setdefault(node.name, []).append(node)
    return {name: found[0] for name, found in by_name.items() if len(found) == 1}


def inline_helpers(fn: ast.FunctionDef, helpers: dict[str, ast.FunctionDef]) -> tuple[ast.FunctionDef, list[str],
                                                                                        dict[str, str]]:
    """A copy of `fn` with calls to inlinable helpers replaced by their expression.

    Returns the copy, notes for the audit log (one per helper inlined) and, per helper that was
    called but not inlined, why.
    """
    local = names_stored([fn]) | {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    shadowed = {name for name in helpers if name.split(".")[0] in local and "." not in name}
    if fn.args.args and fn.args.args[0].arg in names_stored(fn.body):
        shadowed |= {name for name in helpers if "." in name}  # `self` rebound: its methods are not the class's
    inlined: dict[str, int] = {}
    why_not: dict[str, str] = {}

    class Inline(ast.NodeTransformer):
        def __init__(self, stack: tuple[str, ...]) -> None:
            self.stack = stack

        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            name = dotted(node.func)
            if not name or name not in helpers or name in shadowed:
                return node
            try:
                if name in self.stack:
                    raise NotApplicable(f"{name}() calls itself")
                expr = expand_call(helpers[name], node, local)
                expr = Inline(self.stack + (name,)).visit(expr)
            except NotApplicable as error:
                why_not.setdefault(name, str(error))
                return node
            inlined[name] = helpers[name].lineno
            return ast.copy_location(expr, node)

    new = Inline(()).visit(copy.deepcopy(fn))
    ast.fix_missing_locations(new)
    notes = [f"{name}() (line {line}) inlined into {fn.name}: its body is substituted where it was called, its "
             "branches computed for every element and chosen with np.where" for name, line in inlined.items()]
    return new, notes, {name: why for name, why in why_not.items() if name not in inlined}


def expand_call(helper: ast.FunctionDef, call: ast.Call, caller_names: set[str]) -> ast.expr:
    """The expression `helper(*call.args, **call.keywords)` computes, or NotApplicable with the reason.

    A call `self.m(...)` binds `m`'s first parameter to the caller's `self` (a @staticmethod binds none)."""
    decorators = [dotted(d) for d in helper.decorator_list]
    method = isinstance(call.func, ast.Attribute)
    if decorators not in ([], ["staticmethod"]) or (decorators and not method):
        raise NotApplicable(f"{helper.name}() is decorated")
    args = helper.args
    if args.vararg or args.kwarg or args.kwonlyargs:
        raise NotApplicable(f"{helper.name}() takes *args, **kwargs or keyword-only parameters")
    params = [a.arg for a in args.posonlyargs + args.args]
    given = list(call.args)
    if method and not decorators:
        if not params:
            raise NotApplicable(f"{helper.name}() takes no `self`")
        given = [ast.Name(id=dotted(call.func.value), ctx=ast.Load())] + given
    if any(isinstance(a, ast.Starred) for a in given) or any(k.arg is None for k in call.keywords) \
            or len(given) > len(params):
        raise NotApplicable(f"the call to {helper.name}() unpacks arguments or passes too many")
    bound: dict[str, ast.expr] = dict(zip(params, given))
    for keyword in call.keywords:
        if keyword.arg not in params or keyword.arg in bound:
            raise NotApplicable(f"the call to {helper.name}() passes `{keyword.arg}` it does not take (or twice)")
        bound[keyword.arg] = keyword.value
    defaults = dict(zip(params[len(params) - len(args.defaults):], args.defaults))
    for param in params:
        if param not in bound:
            default = defaults.get(param)
            if not isinstance(default, ast.Constant):
                raise NotApplicable(f"the call to {helper.name}() leaves `{param}` to a default that is not a constant")
            bound[param] = default
    own = names_stored(helper.body) | set(params)
    captured = (names_loaded(ast.Module(body=helper.body, type_ignores=[])) - own) & caller_names
    if captured:
        raise NotApplicable(f"{helper.name}() reads the global `{sorted(captured)[0]}`, a name the caller also sets")
    body = helper.body[1:] if is_docstring_stmt(helper.body[0]) else helper.body
    expr = _expand(helper.name, body, dict(bound), own)
    size = sum(1 for _ in ast.walk(expr))
    if size > MAX_NODES:
        raise NotApplicable(f"{helper.name}() would be {size} expression nodes once its locals are substituted "
                            f"(more than {MAX_NODES})")
    read = names_loaded(ast.Module(body=body, type_ignores=[]))
    for param, value in bound.items():
        if param not in read and any(isinstance(n, (ast.Call, ast.NamedExpr, ast.Await)) for n in ast.walk(value)):
            raise NotApplicable(f"{helper.name}() never reads `{param}`, whose argument `{ast.unparse(value)}` calls "
                                "a function: inlining would drop the call")
    return expr


def _expand(name: str, body: list[ast.stmt], env: dict[str, ast.expr], own: set[str]) -> ast.expr:
    """Walk `body` with `env` (each local name's expression so far); return what its `return` computes."""
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Return):
            if stmt.value is None:
                raise NotApplicable(f"{name}() returns None")
            return _subst(name, stmt.value, env, own)
        if isinstance(stmt, ast.If) and (_returns(stmt.body) or _returns(stmt.orelse)):
            # `if test: return a` then the rest: a conditional expression, the rest its else branch.
            test = _subst(name, stmt.test, env, own)
            then = _expand(name, stmt.body + ([] if _returns(stmt.body) else body[i + 1:]), dict(env), own)
            other = _expand(name, stmt.orelse + ([] if _returns(stmt.orelse) else body[i + 1:]), dict(env), own)
            return ast.IfExp(test=test, body=then, orelse=other)
        env = _assign(name, [stmt], env, own)  # an `if` whose branches only assign is merged there
    raise NotApplicable(f"{name}() can end without `return`")


def _returns(stmts: list[ast.stmt]) -> bool:
    """Whether a branch ends in `return` (the only way out of a branch the inliner follows)."""
    return bool(stmts) and isinstance(stmts[-1], ast.Return)


def _assign(name: str, stmts: list[ast.stmt], env: dict[str, ast.expr], own: set[str]) -> dict[str, ast.expr]:
    for stmt in stmts:
        if is_docstring_stmt(stmt) or isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            # `lo = hi = 0.0` as well as `lo = 0.0`: each name reads the one value.
            value = _subst(name, stmt.value, env, own)
            for target in stmt.targets:
                env[target.id] = copy.deepcopy(value)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple) \
                and isinstance(stmt.value, ast.Tuple) and len(stmt.targets[0].elts) == len(stmt.value.elts) \
                and all(isinstance(t, ast.Name) for t in stmt.targets[0].elts):
            # `lo, hi = a, b`: every right-hand side is read before any name is set, as Python does.
            values = [_subst(name, v, env, own) for v in stmt.value.elts]
            for target, value in zip(stmt.targets[0].elts, values):
                env[target.id] = value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            env[stmt.target.id] = _subst(name, stmt.value, env, own)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            current = _subst(name, ast.Name(id=stmt.target.id, ctx=ast.Load()), env, own)
            env[stmt.target.id] = ast.BinOp(left=current, op=stmt.op, right=_subst(name, stmt.value, env, own))
        elif isinstance(stmt, ast.If) and not _returns(stmt.body) and not _returns(stmt.orelse):
            test = _subst(name, stmt.test, env, own)
            then_env, else_env = _assign(name, stmt.body, dict(env), own), _assign(name, stmt.orelse, dict(env), own)
            for var in dict.fromkeys([*then_env, *else_env]):
                a, b = then_env.get(var), else_env.get(var)
                if a is b:
                    continue
                if a is None or b is None:
                    raise NotApplicable(f"{name}() sets `{var}` in one branch of the `if` at line {stmt.lineno} only")
                env[var] = ast.IfExp(test=copy.deepcopy(test), body=a, orelse=b)
        else:
            raise NotApplicable(f"{name}() line {stmt.lineno}: `{ast.unparse(stmt).splitlines()[0]}` is not an "
                                "assignment, an `if` or a `return`")
    return env


def _subst(name: str, expr: ast.expr, env: dict[str, ast.expr], own: set[str]) -> ast.expr:
    """`expr` with each local name replaced by its expression (copied); globals and builtins stay."""
    if any(isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.NamedExpr))
           for n in ast.walk(expr)):
        raise NotApplicable(f"{name}() line {expr.lineno}: `{ast.unparse(expr)}` binds names of its own")

    class Subst(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id in env:
                return ast.copy_location(copy.deepcopy(env[node.id]), node)
            if node.id in own:
                raise NotApplicable(f"{name}() line {node.lineno}: `{node.id}` is read before the helper sets it")
            return node

    return Subst().visit(copy.deepcopy(expr))


def with_math_names(fn: ast.FunctionDef, module: ast.Module) -> ast.FunctionDef:
    """`fn` with calls of names imported from math (`from math import isnan, log as ln`) spelled `math.isnan(...)`,
    `math.log(...)`, the form the translator maps to numpy; `fn` itself where there are none. A name the function
    binds itself is left alone; a rewrite that keeps such a call in Python gains `import math` (splice_loops)."""
    aliases = {alias.asname or alias.name: alias.name for node in module.body
               if isinstance(node, ast.ImportFrom) and node.module == "math" and not node.level
               for alias in node.names if alias.name != "*"}
    own = names_stored(fn.body) | {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    aliases = {k: v for k, v in aliases.items() if k not in own}
    if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in aliases for n in ast.walk(fn)):
        return fn

    class Spell(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            if isinstance(node.func, ast.Name) and node.func.id in aliases:
                node.func = ast.copy_location(ast.Attribute(value=ast.Name(id="math", ctx=ast.Load()),
                                                            attr=aliases[node.func.id], ctx=ast.Load()), node.func)
            return node

    return Spell().visit(copy.deepcopy(fn))

