"""Decode each stored record once: `json.loads(self.lines[i])` in `__getitem__` reads a list made in `__init__`.

A map-style dataset that keeps raw records (JSON lines, Python literals) and decodes one
on every access repeats work whose result never changes, once per sample per epoch.
This codemod decodes them all in `__init__`, right after the attribute that holds them
is set, and `__getitem__` indexes the decoded list instead:

    self.lines = lines                                   self.lines = lines
                                                     +   self._decoded_lines = [json.loads(self.lines[k])
                                                     +                          for k in range(len(self.lines))]
    record = json.loads(self.lines[i])               ->  record = self._decoded_lines[i]

A cached record is the same object on every epoch, where the old code made a fresh one
per access. The rewrite keeps that by construction:
- a value only *read* (`record[key]`, nested keys too, as an argument of a copying or
  converting call such as `np.asarray`, `torch.tensor`, `float`, `int`, `len`; inside a list
  or tuple literal given to one; in arithmetic or comparisons; iterated by a comprehension or
  a `for` loop that calls no methods on it) is read from the cache as it is;
- a value that *leaves* the record as it is (returned, kept in a variable, put in a dict or
  tuple: `(features, record["label"])`, `history = record["history"]`, `return record`) is
  handed out as `copy.deepcopy(...)` of the cached one: ints, floats and strings come back as
  themselves (deepcopy returns atoms unchanged), lists and dicts as fresh copies, as the
  decoder made them, so a change made to them later never reaches the next epoch;
- a value changed *in place through the record* (`record["history"].append(0)`,
  `record["x"] = ...`) is refused, with the line.
Also required: the decoder is a pure text decoder (`json.loads`, `orjson.loads`,
`ujson.loads`, `ast.literal_eval`) of `self.<attr>[<the index parameter>]`, and `self.<attr>`
is set once, in `__init__`, and only read by subscripts elsewhere. The decoding moves to
start-up (verification judges start-up with steady state) and every decoded record is held
in memory, in each DataLoader worker (the notes say so).
"""
from __future__ import annotations

import ast

import libcst as cst
from libcst.metadata import PositionProvider

from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable
from perfloop.tools.change.codemods.hot_function import load_hot_function
from perfloop.tools.change.codemods.imports import add_import

DECODERS = {"json.loads", "orjson.loads", "ujson.loads", "ast.literal_eval"}
# Calls that read a value and build a new one from it (never keep or change their argument).
_READERS = {"np.asarray", "np.array", "numpy.asarray", "numpy.array", "torch.tensor", "torch.as_tensor",
            "float", "int", "str", "bool", "len", "abs", "round", "min", "max", "sum", "tuple", "list"}


def cache_decoded_records(ctx: CodemodContext) -> CodemodResult:
    """Decode the records `__getitem__` decodes per access once, in `__init__`."""
    file, text, tree, hot = load_hot_function(ctx)
    cls = _owning_class(tree, hot)
    getitem = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__getitem__"), None)
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if getitem is None or init is None or len(getitem.args.args) != 2:
        raise NotApplicable(f"{cls.name} ({file}:{cls.lineno}) has no __init__ and __getitem__(self, index) pair")
    index = getitem.args.args[1].arg
    decode, record, attr, decoder = _decode_statement(getitem, index)
    where = f"{cls.name}.__getitem__ ({file}:{decode.lineno})"
    set_at = _only_set_in_init(cls, init, attr)
    escapes = _escaping_values(getitem, decode, record, where)
    cache = f"_decoded_{attr}"
    if any(isinstance(n, ast.Attribute) and n.attr == cache for n in ast.walk(cls)):
        raise NotApplicable(f"{cls.name} already has an attribute {cache}")
    new_text = _splice(text, cls, set_at, decode, attr, cache, decoder, escapes)
    copied = [f"`{ast.unparse(node)}` (line {node.lineno})" for node in escapes]
    return CodemodResult(
        files={file: new_text},
        summary=f"decode self.{attr} once in {cls.name}.__init__ ({file}:{init.lineno}); __getitem__ reads "
                f"self.{cache}[{index}] instead of {decoder}(self.{attr}[{index}]) per access",
        knob="decode_once", old_value=f"{decoder} per access", new_value="decoded once at start-up",
        location=f"{file}:{decode.lineno}",
        notes=[f"every decoded record of self.{attr} is held in memory (in each DataLoader worker)",
               "decoding moves to start-up: verification judges it with steady state",
               "exact because a cached record is never changed: values only read stay as they are; "
               + (f"values handed out as they are get copy.deepcopy (a fresh copy, as the decoder made): "
                  f"{', '.join(copied)}" if copied else "no value is handed out as it is")],
    )


