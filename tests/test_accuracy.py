"""`python -m perfloop.evals.accuracy`: the booking rule on hand-made ranges, and one real check of a bundled target."""
from __future__ import annotations

import pytest

from perfloop.evals import accuracy
from perfloop.evals.pyspy import pyspy_executable
from perfloop.evals.torch_ledger import book_stages, shares
from perfloop.tools.measure.models import STAGES, HotFunction, Profile, StageLedger


def test_book_stages_gives_a_closures_forward_and_backward_to_them():
    # One warm-up step [0, 100) and one measured step [100, 200) µs: data wait 100-130, then an
    # optimizer step 140-190 whose closure runs forward 145-155 and backward 160-180.
    raw = {"boundaries": [0, 100, 200],
           "intervals": [["data_wait", 0, 50], ["data_wait", 100, 130], ["optimizer", 140, 190],
                         ["forward", 145, 155], ["backward", 160, 180]]}
    ledger = book_stages(raw, warmup_steps=1)
    assert ledger["step_ms"] == pytest.approx(0.1)
    assert ledger["data_wait_ms"] == pytest.approx(0.030)
    assert ledger["forward_ms"] == pytest.approx(0.010)
    assert ledger["backward_ms"] == pytest.approx(0.020)
    assert ledger["optimizer_ms"] == pytest.approx(0.020)  # 50 µs minus the closure's 30
    assert ledger["other_ms"] == pytest.approx(0.020)
    assert sum(shares(ledger).values()) == pytest.approx(1.0)


@pytest.fixture(scope="module")
def data_bound_row(tmp_path_factory):
    """One real, small accuracy check of the data_bound target (1 profile, 6 measured steps)."""
    options = accuracy.AccuracyOptions(names=["data_bound"], targets_dir=accuracy.TARGETS_DIR,
                                       work_dir=tmp_path_factory.mktemp("accuracy"), stability=1, steps=6,
                                       warmup_steps=2, pyspy=True, pyspy_rate_hz=200)
    return accuracy.check_target("data_bound", options, progress=lambda _message: None)


def test_accuracy_check_produces_both_ledgers_and_a_table(data_bound_row):
    row = data_bound_row
    assert not row.error, row.error
    assert set(row.perfloop_shares) == set(row.torch_shares) == set(STAGES)
    assert row.perfloop_ledger["step_ms"] > 0 and row.torch_ledger["step_ms"] > 0
    assert sum(row.torch_shares.values()) == pytest.approx(1.0, abs=1e-6)
    # data_bound waits on its loader most of the step; both instruments must see time there.
    assert row.perfloop_shares["data_wait"] > 0 and row.torch_shares["data_wait"] > 0
    assert row.max_gap_pp is not None
    assert row.phase == "batch_build" and row.perfloop_top.startswith("frame_energy (data.py:")
    assert row.stability_tops == [row.perfloop_top] and row.stable_count == 1
    assert row.stability_phases == ["batch_build"]

    text = accuracy.render([row])
    assert "== data_bound (6 steps after 2 warm-up) ==" in text
    for stage in STAGES:
        assert f"\n{stage:<10} " in text
    assert "stable: 1/1" in text
    assert "data_bound" in text.splitlines()[-3]  # the summary row


def test_pyspy_names_the_same_loop_owner(data_bound_row):
    if pyspy_executable() is None:
        pytest.skip("py-spy is not installed (pip install py-spy, or the `evals` extra): py-spy part not checked")
    if data_bound_row.pyspy_note:
        pytest.skip(f"py-spy could not sample its child here (ptrace or process_vm_readv restricted?): "
                    f"{data_bound_row.pyspy_note}")
    assert data_bound_row.pyspy_top.startswith("frame_energy (data.py:")
    assert data_bound_row.top_agrees is True


