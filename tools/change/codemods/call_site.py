"""Find a DataLoader(...) call by line, read one of its arguments, and rewrite it with libcst."""

import ast
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from perfloop.tools.change.codemods.base import NotApplicable

# torch.utils.data.DataLoader's positional order; later options are keyword-only.
_POSITIONAL_INDEX = {"num_workers": 5, "pin_memory": 7}
_EMPTY = cst.Module(body=[])


@dataclass
class CallSite:
    """A parsed source file and the DataLoader call found in it."""

    module: cst.Module
    """The whole file; edits replace nodes in it, so everything else prints unchanged."""
    call: cst.Call
    """The DataLoader(...) call, a node of `module`."""
    line: int
    """1-based line the call starts on."""
    assignments: list[tuple[int, str, cst.BaseExpression]] = field(default_factory=list)
    """(line, variable, value) of every `name = value` in the file, to follow hints."""

    def argument(self, name: str) -> cst.Arg | None:
        """Return the argument that passes `name`, by keyword or by position."""
        for arg in self.call.args:
            if arg.keyword is not None and arg.keyword.value == name:
                return arg
        if any(a.star == "*" for a in self.call.args):
            return None  # positions after *args cannot be counted
        positional = [a for a in self.call.args if a.keyword is None and not a.star]
        index = _POSITIONAL_INDEX.get(name)
        return positional[index] if index is not None and index < len(positional) else None

    def has_splat(self) -> bool:
        """Say whether the call passes **kwargs, which may already hold any option."""
        return any(a.star == "**" for a in self.call.args)

    def key_hint(
        self, expr: cst.BaseExpression, before: int | None = None, depth: int = 0
    ) -> list[str]:
        """Return the key chain an expression reads, root first: cfg.train.x -> [cfg, train, x]."""
        before = self.line if before is None else before
        if isinstance(expr, cst.Attribute):
            return self.key_hint(expr.value, before, depth) + [expr.attr.value]
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
            index = expr.slice[0].slice
            if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
                return self.key_hint(expr.value, before, depth) + [str(index.value.evaluated_value)]
        if isinstance(expr, cst.Call) and expr.args:
            first = expr.args[0].value
            getter = expr.func.attr.value if isinstance(expr.func, cst.Attribute) else None
            if getter in ("get", "getint", "getfloat", "getboolean") and isinstance(first, cst.SimpleString):
                keys = [str(first.evaluated_value)]
                second = expr.args[1].value if len(expr.args) > 1 else None
                if isinstance(second, cst.SimpleString) and expr.args[1].keyword is None:
                    # configparser: parser.getint("data", "num_workers") reads section data, option num_workers.
                    keys.append(str(second.evaluated_value))
                return self.key_hint(expr.func.value, before, depth) + keys
            if isinstance(expr.func, cst.Name) and expr.func.value in ("int", "bool"):
                return self.key_hint(first, before, depth)
        if isinstance(expr, cst.Name):
            # Follow `train_cfg = cfg["train"]` so train_cfg["num_workers"] names train.num_workers.
            earlier = [(ln, v) for ln, n, v in self.assignments if n == expr.value and ln < before]
            if earlier and depth < 5:
                line, value = max(earlier, key=lambda item: item[0])
                return self.key_hint(value, line, depth + 1)
            return [expr.value]
        return []

    def code(self, node: cst.CSTNode) -> str:
        """Return the source text of a node."""
        return _EMPTY.code_for_node(node)


