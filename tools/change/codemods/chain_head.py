"""Split a call of a transform chain (a torchvision-style Compose) into the steps that draw nothing and the rest.

A dataset's `__getitem__` often hands its raw sample to a chain of transform objects, decoding and
calibration first, random crops and flips after:

    self.transform = Compose([Decode(), Calibrate(calib), RandomCrop(64, gen), RandomFlip(0.5, gen)])
    ...
    sample = self.transform(raw)

The whole sample cannot be cached (the crop draws), and the call is one statement, so the first-part cache
(`cache_samples`) finds nothing before the draw to cache. `split_chain` rewrites the call into two calls
that run the same steps in the same order:

    sample = self._transform_head(raw)     # the leading steps of classes perfloop read: they draw nothing
    sample = self._transform_tail(sample)  # the rest, from the first other step on

and tells the determinism check that the head draws nothing (`Determinism.known`). The first-part cache
then takes the head, with what comes before it, once per index; the tail runs on every access and draws
what it drew, in the same order.

Which steps make the head is decided at run time from the chain's own list, by class. The head is the
leading steps whose class is one perfloop read and found deterministic: its `__call__` and what that calls
draw nothing, read nothing another method changes, and call nothing perfloop cannot read. A second
dataset with another chain of the same classes is split where its own first other step is.

Applies where:
- `self.<attr>` holds, wherever the target builds the dataset, an object of one of the target's classes
  whose `__call__` is only `for t in self.<steps>: x = t(x)` and `return x`, and `<steps>` is a list the
  target writes out wherever it builds the chain (`Determinism.held_lists`);
- `__getitem__` calls `self.<attr>(value)` once, with one argument, in a statement of its own body (an
  assignment, a return, an expression) or as the only statement of `if self.<attr>:` or
  `if self.<attr> is not None:`, and the call runs whenever its statement does: it is not inside a
  conditional expression, `and`/`or`, a comprehension or a lambda;
- a step of a deterministic class leads at least one chain, and the profile's hot function is, or is called
  by, a class of the head: caching a head where the time is not spent saves nothing;
- no other class of the target has the name of a head class (the run-time check reads the class's name and
  module).
Where a chain is called but one of these fails, `split_chain` says which; where none is called, it returns None.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

from perfloop.tools.change.codemods.base import NotApplicable
from perfloop.tools.change.codemods.determinism import Determinism, method_of, reaches_function
from perfloop.tools.change.codemods.hot_function import is_docstring_stmt
from perfloop.tools.change.codemods.loops import dotted

HEAD = "_transform_head"
TAIL = "_transform_tail"
LENGTH = "_transform_head_length"
STAGED = "_staged"
_NESTED = (ast.IfExp, ast.BoolOp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclass(frozen=True)
class ChainSplit:
    """`__getitem__`'s call of a chain, split: the new text and what was found."""

    text: str
    attr: str
    head: tuple[str, ...]
    """The classes found deterministic, in the order the chains list them."""
    tail_reason: str
    """Why the first step of another class may differ per access (its draw or what perfloop cannot read)."""
    line: int