def test_pyspy_stacks_are_cut_to_the_phase(tmp_path):
    from perfloop.evals.pyspy import pyspy_hot_functions

    (tmp_path / "train.py").write_text(
        "def build():\n"                      # 1
        "    return [i * i for i in range(9)]\n"
        "\n"
        "def log(step):\n"                    # 4
        "    for ch in str(step):\n"
        "        ord(ch)\n"
        "\n"
        "def main():\n"                       # 8
        "    data = build()\n"
        "    for step in range(3):\n"         # 10
        "        model(step)\n"
        "        log(step)\n"
        "\n"
        "def get_item(i):\n"                  # 14
        "    for j in range(i):\n"
        "        pass\n")
    fetch = "/venv/site-packages/torch/utils/data/_utils/fetch.py"
    module = "/venv/site-packages/torch/nn/modules/module.py"
    t = str(tmp_path / "train.py")
    raw = tmp_path / "pyspy.txt"
    raw.write_text("\n".join([
        # start-up: building the dataset, before any step (many samples: must not count)
        f'process 1:"python train.py";<module> ({t}:17);main ({t}:9);build ({t}:2) 500',
        # a forward (a stage) and a per-step logging loop below the training loop
        f'process 1:"python train.py";<module> ({t}:17);main ({t}:11);_call_impl ({module}:1) 30',
        f'process 1:"python train.py";<module> ({t}:17);main ({t}:12);log ({t}:6) 20',
        # batch building in a forked worker still shows main's frames above the fetch
        f'process 2:"python train.py";<module> ({t}:17);main ({t}:10);fetch ({fetch}:5);get_item ({t}:15) 40',
    ]) + "\n")
    (batch,) = pyspy_hot_functions(raw, tmp_path, "batch_build")[:1]
    assert (batch.name, batch.line) == ("get_item", 14)  # not main, whose loop drives the DataLoader
    other = pyspy_hot_functions(raw, tmp_path, "main:other")
    assert (other[0].name, other[0].line) == ("log", 4)
    assert "build" not in {hot.name for hot in other}


def _profile(data_wait_ms: float, other_ms: float, build: list[str], main: list[str]) -> Profile:
    """A profile with only what the accuracy check's top-function rule reads."""
    ledger = StageLedger(step_ms=100.0, data_wait_ms=data_wait_ms, forward_ms=0.0, backward_ms=0.0,
                         optimizer_ms=0.0, other_ms=other_ms)

    def hot(names: list[str], phase: str) -> list[HotFunction]:
        return [HotFunction(name=n, file="train.py", line=25, share=0.5, phase=phase) for n in names]

    return Profile.model_construct(ledger=ledger, hot_functions=hot(build, "batch_build"),
                                   main_hot_functions=hot(main, "main:other"))


def test_stability_counts_a_top_only_with_others_from_its_phase():
    # worker_startup's case: an input-bound step whose short-lived workers left no batch-build
    # samples in some profiles, so the rule fell back to main-process "other" there.
    profiles = [_profile(90.0, 1.0, ["QueryDataset.__getitem__"], ["main"]),
                _profile(90.0, 1.0, [], ["main"]),
                _profile(90.0, 1.0, [], ["main"]),
                # the same name sampled in the other phase is not the same answer
                _profile(90.0, 1.0, ["main"], ["main"])]
    tops, phases, stable = accuracy._stability(profiles)
    assert phases == ["batch_build", "main:other", "main:other", "batch_build"]
    assert tops == ["QueryDataset.__getitem__ (train.py:25)", "main (train.py:25)", "main (train.py:25)",
                    "main (train.py:25)"]
    assert stable == 2
    row = accuracy.TargetAccuracy(target="worker_startup", phase=phases[0], perfloop_top=tops[0],
                                  perfloop_shares={s: 0.0 for s in STAGES}, stability_tops=tops,
                                  stability_phases=phases, stable_count=stable)
    line = next(line for line in accuracy.render([row]).splitlines() if line.startswith("stable:"))
    assert line == ("stable: 2/4 ({'[batch_build] QueryDataset.__getitem__ (train.py:25)': 1, "
                    "'[main:other] main (train.py:25)': 2, '[batch_build] main (train.py:25)': 1})")
