"""Answer `vocab.index(v)` and `v in vocab` on a list the target never changes from a dict built once.

Per-sample code often encodes a token, a product or a category by its position in a vocabulary kept
as a list: `self.product_vocab.index(name) + 1`, `DEPARTMENTS.index(d)`. Each call scans the list
from the front, so a sample with k items against a vocabulary of n costs k * n / 2 comparisons. The
codemod (`index_lookup_tables`) routes each such call through `_index_of(items, value)`, a module-level
helper that builds a dict of first positions once per list (the first occurrence wins, as `list.index`
finds it) and answers from it; a value the dict does not have goes to `items.index(value)` as before,
so the answer and the ValueError for a missing value are the old ones (a `_plain` value the dict of a list or
tuple lacks is in neither: the error is raised by an empty one, `[].index(value)`, with the same message and no
scan). A membership test, `w not in self.stopwords`, goes through `_is_listed(items, value)` the same way.
The dict is used only where its hashes agree with ==: every item and the value a str, int, float, bool, bytes, None (exactly
those types: an IntEnum hashes by name), a numpy number or string scalar, or a tuple of them; else
the list is searched as before. Lists of up to SMALL items are scanned as before (a scan that short
costs less than the lookup).

A call is rewritten only where the list is one the target makes once and never changes:
- `self.<attr>.index(v)` in a method of a class whose `__init__` binds `self.<attr>` once to a new
  list or tuple (a literal, a comprehension, `list(...)`, `tuple(...)`, `sorted(...)`; `__init__`
  may go on filling it, `self.vocab.append(w)`), or to a parameter every caller in the target's files passes a new
  list it only reads afterwards (`handed_in.py`: a vocabulary built by the script and handed to the dataset); another
  method may bind it again, but only to a new list (a tokenizer's `train` setting `self.vocab = ["[PAD]"] + [...]`,
  a classmethod factory's `tok.vocab = SPECIALS + sans` on the `tok = cls(...)` it made: the tables are kept per list
  object, so a new list gets a new table), and every other mention of `.<attr>` outside
  `__init__`, anywhere in the target's files, only reads it:
  `.index`/`.count` calls on it, subscripts, `in` tests, loops over it, or an argument of a reading
  builtin (`len`, `enumerate`, `sorted`, ...). Bound to another name, handed to other code or
  changed anywhere: refused, naming the mention;
- `NAME.index(v)` where NAME is a module-level table the target binds once to such a list and never
  changes (`determinism.constant_table`), in the hot file or imported from the target's own module.

A scan of such a list by one key (`[r for r in self.rows if r["customer"] == cid ...]`) walks only the rows of that
key (`keyed_scans.py`), under the same judgement of the list.

A local list the function builds by appends and searches (`try: s = nodes.index(u)` / `except ValueError:
nodes.append(u)`) keeps its positions beside it instead (`growing_index.py`).

Where it looks: the profile's hot function, the helpers sampled under it in its file, and the
methods of the hot function's class. The pipeline runs decide the rest (every batch compared).
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable
from perfloop.tools.change.codemods.determinism import READ_METHODS, constant_table
from perfloop.tools.change.codemods.growing_index import GROWING_HELPERS, growing_edits, growing_lists
from perfloop.tools.change.codemods.handed_in import handed_in_refusal, new_list
from perfloop.tools.change.codemods.hot_function import load_hot_function, python_files, sampled_helpers
from perfloop.tools.change.codemods.imports import after_imports_text, import_paths
from perfloop.tools.change.codemods.keyed_scans import KEYED, KEYED_SOURCE, key_written, keyed_edit, keyed_scans

HELPER = "_index_of"
CONTAINS = "_is_listed"
SMALL = 8
"""Lists this short are scanned as before."""
MAX_TABLES = 64
"""Lists remembered at once (each keeps its list alive); past that, new lists are scanned as before."""

HELPER_SOURCE = f'''_INDEX_TABLES = {{}}
_PLAIN_TYPES = frozenset({{str, int, float, bool, bytes, type(None)}})


def _plain(value):
    """Whether a dict finds `value` exactly where == would: a str, int, float, bool, bytes or None (not a subclass:
    an IntEnum hashes by its name), a numpy number or string scalar, or a tuple of them."""
    kind = type(value)
    if kind in _PLAIN_TYPES:
        return True
    if kind is tuple:
        return all(_plain(v) for v in value)
    return kind.__module__ == "numpy" and getattr(value, "ndim", None) == 0 and value.dtype.kind in "biufU"


def _first_positions(items):
    """A dict of each item's first position in `items`, kept while `items` lives, or None where a dict would not
    answer as the list does: not a list or tuple, a short one, an item that is not `_plain` (its hash might not agree
    with ==), or too
    many lists remembered (added by perfloop: the lists are ones the target makes once
    and never changes)."""
    if type(items) not in (list, tuple) or len(items) <= {SMALL}:
        return None
    entry = _INDEX_TABLES.get(id(items))
    if entry is None or entry[0] is not items:
        if len(_INDEX_TABLES) >= {MAX_TABLES}:
            return None
        table = {{}}
        for position, item in enumerate(items):
            if not _plain(item):
                table = None
                break
            table.setdefault(item, position)
        entry = _INDEX_TABLES[id(items)] = (items, table)
    return entry[1]


def {HELPER}(items, value):
    """`items.index(value)`, answered from `_first_positions`; a value it does not have goes to `items.index` as
    before: the same answer, the same ValueError."""
    table = _first_positions(items)
    if table is not None:
        try:
            position = table.get(value)
        except TypeError:
            position = None
        if position is not None:
            return position
        if _plain(value):  # a table is made for a list or tuple alone
            return type(items)().index(value)  # not there: the list's own ValueError, without the scan
    return items.index(value)


def {CONTAINS}(items, value):
    """`value in items`, answered from `_first_positions` for a `_plain` value (the dict then holds every item equal
    to it); anything else is searched in the list as before."""
    table = _first_positions(items)
    if table is not None and _plain(value):
        return value in table
    return value in items
'''

_READING_BUILTINS = frozenset({
    "len", "enumerate", "sorted", "list", "tuple", "set", "frozenset", "zip", "iter", "reversed", "max", "min",
    "sum", "any", "all", "dict", "str", "repr", "print", "bool",
})


def index_lookup_tables(ctx: CodemodContext) -> CodemodResult:
    """Route `.index(v)` calls on never-changing lists of the per-sample path through `_index_of`."""
    file, text, tree, hot = load_hot_function(ctx)
    modules = {f: ast.parse((ctx.root / f).read_text()) for f in python_files(ctx.root) if f != file}
    modules[file] = tree
    owner = next((c for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and hot in c.body), None)
    scanned = [hot, *sampled_helpers(ctx, file, tree)]
    if owner is not None:
        scanned += [n for n in owner.body if isinstance(n, ast.FunctionDef)]
    classes = {id(n): c for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for n in c.body}
    paths = import_paths([tree])
    paths.update((n.id, f"{file.removesuffix('.py').replace('/', '.')}.{n.id}")
                 for stmt in tree.body if isinstance(stmt, ast.Assign) for n in stmt.targets if isinstance(n, ast.Name))
    sites, refusals, seen, growing, keyed = [], [], set(), [], []
    for fn in scanned:
        if id(fn) in seen or fn.name == "__init__":  # a list __init__ builds changes while it runs
            continue
        seen.add(id(fn))
        for table, key, value, by_attr, scan in keyed_scans(fn):
            reason = _refusal(table, classes.get(id(fn)), modules, paths) or key_written(key, by_attr, modules)
            if reason is None:
                keyed.append((scan, keyed_edit(text, table, key, value, by_attr), ast.unparse(table)))
            else:
                refusals.append(f"line {scan.lineno} scan of `{ast.unparse(table)}` by a key: {reason}")
        kept, why_not = growing_lists(fn)
        growing += kept
        refusals += [f"{fn.name}: {why}" for why in why_not]
        kept_sites = {id(site) for plan in kept for site in plan.searches}
        for node in ast.walk(fn):
            base = _site_list(node)
            if base is None or id(node) in kept_sites:
                continue
            reason = _refusal(base, classes.get(id(fn)), modules, paths)
            if reason is None:
                sites.append(node)
            else:
                refusals.append(f"line {node.lineno} `{ast.unparse(node)}`: {reason}")
    if not sites and not growing and not keyed:
        raise NotApplicable("index_lookup_tables: no `.index(v)` or `v in` on a list the target never changes, no "
                            f"list it builds by appends only, and no scan of a fixed table by a key, in the per-sample "
                            f"path of {file}" + (": " + "; ".join(refusals[:4]) if refusals else ""))
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    new = _splice(text, sites, [*growing_edits(text, growing, taken), *(edit for _, edit, _ in keyed)])
    if f"def {HELPER}(" not in text:
        new = after_imports_text(new, HELPER_SOURCE + (GROWING_HELPERS if growing else "")
                                 + ("\n\n" + KEYED_SOURCE if keyed else ""))
    else:
        if growing and "def _index_kept(" not in text:
            new = after_imports_text(new, GROWING_HELPERS.lstrip("\n"))
        if keyed and f"def {KEYED}(" not in text:
            new = after_imports_text(new, KEYED_SOURCE)
    ast.parse(new)
    lists = sorted({ast.unparse(_site_list(site)) for site in sites} | {f"{plan.name} (built by appends)"
                                                                         for plan in growing}
                   | {f"{table} (scanned by a key)" for _, _, table in keyed})
    sites = sites + [site for plan in growing for site in plan.searches] + [scan for scan, _, _ in keyed]
    return CodemodResult(
        files={file: new},
        summary=f"answer `.index(v)` and `v in` on {', '.join(lists)} from a dict of first positions built once "
                f"({len(sites)} site(s) in {file})" if not keyed else
                f"answer {', '.join(lists)} from dicts built once (first positions; rows by key) ({len(sites)} "
                f"site(s) in {file})",
        knob="list.index", old_value="a scan of the list per call", new_value="a dict lookup",
        location=f"{file}:{sites[0].lineno}",
        notes=[f"{name} is bound only to new lists and never changed in place by the target's code" for name in lists]
        + [f"not rewritten: {r}" for r in refusals[:4]],
    )


def _site_list(node: ast.AST) -> ast.expr | None:
    """The list of `X.index(v)` (one argument) or of `v in X` / `v not in X` (one comparison), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "index" \
            and len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred):
        return node.func.value
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
        return node.comparators[0]
    return None


