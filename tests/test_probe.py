"""The probe in real pipeline processes: bounded runs, the step ledger, hot spots, fingerprints."""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from perfloop.contracts.stages import Stage
from perfloop.knowledge_base import diagnose
from perfloop.sandbox.runner import RunLimits
from perfloop.tools.check.datacheck import compare_data, compare_losses
from perfloop.tools.measure.headspace import replay_env, why_no_replay
from perfloop.tools.measure.profiler import PipelineError, ProbeSettings, build_profile, run_probed
from tests.conftest import PIPELINES, ROOT

TINY = PIPELINES / "tiny"
LEDGER_KEYS = tuple(f"{stage}_ms" for stage in Stage)  # the ledger: each interval booked once
COMMAND = "python train.py --config {config}"
SETTINGS = ProbeSettings(steps=8, warmup_steps=2)
FULL_SETTINGS = ProbeSettings(steps=24, warmup_steps=2)  # enough stack samples to name the hot spot


def _with_config(tmp_path: Path, **data_overrides) -> str:
    """Write a variant of the tiny config; return its path."""
    import yaml

    cfg = yaml.safe_load((TINY / "configs" / "train.yaml").read_text())
    cfg["data"].update({k: v for k, v in data_overrides.items() if k != "seed"})
    cfg["seed"] = data_overrides.get("seed", cfg["seed"])
    path = tmp_path / f"cfg-{len(list(tmp_path.glob('cfg-*')))}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("probe") / "full"
    return run_probed(COMMAND.format(config="configs/train.yaml"), TINY, out, FULL_SETTINGS, mode="full")


def test_run_is_bounded_and_ledger_counts_each_interval_once(full_run):
    record = full_run.record
    assert record.exit_reason == "max_steps"
    assert len(record.steps) == FULL_SETTINGS.warmup_steps + FULL_SETTINGS.steps  # it asks for 1000 epochs
    for step in record.steps:
        parts = sum(getattr(step, k) for k in LEDGER_KEYS)
        assert parts == pytest.approx(step.step_ms, rel=1e-6)
        assert step.samples == 16 and len(step.row_hashes) == 16
        assert step.forward_ms > 0 and step.backward_ms > 0 and step.optimizer_ms > 0
    assert all(isinstance(loss, float) for loss in full_run.measurement.losses)


def test_the_probes_own_work_is_left_out_of_the_step(full_run):
    # Fingerprinting each batch is the probe's work, not the pipeline's: the step's clock starts after it,
    # so consecutive steps start step_ms + probe_ms apart and the ledger still adds up to step_ms.
    steps = full_run.record.steps
    assert all(step.probe_ms > 0 for step in steps)  # an extra field of the record's Step
    for step, after in zip(steps, steps[1:]):
        gap_ms = (after.start_wall - step.start_wall) * 1000.0
        assert gap_ms == pytest.approx(step.step_ms + step.probe_ms, abs=0.05)
    assert full_run.measurement.startup_s > 0


def test_profile_names_loader_site_and_hot_function(full_run):
    profile = build_profile(full_run, [], COMMAND, TINY, FULL_SETTINGS)
    source = (TINY / "train.py").read_text().splitlines()
    loader = profile.loader
    assert loader.file == "train.py" and "DataLoader(" in source[loader.line - 1]
    assert loader.num_workers == 0 and loader.batch_size == 16
    assert profile.data_build.where == "main process"
    names = [hot.name for hot in profile.hot_functions]
    assert "frame_energy" in names
    assert profile.ledger.data_wait_ms > 0
    metrics = profile.metrics()
    assert metrics["num_workers"] == 0 and metrics["cpu_count"] >= 1
    assert 0 < metrics["data_wait_share"] < 1


def test_same_data_with_workers_changed_data_with_other_seed(tmp_path):
    def run(name: str, **overrides):
        config = _with_config(tmp_path, **overrides)
        return run_probed(COMMAND.format(config=config), TINY, tmp_path / name, SETTINGS).measurement

    base = run("base")
    workers = run("workers", num_workers=2)
    reseeded = run("reseeded", seed=8)
    assert compare_data([base.probe_dir], [workers.probe_dir], allow_tolerance=False).status == "identical"
    assert compare_losses([base.losses], [workers.losses]).status == "identical"
    changed = compare_data([base.probe_dir], [reseeded.probe_dir], allow_tolerance=False)
    assert changed.status == "changed" and "step 0" in changed.detail
    assert compare_losses([base.losses], [reseeded.losses]).status == "diverged"
    assert list(Path(workers.probe_dir).glob("worker-*.jsonl")), "worker processes recorded their batches"


