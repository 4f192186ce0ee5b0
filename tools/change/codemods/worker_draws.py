"""Draws that DataLoader workers would split, outside a dataset's own `__getitem__`: `callable_draws`.

`determinism.carried_draws` reads each dataset's `__getitem__`. The loader's workers also run the objects and
functions a dataset is handed (a `Compose` of transforms built in the training script and passed in) and the
loader's `collate_fn`. Where one of those draws from a stream that carries over from call to call, more (or
fewer) workers change the samples: each worker process has its own copy of an object's generator, and its own
seed for the global `random`/`np.random`/torch streams. Two shapes are read (and `iterable_datasets` says
where every dataset is an `IterableDataset`, whose iterator each worker runs from the start):

- **A callable object handed on.** A class of the target with a `__call__` whose `__init__` (or a dataclass's
  `__post_init__`) keeps a generator on `self` (`self.rng = np.random.default_rng(seed)`, `random.Random`,
  `torch.Generator()`, or one handed in: `self.rng = rng` or `self.size, self.gen = size, gen`, then
  `self.rng.integers(...)`, or passed to a draw: `torch.rand(1, generator=self.gen)`)
  that a method other than `__init__` uses, or whose
  `__call__` (or a function of the target it calls) draws from a global stream; an instance of it made as a
  call's argument, inside a list or tuple (a Compose's chain), or bound to a name that is passed on that way.
  An instance only called where it was made (a mixup in the training loop, in the main process) is not
  counted. A class whose bases name a Sampler runs in the main process and is skipped.
- **A collate function** named by `collate_fn=` (a module-level function, or `functools.partial` of one) that
  draws from a global stream, itself or through the target's functions it calls.

A generator made inside a call (seeded per index or per batch) draws the same in any process: nothing is said
then, and verification decides, as it does for any code this reading does not follow.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.loop_checks import GENERATOR_CALL, is_random_call
from perfloop.tools.change.codemods.loops import dotted

INIT_METHODS = ("__init__", "__post_init__")
"""Where an object's lasting attributes are set: `__init__`, and a dataclass's `__post_init__`."""
GLOBAL_STREAMS = ("random.", "np.random.", "numpy.random.", "torch.")
"""Dotted prefixes of draws from a process-wide stream (each worker seeds its own)."""


def iterable_datasets(modules: dict[str, ast.Module]) -> str | None:
    """Why more or fewer workers would change the samples of a target whose datasets are all iterable, or None.

    Each worker process runs an `IterableDataset`'s `__iter__` from the start: without sharding by
    `get_worker_info()` every sample comes once per worker, and with it the loader interleaves the workers'
    batches, another order than one process gives. Said where every dataset class of the target (a class
    with a `__getitem__`, or whose bases name `IterableDataset`) is iterable."""
    iterable, mapped = [], 0
    for file, tree in modules.items():
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            if any("IterableDataset" in dotted(base) for base in cls.bases):
                iterable.append(f"{cls.name} ({file}:{cls.lineno})")
            elif any(isinstance(n, ast.FunctionDef) and n.name == "__getitem__" for n in cls.body):
                mapped += 1
    if not iterable or mapped:
        return None
    return (f"{iterable[0]} is an IterableDataset: each worker runs its iterator from the start, so the batches "
            "would repeat per worker or come interleaved in another order")


def callable_draws(modules: dict[str, ast.Module]) -> str | None:
    """Why more or fewer workers would change what a transform object or collate function draws, or None."""
    classes = {node.name: (file, node) for file, tree in modules.items() for node in ast.walk(tree)
               if isinstance(node, ast.ClassDef)}
    functions = {node.name: (file, node) for file, tree in modules.items() for node in tree.body
                 if isinstance(node, ast.FunctionDef)}
    for name in sorted(_handed_on(modules.values()) & set(classes)):
        file, cls = classes[name]
        if any("Sampler" in dotted(base) for base in cls.bases):
            continue
        reason = _object_draw(cls, functions)
        if reason:
            return f"{cls.name} ({file}:{cls.lineno}), handed to the data pipeline, {reason}"
    for name in sorted(_collate_functions(modules.values()) & set(functions)):
        file, fn = functions[name]
        reason = _global_draw(fn, functions)
        if reason:
            return f"the collate function {name} ({file}:{fn.lineno}) {reason}"
    return None


def _object_draw(cls: ast.ClassDef, functions: dict) -> str | None:
    methods = {node.name: node for node in cls.body if isinstance(node, ast.FunctionDef)}
    call = methods.get("__call__")
    if call is None:
        return None
    # A dataclass sets its generator in __post_init__ (`self.rng = np.random.default_rng(self.seed)`).
    inits = [methods[name] for name in INIT_METHODS if name in methods]
    kept = {attr: made for init in inits for attr, made in init_generators(init).items()}
    held = {attr for init in inits for attr in _set_in_init(init)}
    where = " or ".join(init.name for init in inits) or "__init__"  # where the object's attributes are set
    for method in (m for name, m in methods.items() if name not in INIT_METHODS):
        for node in ast.walk(method):
            if isinstance(node, ast.Attribute) and node.attr in kept and isinstance(node.value, ast.Name) \
                    and node.value.id == "self":
                return (f"draws from self.{node.attr} in {method.name} (line {node.lineno}), a {kept[node.attr]} its "
                        f"{where} made, whose state carries from call to call")
            # `self.rng.integers(...)` on a generator handed to __init__ (`RandomCrop(size, rng)`): the same object
            # for every call, so its state carries just the same.
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and is_random_call(node.func.attr) and isinstance(node.func.value, ast.Attribute) \
                    and isinstance(node.func.value.value, ast.Name) and node.func.value.value.id == "self" \
                    and node.func.value.attr in held - set(kept):
                return (f"draws with self.{node.func.value.attr}.{node.func.attr}() in {method.name} (line "
                        f"{node.lineno}), on an object its {where} keeps, whose state carries from call to call")
            # `torch.rand(1, generator=self.generator)`: a draw handed a generator its __init__ keeps (or None there,
            # which is the process-wide stream): carried either way.
            given = next((k.value for k in node.keywords if k.arg == "generator"), None) \
                if isinstance(node, ast.Call) and is_random_call(dotted(node.func)) else None
            if isinstance(given, ast.Attribute) and isinstance(given.value, ast.Name) and given.value.id == "self" \
                    and given.attr in held - set(kept):
                return (f"draws with {dotted(node.func)}(generator=self.{given.attr}) in {method.name} (line "
                        f"{node.lineno}), a generator its {where} keeps, whose state carries from call to call")
    return _global_draw(call, functions)


def _set_in_init(init: ast.FunctionDef | None) -> set[str]:
    """Attributes `__init__` sets on self (`self.size, self.generator = size, generator` sets both)."""
    return {attr for node in (ast.walk(init) if init is not None else ()) if isinstance(node, ast.Assign)
            for attr, _ in _self_assignments(node)}


def _self_assignments(node: ast.Assign) -> list[tuple[str, ast.expr | None]]:
    """(attribute, the value it gets where that can be told apart) for each `self.<attr>` the assignment binds:
    `self.a = v`, and `self.a, self.b = x, y` element by element (None where the value is not a matching tuple)."""
    found = []
    for target in node.targets:
        parts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        values = node.value.elts if isinstance(node.value, (ast.Tuple, ast.List)) \
            and len(node.value.elts) == len(parts) and len(parts) > 1 else None
        for k, part in enumerate(parts):
            if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and part.value.id == "self":
                found.append((part.attr, values[k] if values else node.value if len(parts) == 1 else None))
    return found


def _global_draw(fn: ast.FunctionDef, functions: dict) -> str | None:
    """A draw from a process-wide stream in `fn` or the target's module functions it calls; None where any of
    them makes a generator of its own (seeded per call: the same in any process)."""
    reached, todo = [fn], [fn]
    while todo:
        for call in (c for c in ast.walk(todo.pop()) if isinstance(c, ast.Call)):
            name = dotted(call.func)
            if name in functions and all(functions[name][1] is not r for r in reached):
                reached.append(functions[name][1])
                todo.append(functions[name][1])
    calls = [c for r in reached for c in ast.walk(r) if isinstance(c, ast.Call)]
    if any(GENERATOR_CALL.search(dotted(c.func)) for c in calls):
        return None
    for call in calls:
        name = dotted(call.func)
        if name.startswith(GLOBAL_STREAMS) and is_random_call(name) and not _given_generator(call):
            return (f"draws from the process-wide stream with {name}() (line {call.lineno}), which each worker "
                    "seeds on its own")
    return None


def _given_generator(call: ast.Call) -> bool:
    """`torch.randperm(n, generator=g)`: a generator passed in, whose own stream decides."""
    return any(k.arg == "generator" for k in call.keywords)


def init_generators(init: ast.FunctionDef | None) -> dict[str, str]:
    """Attributes `__init__` sets to a random generator: name -> the call that made it."""
    found = {}
    for node in ast.walk(init) if init is not None else ():
        if isinstance(node, ast.Assign):
            for attr, value in _self_assignments(node):
                if value is not None and (made := _generator_made(value)) is not None:
                    found[attr] = made
    return found


def _generator_made(value: ast.expr) -> str | None:
    """The generator call a value is made by, through a chain of calls on it (`torch.Generator().manual_seed(s)`)."""
    while isinstance(value, ast.Call):
        name = dotted(value.func)
        if GENERATOR_CALL.search(name):
            return name
        value = value.func.value if isinstance(value.func, ast.Attribute) else None
    return None


def _handed_on(trees) -> set[str]:
    """Class names (last part: `T.Compose` -> Compose) of instances made where they are handed on: as a call's
    argument, in a list or tuple, or bound to a name that is then passed as an argument or put in a list."""
    handed, bound = set(), {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1:
                target = node.targets[0]
                key = target.id if isinstance(target, ast.Name) else \
                    target.attr if isinstance(target, ast.Attribute) else None
                if key:
                    bound.setdefault(key, set()).add(_class_name(node.value))
    passed_names = set()
    for tree in trees:
        for node in ast.walk(tree):
            values = []
            if isinstance(node, ast.Call):
                values = [*node.args, *(k.value for k in node.keywords)]
            elif isinstance(node, (ast.List, ast.Tuple)):
                values = list(node.elts)
            for value in values:
                if isinstance(value, ast.Call):
                    handed.add(_class_name(value))
                elif isinstance(value, (ast.Name, ast.Attribute)):
                    passed_names.add(value.id if isinstance(value, ast.Name) else value.attr)
    for name in passed_names:
        handed |= bound.get(name, set())
    return handed


def _class_name(call: ast.Call) -> str:
    return dotted(call.func).split(".")[-1]


def _collate_functions(trees) -> set[str]:
    """Module-level function names passed as `collate_fn=` (directly or through `functools.partial`)."""
    names = set()
    for tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            for keyword in node.keywords:
                if keyword.arg != "collate_fn":
                    continue
                value = keyword.value
                if isinstance(value, ast.Call) and dotted(value.func).split(".")[-1] == "partial" and value.args:
                    value = value.args[0]
                if isinstance(value, (ast.Name, ast.Attribute)):
                    names.add(dotted(value).split(".")[-1])
    return names
