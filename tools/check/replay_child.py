"""Replay captured calls on the old and the new version of one function; print a JSON verdict.

Run by tools/check/replay.py as `python replay_child.py SPEC.json` inside the sandbox, with the
target folder as working directory. Both versions of the file are executed as modules
(not as __main__, so a training script's main() does not run) and the function is
looked up by qualified name in each. Standard library, numpy and torch only.
"""
import copy
import glob
import itertools
import json
import math
import os
import pickle
import sys
import time
import types


def load(source: str, path: str, name: str, argv=None) -> types.ModuleType:
    """Execute `source` as module `name`, with the pipeline's sys.argv, minus a flat script's driver code."""
    module = types.ModuleType(name)
    module.__file__ = path
    module.__package__ = package_of(path)
    sys.modules[name] = module
    saved, sys.argv = sys.argv, list(argv or [path])
    try:
        exec(compile(definitions_only(source), path, "exec"), module.__dict__)
    finally:
        sys.argv = saved
    return module


def package_of(path: str) -> str:
    """The dotted package a file under the working directory sits in ('ehr' for ehr/data.py, '' at top level).

    The pipeline imported it from here as that package's module, so its relative imports
    (`from .cohort import parent_code`) resolve against the same package in the replay.
    """
    relative = os.path.relpath(os.path.abspath(path), os.getcwd())
    folder = os.path.dirname(relative)
    if not folder or folder.startswith(os.pardir) or not all(part.isidentifier() for part in folder.split(os.sep)):
        return ""
    return folder.replace(os.sep, ".")


def definitions_only(source: str):
    """The module's AST without what follows its last def/class except imports, defs and plain constants.

    A flat training script (nanoGPT style) trains at module level after its definitions; replay
    needs the definitions and the settings read before them, never the training run.
    """
    import ast

    tree = ast.parse(source)
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    last = max((k for k, node in enumerate(tree.body) if isinstance(node, defs)), default=len(tree.body))
    kept = tree.body[:last + 1]
    for node in tree.body[last + 1:]:
        plain = isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
            and not any(isinstance(sub, (ast.Call, ast.Await, ast.Yield)) for sub in ast.walk(node.value))
        if plain or isinstance(node, defs + (ast.Import, ast.ImportFrom)):
            kept.append(node)
    tree.body = kept
    return tree


def rng_states():
    """Snapshots of the global random generators a function may draw from (python, numpy, torch)."""
    import random

    import numpy as np

    states = {"random": random.getstate(), "numpy": np.random.get_state()}
    if "torch" in sys.modules:
        states["torch"] = sys.modules["torch"].get_rng_state()
    return states


def set_rng_states(states) -> None:
    import random

    import numpy as np

    random.setstate(states["random"])
    np.random.set_state(states["numpy"])
    if "torch" in states:
        sys.modules["torch"].set_rng_state(states["torch"])


def same_rng(a, b) -> bool:
    import numpy as np

    return a["random"] == b["random"] and all(np.array_equal(x, y) for x, y in zip(a["numpy"], b["numpy"])) \
        and ("torch" not in a or bool((a["torch"] == b["torch"]).all()))


# Seconds of timed calls after the check (each version's fastest of several rounds; see best_times).
TIME_BUDGET_S = 0.25


class Unpickler(pickle.Unpickler):
    """Restores classes of the pipeline's script (pickled as `__main__.X` where it ran as a script) from the
    replayed file's old version when that file is the script."""

    def __init__(self, handle, old_module: types.ModuleType) -> None:
        super().__init__(handle)
        self.old_module = old_module

    def find_class(self, module: str, name: str):
        if module == "__main__":
            try:
                return resolve(self.old_module, name)
            except AttributeError:
                pass
        return super().find_class(module, name)


def as_method(function, module: types.ModuleType, spec: dict):
    """`function` (Class.method of one version) called with its object moved to that version's class, where the
    object's class is the replayed file's own, so `self.helper()` runs the version's helper too."""
    owner = resolve(module, spec["function"].rsplit(".", 1)[0])
    path = os.path.realpath(spec["file"])

    def call(obj, *args, **kwargs):
        kind = type(obj)
        home = getattr(sys.modules.get(kind.__module__), "__file__", None)
        ours = kind.__module__ in ("__main__", "_perfloop_replay_old", "_perfloop_replay_new") or \
            (home is not None and os.path.realpath(home) == path)
        if ours and kind.__qualname__ == owner.__qualname__:  # not a subclass's object: its class stays
            try:
                obj.__class__ = owner
            except TypeError:
                pass  # a class whose layout differs (slots, a builtin base): called as it is
        return function(obj, *args, **kwargs)

    return call


