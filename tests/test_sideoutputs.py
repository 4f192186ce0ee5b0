"""Side outputs: what the pipeline prints and writes, with only what varies between baseline runs masked."""
from __future__ import annotations

from pathlib import Path

from perfloop.tools.check.sideoutputs import compare_side_outputs
from perfloop.tools.measure.profiler import ProbeSettings, run_probed
from perfloop.tools.measure.written import record_written, snapshot
from tests.conftest import PIPELINES


def run_dir(folder: Path, stdout: list[str], files: dict[str, str] | None = None) -> str:
    """A probe folder as run_probed leaves it: stdout.txt, stderr.txt and the written-files manifest."""
    folder.mkdir(parents=True)
    (folder / "stdout.txt").write_text("".join(line + "\n" for line in stdout))
    (folder / "stderr.txt").write_text("")
    tree = folder / "tree"
    tree.mkdir()
    before = snapshot(tree)
    for name, text in (files or {}).items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    record_written(tree, before, folder)
    return str(folder)


def log(step_ms: list[float], every: int = 1, loss: float = 0.5) -> list[str]:
    return ["starting at 06:0%d" % (len(step_ms) % 10)] + [
        f"step {i} loss {loss + i / 100:.4f} took {ms:.1f} ms" for i, ms in enumerate(step_ms) if i % every == 0]


def baselines(tmp_path: Path) -> list[str]:
    return [run_dir(tmp_path / f"base{i}", log([10.0 + i, 11.0 - i, 12.0 + 2 * i, 9.0 + i]),
                    {"out/metrics.csv": "step,loss\n0,0.5\n1,0.51\n"}) for i in range(3)]


def test_timings_are_masked_metrics_are_not(tmp_path):
    base = baselines(tmp_path)
    same = run_dir(tmp_path / "same", log([30.0, 31.0, 32.0, 29.0]), {"out/metrics.csv": "step,loss\n0,0.5\n1,0.51\n"})
    result = compare_side_outputs(base, [same])
    assert result.status == "same" and result.numbers_masked >= 4 and "file out/metrics.csv" in result.compared
    drifted = run_dir(tmp_path / "drifted", log([10.0, 11.0, 12.0, 9.0], loss=0.6),
                      {"out/metrics.csv": "step,loss\n0,0.5\n1,0.51\n"})
    assert compare_side_outputs(base, [drifted]).status == "changed"


def test_a_thinned_metric_or_a_dropped_file_is_changed_unless_declared(tmp_path):
    base = baselines(tmp_path)
    thinned = run_dir(tmp_path / "thinned", log([10.0, 11.0, 12.0, 9.0], every=2),
                      {"out/metrics.csv": "step,loss\n0,0.5\n1,0.51\n"})
    result = compare_side_outputs(base, [thinned])
    assert result.status == "changed" and "stdout.txt" in result.differences[0]
    dropped = run_dir(tmp_path / "dropped", log([10.0, 11.0, 12.0, 9.0]))
    result = compare_side_outputs(base, [dropped])
    assert result.status == "changed" and "out/metrics.csv no longer written" in result.detail
    declared = compare_side_outputs(base, [dropped], declared=[r"out/metrics\.csv"])
    assert declared.status == "declared" and declared.declared


def test_printed_numbers_within_the_remedys_tolerance(tmp_path):
    base = baselines(tmp_path)
    close = run_dir(tmp_path / "close", log([10.0, 11.0, 12.0, 9.0], loss=0.5004),
                    {"out/metrics.csv": "step,loss\n0,0.5\n1,0.51\n"})
    assert compare_side_outputs(base, [close]).status == "changed"
    assert compare_side_outputs(base, [close], rtol=1e-3).status == "same"


def test_run_probed_records_the_files_a_run_writes(tmp_path):
    import shutil

    tree = tmp_path / "tiny"
    shutil.copytree(PIPELINES / "tiny", tree)
    command = ("python -c \"import pathlib; pathlib.Path('out').mkdir(); pathlib.Path('out/done.txt').write_text('ok')\""
               " && python train.py --config configs/train.yaml")
    run = run_probed(command, tree, tmp_path / "probe", ProbeSettings(steps=2, warmup_steps=1))
    result = compare_side_outputs([run.measurement.probe_dir], [run.measurement.probe_dir])
    assert "file out/done.txt" in result.compared and result.status == "same"


def test_the_worktree_a_run_ran_in_is_no_difference(tmp_path):
    def warning(tree: str) -> list[str]:
        return [f"/repo/.git/perfloop/worktrees/r1/{tree}/train.py:9: UserWarning: slow"]

    base = [run_dir(tmp_path / f"base{i}", warning("base")) for i in range(2)]
    assert compare_side_outputs(base, [run_dir(tmp_path / "cand", warning("candidate"))]).status == "same"