def split_chain(text: str, file: str, cls: ast.ClassDef, getitem: ast.FunctionDef, modules: dict[str, ast.Module],
                hot_name: str) -> ChainSplit | None:
    """Rewrite `__getitem__`'s call of a transform chain into head and tail (see the module docstring); None where
    it calls none; NotApplicable, saying why, where it calls one that cannot be split."""
    checker = Determinism(cls, file, modules)
    found = _chain_call(cls, getitem, checker)
    if found is None:
        return None
    call, steps_attr, chain_file, chain_cls = found
    taken = [name for name in (HEAD, TAIL, LENGTH) if method_of(cls, name) is not None]
    if taken:
        raise NotApplicable(f"{cls.name} already has a method named {taken[0]}: its chain is not split")
    attr = call.func.attr
    where = f"self.{attr} ({file}:{call.lineno})"
    steps = Determinism(chain_cls, chain_file, modules)
    lists = steps.held_lists(steps_attr)
    if lists is None:
        raise NotApplicable(f"{where} is a chain of steps perfloop cannot list: {chain_cls.name}.{steps_attr} is not "
                            "a list of the target's transform objects written out where the target builds it")
    verdicts: dict[str, str | None] = {}
    for step in (s for calls in lists for s in calls):
        name = _class_name(step)
        if name not in verdicts:
            verdicts[name] = _verdict(steps.callable_class(step), modules)
    heads = [[_class_name(s) for s in _leading(calls, verdicts)] for calls in lists]
    if not any(heads):
        first = _class_name(lists[0][0]) if lists[0] else "none"
        raise NotApplicable(f"{where}: no chain it holds starts with a step that draws nothing (first: {first}: "
                            f"{verdicts.get(first)})")
    if all(len(h) == len(calls) for h, calls in zip(heads, lists)):
        raise NotApplicable(f"{where}: every step of its chains draws nothing; the sample differs for another reason")
    head = tuple(dict.fromkeys(name for h in heads for name in h))
    _refuse_ambiguous_names(head, modules)
    _refuse_cold_head(head, hot_name, modules, where)
    reason = next(verdicts[_class_name(s)] for calls in lists for s in calls
                  if verdicts[_class_name(s)] is not None)
    new_text = _rewrite(text, cls.name, getitem, call, attr, steps_attr, _modules_of(head, modules))
    return ChainSplit(text=new_text, attr=attr, head=head, tail_reason=reason, line=call.lineno)


def _chain_call(cls: ast.ClassDef, getitem: ast.FunctionDef, checker: Determinism):
    """(the call, the chain's steps attribute, the chain class's file and class) of
    `__getitem__`'s one call `self.<attr>(...)` of a chain object; None where it calls no chain."""
    calls = [n for n in ast.walk(getitem) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and isinstance(n.func.value, ast.Name) and n.func.value.id == "self" and method_of(cls, n.func.attr) is None]
    for call in calls:
        chains = checker.held_objects(call.func.attr)
        if not chains:
            continue
        shapes = {(checker.callable_class(c)[1].name, _steps_attribute(checker.callable_class(c)[2])) for c in chains}
        if len(shapes) != 1 or None in {s for _, s in shapes}:
            continue
        if sum(1 for c in calls if c.func.attr == call.func.attr) != 1:
            raise NotApplicable(f"__getitem__ calls self.{call.func.attr} more than once: its chain is not split")
        chain_file, chain_cls, _ = checker.callable_class(chains[0])
        return call, next(iter(shapes))[1], chain_file, chain_cls
    return None


def _class_name(call: ast.Call) -> str:
    """The class a step's constructor call names (`T.RandomCrop(...)`: RandomCrop)."""
    return dotted(call.func).split(".")[-1]


def _steps_attribute(method: ast.FunctionDef) -> str | None:
    """`steps` where `method` is only `for t in self.steps: x = t(x)` and `return x` on its one argument."""
    body = method.body[1:] if method.body and is_docstring_stmt(method.body[0]) else method.body
    args = method.args
    if len(args.args) != 2 or args.vararg or args.kwarg or args.kwonlyargs or len(body) != 2:
        return None
    value = args.args[1].arg
    loop, ret = body
    if not (isinstance(loop, ast.For) and not loop.orelse and isinstance(loop.target, ast.Name) and len(loop.body) == 1
            and isinstance(loop.iter, ast.Attribute) and isinstance(loop.iter.value, ast.Name)
            and loop.iter.value.id == "self" and isinstance(ret, ast.Return) and isinstance(ret.value, ast.Name)
            and ret.value.id == value):
        return None
    step = loop.body[0]
    if not (isinstance(step, ast.Assign) and len(step.targets) == 1 and isinstance(step.targets[0], ast.Name)
            and step.targets[0].id == value and isinstance(step.value, ast.Call) and not step.value.keywords
            and isinstance(step.value.func, ast.Name) and step.value.func.id == loop.target.id
            and len(step.value.args) == 1 and isinstance(step.value.args[0], ast.Name)
            and step.value.args[0].id == value):
        return None
    return loop.iter.attr


