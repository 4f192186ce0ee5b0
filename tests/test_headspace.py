"""Headspace in real pipeline processes: replay the stored batches with the DataLoader bypassed."""
from __future__ import annotations

from pathlib import Path

from perfloop.knowledge_base import diagnose
from perfloop.tools.measure.headspace import replay_env, why_no_replay
from perfloop.tools.measure.profiler import ProbeSettings, build_profile, run_probed

SETTINGS = ProbeSettings(steps=8, warmup_steps=2)

PIPELINE = '''
import sys, time
import torch
from torch.utils.data import DataLoader, Dataset

slow_data = int(sys.argv[1])
torch.set_num_threads(1)
torch.manual_seed(0)


class Rows(Dataset):
    def __len__(self):
        return 64  # 8 batches an epoch: the replay must cycle across epochs too

    def __getitem__(self, i):
        if slow_data:
            time.sleep(0.004)  # 8 samples: 32 ms to build a batch
        return torch.full((64,), float(i % 5)), torch.tensor(i % 3)


model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Rows(), batch_size=8, shuffle=True)
for epoch in range(100):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        time.sleep(0.01)  # the loop's own, unavoidable work
'''


def _profile(tmp_path: Path, slow_data: int):
    (tmp_path / "train.py").write_text(PIPELINE)
    command = f"python train.py {slow_data}"
    full = run_probed(command, tmp_path, tmp_path / f"full-{slow_data}", SETTINGS, mode="full")
    light = [run_probed(command, tmp_path, tmp_path / f"light-{slow_data}", SETTINGS)]
    env = replay_env(full.record)
    assert env is not None, why_no_replay(full.record)
    replay = run_probed(command, tmp_path, tmp_path / f"replay-{slow_data}", SETTINGS, extra_env=env)
    return build_profile(full, light, command, tmp_path, SETTINGS, replay=replay), replay


def test_slow_data_has_large_headspace_and_is_ranked_by_it(tmp_path):
    profile, replay = _profile(tmp_path, slow_data=1)
    assert replay.record.exit_reason == "max_steps"  # the replayed loop ran its steps, across epochs
    assert max(s.data_wait_ms for s in replay.record.steps[2:]) < 5.0  # free data: no building
    assert profile.headspace > 0.5 and "with free data" in profile.headspace_note
    diagnoses = diagnose(profile.metrics())
    assert diagnoses[0].category == "input"
    assert diagnoses[0].expected_speedup <= 1 / (1 - profile.headspace) + 1e-9


def test_trivial_data_has_no_headspace_and_is_not_called_data_bound(tmp_path):
    profile, _ = _profile(tmp_path, slow_data=0)
    assert profile.headspace < 0.2
    if profile.headspace < 0.05:
        assert all(d.category != "input" for d in diagnose(profile.metrics()))


def test_without_a_dataloader_replay_is_refused_with_a_reason(tmp_path):
    (tmp_path / "train.py").write_text(
        "import torch\nm = torch.nn.Linear(4, 1)\no = torch.optim.SGD(m.parameters(), lr=0.1)\n"
        "for _ in range(50):\n    x = torch.randn(8, 4)\n    m(x).sum().backward()\n    o.step()\n")
    full = run_probed("python train.py", tmp_path, tmp_path / "full", SETTINGS, mode="full")
    assert replay_env(full.record) is None
    assert "no DataLoader drives the steps" in why_no_replay(full.record)
    profile = build_profile(full, [], "python train.py", tmp_path, SETTINGS, replay=why_no_replay(full.record))
    assert profile.headspace is None and profile.headspace_note.startswith("not measured: no DataLoader")


def _timed(step_ms: float, contaminated: bool = False):
    from perfloop.tools.measure.interference import Interference
    from perfloop.tools.measure.models import RunMeasurement

    return RunMeasurement(mode="light", samples_per_s=1000 / step_ms, step_ms_median=step_ms, startup_s=1.0,
                          wall_s=2.0, num_steps_measured=10, exit_reason="max_steps", probe_dir="", data_digest="",
                          interference=Interference(available=True, contaminated=contaminated))


def test_one_slow_run_with_the_loader_does_not_make_free_data_look_faster():
    """The CI failure of stop 33: a compute-bound loop read as hidden contention after one slow light run."""
    from types import SimpleNamespace

    from perfloop.tools.measure.headspace import headspace_fields

    replay = SimpleNamespace(measurement=_timed(45.0), record=SimpleNamespace(steps=[0] * 12))
    full = SimpleNamespace(measurement=_timed(70.0))
    fields = headspace_fields(full, [SimpleNamespace(measurement=_timed(m)) for m in (46.0, 60.0)], replay)
    assert fields["headspace"] < 0.05  # the median (53 ms) would have said 15%
    assert "the fastest of 2 runs" in fields["headspace_note"]
    # a contaminated run is not the baseline while a clean one remains, even when it reads faster
    runs = [SimpleNamespace(measurement=_timed(30.0, contaminated=True)), SimpleNamespace(measurement=_timed(60.0))]
    fields = headspace_fields(full, runs, replay)
    assert abs(fields["headspace"] - 0.25) < 1e-9 and "the one run with the DataLoader" in fields["headspace_note"]
    # real headspace survives: every run with the loader is far slower than free data
    runs = [SimpleNamespace(measurement=_timed(m)) for m in (90.0, 100.0, 140.0)]
    assert abs(headspace_fields(full, runs, replay)["headspace"] - 0.5) < 1e-9