def _owning_class(tree: ast.Module, fn: ast.FunctionDef) -> ast.ClassDef:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(child is fn for child in ast.walk(node)):
            return node
    raise NotApplicable(f"the hot function {fn.name} is not a method of a dataset class")


def _decode_statement(getitem: ast.FunctionDef, index: str) -> tuple[ast.Assign, str, str, str]:
    """Find `record = DECODER(self.attr[index])` at the top level of __getitem__."""
    for stmt in getitem.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        value = stmt.value
        if not (isinstance(value, ast.Call) and ast.unparse(value.func) in DECODERS and len(value.args) == 1
                and not value.keywords):
            continue
        arg = value.args[0]
        if isinstance(arg, ast.Subscript) and isinstance(arg.value, ast.Attribute) \
                and isinstance(arg.value.value, ast.Name) and arg.value.value.id == "self" \
                and isinstance(arg.slice, ast.Name) and arg.slice.id == index:
            return stmt, stmt.targets[0].id, arg.value.attr, ast.unparse(value.func)
    raise NotApplicable(f"__getitem__ ({getitem.lineno}) decodes no `self.<attr>[{index}]` with "
                        f"{', '.join(sorted(DECODERS))} in a statement of its own")


def _only_set_in_init(cls: ast.ClassDef, init: ast.FunctionDef, attr: str) -> ast.stmt:
    """The one top-level statement of __init__ that sets self.attr; refuse any other write or use."""
    sets = [stmt for stmt in init.body if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and ast.unparse(stmt.targets[0]) == f"self.{attr}"]
    if len(sets) != 1:
        raise NotApplicable(f"self.{attr} is not set exactly once at the top level of __init__")
    parents = {id(child): node for node in ast.walk(cls) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(cls):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"
                and node.attr == attr):
            continue
        parent = parents.get(id(node))
        if parent is sets[0]:
            continue
        if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load):
            continue
        if isinstance(parent, ast.Call) and ast.unparse(parent.func) == "len":
            continue
        raise NotApplicable(f"self.{attr} is used as `{ast.unparse(parent)}` (line {node.lineno}); only reads by "
                            "subscript or len() keep the decoded copy in step with it")
    return sets[0]


def _escaping_values(getitem: ast.FunctionDef, decode: ast.Assign, record: str, where: str) -> list[ast.AST]:
    """The uses of `record` that hand a decoded value out as it is (to copy); refuse changes made through it."""
    parents = {id(child): node for node in ast.walk(getitem) for child in ast.iter_child_nodes(node)}
    escapes = []
    for node in ast.walk(getitem):
        if not (isinstance(node, ast.Name) and node.id == record) or node is decode.targets[0]:
            continue
        if not isinstance(node.ctx, ast.Load):
            raise NotApplicable(f"{where}: `{record}` is assigned again (line {node.lineno})")
        top = node
        while isinstance(parents.get(id(top)), ast.Subscript) and parents[id(top)].value is top:
            top = parents[id(top)]
        parent = parents.get(id(top))
        if isinstance(getattr(top, "ctx", None), (ast.Store, ast.Del)) or isinstance(parent, ast.Attribute):
            text = ast.unparse(parent if isinstance(parent, ast.Attribute) else top)
            raise NotApplicable(f"{where}: `{text}` (line {node.lineno}) changes or calls into a decoded value; "
                                "a cached record would carry the change into the next epoch")
        if top is not node and _read_only_use(top, parents):
            continue
        escapes.append(top)
    return escapes


