"""Profile.metrics(): the derived numbers the knowledge base matches on, from hand-made profiles."""
import pytest

from perfloop.tools.measure.models import DataBuild, GpuStats, HotFunction, LoaderInfo, Profile, StageLedger


def profile(num_workers: int, data_wait_ms: float, build_ms: float, step_ms: float = 20.0) -> Profile:
    compute = step_ms - data_wait_ms
    return Profile(
        command="python train.py", samples_per_s=100.0, noise_pct=2.0, startup_s=1.0,
        ledger=StageLedger(step_ms=step_ms, data_wait_ms=data_wait_ms, forward_ms=compute / 2,
                           backward_ms=compute / 2, optimizer_ms=0.0, other_ms=0.0),
        loader=LoaderInfo(file="train.py", line=10, num_workers=num_workers, batch_size=32),
        data_build=DataBuild(where="workers" if num_workers else "main process", num_batches=40,
                             build_ms=build_ms, collate_ms=build_ms / 4, collate_share=0.25),
        hot_functions=[HotFunction(name="transform", file="data.py", line=3, share=0.8, phase="batch_build")],
        cpu_count=4, gpu=GpuStats(available=False, reason="no CUDA"), runs=[])


def test_in_process_loading_waits_for_every_build():
    metrics = profile(num_workers=0, data_wait_ms=15.0, build_ms=14.0).metrics()
    assert metrics["build_wait_share"] == pytest.approx(14.0 / 20.0)
    assert metrics["hot_function_step_share"] == pytest.approx(0.8 * 14.0 / 20.0)
    assert metrics["collate_step_share"] == pytest.approx(0.25 * 14.0 / 20.0)
    assert metrics["workers_needed"] == 3  # ceil(14 / 5)
    assert metrics["worker_scaling"] == 3.0


def test_workers_hide_building_behind_compute():
    # Two workers take 4 ms a batch each on average; the model computes for 6 ms: nothing to wait for,
    # so a 15 ms wait must come from elsewhere (worker start-up, a slow queue).
    metrics = profile(num_workers=2, data_wait_ms=15.0, build_ms=8.0, step_ms=21.0).metrics()
    assert metrics["build_wait_share"] == 0.0
    assert metrics["hot_function_step_share"] == 0.0
    # Four workers' worth of building (40 ms / 2 = 20 ms a batch) against 5 ms of compute.
    metrics = profile(num_workers=2, data_wait_ms=15.0, build_ms=40.0).metrics()
    assert metrics["build_wait_share"] == pytest.approx(15.0 / 20.0)  # capped at the wait measured
    assert metrics["worker_scaling"] == pytest.approx(4 / 2)


def test_shares_add_up():
    metrics = profile(num_workers=0, data_wait_ms=5.0, build_ms=4.0).metrics()
    total = sum(metrics[f"{s}_share"] for s in ("data_wait", "h2d", "forward", "backward", "optimizer", "other"))
    assert total == pytest.approx(1.0)
    assert metrics["compute_share"] == pytest.approx(15.0 / 20.0)