def find_call(source: str, line: int, file: str) -> CallSite:
    """Return the *DataLoader(...) call that starts on `line` (or, failing that, spans it)."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except cst.ParserSyntaxError as error:
        raise NotApplicable(f"cannot parse {file}: {error}") from error
    positions = wrapper.resolve(PositionProvider)
    calls, assignments = [], []

    class Collect(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if _callee_name(node.func).endswith("DataLoader"):
                calls.append(node)

        def visit_Assign(self, node: cst.Assign) -> None:
            if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                target = node.targets[0].target.value
                assignments.append((positions[node].start.line, target, node.value))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if isinstance(node.target, cst.Name) and node.value is not None:
                assignments.append((positions[node].start.line, node.target.value, node.value))

    wrapper.module.visit(Collect())
    starting = [c for c in calls if positions[c].start.line == line]
    # Some Python versions report a line inside a multi-line call rather than its first.
    spanning = [c for c in calls if positions[c].start.line <= line <= positions[c].end.line]
    found = starting[:1] or (spanning if len(spanning) == 1 else [])
    if not found:
        raise NotApplicable(f"no DataLoader(...) call found at {file}:{line}")
    return CallSite(wrapper.module, found[0], positions[found[0]].start.line, assignments)


def literal_node(value: object) -> cst.BaseExpression:
    """Build the source node for a Python scalar."""
    if isinstance(value, bool) or value is None:
        return cst.Name(repr(value))
    if isinstance(value, int) and value >= 0:
        return cst.Integer(str(value))
    if isinstance(value, float) and value >= 0:
        return cst.Float(repr(value))
    return cst.parse_expression(repr(value))


def literal_value(node: cst.BaseExpression) -> tuple[bool, object]:
    """Return (True, value) when the node is a plain constant, else (False, None)."""
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString, cst.UnaryOperation)) or (
        isinstance(node, cst.Name) and node.value in ("True", "False", "None")
    ):
        try:
            return True, ast.literal_eval(_EMPTY.code_for_node(node))
        except (ValueError, TypeError, SyntaxError):  # e.g. -x or "a" "b" concatenations
            return False, None
    return False, None


def get_default(node: cst.BaseExpression) -> cst.Arg | None:
    """Return the default argument of a `x.get("key", default)` call, if the node is one."""
    if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "get" and len(node.args) == 2):
        return node.args[1]
    return None


def replace_node(site: CallSite, old: cst.CSTNode, new: cst.CSTNode) -> str:
    """Return the file's source with one node swapped, everything else untouched."""
    return site.module.deep_replace(old, new).code


def add_keyword(site: CallSite, name: str, value: object) -> str:
    """Return the file's source with `name=value` appended to the call in its own style."""
    args = list(site.call.args)
    existing = [a for a in args if a.keyword is not None]
    equal = existing[-1].equal if existing else cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
    )
    new_arg = cst.Arg(value=literal_node(value), keyword=cst.Name(name), equal=equal)
    if not args:
        return replace_node(site, site.call, site.call.with_changes(args=[new_arg]))
    last = args[-1]
    separator = _separator(site.call)
    trailing_comma = isinstance(last.comma, cst.Comma)
    tail = last.comma.whitespace_after if trailing_comma else last.whitespace_after_arg
    multiline = cst.ParenthesizedWhitespace
    if isinstance(tail, multiline) and isinstance(separator, multiline):
        # ")" sits on its own line: the new argument goes on a line of its own, and a
        # comment that ended the old last line stays there.
        between = tail.with_changes(last_line=separator.last_line)
        tail = _without_comment(tail)
    else:
        between = separator
    if trailing_comma:
        args[-1] = last.with_changes(comma=last.comma.with_changes(whitespace_after=between))
        new_arg = new_arg.with_changes(comma=cst.Comma(whitespace_after=tail))
    else:
        args[-1] = last.with_changes(
            comma=cst.Comma(whitespace_after=between), whitespace_after_arg=cst.SimpleWhitespace("")
        )
        new_arg = new_arg.with_changes(whitespace_after_arg=tail)
    return replace_node(site, site.call, site.call.with_changes(args=[*args, new_arg]))


def _separator(call: cst.Call) -> cst.BaseParenthesizableWhitespace:
    """Return the whitespace the call puts between arguments: a space, or newline + indent."""
    args = call.args
    if len(args) >= 2 and isinstance(args[-2].comma, cst.Comma):
        return _without_comment(args[-2].comma.whitespace_after)
    if isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        return _without_comment(call.whitespace_before_args)
    return cst.SimpleWhitespace(" ")


def _without_comment(ws: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    if isinstance(ws, cst.ParenthesizedWhitespace):
        return ws.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
    return ws


def _callee_name(func: cst.BaseExpression) -> str:
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return ""
