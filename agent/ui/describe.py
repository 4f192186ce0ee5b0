"""Say what a profile shows, in the sentences a person reads on stderr and in the report."""
from __future__ import annotations

from perfloop.tools.measure.models import STAGES, Profile


def describe_profile(profile: Profile) -> list[str]:
    """Return a few lines: throughput and noise, where a step goes, the hot spots."""
    led = profile.ledger
    lines = [f"{profile.samples_per_s:.1f} samples/s (noise floor {profile.noise_pct:.1f}%: about two standard "
             f"deviations of one run), "
             f"start-up {profile.startup_s:.2f} s to the first batch, step {led.step_ms:.1f} ms"]
    parts = [(name, getattr(led, f"{name}_ms")) for name in STAGES]
    lines.append("step ledger: " + ", ".join(f"{name.replace('_', ' ')} {ms:.1f} ms ({ms / led.step_ms:.0%})"
                                             for name, ms in parts if ms > 0 or name != "h2d"))
    lines.append(f"the model waits {led.share('data_wait'):.0%} of every step for data")
    build = profile.data_build
    if build is not None:
        lines.append(f"one batch takes {build.build_ms:.1f} ms to build in the {build.where} "
                     f"(collate {build.collate_share:.0%}); DataLoader num_workers="
                     f"{profile.loader.num_workers if profile.loader else '?'}")
        if profile.loader is not None and profile.loader.read_by_thread:
            lines.append(f"thread '{profile.loader.read_by_thread}' reads the DataLoader and hands its batches "
                         "to the loop; steps end at optimizer steps")
    if profile.hot_functions:
        hot = profile.hot_functions[0]
        lines.append(f"{hot.share:.0%} of batch-build time is in {hot.name} ({hot.file}:{hot.line})")
    if profile.loader is None and build is None:
        lines[-1] += " (no DataLoader: the time between optimizer steps outside the model, where the loop builds its batches)"
        if profile.main_hot_functions:
            hot = profile.main_hot_functions[0]
            lines.append(f"{hot.share:.0%} of step time is in {hot.name} ({hot.file}:{hot.line}), which builds them")
    elif profile.main_hot_functions and led.share("other") >= 0.05:
        hot = profile.main_hot_functions[0]
        lines.append(f"{hot.share:.0%} of step time is host code in {hot.name} ({hot.file}:{hot.line})")
    if profile.headspace is not None:
        lines.append(f"headspace: with data for free a step takes {profile.step_ms_free_data:.1f} ms, so no "
                     f"data-side change can gain more than {profile.headspace:.0%} of the step")
    elif profile.headspace_note:
        lines.append(f"headspace not measured: {profile.headspace_note}")
    if profile.ranks is not None:
        lines.append(profile.ranks.sentence())
    lines.extend(f"warning: {w}" for w in profile.warnings)
    return lines