def test_failing_pipeline_reports_stderr_tail(tmp_path):
    with pytest.raises(PipelineError, match=r"(?s)exit code 1.*No such file"):
        run_probed("python train.py --config configs/missing.yaml", TINY, tmp_path / "x", SETTINGS)


def test_pipeline_without_enough_steps(tmp_path):
    script = tmp_path / "short.py"
    script.write_text("import torch\nfrom torch.utils.data import DataLoader\n"
                      "for x in DataLoader(list(range(6)), batch_size=2):\n    pass\n")
    with pytest.raises(PipelineError, match="ran only 2 DataLoader steps"):
        run_probed(f"python {script}", tmp_path, tmp_path / "out", SETTINGS)


def test_existing_sitecustomize_is_chain_loaded_and_probe_is_inert_without_env(tmp_path):
    other = tmp_path / "other_site"
    other.mkdir()
    marker = tmp_path / "marker.txt"
    (other / "sitecustomize.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    probe_dir = ROOT / "tools" / "measure" / "probe"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{probe_dir}:{other}"}
    code = "import sys; print('perfloop_probe' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert marker.read_text() == "ran"
    assert out.stdout.strip() == "False"


def test_probe_files_are_json(full_run):
    data = json.loads((Path(full_run.measurement.probe_dir) / "main-rank0.json").read_text())
    assert data["nvml"]["available"] is False and data["cuda"] is None


def test_nvml_absent_is_reported_not_raised(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "tools" / "measure" / "probe"))
    import perfloop_gpu

    sampler = perfloop_gpu.NvmlSampler(period_s=0.01)
    sampler.run()  # on this CPU-only machine nvmlInit() raises; the sampler records why and stops
    summary = sampler.summary()
    assert summary["available"] is False and "NVML" in summary["reason"]


def test_epoch_boundaries_are_flagged_and_counted_once(tmp_path):
    script = tmp_path / "epochs.py"
    script.write_text("import torch\nfrom torch.utils.data import DataLoader\n"
                      "loader = DataLoader(list(range(12)), batch_size=4, num_workers=1)\n"
                      "model = torch.nn.Linear(1, 1)\n"
                      "for epoch in range(100):\n"
                      "    for x in loader:\n"
                      "        model(x.float()[:, None]).sum().backward()\n")
    run = run_probed(f"python {script}", tmp_path, tmp_path / "out", ProbeSettings(steps=7, warmup_steps=2),
                     mode="full")
    steps = run.record.steps
    # Three batches an epoch: the first step of an epoch waits for the new workers, and the last
    # one holds the end of the epoch and the start of the next iterator.
    assert [s.index for s in steps if s.epoch_start] == [0, 2, 3, 5, 6, 8]
    for step in steps:
        parts = sum(getattr(step, k) for k in LEDGER_KEYS)
        assert parts == pytest.approx(step.step_ms, rel=1e-6)
    boundary = [s.data_wait_ms for s in steps if s.epoch_start]
    middle = [s.data_wait_ms for s in steps if not s.epoch_start]
    assert min(boundary) > max(middle)  # starting a worker costs more than passing a ready batch
    # Each epoch's short-lived worker still left its stack samples when it exited.
    assert len(list((tmp_path / "out").glob("stacks-*.json"))) >= 3