def _verdict(found, modules: dict[str, ast.Module]) -> str | None:
    """None where the step's `__call__` draws nothing and reads nothing that changes; else why not."""
    step_file, step_cls, method = found
    try:
        Determinism(step_cls, step_file, modules).check(method, f"{step_cls.name}.__call__")
    except NotApplicable as refused:
        return str(refused)
    return None


def _leading(calls: list[ast.Call], verdicts: dict[str, str | None]) -> list[ast.Call]:
    head = []
    for step in calls:
        if verdicts[_class_name(step)] is not None:
            break
        head.append(step)
    return head


def _refuse_ambiguous_names(head: tuple[str, ...], modules: dict[str, ast.Module]) -> None:
    for name in head:
        files = [f for f, tree in modules.items() for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name]
        if len(files) > 1:
            raise NotApplicable(f"the chain's step class {name} is defined more than once ({', '.join(files)}): the "
                                "run-time check by name could take one for the other")


def _refuse_cold_head(head: tuple[str, ...], hot_name: str, modules: dict[str, ast.Module], where: str) -> None:
    short = hot_name.split(".")[-1]
    owner = hot_name.split(".")[-2] if "." in hot_name else None
    for tree in modules.values():
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name in head):
            method = method_of(cls, "__call__")
            if cls.name == owner or (method is not None and reaches_function(method, short, modules)):
                return
    raise NotApplicable(f"{where}: the hot function {hot_name} is not run by the steps that draw nothing "
                        f"({', '.join(head)}): caching them would not save its time")


def _modules_of(head: tuple[str, ...], modules: dict[str, ast.Module]) -> dict[str, tuple[str, ...]]:
    """Each head class's name -> the module names its class may carry at run time (`pkg.transforms`,
    `transforms`, or `__main__` for a script run directly)."""
    found = {}
    for file, tree in modules.items():
        parts = file.removesuffix(".py").split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names = tuple(".".join(parts[k:]) for k in range(len(parts))) + ("__main__",) * (len(parts) == 1)
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name in head):
            found[cls.name] = names
    return found