def _refusal(base: ast.expr, cls: ast.ClassDef | None, modules: dict[str, ast.Module], paths: dict) -> str | None:
    """Why `base.index(v)` keeps its scan, or None when `base` is a list the target makes once and never changes."""
    if isinstance(base, ast.Name):
        value = constant_table(base.id, paths, modules)
        if value is None or not new_list(value):
            return f"{base.id} is not a module-level list or tuple the target makes once and never changes"
        if isinstance(value, (ast.List, ast.Tuple)) and len(value.elts) <= SMALL:
            return f"{base.id} holds {len(value.elts)} items, searched as fast as looked up"
        return None
    if not (isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id == "self"):
        return "not a list on self or a module-level table"
    if cls is None:
        return "not in a method"
    attr = base.attr
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    binds = [(method, node) for method in cls.body if isinstance(method, ast.FunctionDef)
             for node in ast.walk(method) if isinstance(node, ast.Assign)
             and any(_self_attr(t, attr) or _made_attr(t, attr, method, cls.name) for t in node.targets)]
    in_init = [node for method, node in binds if method is init]
    if len(in_init) != 1 or len(in_init[0].targets) != 1:
        return f"self.{attr} is not bound once, in __init__, to a new list or tuple"
    # Bound again elsewhere (a tokenizer's `train`, a `fit`, a `load`): each time to a new list, which the tables,
    # kept per list object, start over for; it must not be filled there (only __init__ may fill).
    rebound = [node for method, node in binds if method is not init]
    for node in rebound:
        if len(node.targets) != 1 or not fresh_list(node.value):
            return f"self.{attr} is bound outside __init__ (line {node.lineno}) to something other than a new list"
    value = in_init[0].value
    if isinstance(value, ast.Name) and value.id not in {n.id for n in ast.walk(init)
                                                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}:
        # `self.vocab = vocab`: the list its callers made (handed_in.py reads them).
        why = handed_in_refusal(cls, init, value.id, modules, only_reads)
        if why:
            return f"self.{attr} is the `{value.id}` handed to __init__: {why}"
    elif not fresh_list(value):
        return f"self.{attr} is not bound once, in __init__, to a new list or tuple"
    # __init__ may still fill it (`self.vocab = []`, then appends): it ends before any sample is made.
    return _only_read(attr, {id(n) for n in ast.walk(init)} | {id(t) for node in rebound for t in node.targets},
                      modules)