def resolve(module: types.ModuleType, qualname: str):
    obj = module
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def flatten(value, path="out"):
    """Yield (path, kind, payload) leaves: arrays as ("array", dtype kind, shape, float64 values)."""
    import numpy as np

    try:
        import torch
    except ImportError:  # pragma: no cover - torch is always there in perfloop's targets
        torch = None
    if torch is not None and isinstance(value, torch.Tensor):
        yield path, ("tensor", str(value.dtype), tuple(value.shape)), value.detach().cpu().double().numpy()
        return
    array = None
    if isinstance(value, np.ndarray):
        array = value
    elif isinstance(value, list) and _numeric_list(value):
        try:
            array = np.asarray(value)
        except ValueError:  # ragged rows (sessions of different lengths): compared item by item below
            array = None
    if array is not None:
        # An ndarray keeps its exact dtype; a list of Python numbers only its kind (int/float).
        dtype = array.dtype.str if isinstance(value, np.ndarray) else array.dtype.kind
        yield path, (type(value).__name__, dtype, array.shape), \
            array.astype(np.float64) if array.dtype.kind in "biuf" else array
        return
    if isinstance(value, (list, tuple)):
        yield path, (type(value).__name__, len(value)), None
        for i, item in enumerate(value):
            yield from flatten(item, f"{path}[{i}]")
        return
    if isinstance(value, dict):
        yield path, ("dict", tuple(value)), None
        for key, item in value.items():
            yield from flatten(item, f"{path}[{key!r}]")
        return
    if isinstance(value, (bool, np.bool_)):
        yield path, ("bool",), bool(value)
    elif isinstance(value, (int, np.integer)):
        yield path, ("int",), int(value)
    elif isinstance(value, (float, np.floating)):
        yield path, ("float",), float(value)
    else:
        yield path, ("other", type(value).__name__), repr(value)


def _numeric_list(value) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value) \
        or all(isinstance(v, list) and _numeric_list(v) for v in value) and len(value) > 0


def as_arrays(value):
    """Turn lists of numbers into arrays, inside tuples too (for rewrites that return arrays on purpose)."""
    import numpy as np

    if isinstance(value, list) and value and _numeric_list(value):
        try:
            return np.asarray(value)
        except ValueError:  # ragged rows stay a list
            return value
    if isinstance(value, tuple):
        return tuple(as_arrays(v) for v in value)
    return value


def compare(old, new, atol, rtol, lists_became_arrays=False):
    """Return (verdict, detail): identical, within_tolerance, layout_changed (the same numbers in another
    container or dtype, see same_values; detail: the first structure change) or different (first difference)."""
    import numpy as np

    if lists_became_arrays:
        old, new = as_arrays(old), as_arrays(new)
    old_leaves, new_leaves = list(flatten(old)), list(flatten(new))
    if [(p, k) for p, k, _ in old_leaves] != [(p, k) for p, k, _ in new_leaves]:
        for (po, ko, _), (pn, kn, _) in zip(old_leaves, new_leaves):
            if (po, ko) != (pn, kn):
                detail = f"{po}: structure/type {ko} became {kn}"
                break
        else:
            detail = f"{len(old_leaves)} values became {len(new_leaves)}"
        lost = _integers_became_floats(old_leaves, new_leaves)
        if lost is not None:
            return "different", lost
        if same_values(old_leaves, new_leaves):
            return "layout_changed", detail
        return "different", detail
    verdict = "identical"
    for (path, kind, a), (_, _, b) in zip(old_leaves, new_leaves):
        if kind[0] in ("ndarray", "list", "tensor"):
            a, b = np.asarray(a), np.asarray(b)
            same = a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
        else:
            same = a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))
        if same:
            continue
        if atol is None or kind[0] not in ("ndarray", "list", "tensor", "float"):
            return "different", f"{path}: values differ (no tolerance declared)"
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        excess = np.abs(a - b) - (atol + rtol * np.abs(a))
        if np.nanmax(excess, initial=-1.0) > 0:
            return "different", f"{path}: max |old - new| {np.nanmax(np.abs(a - b)):.3g} beyond atol {atol} rtol {rtol}"
        verdict = "within_tolerance"
    return verdict, ""


