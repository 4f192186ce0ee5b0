"""`torch.tensor(x.tolist())` and `torch.tensor([e.tolist() for s in seq])` without the Python lists, and
`torch.tensor(frames)` of a list of arrays read as one stacked array.

A collate or `__getitem__` often turns arrays into nested Python lists only to hand them to
`torch.tensor`, which then walks every number (57,000 floats a batch in one blind pipeline).
Where the dtype is not spelled (`zero_copy_conversion` handles the sites that spell it), the
tensor's dtype comes from the Python values: floats become the default dtype, ints int64,
bools bool. This codemod rewrites each such site in the hot function's file as a call to a
helper it adds to the file:

    _tensor_of_lists(x, False, lambda v: torch.tensor(v.tolist()))
    _tensor_of_lists(arrays, True, lambda v: torch.tensor([item.tolist() for item in v]))

The helper reads numpy arrays and CPU tensors as one array (stacked, for the second form),
picks the dtype `torch.tensor` would have inferred from their values (float arrays of up to
64 bits: the default dtype, each value rounded as from a Python float; signed ints and
unsigned ints below 64 bits: int64; bools: bool) and returns a fresh tensor (never sharing
memory with the input). Anything else (lists, an empty sequence, ragged shapes, object or
complex arrays, uint64, tensors that need grad or are bfloat16) goes the original way, through
the lambda, on the same value: the result, or the error, is the original's. Replay checks
the rewritten function on captured calls before any pipeline run.

`torch.tensor(name)` and `torch.as_tensor(name)` (a `dtype=` kept) become `torch.tensor(_stacked_arrays(name))`:
torch walks a list of numpy arrays number by number (it warns that this is extremely slow), a list of
video frames or crops in a collate most often. The helper stacks a list or tuple of arrays of one shape and one dtype
into one array, only where torch converts the values alike either way (bools, floats, ints of up to 32 bits: an
int64 read through a Python number would round twice into float32), and hands anything else over as it was.
"""
from __future__ import annotations

import ast

from perfloop.tools.change.codemods.axes import is_tolist
from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable, ReplayTarget
from perfloop.tools.change.codemods.hot_function import functions, load_hot_function
from perfloop.tools.change.codemods.imports import add_import

HELPER = "_tensor_of_lists"
STACKED = "_stacked_arrays"
HELPER_SOURCE = f'''

def {HELPER}(values, stacked, original):
    """torch.tensor(values.tolist()), or of [v.tolist() for v in values] when stacked, without the Python lists:
    the dtype torch.tensor infers from the values, a fresh tensor; anything else goes the original way."""
    items = list(values) if stacked else values
    try:
        if stacked:
            if not items:
                raise ValueError("empty")
            array = np.stack([_array_of(item) for item in items])
        else:
            array = _array_of(items)
        kind, size = array.dtype.kind, array.dtype.itemsize
        if kind == "f" and size <= 8:
            dtype = torch.get_default_dtype()
        elif kind == "i" or (kind == "u" and size < 8):
            dtype = torch.int64
        elif kind == "b":
            dtype = torch.bool
        else:
            raise TypeError(array.dtype)
        return torch.tensor(array).to(dtype)
    except (TypeError, ValueError, RuntimeError):
        return original(items)


def _array_of(value):
    """A numpy array or a plain CPU tensor as a numpy array; TypeError for anything else."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, torch.Tensor) and not value.requires_grad and value.device.type == "cpu" \\
            and value.dtype not in (torch.bfloat16, torch.complex64, torch.complex128):
        return value.numpy()
    raise TypeError(type(value))


def {STACKED}(values):
    """A list or tuple of numpy arrays of one shape and dtype, stacked into one array, which torch.tensor reads at
    once (a list of arrays it walks number by number); anything else as it is. Only dtypes whose values torch
    converts alike either way: bools, floats, ints of up to 32 bits."""
    if type(values) in (list, tuple) and values and all(type(v) is np.ndarray for v in values):
        first = values[0]
        if (first.dtype.kind in "bf" or first.dtype.kind in "iu" and first.dtype.itemsize <= 4) \\
                and all(v.shape == first.shape and v.dtype == first.dtype for v in values):
            return np.stack(values)
    return values
'''


