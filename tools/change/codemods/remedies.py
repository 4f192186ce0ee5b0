"""The DataLoader codemods the knowledge base names, one function per remedy."""

from perfloop.tools.change.codemods.base import CodemodContext, CodemodResult, NotApplicable
from perfloop.tools.change.codemods.dataloader import runtime_value, set_dataloader_option


def set_num_workers(ctx: CodemodContext) -> CodemodResult:
    """Raise num_workers to params["value"], or with "auto" to the workers the profile needs."""
    value = ctx.params.get("value", "auto")
    if value == "auto":
        value = _auto_num_workers(ctx)
    elif not _is_int(value) or value < 0:
        raise ValueError(
            f'set_num_workers: params value must be "auto" or an int >= 0, got {value!r}'
        )
    current = runtime_value(ctx, "num_workers")
    if value != current and max(value, current if _is_int(current) else 0) > 0:
        from perfloop.tools.change.codemods.determinism import carried_draws

        draws = carried_draws(ctx.root)
        if draws is not None:
            raise NotApplicable(f"num_workers {current} → {value} would change the samples: {draws}; split over "
                                "worker processes, each draws from its own copy or seed of that stream")
    return set_dataloader_option(ctx, "num_workers", value)


def set_persistent_workers(ctx: CodemodContext) -> CodemodResult:
    """Keep worker processes alive across epochs instead of restarting them each epoch."""
    value = _bool_param(ctx, "set_persistent_workers")
    if value:
        _require_workers(ctx, "persistent_workers")
        rebuilt = next((site for site in ctx.sites if site.built > 1), None)
        if rebuilt is not None:
            raise NotApplicable(f"the DataLoader at {rebuilt.file}:{rebuilt.line} is built anew {rebuilt.built} times "
                                "in a run (every epoch or fold): persistent workers end with each loader object")
    _refuse_if_already(ctx, "persistent_workers", value)
    return set_dataloader_option(ctx, "persistent_workers", value)


def set_pin_memory(ctx: CodemodContext) -> CodemodResult:
    """Have the DataLoader return page-locked batches so host-to-device copies can be async."""
    value = _bool_param(ctx, "set_pin_memory")
    _refuse_if_already(ctx, "pin_memory", value)
    return set_dataloader_option(ctx, "pin_memory", value)


def set_prefetch_factor(ctx: CodemodContext) -> CodemodResult:
    """Set how many batches each worker prepares ahead."""
    value = ctx.params.get("value")
    if not _is_int(value) or value < 1:
        raise ValueError(f"set_prefetch_factor: params value must be an int >= 1, got {value!r}")
    _require_workers(ctx, "prefetch_factor")
    _refuse_if_already(ctx, "prefetch_factor", value)
    return set_dataloader_option(ctx, "prefetch_factor", value)


def _auto_num_workers(ctx: CodemodContext) -> int:
    """Return workers_needed clamped to [1, cpu_count], refusing when it is no gain."""
    needed, cpus = ctx.profile.workers_needed, ctx.profile.cpu_count
    if not _is_int(needed) or not _is_int(cpus):
        raise NotApplicable(
            "num_workers auto needs the profile's workers_needed and cpu_count; "
            f"got {needed!r} and {cpus!r}"
        )
    target = max(1, min(needed, cpus))
    current = runtime_value(ctx, "num_workers")
    if _is_int(current) and target <= current:
        raise NotApplicable(
            f"num_workers is already {current}; auto gives {target} "
            f"(workers_needed {needed} clamped to [1, cpu_count {cpus}]), no more workers"
        )
    return target


def _require_workers(ctx: CodemodContext, name: str) -> None:
    """Refuse options that DataLoader rejects without worker processes."""
    workers = runtime_value(ctx, "num_workers")
    if not _is_int(workers):
        raise NotApplicable(f"{name} needs num_workers > 0, and the profile does not give it")
    if workers == 0:
        raise NotApplicable(f"{name} needs num_workers > 0; the training DataLoader has 0")


def _refuse_if_already(ctx: CodemodContext, name: str, value: object) -> None:
    current = runtime_value(ctx, name)
    if current == value and type(current) is type(value):
        raise NotApplicable(f"{name} is already {value!r}")


def _bool_param(ctx: CodemodContext, codemod_id: str) -> bool:
    value = ctx.params.get("value", True)
    if not isinstance(value, bool):
        raise ValueError(f"{codemod_id}: params value must be true or false, got {value!r}")
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