def _number_kind(kind) -> str | None:
    """'i' for an integer leaf (an int, or a list, array or tensor of integers), 'f' for a floating one, else None."""
    if kind[0] in ("int", "float"):
        return kind[0][0]
    if kind[0] == "tensor":
        name = kind[1].rsplit(".", 1)[-1]
        return "i" if name.startswith(("int", "uint")) else "f" if name.startswith(("float", "half", "bfloat", "double")) \
            else None
    if kind[0] in ("ndarray", "list") and isinstance(kind[1], str):  # not a container's ("list", length)
        letter = kind[1].lstrip("<>|=")[:1]
        return "i" if letter in ("i", "u") else "f" if letter == "f" else None
    return None


def _integers_became_floats(old_leaves, new_leaves) -> str | None:
    """Say where a leaf of integers came back as floats, at the same path; None when none did.

    Equal values, so ``same_values`` would call it a layout change and leave it to the data check; but
    integers are what indexes and labels are made of (token ids into an embedding, class ids into a
    loss), and a float in their place fails or changes the run downstream. A rewrite must keep them.
    """
    new_kinds = {path: kind for path, kind, _ in new_leaves}
    for path, kind, _ in old_leaves:
        other = new_kinds.get(path)
        if other is not None and _number_kind(kind) == "i" and _number_kind(other) == "f":
            return f"{path}: integers became floats ({kind} -> {other}): an index or a label would break"
    return None


def same_values(old_leaves, new_leaves) -> bool:
    """Tell whether two outputs hold the same numbers in the same order, whatever holds them.

    Every numeric leaf (a tensor, array, list of numbers or number) is read as float64 and
    joined in leaf order; other leaves (strings, None) must be equal one for one. A list of
    Python floats and the float32 tensor it came from then compare equal (every float32
    round-trips through float64); a value rounded to a narrower dtype does not.
    """
    import numpy as np

    def split(leaves):
        numbers, others = [], []
        for _, kind, payload in leaves:
            if payload is None:
                continue  # a container: its leaves follow
            if kind[0] in ("ndarray", "list", "tensor"):
                array = np.asarray(payload)
                if array.dtype.kind not in "biuf":
                    return None, None
                numbers.append(array.astype(np.float64).ravel())
            elif kind[0] in ("int", "float", "bool"):
                numbers.append(np.asarray([payload], dtype=np.float64))
            else:
                others.append(payload)
        return (np.concatenate(numbers) if numbers else np.zeros(0)), others

    old_numbers, old_others = split(old_leaves)
    new_numbers, new_others = split(new_leaves)
    if old_numbers is None or new_numbers is None or old_others != new_others:
        return False
    return old_numbers.shape == new_numbers.shape and np.array_equal(old_numbers, new_numbers, equal_nan=True)


def _set_path(file: str) -> None:
    """Where the file's imports are found, as in the pipeline."""
    folder = os.path.dirname(os.path.abspath(file))
    if os.path.isfile(os.path.join(folder, "__init__.py")):
        # A package's folder goes last: its modules' names must not hide the standard library's (blind13 a3's
        # gaitlib/signal.py hid `signal`, which torch imports). The pipeline reached them as gaitlib.signal.
        sys.path.append(folder)
    else:  # a script's folder comes first, as it did for the pipeline's script
        sys.path.insert(0, folder)
    # The pipeline ran from the target folder (cwd here too): a file inside a package (codelm/bpe.py) pickles
    # its objects as codelm.bpe.X, importable from there as they were in the pipeline.
    if os.getcwd() not in sys.path:
        sys.path.insert(1, os.getcwd())


