"""The probe's runtime facts in real pipeline processes: threads, blocked builds, GC pauses, autocast."""
from __future__ import annotations

from pathlib import Path

import pytest

from perfloop.knowledge_base import diagnose
from perfloop.tools.measure.profiler import ProbeSettings, build_profile, run_probed

SETTINGS = ProbeSettings(steps=6, warmup_steps=1)

PIPELINE = '''
import gc, sys, time
import torch
from torch.utils.data import DataLoader, Dataset

workers, blocked, garbage, amp = (int(a) for a in sys.argv[1:5])
torch.set_num_threads(3)
torch.manual_seed(0)


class Rows(Dataset):
    def __len__(self):
        return 4096

    def __getitem__(self, i):
        if blocked:
            time.sleep(0.002)  # a blocking read: wall time passes, the thread's CPU time does not
        return torch.full((8,), float(i % 7))


model = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Rows(), batch_size=8, num_workers=workers)
for x in loader:
    if garbage:
        cycles = [[] for _ in range(20000)]
        for a in cycles:
            a.append(a)  # reference cycles only the collector frees
        del cycles
        gc.collect()
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bool(amp)):
        loss = model(x).float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
'''


def _profile(tmp_path: Path, name: str, *flags: int):
    (tmp_path / "train.py").write_text(PIPELINE)
    command = "python train.py " + " ".join(str(f) for f in flags)
    full = run_probed(command, tmp_path, tmp_path / name, SETTINGS, mode="full")
    return build_profile(full, [], command, tmp_path, SETTINGS).metrics()


def test_blocked_workers_threads_and_autocast_are_measured(tmp_path):
    metrics = _profile(tmp_path, "busy", 2, 1, 0, 1)
    assert metrics["torch_threads"] == 3
    assert metrics["worker_torch_threads"] == 1  # DataLoader workers run single-threaded
    assert 3 < metrics["cpu_demand"] <= 3 + 2 * 1  # the main threads plus the workers busy on average
    assert metrics["build_cpu_share"] < 0.5  # the workers slept, not computed
    assert metrics["autocast_used"] == 1
    assert metrics["sync_calls_per_step"] == 0  # .item() on CPU tensors is no device sync
    found = [d.entry_id for d in diagnose(metrics)]
    assert "small_file_reads" in found and "gc_pauses" not in found, found


def test_gc_pauses_in_the_loop_are_timed(tmp_path):
    metrics = _profile(tmp_path, "garbage", 0, 0, 1, 0)
    assert metrics["gc_share"] >= 0.05
    found = [d.entry_id for d in diagnose(metrics)]
    assert "gc_pauses" in found and "small_file_reads" not in found, found


def test_quiet_pipeline_reports_no_pauses_and_no_autocast(tmp_path):
    metrics = _profile(tmp_path, "quiet", 0, 0, 0, 0)
    assert metrics["worker_torch_threads"] is None and metrics["cpu_demand"] == 3
    assert metrics["build_cpu_share"] is not None
    assert metrics["gc_share"] == pytest.approx(0.0, abs=0.02)
    assert metrics["autocast_used"] == 0
    found = [d.entry_id for d in diagnose(metrics)]
    assert "small_file_reads" not in found and "gc_pauses" not in found, found


def test_runnable_time_counts_computing_not_sleeping():
    import sys
    import time

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "measure" / "probe"))
    try:
        from perfloop_runtime import runnable_ms
    finally:
        sys.path.pop(0)
    start = runnable_ms()
    if start is None:
        pytest.skip("this kernel has no /proc/thread-self/schedstat; CPU time alone is used")
    time.sleep(0.05)
    slept = runnable_ms() - start
    begin = time.perf_counter()
    while time.perf_counter() - begin < 0.05:
        pass
    busy = runnable_ms() - start - slept
    assert slept < 25.0 and busy >= 40.0



def test_a_real_straggler_rank_triggers_rank_straggler(tmp_path):
    import shutil

    from tests.conftest import PIPELINES

    target = tmp_path / "ranks"
    shutil.copytree(PIPELINES / "ranks", target)
    command = "torchrun --standalone --nproc_per_node=2 train.py --config configs/train.yaml"
    settings = ProbeSettings(steps=10, warmup_steps=2)
    full = run_probed(command, target, tmp_path / "out", settings, mode="full")
    metrics = build_profile(full, [], command, target, settings).metrics()
    assert metrics["world_size"] == 2
    # Rank 1's loader sleeps four times longer per sample, so it waits far longer than the median rank.
    assert metrics["rank_wait_spread_share"] >= 0.10
    assert "rank_straggler" in [d.entry_id for d in diagnose(metrics)]


@pytest.mark.serial  # which two lines the sampler finds hottest decides the match: a second busy worker flips it
def test_a_real_character_tokenizer_triggers_per_sample_tokenization(tmp_path):
    import shutil

    from tests.conftest import PIPELINES

    target = tmp_path / "tokenizer"
    shutil.copytree(PIPELINES / "tokenizer", target)
    settings = ProbeSettings(steps=10, warmup_steps=1)
    full = run_probed("python train.py", target, tmp_path / "out", settings, mode="full")
    metrics = build_profile(full, [], "python train.py", target, settings).metrics()
    found = [d.entry_id for d in diagnose(metrics)]
    assert "per_sample_tokenization" in found, (metrics["hot_function"], metrics["hot_function_source"], found)


DECODE_PIPELINE = '''
import glob
import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)


class Photos(Dataset):
    def __init__(self):
        self.paths = sorted(glob.glob("images/*.png"))

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        pixels = np.asarray(Image.open(self.paths[i]).convert("RGB").resize((32, 32)), dtype=np.float32)
        return torch.from_numpy(pixels).mean()


model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(100):
    for x in DataLoader(Photos(), batch_size=4):
        loss = model(x[:, None]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
'''


def test_real_image_decoding_triggers_decode_heavy_samples(tmp_path):
    image = pytest.importorskip("PIL.Image")
    import numpy as np

    (tmp_path / "images").mkdir()
    rng = np.random.default_rng(0)
    for n in range(16):  # noise compresses badly, so decoding it costs real time
        image.fromarray(rng.integers(0, 255, (384, 384, 3), dtype=np.uint8)).save(tmp_path / "images" / f"{n}.png")
    (tmp_path / "train.py").write_text(DECODE_PIPELINE)
    settings = ProbeSettings(steps=10, warmup_steps=1)
    full = run_probed("python train.py", tmp_path, tmp_path / "out", settings, mode="full")
    metrics = build_profile(full, [], "python train.py", tmp_path, settings).metrics()
    found = [d.entry_id for d in diagnose(metrics)]
    assert "decode_heavy_samples" in found, (metrics["hot_function"], metrics["hot_function_source"], found)


def test_the_profile_records_python_and_the_libraries_versions(tmp_path):
    # The LLM prompt states them: whether a rewrite's DataLoader or numpy behaviour holds depends on them.
    import platform

    import numpy
    import torch

    (tmp_path / "train.py").write_text(PIPELINE)
    command = "python train.py 0 0 0 0"
    full = run_probed(command, tmp_path, tmp_path / "versions", SETTINGS, mode="full")
    versions = build_profile(full, [], command, tmp_path, SETTINGS).versions
    assert versions["python"] == platform.python_version()
    assert versions["torch"] == torch.__version__ and versions["numpy"] == numpy.__version__
