"""Whole-run length: read from the command, the config, trainer calls, flag defaults, or None."""
from __future__ import annotations

from pathlib import Path

from conftest import git, make_repo

from perfloop.tools.contract.runlength import read_run_epochs, read_run_steps
from perfloop.tools.contract.target import load_target


def write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


def test_python_config_max_iters_beats_the_script_default(tmp_path):
    write(tmp_path, {"train.py": "max_iters = 5000\nexec(open('config/c.py').read())\n",
                     "config/c.py": "# short run\nmax_iters = 300  # iterations\n"})
    assert read_run_steps(tmp_path, "config/c.py", "python train.py {config}") == 300
    assert read_run_steps(tmp_path, None, "python train.py") == 5000


def test_command_flag_beats_the_config(tmp_path):
    write(tmp_path, {"c.yaml": "train:\n  max_steps: 100\n"})
    assert read_run_steps(tmp_path, "c.yaml", "python t.py --config {config} --max-steps 40") == 40
    assert read_run_steps(tmp_path, "c.yaml", "python t.py --config {config} --max_steps=41") == 41
    assert read_run_steps(tmp_path, "c.yaml", "python t.py --config {config}") == 100


def test_epochs_times_batches_per_epoch_and_eval_sections_ignored(tmp_path):
    write(tmp_path, {"c.yaml": "data:\n  n_samples: 1000\n  batch_size: 64\ntrain:\n  epochs: 3\n"
                               "eval:\n  epochs: 99\n  batch_size: 1\n"})
    assert read_run_steps(tmp_path, "c.yaml", "python t.py") == 3 * 16  # ceil(1000 / 64) = 16


def test_epochs_without_a_dataset_size_leave_the_steps_to_the_profile(tmp_path):
    write(tmp_path, {"c.toml": "[train]\nepochs = 3\nbatch_size = 8\n"})
    assert read_run_steps(tmp_path, "c.toml", "python t.py") is None
    assert read_run_epochs(tmp_path, "c.toml", "python t.py") == 3  # times the batches of an epoch the probe saw
    write(tmp_path, {"c.toml": "[train]\nepochs = 3\nmax_steps = 50\n"})
    assert read_run_epochs(tmp_path, "c.toml", "python t.py") is None  # the step count says it all


def test_ini_config_sections_are_read_and_eval_sections_skipped(tmp_path):
    write(tmp_path, {"claims.ini": "[data]\npath = data/claims.csv\nrows = 24000\n\n[optim]\nlr = 0.003\n"
                                   "batch_size = 512\nepochs = 3\nworkers = 0\n\n[eval]\nepochs = 1\n"})
    assert read_run_steps(tmp_path, "claims.ini", "python t.py --config {config}") is None
    assert read_run_epochs(tmp_path, "claims.ini", "python t.py --config {config}") == 3
    write(tmp_path, {"run.cfg": "[train]\nmax_iters = 900\n", "broken.ini": "epochs = 3\n"})
    assert read_run_steps(tmp_path, "run.cfg", "python t.py") == 900
    assert read_run_steps(tmp_path, "broken.ini", "python t.py") is None  # no section header: unknown, not an error


def test_trainer_calls_and_argparse_defaults(tmp_path):
    write(tmp_path, {"hf.py": "args = TrainingArguments(output_dir='o', max_steps=-1, num_train_epochs=2,\n"
                              "                         per_device_train_batch_size=10, dataloader_num_workers=0)\n",
                     "cli.py": "p.add_argument('--num-samples', type=int, default=95)\n"})
    # max_steps=-1 is Hugging Face's "unset": epochs x ceil(95 / 10).
    assert read_run_steps(tmp_path, None, "python hf.py") == 20
    write(tmp_path, {"cli.py": "p.add_argument('--max-iters', dest='iters', type=int, default=750)\n"})
    assert read_run_steps(tmp_path, None, "python hf.py") == 750


def test_target_carries_run_steps(tmp_path):
    target = make_repo(tmp_path / "repo")
    assert load_target(target).run_steps is None or load_target(target).run_steps > 0
    write(target, {"perfloop.toml": '[tool.perfloop]\ncommand = "python train.py {config}"\n'
                                    'config = "config/c.py"\n',
                   "config/c.py": "max_iters = 1234\n"})
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "python config")
    assert load_target(target).run_steps == 1234
    assert load_target(target, cmd="python train.py {config} --max_iters=7").run_steps == 7


def test_python_config_that_does_not_parse_is_refused_by_name(tmp_path):
    import pytest

    from perfloop.tools.contract.target import TargetError

    target = make_repo(tmp_path / "repo")
    write(target, {"perfloop.toml": '[tool.perfloop]\ncommand = "python train.py {config}"\n'
                                    'config = "config/c.py"\n',
                   "config/c.py": "max_iters = = 3\n"})
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "broken python config")
    with pytest.raises(TargetError, match=r"c\.py is not valid Python"):
        load_target(target)


def test_config_epochs_beat_a_script_literal_step_count(tmp_path):
    write(tmp_path, {"train.py": "max_steps = 100000\n",
                     "c.yaml": "data:\n  n_samples: 100\n  batch_size: 10\ntrain:\n  epochs: 2\n"})
    assert read_run_steps(tmp_path, "c.yaml", "python train.py --config {config}") == 20
    write(tmp_path, {"c.yaml": "data:\n  n_samples: 100\n  batch_size: 10\ntrain:\n  epochs: 2\n  max_steps: 7\n"})
    assert read_run_steps(tmp_path, "c.yaml", "python train.py --config {config}") == 7


def test_a_run_of_known_epochs_is_as_long_as_the_epochs_times_the_measured_batches(tmp_path):
    """LoopState.run_steps: the target's step count when known, else its epochs x len() of the step loader
    as the profile's probe saw it; None when the profile saw no length."""
    from types import SimpleNamespace as NS

    from perfloop.agent.state import LoopState

    target = make_repo(tmp_path / "repo")
    write(target, {"configs/train.yaml": (target / "configs" / "train.yaml").read_text().replace("num_samples", "rows")})
    git(target, "commit", "-qam", "the size is not a knob perfloop knows")
    loaded = load_target(target)
    assert loaded.run_steps is None and loaded.run_epochs == 1000

    def state(batches):
        return LoopState.model_construct(target=loaded, profile=NS(loader=NS(batches_per_epoch=batches)))

    assert state(46).run_steps == 46_000
    assert state(None).run_steps is None
    assert LoopState.model_construct(target=loaded, profile=None).run_steps is None
    counted = loaded.model_copy(update={"run_steps": 77, "run_epochs": None})
    assert LoopState.model_construct(target=counted, profile=NS(loader=NS(batches_per_epoch=46))).run_steps == 77