def main() -> None:
    spec = json.loads(open(sys.argv[1]).read())
    _set_path(spec["file"])
    argv = spec.get("argv")
    old_module = load(spec["old_source"], spec["file"], "_perfloop_replay_old", argv)
    new_module = load(spec["new_source"], spec["file"], "_perfloop_replay_new", argv)
    old, new = resolve(old_module, spec["function"]), resolve(new_module, spec["function"])
    # The calls see the pipeline's argv as well: a training loop's main() parses it when called, not at import.
    sys.argv = list(argv or [spec["file"]])
    if "." in spec["function"]:  # a method: its object runs the version's own class (helpers the rewrite changed)
        old, new = as_method(old, old_module, spec), as_method(new, new_module, spec)
    report = {"num_calls": 0, "identical": 0, "within_tolerance": 0, "layout_changed": 0, "layout": None,
              "skipped": [], "mismatch": None, "old_s": 0.0, "new_s": 0.0, "keyed": 0,
              "distinct": 0}
    matched, selves, keys = [], {}, set()
    memo_key = memo_key_function(spec, new_module)
    for path in sorted(glob.glob(os.path.join(spec["calls_dir"], spec["call_glob"]))):
        try:
            with open(path, "rb") as handle:
                call = Unpickler(handle, old_module).load()
            if "self_file" in call:  # a method: its object, kept once for all the calls made on it
                if call["self_file"] not in selves:
                    with open(os.path.join(spec["calls_dir"], call["self_file"]), "rb") as handle:
                        selves[call["self_file"]] = Unpickler(handle, old_module).load()
                call["args"] = [selves[call["self_file"]], *call["args"]]
        except Exception as error:  # a call that cannot be restored here is skipped, and said
            report["skipped"].append(f"{os.path.basename(path)}: {type(error).__name__}: {error}")
            continue
        outputs, before, after = [], rng_states(), []
        for version, key in ((old, "old_s"), (new, "new_s")):
            # Both versions start from the same random state; a rewrite must draw exactly what the old one drew.
            set_rng_states(before)
            args, kwargs = copy.deepcopy(call["args"]), copy.deepcopy(call["kwargs"])
            started = time.perf_counter()
            try:
                outputs.append(("ok", called(version, args, kwargs)))
            except Exception as error:
                outputs.append(("raised", f"{type(error).__name__}: {error}"))
            report[key] += time.perf_counter() - started
            after.append(rng_states())
        report["num_calls"] += 1
        given = call["args"][1:] if "self_file" in call else call["args"]
        try:
            keys.add(memo_key((tuple(given), tuple(sorted(call["kwargs"].items())))))
        except (TypeError, AttributeError):
            pass  # no exact key: the memo computes this call every time
        else:
            report["keyed"] += 1
            report["distinct"] = len(keys)
        if not same_rng(*after):
            report["mismatch"] = f"{os.path.basename(path)}: the new version draws different random numbers " \
                                 "(the global random state after the call differs)"
            break
        (old_status, old_out), (new_status, new_out) = outputs
        if old_status != "ok" or new_status != "ok":
            if old_status == new_status == "raised" and old_out.split(":")[0] == new_out.split(":")[0]:
                report["identical"] += 1
                continue
            report["mismatch"] = f"{os.path.basename(path)}: old {old_status} {str(old_out)[:200]}, " \
                                 f"new {new_status} {str(new_out)[:200]}"
            break
        verdict, detail = compare(old_out, new_out, spec.get("atol"), spec.get("rtol"),
                                  spec.get("lists_became_arrays", False))
        if verdict == "different":
            report["mismatch"] = f"{os.path.basename(path)}: {detail}"
            break
        if verdict == "layout_changed" and report["layout"] is None:
            report["layout"] = f"{os.path.basename(path)}: {detail}"
        report[verdict] += 1
        matched.append(call)
    # Where the checking pass took seconds, a first call's warm-up is lost in it: its times stand.
    if not report["mismatch"] and matched and report["old_s"] + report["new_s"] < 2.0:
        report["old_best_s"], report["new_best_s"], report["timed_s"] = best_times(
            old, new, matched, TIME_BUDGET_S, keep_object=bool(spec.get("keep_object")))
    print(spec["report_prefix"] + json.dumps(report))


def memo_key_function(spec: dict, new_module=None):
    """The memo's own key function (`_memo_key_data` where the rewrite keys lists and arrays too, else `_memo_key`):
    the memoised file's own where it has one (with its `_MEMO_FROZEN` classes, keyed by their state), else from the
    source perfloop passed (memo_runtime.HELPER_SOURCE): a call counts as keyed, and two calls as the same argument,
    exactly as the memoised file will judge them. It raises TypeError for an argument without a key."""
    name = "_memo_key_data" if spec.get("keys_data") else "_memo_key"
    if callable(getattr(new_module, name, None)):
        return getattr(new_module, name)
    namespace = {}
    exec(compile("import copy\nimport struct\n" + spec["memo_helpers"], "<memo helpers>", "exec"), namespace)
    return namespace[name]