def fresh_list(value: ast.expr) -> bool:
    """A new list or tuple (`handed_in.new_list`), a concatenation (`SPECIALS + nags + sans`: `+` of lists or tuples
    makes a new one, and the tables answer only for an exact list or tuple), or a choice between new ones
    (`list(words) if words else []`)."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):  # `+` of lists or tuples makes a new one
        return True
    if isinstance(value, ast.IfExp):
        return fresh_list(value.body) and fresh_list(value.orelse)
    return new_list(value)


def _made_attr(node: ast.AST, attr: str, method: ast.FunctionDef, cls_name: str) -> bool:
    """`tok.<attr>` where `tok` is bound, in `method` alone, to a new instance of the class (`tok = cls(...)` in a
    classmethod, `tok = Tokenizer(...)`): a factory setting the vocabulary of the object it made."""
    if not (isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name)):
        return False
    made = [n.value for n in ast.walk(method) if isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == node.value.id for t in n.targets)]
    return len(made) == 1 and isinstance(made[0], ast.Call) and isinstance(made[0].func, ast.Name) \
        and made[0].func.id in ("cls", cls_name) and node.value.id not in {a.arg for a in method.args.args}


def _self_attr(node: ast.AST, attr: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
        and node.value.id == "self"


def _only_read(attr: str, building: set[int], modules: dict[str, ast.Module]) -> str | None:
    """Why some mention of `.attr` in the target may change or share the list, or None when each one only reads
    (mentions inside the nodes of `building`, the class's `__init__`, may do anything)."""
    for file, tree in modules.items():
        parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and node.attr == attr) or id(node) in building:
                continue
            parent = parents.get(id(node))
            if not only_reads(node, parent, parents) and not _keeps_a_parameter(node, parent, parents):
                where = parent if isinstance(parent, (ast.expr, ast.stmt)) else node
                return f"{file}:{node.lineno} `{ast.unparse(where)[:60]}` may change or share .{attr}"
    return None