def tensor_of_lists(ctx: CodemodContext) -> CodemodResult:
    """Rewrite the hot function's file's `torch.tensor` of `.tolist()` lists (no dtype) through the helper."""
    file, text, tree, _ = load_hot_function(ctx)
    if any(isinstance(n, ast.FunctionDef) and n.name in (HELPER, "_array_of", STACKED) for n in tree.body):
        raise NotApplicable(f"{file} already defines {HELPER}, _array_of or {STACKED}")
    sites = _sites(tree)
    if not sites:
        raise NotApplicable(f"no torch.tensor(x.tolist()) or torch.tensor([a.tolist() for a in ...]) without a "
                            f"dtype, and no torch.tensor or torch.as_tensor of a name, in {file}")
    new_text = add_import(_insert_helper(_rewrite(text, sites), ast.parse(_rewrite(text, sites))), "numpy", "np")
    functions = list(dict.fromkeys(qual for qual, _, _ in sites))
    plain = [f for f in functions if "." not in f]
    stacked = sum(1 for _, _, is_stacked in sites if is_stacked)
    named = sum(1 for _, _, is_stacked in sites if is_stacked is None)
    return CodemodResult(
        files={file: new_text}, knob="zero_copy",
        summary=f"{len(sites) - named} torch.tensor of .tolist() lists ({stacked} of a list of arrays) read as arrays"
                + (f" and {named} torch.tensor of a name stacked where it holds a list of arrays," if named else "")
                + f" in {file} ({', '.join(functions)})",
        old_value="torch.tensor(x.tolist())", new_value=f"{HELPER}(x, ...)",
        location=f"{file}:{sites[0][1].lineno}",
        replay=ReplayTarget(file=file, function=plain[0]) if plain else None,
        notes=[f"{HELPER} infers the dtype torch.tensor would (default float dtype, int64, bool) and copies; "
               "lists, empty or ragged inputs, object, complex, uint64 and bfloat16 values, tensors that need "
               "grad or live on a GPU go the original way"] + [
            f"{STACKED} stacks a list or tuple of numpy arrays of one shape and dtype (bools, floats, ints of up to 32 "
            "bits) into one array for torch to read at once; anything else is handed over as it was"] * bool(named),
    )


def _sites(tree: ast.Module) -> list[tuple[str, ast.Call, bool]]:
    """(function, torch.tensor call, stacked) for each site, in the order they appear."""
    found = []
    for fn, qual in functions(tree):
        for call in ast.walk(fn):
            if not (isinstance(call, ast.Call) and ast.unparse(call.func) in ("torch.tensor", "torch.as_tensor")
                    and len(call.args) == 1):
                continue
            arg = call.args[0]
            if isinstance(arg, ast.Name):  # may hold a list of arrays: stacked, any dtype spelled kept
                if all(k.arg == "dtype" for k in call.keywords):
                    found.append((qual, call, None))
                continue
            if call.keywords or ast.unparse(call.func) != "torch.tensor":
                continue
            if is_tolist(arg):
                found.append((qual, call, False))
            elif isinstance(arg, ast.ListComp) and len(arg.generators) == 1 and not arg.generators[0].ifs \
                    and not arg.generators[0].is_async and is_tolist(arg.elt):
                found.append((qual, call, True))
    # A nested function's calls are also inside the function around it: each call once, the outer name.
    once = {id(call): (qual, call, stacked) for qual, call, stacked in reversed(found)}
    return sorted(once.values(), key=lambda site: (site[1].lineno, site[1].col_offset))


def _rewrite(text: str, sites: list[tuple[str, ast.Call, bool]]) -> str:
    """Replace each call's source span (UTF-8 offsets, as ast gives them), last first."""
    lines = [line.encode() for line in text.splitlines(keepends=True)]
    for _, call, stacked in sorted(sites, key=lambda s: (s[1].lineno, s[1].col_offset), reverse=True):
        arg = call.args[0]
        if stacked is None:  # a name that may hold a list of arrays: only the argument changes
            line = lines[arg.lineno - 1]
            lines[arg.lineno - 1] = line[:arg.col_offset] + f"{STACKED}({arg.id})".encode() + line[arg.end_col_offset:]
            continue
        if stacked:
            # [E.tolist() for s in seq]: the Es, each computed once in order as before, then the one conversion.
            gen, item = arg.generators[0], arg.elt.func.value
            values = ast.unparse(gen.iter) if isinstance(item, ast.Name) and ast.unparse(gen.target) == item.id \
                else f"[{ast.unparse(item)} for {ast.unparse(gen.target)} in {ast.unparse(gen.iter)}]"
            new = f"{HELPER}({values}, True, lambda v: torch.tensor([item.tolist() for item in v]))"
        else:
            new = f"{HELPER}({ast.unparse(arg.func.value)}, False, lambda v: torch.tensor(v.tolist()))"
        start, end = call.lineno - 1, call.end_lineno - 1
        head, tail = lines[start][:call.col_offset], lines[end][call.end_col_offset:]
        lines[start:end + 1] = [head + new.encode() + tail]
    return b"".join(lines).decode()


def _insert_helper(text: str, tree: ast.Module) -> str:
    """Add the helper after the last top-level import (or at the top)."""
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    at = imports[-1].end_lineno if imports else 0
    lines = text.splitlines(keepends=True)
    return "".join(lines[:at] + [HELPER_SOURCE.lstrip("\n") + "\n\n" if not at else HELPER_SOURCE] + lines[at:])