def test_a_loader_built_anew_every_epoch_still_drives_the_steps(tmp_path):
    """k-fold loops and scripts that build their DataLoader inside the epoch loop: a new loader object each
    epoch, built where the first was. Its batches are steps and its iterators start epochs; a validation
    loader built elsewhere is not one (steps stopped after the first epoch, and the run went to its end)."""
    script = tmp_path / "rebuilt.py"
    script.write_text("import torch\nfrom torch.utils.data import DataLoader\n"
                      "model = torch.nn.Linear(1, 1)\n"
                      "for epoch in range(100):\n"
                      "    loader = DataLoader(list(range(12)), batch_size=4, num_workers=1)\n"
                      "    for x in loader:\n"
                      "        model(x.float()[:, None]).sum().backward()\n"
                      "    with torch.no_grad():\n"
                      "        for v in DataLoader(list(range(8)), batch_size=4):\n"
                      "            model(v.float()[:, None])\n")
    settings = ProbeSettings(steps=7, warmup_steps=2)
    run = run_probed(f"python {script}", tmp_path, tmp_path / "out", settings, mode="full")
    steps = run.record.steps
    assert len(steps) == 9 and run.record.exit_reason != "natural_end", run.record.exit_reason
    assert [s.index for s in steps if s.epoch_start] == [0, 2, 3, 5, 6, 8]
    train = {loader.id for loader in run.record.loaders if loader.site.line == 5}
    assert len(train) >= 3 and {s.loader for s in steps} <= train  # three epochs, three loaders, all steps
    assert all(loader.batches_per_epoch == (3 if loader.site.line == 5 else 2) for loader in run.record.loaders)
    loader = build_profile(run, [], f"python {script}", tmp_path, settings).loader
    assert loader.line == 5 and loader.batches_per_epoch == 3 and loader.built == len(train)


def test_workers_sample_the_transform_they_run(tmp_path):
    config = _with_config(tmp_path, num_workers=2)
    run = run_probed(COMMAND.format(config=config), TINY, tmp_path / "full", ProbeSettings(steps=12, warmup_steps=2),
                     mode="full")
    profile = build_profile(run, [], COMMAND, TINY, ProbeSettings(steps=12, warmup_steps=2))
    assert profile.data_build.where == "workers"
    # The workers inherit the parent's SIGPROF handler but not its timer; each must arm its own.
    assert profile.hot_functions[0].name == "frame_energy"


@pytest.mark.parametrize("variant", ["sgd", "lbfgs", "wrapped", "scaler"])
def test_forward_and_backward_inside_optimizer_step_are_booked_where_they_ran(tmp_path, variant):
    # sgd/lbfgs: optimizer.step(closure); wrapped: an accelerate-style wrapper handed the closure;
    # scaler: GradScaler.step around the inner step.
    run = run_probed(f"python train.py --variant {variant}", PIPELINES / "closure", tmp_path / "out", SETTINGS,
                     mode="full")
    assert not run.record.errors
    for step in run.record.steps:
        assert sum(getattr(step, k) for k in LEDGER_KEYS) == pytest.approx(step.step_ms, rel=1e-6)
        assert step.forward_ms > 0 and step.backward_ms > 0 and step.optimizer_ms > 0, step


PAUSE_MS = 5.0  # the accelerate and lightning pipelines' models sleep this long in each forward


def _booked_where_they_ran(steps, batch_rows: int) -> None:
    """Each step holds one batch's forward, backward and optimizer step, the optimizer only its own remainder."""
    for step in steps:
        assert sum(getattr(step, k) for k in LEDGER_KEYS) == pytest.approx(step.step_ms, rel=1e-6)
        assert step.samples == batch_rows, step
        assert step.forward_ms >= PAUSE_MS and step.backward_ms > 0 and step.optimizer_ms > 0, step
    # A forward run inside the optimizer's step but booked to it would put the pause in every optimizer
    # time; the median leaves room for a step preempted on a loaded machine.
    assert statistics.median(step.optimizer_ms for step in steps) < PAUSE_MS


@pytest.mark.parametrize("precision", ["32-true", "bf16-mixed", "16-mixed"])
def test_lightning_closure_step_books_forward_and_backward(tmp_path, precision):
    # 32-true and bf16-mixed: the precision plugin runs the closure inside optimizer.step(closure=...);
    # 16-mixed: the plugin runs the closure itself, then GradScaler.step.
    pytest.importorskip("lightning", reason="PyTorch Lightning is not installed (pip install lightning); "
                                            "the plain-PyTorch closure loops above cover the same path")
    run = run_probed(f"python train.py --precision {precision}", PIPELINES / "lightning", tmp_path / "out", SETTINGS,
                     mode="full")
    assert not run.record.errors
    _booked_where_they_ran(run.record.steps, batch_rows=64)