def _keeps_a_parameter(node: ast.Attribute, parent: ast.AST | None, parents: dict) -> bool:
    """`self.<attr> = name` in an `__init__` whose parameter `name` is: another object keeping a list it was handed
    (a dataset keeping the rows it hands its featurizer); `handed_in` reads the hand-over, and every other mention
    of `.<attr>` must still only read."""
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and parent.targets[0] is node
            and isinstance(parent.value, ast.Name) and isinstance(node.value, ast.Name) and node.value.id == "self"):
        return False
    scope = parents.get(id(parent))
    while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        scope = parents.get(id(scope))
    return scope is not None and scope.name == "__init__" and parent.value.id in {a.arg for a in scope.args.args}


def only_reads(node: ast.Attribute, parent: ast.AST | None, parents: dict) -> bool:
    if not isinstance(node.ctx, ast.Load):
        return False
    if isinstance(parent, ast.Attribute) and parent.attr in READ_METHODS:
        return isinstance(parents.get(id(parent)), ast.Call)
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Compare):
        return node in parent.comparators and all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
    if isinstance(parent, (ast.For, ast.comprehension)):
        return parent.iter is node
    if isinstance(parent, ast.Call):
        return isinstance(parent.func, ast.Name) and parent.func.id in _READING_BUILTINS and node in parent.args
    return False


def _splice(text: str, sites: list[ast.AST], extra: list[tuple[int, int, int, int, str]] = ()) -> str:
    """`text` with each `X.index(v)` written `_index_of(X, v)`, and each `v in X` `_is_listed(X, v)` (`v not in X`:
    `(not _is_listed(X, v))`), and the `extra` edits (line, col, end line, end col, new text) made too."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def at(lineno: int, col: int) -> int:
        return offsets[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())

    edits = list(extra)
    for site in sites:
        if isinstance(site, ast.Call):
            base, value = (ast.get_source_segment(text, n) for n in (site.func.value, site.args[0]))
            new = f"{HELPER}({base}, {value})"
        else:
            base, value = (ast.get_source_segment(text, n) for n in (site.comparators[0], site.left))
            new = f"{CONTAINS}({base}, {value})"
            new = f"(not {new})" if isinstance(site.ops[0], ast.NotIn) else new
        edits.append((site.lineno, site.col_offset, site.end_lineno, site.end_col_offset, new))
    # An edit inside another (a search in an appended value) is left to the outer one, which keeps its text.
    edits = [e for e in edits if not any(o is not e and (o[0], o[1]) <= (e[0], e[1]) and (e[2], e[3]) <= (o[2], o[3])
                                         and (o[0], o[1]) != (o[2], o[3]) for o in edits)]
    out = text
    for line, col, end_line, end_col, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:at(line, col)] + new + out[at(end_line, end_col):]
    return out


__all__ = ["index_lookup_tables"]