def test_a_warning_the_patch_moved_to_another_line_is_no_difference_but_its_message_is(tmp_path):
    """A cache added above the loop moved a UserWarning from train.py:93 to train.py:142 (a blind pipeline):
    the side-output check called it a change and rejected a correct cache."""
    def printed(line: int, message: str = "UserWarning: slow") -> list[str]:
        return [f"/repo/.git/perfloop/worktrees/r1/base/train.py:{line}: {message}",
                "Traceback (most recent call last):", f'  File "/repo/train.py", line {line}, in main', "done"]

    base = [run_dir(tmp_path / f"base{i}", printed(93)) for i in range(2)]
    assert compare_side_outputs(base, [run_dir(tmp_path / "moved", printed(142))]).status == "same"
    other = compare_side_outputs(base, [run_dir(tmp_path / "other", printed(142, "UserWarning: fast"))])
    assert other.status == "changed" and "UserWarning: fast" in other.detail


def test_a_duration_or_rate_the_baseline_printed_alike_every_time_is_still_a_timing(tmp_path):
    # A 0.1 s epoch printed "(0.1s)" in all three baseline runs; the faster candidate prints "(0.0s)".
    lines = ["epoch 1 loss 0.5321 (0.1s) 9000 samples/s", "epoch 2 loss 0.4410 (0.1s) 9000 samples/s", "done"]
    base = [run_dir(tmp_path / f"base{i}", lines) for i in range(3)]
    faster = run_dir(tmp_path / "faster", [line.replace("0.1s", "0.0s").replace("9000 samples", "31000 samples")
                                           for line in lines])
    result = compare_side_outputs(base, [faster])
    assert result.status == "same", result.detail
    assert result.numbers_masked == 4 and "as timings" in result.detail
    # The loss on the same line is still compared digit for digit.
    wrong = run_dir(tmp_path / "wrong", [lines[0].replace("0.5321", "0.5322"), *lines[1:]])
    assert compare_side_outputs(base, [wrong]).status == "changed"
    # Out-of-order lines (compared as multisets) mask timings alike.
    shuffled = [run_dir(tmp_path / f"shuffled{i}", lines if i else [lines[1], lines[0], lines[2]]) for i in range(3)]
    reordered = run_dir(tmp_path / "reordered", [faster_line.replace("0.1s", "0.0s") for faster_line in lines])
    assert compare_side_outputs(shuffled, [reordered]).status == "same"


def test_numbers_that_only_look_like_timings_are_compared():
    from perfloop.tools.check.sideoutputs import untimed

    kept = ["lr 1e-3 steps 5", "layer 3 has 5 samples", "model v1.2s", "min_loss=3 x=0.5 min_acc=2"]
    assert untimed(kept) == (kept, 0)
    assert untimed(["took 3 ms", "eta 5 min", "2.1s/it", "12 it/s", "3 seconds"])[1] == 5


def test_a_duration_or_rate_logged_under_its_name_is_a_timing(tmp_path):
    # A trainer's log line: the three baseline runs all printed 'elapsed_s': 1.1, the candidate 1.2 (blind25 v2's
    # memo was rejected for this one number). The name says it is a duration; the loss beside it is still compared.
    from perfloop.tools.check.sideoutputs import TIMING_MARK, untimed

    line = "{'loss': 1.9188, 'learning_rate': 0.0023, 'train_accuracy': 0.2708, 'elapsed_s': 1.1, 'epoch': 0.625}"
    base = [run_dir(tmp_path / f"base{i}", [line, "done"]) for i in range(3)]
    later = run_dir(tmp_path / "later", [line.replace("1.1,", "1.2,"), "done"])
    result = compare_side_outputs(base, [later])
    assert result.status == "same", result.detail
    wrong = run_dir(tmp_path / "wrong", [line.replace("1.9188", "1.9189").replace("1.1,", "1.2,"), "done"])
    assert compare_side_outputs(base, [wrong]).status == "changed"
    logged = ["{'train_runtime': 12.3, 'train_samples_per_second': 45.6, 'train_loss': 0.25}",
              "step_time: 0.08 loss: 0.3", "stepTime 0.08", "elapsed 3.2", "wall=4.0 epoch_s=2.5 step_ms=7",
              '{"latency": 3, "fps": 31.0}']
    masked, count = untimed(logged)
    assert count == 10, masked
    assert "'train_loss': 0.25" in masked[0] and "loss: 0.3" in masked[1]
    assert masked[3] == f"elapsed {TIMING_MARK}"


def test_names_that_only_contain_a_time_word_are_compared():
    from perfloop.tools.check.sideoutputs import untimed

    kept = ["timestep: 5", "time 3 of 5", "sections: 4", "num_steps=10", "{'epoch': 0.625, 'step': 3}",
            "loss_mse=0.5 timesteps=7", "warm-up 3"]
    assert untimed(kept) == (kept, 0)
