"""Remove `x.tolist()` → Python → `torch.tensor(list)` round trips in the hot function's file.

Three shapes, each bit-identical by construction:
- `torch.tensor(x.tolist(), dtype=D)` → `torch.as_tensor(x, dtype=D)` (zero copy when
  the dtype already matches, one cast otherwise);
- `v = x.tolist()` used once, in `torch.tensor(v, dtype=D)`: the same, and the line goes;
- `torch.tensor(f(x.tolist(), ...), dtype=D)` where the same file's `f` already returns
  `array.tolist()` (as `vectorize_hot_function` writes it) and is used only like this:
  `f` returns the array, its caller converts with `torch.as_tensor`, and the argument's
  `.tolist()` goes when `f` only reads it through `np.asarray(p, dtype=np.float64)` and
  `len(p)` (both see the same values in an array as in its list).
- `L = []`, each `L.append(x.tolist())` (or of a name bound once to one and read only there), and `L` read
  only by one `torch.tensor(L, dtype=D)`: the rows are appended as arrays and the tensor made as
  `torch.as_tensor(np.array(L), dtype=D)`, the same values cast the same way (a collate's masks and ids,
  rows a vectorised loop computes and then turned back into Python lists).
`torch.tensor(list)` without a dtype infers one from Python values (float32 for floats),
which `as_tensor` of an array would not: such sites are left alone unless the list comes
from `f` computing in float64, or from `np.asarray(..., dtype=np.float64).tolist()`, where
`dtype=torch.get_default_dtype()` keeps it exact, or from `<array>.astype(np.int64).tolist()`
(Python ints, which torch.tensor makes int64 as as_tensor does).
"""
from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable, ReplayTarget
from perfloop.tools.change.codemods.hot_function import load_hot_function, python_files
from perfloop.tools.change.codemods.imports import add_import


@dataclass
class _Plan:
    """Edits keyed by the (line, column) where ast and libcst both place a node."""

    as_tensor: dict[tuple[int, int], dict] = field(default_factory=dict)
    strip_tolist: set[tuple[int, int]] = field(default_factory=set)
    remove_lines: set[int] = field(default_factory=set)
    needs_numpy: bool = False
    changed_functions: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def zero_copy_conversion(ctx: CodemodContext) -> CodemodResult:
    """Replace list round trips feeding torch.tensor in the hot function's file."""
    file, text, tree, _ = load_hot_function(ctx)
    line = ctx.profile.hot_function.line
    others = "\n".join((ctx.root / f).read_text() for f in python_files(ctx.root) if f != file)
    plan = _plan(tree, others)
    if not plan.as_tensor:
        raise NotApplicable(f"no torch.tensor(...) of a .tolist() list with a known dtype in {file}"
                            + (f": {'; '.join(plan.skipped)}" if plan.skipped else ""))
    new_text = _apply(text, plan)
    functions = list(dict.fromkeys(plan.changed_functions))
    plain = [f for f in functions if "." not in f]
    return CodemodResult(
        files={file: new_text}, knob="zero_copy",
        summary=f"{len(plan.as_tensor)} torch.tensor(list) round trip(s) → torch.as_tensor in {file} "
                f"({', '.join(functions)})",
        old_value="torch.tensor(x.tolist())", new_value="torch.as_tensor(x)", location=f"{file}:{line}",
        replay=ReplayTarget(file=file, function=plain[0], lists_became_arrays=True) if plain else None,
        notes=plan.skipped + ["as_tensor shares memory with the array when the dtype matches; the default "
                              "collate copies it into the batch"],
    )


def remove_round_trips(text: str, other_files: str) -> tuple[str, _Plan] | None:
    """Return the text with every round trip it allows removed, and the plan; None when there is none."""
    plan = _plan(ast.parse(text), other_files)
    if not plan.as_tensor:
        return None
    return _apply(text, plan), plan


def _is_call(node: ast.AST, dotted: str) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func) == dotted