@pytest.mark.parametrize("variant", ["plain", "closure", "bf16"])
def test_accelerate_steps_book_forward_backward_and_optimizer_where_they_ran(tmp_path, variant):
    # plain: accelerator.backward(loss), then AcceleratedOptimizer.step(); closure: AcceleratedOptimizer.step(closure)
    # hands the closure to the inner optimizer; bf16: the plain loop under mixed_precision="bf16".
    pytest.importorskip("accelerate", reason="Hugging Face accelerate is not installed (pip install accelerate); "
                                             "the closure pipeline's home-made wrapper covers the optimizer side")
    command = f"python train.py --variant {variant}"
    run = run_probed(command, PIPELINES / "accelerate", tmp_path / "out", SETTINGS, mode="full")
    assert not run.record.errors
    steps = run.record.steps
    # Eight batches an epoch, so the run crosses one. The prepared loader reads a batch ahead of the
    # one it hands out; a step ends where the loop asks it for the next batch, so the first step of
    # an epoch still holds a batch's training and the last one no more than one.
    assert len(steps) == SETTINGS.warmup_steps + SETTINGS.steps
    _booked_where_they_ran(steps, batch_rows=64)
    assert [s.index for s in steps if s.epoch_start] == [0, 7, 8]
    if variant != "plain":
        return
    light = run_probed(command, PIPELINES / "accelerate", tmp_path / "light", SETTINGS)
    assert compare_data([run.measurement.probe_dir], [light.measurement.probe_dir],
                        allow_tolerance=False).status == "identical"
    # A replay run stands in for the inner DataLoader, which the full run's kept batches came from.
    env = replay_env(run.record)
    assert env is not None, why_no_replay(run.record)
    replay = run_probed(command, PIPELINES / "accelerate", tmp_path / "replay", SETTINGS, extra_env=env)
    assert replay.record.exit_reason == "max_steps" and not replay.record.errors
    assert all(step.samples == 64 for step in replay.record.steps)


def test_without_a_dataloader_each_optimizer_step_is_a_step(tmp_path):
    settings = ProbeSettings(steps=6, warmup_steps=1)
    command = f"python train.py --data-dir {tmp_path}"
    full = run_probed(command, PIPELINES / "memmap", tmp_path / "full", settings, mode="full")
    record = full.record
    assert record.step_source == "optimizer" and record.exit_reason == "max_steps"
    assert len(record.steps) == settings.warmup_steps + settings.steps
    assert record.seen.dataloaders_constructed == 0 and record.seen.optimizers_constructed == 1
    for step in record.steps:
        # Two accumulated micro-batches of 8 windows: the model's inputs, not the loss module's.
        assert step.samples == 16 and len(step.row_hashes) == 16
        assert sum(getattr(step, k) for k in LEDGER_KEYS) == pytest.approx(step.step_ms, rel=1e-6)
        assert step.data_wait_ms > 0 and step.other_ms == 0  # get_batch is the data wait
        assert step.forward_ms > 0 and step.backward_ms > 0 and step.optimizer_ms > 0
        assert isinstance(step.loss, float)
    light = run_probed(command, PIPELINES / "memmap", tmp_path / "light", settings)
    reseeded = run_probed(command + " --seed 2", PIPELINES / "memmap", tmp_path / "reseeded", settings)
    assert light.record.step_source == "optimizer"
    full_dir, light_dir = full.measurement.probe_dir, light.measurement.probe_dir
    assert compare_data([full_dir], [light_dir], allow_tolerance=False).status == "identical"
    assert compare_data([full_dir], [reseeded.measurement.probe_dir], allow_tolerance=False).status == "changed"
    profile = build_profile(full, [light], command, PIPELINES / "memmap", settings)
    assert profile.samples_per_s > 0 and profile.ledger.data_wait_ms > 0 and profile.loader is None
    # The knowledge base reads the get_batch wait as batch building (no DataLoader, so no collate).
    metrics = profile.metrics()
    assert metrics["build_wait_share"] == metrics["data_wait_share"] > 0 and metrics["collate_step_share"] is None
    if metrics["hot_function"] is not None:  # sampled: a share of the build, at most the wait of the step
        assert metrics["hot_function"].split()[0] in {"get_batch", "main"}
        assert 0 < metrics["hot_function_share"] <= 1.0
        assert 0 < metrics["hot_function_step_share"] <= metrics["build_wait_share"]
    diagnose(metrics)


