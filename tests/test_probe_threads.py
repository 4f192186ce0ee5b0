"""The probe where threads share the training process: a prefetcher thread, a loop run in a thread.

Real pipelines in subprocesses under the real probe; tools/measure/thread_builds.py on call graphs
written here, with the source files they point at.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from perfloop.contracts.stages import Stage
from perfloop.tools.measure.headspace import replay_env
from perfloop.tools.measure.hotspots import batch_build_hotspots
from perfloop.tools.measure.profiler import ProbeSettings, build_profile, run_probed
from perfloop.tools.measure.thread_builds import thread_build_stacks
from tests.conftest import PIPELINES

CONTENTION = PIPELINES / "contention"
COMMAND = "python train.py --config {config}"
SETTINGS = ProbeSettings(steps=16, warmup_steps=4)
LEDGER_KEYS = tuple(f"{stage}_ms" for stage in Stage)  # the ledger: each interval booked once

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def prefetched(tmp_path_factory):
    out = tmp_path_factory.mktemp("threads") / "full"
    return run_probed(COMMAND.format(config="configs/train.yaml"), CONTENTION, out, SETTINGS, mode="full")


def test_a_prefetcher_threads_next_calls_do_not_clock_the_steps(prefetched):
    record = prefetched.record
    # The thread's next() runs ahead of the loop: the loop's optimizer steps end its steps.
    assert record.step_source == "optimizer" and record.step_loader is None
    assert record.loader_threads == ["prefetch"]
    assert record.loaders[0].read_by_thread == "prefetch"
    assert len(record.steps) == SETTINGS.warmup_steps + SETTINGS.steps
    for step in record.steps:
        assert sum(getattr(step, key) for key in LEDGER_KEYS) == pytest.approx(step.step_ms, rel=1e-6)
        assert step.forward_ms > 0 and step.backward_ms > 0 and step.optimizer_ms > 0
        assert step.samples == 64 and len(step.row_hashes) == 64  # the model's inputs, fingerprinted
    # The batches the thread read are kept for a replay that hands them to the same thread.
    assert record.replay.batches >= SETTINGS.steps and replay_env(record) is not None


def test_a_prefetcher_threads_builds_are_profiled_and_name_the_loop(prefetched):
    record = prefetched.record
    raw = record.thread_builds
    assert raw["profiled"] >= 2 and raw["builds"] >= 3 * raw["profiled"]  # one build in four
    flagged = [fetch for fetch in record.main_fetches if fetch.profiled]
    # The thread runs ahead of the loop: a profiled build may end between the profile's snapshot and the
    # record's list of fetches, both written as the run ends (seen once on a loaded machine: 6 against 5).
    assert raw["profiled"] <= len(flagged) <= raw["profiled"] + 1
    profile = build_profile(prefetched, [], COMMAND, CONTENTION, SETTINGS)
    top = profile.hot_functions[0]
    source = (CONTENTION / "train.py").read_text().splitlines()
    assert top.name == "scale_clip" and source[top.line - 1].startswith("def scale_clip")
    assert top.loop_line is not None and source[top.loop_line - 1].strip().startswith("for v in values")
    assert top.share > 0.5  # of batch-build time; Rows.__getitem__ follows as its caller
    assert profile.data_build.where == "main process's thread 'prefetch'"
    assert profile.data_build.num_batches == len(record.main_fetches) - len(flagged)  # slowed builds left out
    assert profile.loader.read_by_thread == "prefetch" and profile.loader.num_workers == 0


LOOP_IN_A_THREAD = '''
import threading
import torch
from torch.utils.data import DataLoader, TensorDataset


def train():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(4096, 32), torch.randint(0, 4, (4096,)))
    loader = DataLoader(data, batch_size=32)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(100):
        for features, labels in loader:
            loss = torch.nn.functional.cross_entropy(model(features), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


worker = threading.Thread(target=train, name="trainer")
worker.start()
worker.join()
'''


def test_a_loop_run_in_a_thread_of_its_own_is_the_loop(tmp_path):
    # Trainers that run the user's loop in a thread: the thread of the first model call is the loop's,
    # and its stages are timed although it also reads the DataLoader.
    (tmp_path / "train.py").write_text(LOOP_IN_A_THREAD)
    run = run_probed("python train.py", tmp_path, tmp_path / "out", ProbeSettings(steps=8, warmup_steps=2),
                     mode="full")
    record = run.record
    assert record.loader_threads == []
    assert len(record.steps) == 10
    for step in record.steps[1:]:
        assert step.forward_ms > 0 and step.backward_ms > 0 and step.optimizer_ms > 0
        assert step.samples == 32


def _graph_source(tmp_path: Path) -> Path:
    path = tmp_path / "build.py"
    path.write_text(textwrap.dedent('''\
        def outer(rows):
            out = []
            for r in rows:
                out.append(inner(r))
            return out


        def inner(values):
            total = 0.0
            for v in values:
                total += abs(v)
            return total


        @staticmethod
        def once(x):
            return abs(x)
        '''))
    return path


def test_a_call_graph_becomes_paths_that_keep_the_loop_owner(tmp_path):
    path = str(_graph_source(tmp_path))
    raw = {"builds": 8, "profiled": 2, "profiled_s": 0.025, "period_s": 0.002, "functions": [
        # file, name, first line, calls, own s, library s, library calls, user callees
        [path, "outer", 1, 2, 0.001, 0.0005, 200, [[path, "inner", 8, 200, 0.02]]],
        [path, "inner", 8, 200, 0.015, 0.005, 20000, []],
    ]}
    stacks = thread_build_stacks(raw)
    assert stacks["totals"] == {"fetch": 50}  # 25 ms profiled, 4 builds per profiled one, 2 ms a sample
    rows = {tuple(frame[1] for frame in frames): (frames, count) for _, frames, count in stacks["paths"]}
    frames, count = rows[("outer", "inner")]
    assert count == 40 and frames == [[path, "outer", 1, 3], [path, "inner", 8, 10]]  # both on their loops
    frames, count = rows[("outer",)]
    assert count == 3 and frames == [[path, "outer", 1, 3]]
    [top, caller] = batch_build_hotspots(None, tmp_path, tmp_path, stacks)
    assert (top.name, top.loop_line, caller.name) == ("inner", 10, "outer")


def test_a_helper_called_once_per_call_is_not_put_on_a_loop(tmp_path):
    # Near miss: `once` has no loop, and `inner` calls it once per call, so neither frame sits on a loop line;
    # a decorated function's first line is its decorator's, as code objects count it.
    path = str(_graph_source(tmp_path))
    raw = {"builds": 2, "profiled": 2, "profiled_s": 0.01, "period_s": 0.002, "functions": [
        [path, "inner", 8, 10, 0.001, 0.0, 5, [[path, "once", 15, 10, 0.008]]],
        [path, "once", 15, 10, 0.008, 0.0, 10, []],
    ]}
    rows = {tuple(frame[1] for frame in frames): frames for _, frames, _ in thread_build_stacks(raw)["paths"]}
    assert rows[("inner", "once")] == [[path, "inner", 8, 8], [path, "once", 15, 15]]
    assert thread_build_stacks({"builds": 4, "profiled": 0, "period_s": 0.002}) is None