def _is_tolist(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr == "tolist" and not node.args and not node.keywords


def _key(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _plan(tree: ast.Module, other_files: str) -> _Plan:
    plan = _Plan()
    producers = _list_producers(tree, other_files)
    for fn, qual in _functions(tree):
        loads: dict[str, list[ast.Name]] = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                loads.setdefault(node.id, []).append(node)
        tolist_names = {}
        for stmt in fn.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and _is_tolist(stmt.value) and len(loads.get(stmt.targets[0].id, [])) == 1:
                tolist_names[stmt.targets[0].id] = stmt
        via_name = {}  # name read once in torch.tensor(name) -> the producer call it holds
        bound = _bound_once(fn)
        for stmt in fn.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) \
                    and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id in producers \
                    and id(stmt.value) in bound:
                via_name.update({read.id: stmt.value for read in bound[id(stmt.value)]})
        rows = _appended_rows(fn, loads)
        for call in [n for n in ast.walk(fn) if _is_call(n, "torch.tensor")]:
            if len(call.args) != 1 or any(k.arg not in ("dtype",) for k in call.keywords):
                continue
            arg, has_dtype = call.args[0], any(k.arg == "dtype" for k in call.keywords)
            where = f"{qual} line {call.lineno}"
            if isinstance(arg, ast.Name) and arg.id in rows:
                if not has_dtype:
                    plan.skipped.append(f"{where}: torch.tensor({arg.id}) of appended rows without dtype infers "
                                        "float32/int64 from the values; left alone")
                    continue
                plan.strip_tolist |= rows[arg.id]
                plan.as_tensor[_key(call)] = {"arg": f"np.array({arg.id})"}
                plan.needs_numpy = True
                plan.changed_functions.append(qual)
                continue
            if _is_tolist(arg) or (isinstance(arg, ast.Name) and arg.id in tolist_names):
                receiver = arg.func.value if _is_tolist(arg) else tolist_names[arg.id].value.func.value
                edit = {}
                if not has_dtype and _is_float64_array(receiver):
                    # Python floats: torch.tensor infers the default dtype, as_tensor is told it.
                    edit = {"dtype": "torch.get_default_dtype()"}
                elif not has_dtype and _is_int64_array(receiver):
                    pass  # Python ints: torch.tensor infers int64, which as_tensor keeps
                elif not has_dtype:
                    plan.skipped.append(f"{where}: torch.tensor(list) without dtype infers float32/int64 from "
                                        "the values; left alone")
                    continue
                if _mutated_later(fn, call):
                    plan.skipped.append(f"{where}: the tensor is changed in place later; sharing memory with "
                                        "the array would change the data")
                    continue
                if _is_tolist(arg):
                    plan.strip_tolist.add(_key(arg))
                    plan.as_tensor[_key(call)] = edit
                else:
                    assign = tolist_names[arg.id]
                    plan.as_tensor[_key(call)] = {"arg": ast.unparse(assign.value.func.value), **edit}
                    plan.remove_lines.add(assign.lineno)
                plan.changed_functions.append(qual)
            elif isinstance(arg, ast.Name) and arg.id in via_name or \
                    isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id in producers:
                arg = via_name.get(arg.id, arg) if isinstance(arg, ast.Name) else arg
                producer = producers[arg.func.id]
                plan.as_tensor[_key(call)] = {} if has_dtype else {"dtype": "torch.get_default_dtype()"}
                if not has_dtype and not producer["float64"]:
                    plan.as_tensor.pop(_key(call))
                    plan.skipped.append(f"{where}: {arg.func.id} may return ints; torch.tensor infers the dtype")
                    continue
                for index in producer["array_params"]:
                    if index < len(arg.args) and _is_tolist(arg.args[index]):
                        plan.strip_tolist.add(_key(arg.args[index]))
                plan.strip_tolist |= producer["tolists"]
                plan.changed_functions += [arg.func.id, qual]  # the producer first: it is the one to replay
    return plan


def _appended_rows(fn: ast.FunctionDef, loads: dict[str, list[ast.Name]]) -> dict[str, set[tuple[int, int]]]:
    """Lists made empty in `fn` (`L = []`, or in a tuple of them), appended only `x.tolist()` values (directly, or a
    name stored once, to such a value, and read only by the append) and read nowhere else but one torch.tensor(L):
    each list's name -> the `.tolist()` calls to strip."""
    stored = Counter(n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load))
    values: dict[str, ast.AST] = {}  # the value of a name's one plain assignment
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            pairs = zip(target.elts, node.value.elts) if isinstance(target, ast.Tuple) \
                and isinstance(node.value, ast.Tuple) and len(target.elts) == len(node.value.elts) \
                else [(target, node.value)]
            values.update({name.id: value for name, value in pairs if isinstance(name, ast.Name)})

    def once(name: str) -> ast.AST | None:
        return values.get(name) if stored[name] == 1 else None

    tensor_args = [c.args[0] for c in ast.walk(fn) if _is_call(c, "torch.tensor") and len(c.args) == 1]
    appends = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
                and node.value.func.attr == "append" and isinstance(node.value.func.value, ast.Name) \
                and len(node.value.args) == 1 and not node.value.keywords:
            appends.setdefault(node.value.func.value.id, []).append(node.value)
    found = {}
    for name, calls in appends.items():
        made = once(name)
        if not (isinstance(made, ast.List) and not made.elts):
            continue
        readers = [arg for arg in tensor_args if isinstance(arg, ast.Name) and arg.id == name]
        if len(readers) != 1 or len(loads.get(name, [])) != len(calls) + 1:
            continue  # read by anything else (len, a subscript, returned): it must stay a list of lists
        strip = set()
        for call in calls:
            value = call.args[0]
            if isinstance(value, ast.Name) and once(value.id) is not None and len(loads.get(value.id, [])) == 1:
                value = once(value.id)
            if not _is_tolist(value):
                break
            strip.add(_key(value))
        else:
            found[name] = strip
    return found


