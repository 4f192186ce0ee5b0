"""Deterministic codemods: each turns a CodemodContext into one CodemodResult (or NotApplicable)."""

from collections.abc import Callable

from perfloop.tools.change.codemods.base import (
    CodemodContext,
    CodemodResult,
    DataLoaderSite,
    NotApplicable,
    ProfileFacts,
    ReplayTarget,
    Tolerance,
)
from perfloop.tools.change.codemods.cache_samples import cache_samples
from perfloop.tools.change.codemods.dataloader import set_dataloader_option
from perfloop.tools.change.codemods.decode_once import cache_decoded_records
from perfloop.tools.change.codemods.gc_tuning import raise_gc_threshold
from perfloop.tools.change.codemods.gpu import allow_tf32, autocast_forward, pinned_non_blocking_copies
from perfloop.tools.change.codemods.hoist import hoist_loop_invariants, hoist_step_invariants
from perfloop.tools.change.codemods.host_syncs import defer_host_syncs
from perfloop.tools.change.codemods.list_tensors import tensor_of_lists
from perfloop.tools.change.codemods.lookup_index import index_lookup_tables
from perfloop.tools.change.codemods.memoize import memoize_pure_helper
from perfloop.tools.change.codemods.model_side import (
    enable_torch_compile,
    set_intra_op_threads,
    set_optimizer_flag,
    set_zero_grad_to_none,
)
from perfloop.tools.change.codemods.remedies import (
    set_num_workers,
    set_persistent_workers,
    set_pin_memory,
    set_prefetch_factor,
)
from perfloop.tools.change.codemods.roundtrip import zero_copy_conversion
from perfloop.tools.change.codemods.vectorize import vectorize_hot_function

REGISTRY: dict[str, Callable[[CodemodContext], CodemodResult]] = {
    "set_num_workers": set_num_workers,
    "set_persistent_workers": set_persistent_workers,
    "set_pin_memory": set_pin_memory,
    "set_prefetch_factor": set_prefetch_factor,
    "vectorize_hot_function": vectorize_hot_function,
    "enable_torch_compile": enable_torch_compile,
    "set_optimizer_flag": set_optimizer_flag,
    "set_zero_grad_to_none": set_zero_grad_to_none,
    "set_intra_op_threads": set_intra_op_threads,
    "zero_copy_conversion": zero_copy_conversion,
    "tensor_of_lists": tensor_of_lists,
    "cache_decoded_records": cache_decoded_records,
    "cache_samples": cache_samples,
    "allow_tf32": allow_tf32,
    "autocast_forward": autocast_forward,
    "pinned_non_blocking_copies": pinned_non_blocking_copies,
    "defer_host_syncs": defer_host_syncs,
    "raise_gc_threshold": raise_gc_threshold,
    "hoist_step_invariants": hoist_step_invariants,
    "hoist_loop_invariants": hoist_loop_invariants,
    "memoize_pure_helper": memoize_pure_helper,
    "index_lookup_tables": index_lookup_tables,
}


def apply_codemod(codemod_id: str, ctx: CodemodContext) -> CodemodResult:
    """Run the codemod registered under `codemod_id` on the context."""
    if codemod_id not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(f"unknown codemod {codemod_id!r}; known codemods: {known}")
    return REGISTRY[codemod_id](ctx)


__all__ = [
    "REGISTRY", "CodemodContext", "CodemodResult", "DataLoaderSite", "NotApplicable",
    "ProfileFacts", "ReplayTarget",
    "Tolerance",
    "apply_codemod", "set_dataloader_option",
]
