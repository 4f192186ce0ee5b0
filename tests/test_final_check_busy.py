"""The final check (original against final head) leaves a busy machine's runs out as verify does.

The real final_check node's comparison, driven by recorded runs: a contaminated pair is left out
and run again (order still alternating), busy steps are left out of kept runs, the budget is
honoured, and the audit event, the summary and the report say what was left out.
"""
from __future__ import annotations

from types import SimpleNamespace

from perfloop.agent.events import FinalCheck, RunsContaminated
from perfloop.agent.nodes import final_check as node
from perfloop.tools.measure.interference import Interference
from perfloop.tools.measure.models import RunMeasurement


def _run(speed: float, contaminated: bool = False, busy_steps: tuple[int, ...] = ()) -> RunMeasurement:
    """A recorded light run of ten 100/speed ms steps; busy steps take 10x as long."""
    step_ms = [1000.0 / speed if i in busy_steps else 100.0 / speed for i in range(10)]
    seen = Interference(available=True, window_s=1.0, cpus=2, cores=0.9 if contaminated else 0.05,
                        residual_cores=0.9 if contaminated else 0.05, num_steps=10, busy_steps=list(busy_steps),
                        contaminated=contaminated)
    return RunMeasurement(mode="light", samples_per_s=0.0, step_ms_median=100.0 / speed, startup_s=1.0, wall_s=3.0,
                          num_steps_measured=10, exit_reason="max_steps", probe_dir="-", data_digest="d",
                          step_ms=step_ms, step_samples=[10] * 10, interference=seen)


class _Ctx:
    """What _final_comparison uses of a RunContext: state, workspace, run() and record()."""

    def __init__(self, script: dict[str, list[RunMeasurement]], interference: str = "rerun", busy_reruns: int = 4):
        self.script = {label: list(runs) for label, runs in script.items()}
        self.order: list[str] = []
        self.events: list = []
        accepted = SimpleNamespace(verdict=SimpleNamespace(verdict="accepted"),
                                   proposal=SimpleNamespace(base_head="a" * 40, rule=SimpleNamespace(
                                       enforced=SimpleNamespace(gain_from_epoch=1))))
        profile = SimpleNamespace(samples_per_s=100.0, startup_s=1.0, noise_pct=3.0, headspace=None, headspace_note="")
        target = SimpleNamespace(ab_runs=3, busy_reruns=busy_reruns, rerun_contaminated=interference == "rerun")
        self.state = SimpleNamespace(history=[accepted], head="b" * 40, target=target, profile=profile)
        self.workspace = SimpleNamespace(candidate_tree="original-tree", base_tree="head-tree",
                                         checkout_candidate=lambda sha: None, reset_candidate=lambda: None)

    def run(self, tree, label, role, window=None):
        assert window is None  # no kept change pays off from the second epoch here
        self.order.append(label)
        return SimpleNamespace(measurement=self.script[label].pop(0))

    def record(self, event) -> None:
        self.events.append(event)


def test_a_contaminated_pair_is_left_out_and_run_again_with_the_order_alternating():
    ctx = _Ctx({"final-original": [_run(100), _run(100, contaminated=True), _run(100), _run(100)],
                "final-head": [_run(300), _run(300), _run(300), _run(300)]})
    final, speedup, ci, busy = node._final_comparison(ctx)
    # Pair 0 original first; pair 1 (head first) had a contaminated original: run again as pair 1, head first.
    assert ctx.order == ["final-original", "final-head", "final-head", "final-original",
                         "final-head", "final-original", "final-original", "final-head"]
    assert abs(speedup - 3.0) < 1e-9 and ci[0] > 2.9
    left_out = [e for e in ctx.events if isinstance(e, RunsContaminated)]
    assert [e.what for e in left_out] == ["final check pair 1"] and left_out[0].cores == [0.9, 0.05]
    check = next(e for e in ctx.events if isinstance(e, FinalCheck))
    assert check.pairs_rerun == 1 and check.contaminated_kept == 0
    assert busy == "1 contaminated pair(s) left out and run again" and busy in check.lines()[0]


def test_busy_steps_are_left_out_of_both_sides():
    # One slow (busy) step in the final head's first run would pull its throughput down by ~47%.
    ctx = _Ctx({"final-original": [_run(100)] * 3,
                "final-head": [_run(200, busy_steps=(4,)), _run(200), _run(200)]})
    _, speedup, _, busy = node._final_comparison(ctx)
    assert abs(speedup - 2.0) < 1e-9
    assert busy == "1 step(s) in busy intervals left out"


def test_when_the_budget_is_spent_contaminated_pairs_are_kept_and_said():
    ctx = _Ctx({"final-original": [_run(100, contaminated=True)] * 4, "final-head": [_run(150)] * 4},
               busy_reruns=1)
    _, _, _, busy = node._final_comparison(ctx)
    check = next(e for e in ctx.events if isinstance(e, FinalCheck))
    assert check.pairs_rerun == 1 and check.contaminated_kept == 3
    assert "3 contaminated pair(s) kept (not run again)" in busy


def test_report_mode_keeps_every_run_and_leaves_no_step_out():
    ctx = _Ctx({"final-original": [_run(100, contaminated=True)] + [_run(100)] * 2,
                "final-head": [_run(200, busy_steps=(1,))] + [_run(200)] * 2}, interference="report")
    _, speedup, _, _ = node._final_comparison(ctx)
    check = next(e for e in ctx.events if isinstance(e, FinalCheck))
    assert len(ctx.order) == 6 and check.pairs_rerun == 0 and check.steps_dropped == 0
    assert check.contaminated_kept == 1
    assert check.final_samples_per_s[0] < 0.6 * check.final_samples_per_s[1]  # the busy step counted


def test_old_final_check_records_still_read_and_say_nothing_of_busy():
    old = FinalCheck(original="a" * 40, head="b" * 40, original_samples_per_s=[1.0], final_samples_per_s=[2.0],
                     speedup=2.0, ci=[1.5, 2.5])
    assert old.busy_line() == "" and old.lines() == ["original aaaaaaaaaa vs head bbbbbbbbbb: 2.00x [1.50, 2.50]"]