def _is_float64_array(node: ast.AST) -> bool:
    """Whether `node` is spelled `np.asarray(..., dtype=np.float64)`: its .tolist() gives Python floats."""
    return isinstance(node, ast.Call) and ast.unparse(node.func) in ("np.asarray", "numpy.asarray") \
        and len(node.args) == 1 and [ast.unparse(k) for k in node.keywords] == ["dtype=np.float64"]


def _is_int64_array(node: ast.AST) -> bool:
    """Whether `node` is spelled `<array>.astype(np.int64)`: its .tolist() gives Python ints."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "astype" \
        and len(node.args) == 1 and not node.keywords and ast.unparse(node.args[0]) in ("np.int64", "numpy.int64")


def _list_producers(tree: ast.Module, other_files: str) -> dict[str, dict]:
    """Top-level functions that return `array.tolist()` values and are only ever wrapped in torch.tensor."""
    found = {}
    for fn in [n for n in tree.body if isinstance(n, ast.FunctionDef)]:
        returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
        last_assign = {}
        for stmt in fn.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                last_assign[stmt.targets[0].id] = stmt.value
        tolists = set()
        ok = bool(returns)
        for ret in returns:
            values = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
            for value in values:
                if _is_tolist(value):
                    tolists.add(_key(value))
                elif isinstance(value, ast.Name) and _is_tolist(last_assign.get(value.id)):
                    tolists.add(_key(last_assign[value.id]))
                else:
                    ok = False
        if not ok or len(returns) != 1 or re.search(rf"\b{fn.name}\b", other_files):
            continue
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id == fn.name]
        if not calls or not all(_feeds_torch_tensor(tree, call) for call in calls):
            continue
        params = [a.arg for a in fn.args.args]
        array_params = [i for i, p in enumerate(params) if _read_as_array_only(fn, p)]
        float64 = "dtype=np.float64" in ast.unparse(fn)
        found[fn.name] = {"tolists": tolists, "array_params": array_params, "float64": float64}
    return found


def _feeds_torch_tensor(tree: ast.Module, call: ast.Call) -> bool:
    """Whether `call` is torch.tensor's argument, or bound to a name read once, as torch.tensor's argument."""
    tensor_args = [n.args[0] for n in ast.walk(tree) if _is_call(n, "torch.tensor") and n.args]
    if any(arg is call for arg in tensor_args):
        return True
    for fn, _ in _functions(tree):
        bound = _bound_once(fn).get(id(call))
        if bound is not None:
            return all(any(arg is read for arg in tensor_args) for read in bound)
    return False


def _bound_once(fn: ast.FunctionDef) -> dict[int, list[ast.Name]]:
    """id(value) -> the only later read of each name, for `name = value` / `a, b = value` statements
    whose names are set once and read exactly once."""
    loads: dict[str, list[ast.Name]] = {}
    stores: dict[str, int] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loads.setdefault(node.id, []).append(node)
            else:
                stores[node.id] = stores.get(node.id, 0) + 1
    found = {}
    for stmt in fn.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            continue
        target = stmt.targets[0]
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        if all(isinstance(n, ast.Name) and stores.get(n.id) == 1 and len(loads.get(n.id, [])) == 1 for n in names):
            found[id(stmt.value)] = [loads[n.id][0] for n in names]
    return found


def _read_as_array_only(fn: ast.FunctionDef, param: str) -> bool:
    """Whether `param` is read only as np.asarray(param, dtype=np.float64) or len(param)."""
    allowed, uses = set(), []
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name) \
                and node.args[0].id == param:
            if ast.unparse(node.func) == "len" or (
                    ast.unparse(node.func) in ("np.asarray", "numpy.asarray")
                    and [ast.unparse(k) for k in node.keywords] == ["dtype=np.float64"]):
                allowed.add(id(node.args[0]))
        if isinstance(node, ast.Name) and node.id == param:
            uses.append(node)
    return bool(uses) and all(id(u) in allowed for u in uses)


def _mutated_later(fn: ast.FunctionDef, call: ast.Call) -> bool:
    """Whether the tensor made by `call` is bound to a name that is then changed in place."""
    for stmt in ast.walk(fn):
        if isinstance(stmt, ast.Assign) and stmt.value is call and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            for node in ast.walk(fn):
                if isinstance(node, ast.AugAssign) and isinstance(node.target, (ast.Name, ast.Subscript)) \
                        and name in {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}:
                    return True
                if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) \
                        and isinstance(node.value, ast.Name) and node.value.id == name:
                    return True
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr.endswith("_") and not node.func.attr.startswith("_") \
                        and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
                    return True
    return False


def _functions(tree: ast.AST, prefix: str = ""):
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node, prefix + node.name
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")


def _apply(text: str, plan: _Plan) -> str:
    wrapper = MetadataWrapper(cst.parse_module(text))
    positions = wrapper.resolve(PositionProvider)

    class Edit(cst.CSTTransformer):
        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
            start = positions[original].start
            key = (start.line, start.column)
            # A call and the calls it chains on start at the same spot: match the name too.
            method = updated.func.attr.value if isinstance(updated.func, cst.Attribute) else ""
            if key in plan.strip_tolist and method == "tolist":
                receiver = updated.func.value
                if getattr(receiver, "lpar", None) and not isinstance(receiver, cst.BinaryOperation):
                    return receiver.with_changes(lpar=[], rpar=[])
                return receiver
            if key in plan.as_tensor and cst.Module([]).code_for_node(updated.func) == "torch.tensor":
                edit = plan.as_tensor[key]
                args = list(updated.args)
                if "arg" in edit:
                    args[0] = args[0].with_changes(value=cst.parse_expression(edit["arg"]))
                if "dtype" in edit:
                    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                    args.append(cst.Arg(keyword=cst.Name("dtype"), value=cst.parse_expression(edit["dtype"]),
                                        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                              whitespace_after=cst.SimpleWhitespace(""))))
                return updated.with_changes(func=cst.parse_expression("torch.as_tensor"), args=args)
            return updated

        def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
            # `out = (a / b).tolist()` lost its .tolist(): the parentheses are no longer needed.
            start = positions[original.value].start
            if (start.line, start.column) in plan.strip_tolist and getattr(updated.value, "lpar", None):
                return updated.with_changes(value=updated.value.with_changes(lpar=[], rpar=[]))
            return updated

        def leave_SimpleStatementLine(self, original, updated):
            if positions[original].start.line in plan.remove_lines:
                return cst.RemoveFromParent()
            return updated

    code = wrapper.module.visit(Edit()).code
    return add_import(code, "numpy", "np") if plan.needs_numpy else code  # `np.array(L)` of appended rows