def test_pipeline_that_never_steps_is_stopped_with_what_it_did(tmp_path):
    script = tmp_path / "never_trains.py"
    script.write_text("import time\nimport torch\n"
                      "model = torch.nn.Linear(2, 2)\n"
                      "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                      "model(torch.zeros(1, 2))\n"
                      "time.sleep(600)  # stands in for a job that never reaches its training loop\n")
    settings = ProbeSettings(steps=2, warmup_steps=0, first_step_timeout_s=10, limits=RunLimits(timeout_s=120))
    with pytest.raises(PipelineError, match=r"(?s)no optimizer step within 10 s.*torch imported, 1 nn.Module calls, "
                                            r"1 optimizer\(s\) constructed, 0 DataLoader") as caught:
        run_probed(f"python {script}", tmp_path, tmp_path / "out", settings)
    assert not caught.value.result.timed_out  # the probe stopped it, not the run's time limit


MUTATING = textwrap.dedent("""\
    import sys
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(0)
    data = TensorDataset(torch.randn(96, 32), torch.randint(0, 4, (96,)))
    loader = DataLoader(data, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(1))
    model = torch.nn.Linear(32, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(100):
        for x, y in loader:
            x.sub_(x.mean()).div_(2.0)  # normalised in place after the loader returned it
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    """)


def test_light_runs_hash_every_batch_as_the_loader_gave_it_after_the_steps(tmp_path):
    """Light runs (smoke, noise, timing, final check) copy each batch and model input in the step and hash the
    copies when the record is written: the same row, value and model-input hashes and kept batches as hashing in
    the step, though the loop changes its batch in place; a copy budget smaller than the run hashes the waiting
    copies in order and goes on."""
    import torch

    from perfloop.contracts.layout import Env, Fingerprint, kept_batches_name
    from perfloop.tools.measure.record import ProbeRecord

    (tmp_path / "train.py").write_text(MUTATING)
    settings = ProbeSettings(steps=10, warmup_steps=2)
    rows = {Env.FINGERPRINT: Fingerprint.ROWS}
    variants = {
        "in the step": {Env.DEFER_HASH_BYTES: "0"},
        "after the steps": {},
        "rows only": rows,
        # 8 x 32 float32 + 8 int64 labels is 1,088 bytes a batch: three wait, the fourth hashes them all.
        "three at a time": {**rows, Env.DEFER_HASH_BYTES: "3500"},
    }
    dirs = {name: Path(run_probed("python train.py", tmp_path, tmp_path / f"run{number}", settings,
                                  extra_env=env).measurement.probe_dir)
            for number, (name, env) in enumerate(variants.items())}
    records = {name: ProbeRecord.read(folder) for name, folder in dirs.items()}
    reference = records["in the step"].steps
    want = [step.row_hashes for step in reference]
    assert len(want) == 12 and all(len(hashes) == 8 for hashes in want)
    assert len({hashes[0] for hashes in want}) == 12  # twelve different batches
    for name, record in records.items():
        assert [step.row_hashes for step in record.steps] == want, name
        assert [step.samples for step in record.steps] == [8] * 12, name
        assert not record.errors, (name, record.errors)
    # The layout-free value hashes and the model's input (normalised in place: not the batch as it came).
    deferred = records["after the steps"].steps
    assert all(step.value_hashes and step.input_hashes for step in reference)
    assert [s.value_hashes for s in deferred] == [s.value_hashes for s in reference]
    assert [s.input_hashes for s in deferred] == [s.input_hashes for s in reference]
    assert all(s.input_hashes != s.row_hashes for s in reference)
    kept = {name: torch.load(folder / kept_batches_name(0)) for name, folder in dirs.items()}
    for name, batches in kept.items():
        assert [index for index, _ in batches] == list(range(12)), name
        for (_, tensors), (_, expected) in zip(batches, kept["in the step"]):
            assert all(torch.equal(a, b) for (_, a), (_, b) in zip(tensors, expected)), name
    result = compare_data([dirs["in the step"]], [dirs["after the steps"], dirs["three at a time"]],
                          allow_tolerance=False)
    assert result.status == "identical", result.detail
