"""Say what a captured argument is, in one line, without importing anything (the probe's describer).

Used where the argument lives: in the pipeline's own process by the capture (perfloop_capture
writes each call's description beside its pickle, since perfloop's process may not be able to
unpickle the pipeline's own classes), and by perfloop for captures made before that. Stdlib only.
"""


def describe_value(value, depth: int = 0) -> str:
    """One line for an argument: type, shape and dtype for arrays and tensors, lengths for containers."""
    kind = type(value)
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        device = getattr(value, "device", None)
        where = f", device={device}" if device is not None and str(device) != "cpu" else ""
        return f"{kind.__module__.split('.')[0]}.{kind.__name__}(shape={tuple(shape)}, dtype={dtype}{where})"
    if isinstance(value, (list, tuple)) and depth < 2:
        inner = describe_value(value[0], depth + 1) if value else "empty"
        return f"{kind.__name__}[len={len(value)}] of {inner}"
    if isinstance(value, dict) and depth < 2:
        items = ", ".join(f"{k!r}: {describe_value(v, depth + 1)}" for k, v in list(value.items())[:6])
        return f"dict[{len(value)} keys] {{{items}}}"
    if isinstance(value, (int, float, bool, str)) or value is None:
        return f"{kind.__name__} = {value!r}"[:120]
    fields = getattr(value, "__dict__", None)
    if isinstance(fields, dict) and fields and depth < 1:
        shown = ", ".join(f"{k}: {describe_value(v, depth + 1)}" for k, v in list(fields.items())[:8])
        more = f", ... ({len(fields)} attributes)" if len(fields) > 8 else ""
        return f"{kind.__module__}.{kind.__qualname__} with {shown}{more}"
    return kind.__name__


def describe_call(args: list, kwargs: dict) -> str:
    """The lines describing one call's arguments (the block the LLM prompt shows)."""
    lines = [f"  arg {i}: {describe_value(v)}" for i, v in enumerate(args)]
    return "\n".join(lines + [f"  {k}: {describe_value(v)}" for k, v in kwargs.items()])