# A generator's items drawn for the comparison (an IterableDataset's `__iter__` may never end): a difference past
# them is the data check's to find.
GENERATED_ITEMS = 64


def called(version, args, kwargs):
    """`version(*args, **kwargs)`; a generator is drawn, its first GENERATED_ITEMS items as a list (two generator
    objects compare only by identity)."""
    out = version(*args, **kwargs)
    if isinstance(out, types.GeneratorType):
        # Each item copied as it comes: a generator may yield one buffer it changes in place.
        return [copy.deepcopy(item) for item in itertools.islice(out, GENERATED_ITEMS)]
    return out


def best_times(old, new, calls, budget_s: float, max_rounds: int = 10,
               keep_object: bool = False) -> tuple[float, float, float]:
    """Each version's fastest time on each call, summed over the calls, and the seconds timed in all: rounds of
    every call, old and new alternating (which goes first swaps each round), each from a fresh copy of the
    arguments and the same random state, until `budget_s` of timing or `max_rounds`. A single first pass times
    imports and warm-up; the fastest of several is the function's own cost. A call too short for the clock
    (a dot product of two short lists) is timed as a run of `repeats` back-to-back calls on their own copies,
    set in the first round so that a run lasts about MIN_RUN_S: its time per call is that run's over `repeats`.
    With `keep_object`, a method's object is copied once per version and kept for all its calls (a memo on it fills
    in the first round and serves the rest, as it would in the pipeline)."""
    best = {"old": [float("inf")] * len(calls), "new": [float("inf")] * len(calls)}
    kept: dict = {"old": {}, "new": {}}
    repeats = [1] * len(calls)
    spent, rounds, began = 0.0, 0, time.perf_counter()
    # Copying the arguments (a method's whole dataset) is not timed, but bounds the rounds too.
    while rounds < max_rounds and (rounds == 0 or (spent < budget_s and time.perf_counter() - began < 8 * budget_s)):
        order = (("old", old), ("new", new)) if rounds % 2 == 0 else (("new", new), ("old", old))
        for k, call in enumerate(calls):
            state = rng_states()
            for key, version in order:
                own = kept[key] if keep_object and "self_file" in call else None
                took, copied = timed_run(version, call, state, repeats[k], own)
                spent += took * repeats[k]
                best[key][k] = min(best[key][k], took)
            if rounds == 0:  # as many as make a run last MIN_RUN_S, and as the copies of the arguments allow
                shortest = min(best["old"][k], best["new"][k])
                repeats[k] = max(1, min(MAX_REPEATS, int(MIN_RUN_S / max(shortest, 1e-7)),
                                        int(MAX_COPY_S / max(copied, 1e-7))))
        rounds += 1
    return sum(best["old"]), sum(best["new"]), spent


# A timed run of a short call lasts about this long (repeated calls), at most MAX_REPEATS calls and as many as
# copying the arguments for in about MAX_COPY_S (a method's object is part of them).
MIN_RUN_S = 0.002
MAX_REPEATS = 1000
MAX_COPY_S = 0.01


def timed_run(version, call, state, repeats: int, kept: dict | None = None) -> tuple[float, float]:
    """Seconds per call of `repeats` calls of `version` back to back, each on its own copy of the arguments
    from the same random state (copies made before the clock starts), and seconds per copy. `kept`: the
    version's copies of methods' objects by the file they were captured in, made once and used by every call."""
    copying = time.perf_counter()
    if kept is not None:
        if call["self_file"] not in kept:
            kept[call["self_file"]] = copy.deepcopy(call["args"][0])
        copies = [([kept[call["self_file"]], *copy.deepcopy(call["args"][1:])], copy.deepcopy(call["kwargs"]))
                  for _ in range(repeats)]
    else:
        copies = [(copy.deepcopy(call["args"]), copy.deepcopy(call["kwargs"])) for _ in range(repeats)]
    copied = (time.perf_counter() - copying) / repeats
    set_rng_states(state)
    started = time.perf_counter()
    for args, kwargs in copies:
        try:
            called(version, args, kwargs)
        except Exception:
            pass  # both returned in the check above; a failure now costs this round's time only
    return (time.perf_counter() - started) / repeats, copied


if __name__ == "__main__":
    main()