def _read_only_use(value: ast.AST, parents: dict[int, ast.AST]) -> bool:
    parent = parents.get(id(value))
    if isinstance(parent, (ast.List, ast.Tuple)) and isinstance(parent.ctx, ast.Load):
        outer = parents.get(id(parent))
        return isinstance(outer, ast.Call) and ast.unparse(outer.func) in _READERS and parent in outer.args
    if isinstance(parent, ast.Call):
        return value in parent.args and ast.unparse(parent.func) in _READERS
    if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare)):
        return True
    if isinstance(parent, ast.comprehension) and parent.iter is value:
        return not _calls_methods(parents.get(id(parent)))
    if isinstance(parent, ast.For) and parent.iter is value:
        return not any(_calls_methods(stmt, allow_append=True) for stmt in parent.body)
    return False


def _calls_methods(node: ast.AST | None, allow_append: bool = False) -> bool:
    """Whether anything under `node` calls a method (which could change a decoded value) or stores by subscript."""
    for sub in ast.walk(node) if node is not None else ():
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            if allow_append and sub.func.attr == "append" and isinstance(sub.func.value, ast.Name):
                continue  # out.append(v): the list grows, the decoded value does not change
            return True
        if isinstance(sub, (ast.Subscript, ast.Attribute)) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            return True
    return False


def _splice(text: str, cls: ast.ClassDef, set_at: ast.stmt, decode: ast.Assign, attr: str, cache: str,
            decoder: str, escapes: list[ast.AST]) -> str:
    """Add the decoding line after `self.attr = ...`, read the cache in __getitem__, copy what escapes (libcst)."""
    fill = cst.parse_statement(f"self.{cache} = [{decoder}(self.{attr}[k]) for k in range(len(self.{attr}))]\n")
    read = cst.parse_expression(f"self.{cache}[{ast.unparse(decode.value.args[0].slice)}]")
    to_copy = {(node.lineno, node.col_offset): node for node in escapes}

    class Edit(cst.CSTTransformer):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def __init__(self) -> None:
            self.in_class = False
            self.copied = 0

        def _copy(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
            start = self.get_metadata(PositionProvider, original).start
            node = to_copy.get((start.line, start.column))
            if self.in_class and node is not None and _same_expression(cst.Module([]).code_for_node(original), node):
                self.copied += 1
                return cst.parse_expression(f"copy.deepcopy({cst.Module([]).code_for_node(updated)})")
            return updated

        def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
            return self._copy(original, updated)

        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
            return self._copy(original, updated)

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            if node.name.value == cls.name:
                self.in_class = True

        def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
            self.in_class = False
            return updated

        def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
            if not self.in_class:
                return updated
            body = []
            for stmt in updated.body:
                body.append(stmt)
                if _same_statement(cst.Module([]).code_for_node(stmt), set_at):
                    body.append(fill)
            return updated.with_changes(body=body)

        def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
            if self.in_class and _same_expression(cst.Module([]).code_for_node(updated.value), decode.value):
                return updated.with_changes(value=read)
            return updated

    edit = Edit()
    new = cst.MetadataWrapper(cst.parse_module(text)).visit(edit).code
    if new.count(f"self.{cache} = ") != 1 or new.count(f"self.{cache}[") != 1 or edit.copied != len(escapes):
        raise NotApplicable(f"could not place the decoding of self.{attr} unambiguously "
                            f"(lines {set_at.lineno} and {decode.lineno})")
    return add_import(new, "copy") if escapes else new


def _same_statement(code: str, node: ast.stmt) -> bool:
    """Whether libcst's statement text parses to the same statement as `node` (positions aside)."""
    try:
        parsed = ast.parse(code.strip()).body
    except SyntaxError:
        return False
    return len(parsed) == 1 and ast.dump(parsed[0]) == ast.dump(node)


def _same_expression(code: str, node: ast.expr) -> bool:
    try:
        return ast.dump(ast.parse(code.strip(), mode="eval").body) == ast.dump(node)
    except SyntaxError:
        return False