def _rewrite(text: str, class_name: str, getitem: ast.FunctionDef, call: ast.Call, attr: str, steps_attr: str,
             head: dict[str, tuple[str, ...]]) -> str:
    """`__getitem__` with the chain's call split into head and tail, and the three methods added (libcst)."""
    body = getitem.body
    if len({stmt.lineno for stmt in body}) < len(body):
        raise NotApplicable(f"statements of {class_name}.__getitem__ share a line: the chain's call is not split")
    position = next(k for k, stmt in enumerate(body) if any(n is call for n in ast.walk(stmt)))
    outer = body[position]
    guard = None
    inner = outer
    if isinstance(outer, ast.If) and not outer.orelse and len(outer.body) == 1 and _tests_attribute(outer.test, attr):
        guard, inner = outer.test, outer.body[0]
    if not isinstance(inner, (ast.Assign, ast.AnnAssign, ast.Return, ast.Expr)) or _nested(inner, call):
        raise NotApplicable(f"{class_name}.__getitem__ ({call.lineno}) calls self.{attr} where it may not run every "
                            "time its statement does (a branch, a comprehension, `and`/`or`): not split")
    if len(call.args) != 1 or call.keywords or isinstance(call.args[0], ast.Starred):
        raise NotApplicable(f"{class_name}.__getitem__ ({call.lineno}) calls self.{attr} with other than one "
                            "positional argument: not split")
    used = {n.id for n in ast.walk(getitem) if isinstance(n, ast.Name)}
    whole = isinstance(inner, ast.Assign) and inner.value is call and len(inner.targets) == 1 \
        and isinstance(inner.targets[0], ast.Name)
    staged = inner.targets[0].id if whole else next(
        name for name in (STAGED, *(f"{STAGED}_{k}" for k in range(2, 100))) if name not in used)
    argument = ast.get_source_segment(text, call.args[0])
    head_stmt = cst.parse_statement(f"{staged} = self.{HEAD}({argument})\n")
    tail_call = cst.parse_expression(f"self.{TAIL}({staged})")

    class Split(cst.CSTTransformer):
        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
            func = updated.func
            if isinstance(func, cst.Attribute) and func.attr.value == attr and isinstance(func.value, cst.Name) \
                    and func.value.value == "self":
                return tail_call
            return updated

    def split(stmt: cst.BaseStatement) -> list[cst.BaseStatement]:
        if guard is None:
            tail = stmt.visit(Split())
            return [head_stmt.with_changes(leading_lines=stmt.leading_lines),
                    tail.with_changes(leading_lines=[])]
        first = stmt.with_changes(body=stmt.body.with_changes(body=[head_stmt]))
        second = stmt.with_changes(body=stmt.body.with_changes(body=[stmt.body.body[0].visit(Split())]),
                                   leading_lines=[])
        return [first, second]

    methods = _methods(attr, steps_attr, head)

    class Edit(cst.CSTTransformer):
        def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
            if updated.name.value != class_name:
                return updated
            new_body = []
            for stmt in updated.body.body:
                if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__getitem__":
                    statements = list(stmt.body.body)
                    statements[position:position + 1] = split(statements[position])
                    new_body += [stmt.with_changes(body=stmt.body.with_changes(body=statements)), *methods]
                    continue
                new_body.append(stmt)
            return updated.with_changes(body=updated.body.with_changes(body=new_body))

    return cst.parse_module(text).visit(Edit()).code


def _tests_attribute(test: ast.expr, attr: str) -> bool:
    """`self.<attr>` or `self.<attr> is not None`."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        test = test.left
    return isinstance(test, ast.Attribute) and test.attr == attr and isinstance(test.value, ast.Name) \
        and test.value.id == "self"


def _nested(stmt: ast.stmt, call: ast.Call) -> bool:
    """Whether `call` sits under a node that may skip it or run it more than once."""
    def walk(node: ast.AST, under: bool) -> bool:
        if node is call:
            return under
        return any(walk(child, under or isinstance(node, _NESTED)) for child in ast.iter_child_nodes(node))
    return walk(stmt, False)


def _methods(attr: str, steps_attr: str, head: dict[str, tuple[str, ...]]) -> list[cst.BaseStatement]:
    """The head, the tail and the head's length, as methods of the dataset (parsed inside a class so that their
    docstrings carry a method's indentation)."""
    known = "{" + "".join(f"\n            {name!r}: {modules!r}," for name, modules in head.items()) + "\n        }"
    source = f'''
class _Holder:
    def {HEAD}(self, value):
        """self.{attr}'s leading steps that draw nothing (added by perfloop): with {TAIL}, the steps of
        self.{attr}(value) in their order."""
        steps = self.{attr}.{steps_attr}
        for step in steps[:self.{LENGTH}(steps)]:
            value = step(value)
        return value

    def {TAIL}(self, value):
        """self.{attr}'s steps from the first one that may draw on (added by perfloop), run on every access."""
        steps = self.{attr}.{steps_attr}
        for step in steps[self.{LENGTH}(steps):]:
            value = step(value)
        return value

    def {LENGTH}(self, steps):
        """How many leading steps are of the classes perfloop read and found to draw nothing (added by perfloop)."""
        known = {known}
        n = 0
        while n < len(steps) and type(steps[n]).__module__ in known.get(type(steps[n]).__qualname__, ()):
            n += 1
        return n
'''
    methods = list(cst.parse_statement(source.lstrip()).body.body)
    return [m.with_changes(leading_lines=[cst.EmptyLine(indent=False)]) for m in methods]
