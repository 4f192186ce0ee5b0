"""Config styles beyond YAML/JSON/TOML: Python `key = value` configs, argparse defaults, trainer APIs."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from perfloop.tools.change.codemods import CodemodContext, DataLoaderSite, NotApplicable, apply_codemod

PY_CONFIG = """\
# Tiny run on the laptop.
batch_size = 8   # keep it small
num_workers = 0  # main-process loading: readable tracebacks
compile = False
"""

TRAIN_EXECS_CONFIG = """\
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

batch_size = 4
num_workers = 0
exec(open(sys.argv[1]).read())

if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.arange(32.0)), batch_size=batch_size, num_workers=num_workers)
    print(sum(len(b[0]) for b in loader), loader.num_workers)
"""


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)


def site_of(source: str, needle: str = "DataLoader(", **kwargs) -> DataLoaderSite:
    line = next(n for n, text in enumerate(source.splitlines(), 1) if needle in text)
    return DataLoaderSite(file="train.py", line=line, kwargs=kwargs)


def test_python_config_edit_keeps_every_other_byte_and_the_pipeline_runs(tmp_path):
    write(tmp_path, {"train.py": TRAIN_EXECS_CONFIG, "config/train.py": PY_CONFIG})
    ctx = CodemodContext(root=tmp_path, config_path="config/train.py",
                         sites=[site_of(TRAIN_EXECS_CONFIG, num_workers=0)], params={"value": 2})
    result = apply_codemod("set_num_workers", ctx)
    # "main-process loading" described 0 workers: the comment goes with the old value, and the notes say so.
    assert result.files == {"config/train.py": PY_CONFIG.replace(
        "num_workers = 0  # main-process loading: readable tracebacks", "num_workers = 2")}
    assert result.notes == ["dropped the comment '# main-process loading: readable tracebacks' on line 3 of "
                            "config/train.py, which described the old value"]
    assert (result.old_value, result.new_value, result.location) == (0, 2, "config/train.py:3")
    write(tmp_path, result.files)
    run = subprocess.run([sys.executable, "train.py", "config/train.py"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["32", "2"]


def test_python_config_expression_is_left_alone_and_a_value_already_set_refused(tmp_path):
    config = "import os\nnum_workers = int(os.environ.get('W', 0))\n"
    write(tmp_path, {"train.py": TRAIN_EXECS_CONFIG, "config/train.py": config})
    ctx = CodemodContext(root=tmp_path, config_path="config/train.py",
                         sites=[site_of(TRAIN_EXECS_CONFIG, num_workers=0)], params={"value": 2})
    # Not a plain value in the config: the call gets the literal instead, the config is untouched.
    result = apply_codemod("set_num_workers", ctx)
    assert list(result.files) == ["train.py"] and "num_workers=2)" in result.files["train.py"]
    write(tmp_path, {"config/train.py": "num_workers = 2\n"})
    with pytest.raises(NotApplicable, match="already 2"):
        apply_codemod("set_num_workers", ctx)


def test_compile_switch_in_a_python_config(tmp_path):
    train = "import torch\nexec(open('config/train.py').read())\nif compile:\n    model = torch.compile(model)\n"
    write(tmp_path, {"train.py": train, "config/train.py": PY_CONFIG})
    result = apply_codemod("enable_torch_compile", CodemodContext(root=tmp_path, config_path="config/train.py"))
    assert result.files == {"config/train.py": PY_CONFIG.replace("compile = False", "compile = True")}


TRAIN_ARGPARSE = """\
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--batch-size", type=int, default=4)
parser.add_argument("--num-workers", type=int, default=0)  # 0: debug-friendly
args = parser.parse_args()

if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.arange(32.0)), batch_size=args.batch_size,
                        num_workers=args.num_workers)
    print(sum(len(b[0]) for b in loader), loader.num_workers)
"""


def test_argparse_default_is_edited_when_no_config_holds_the_knob(tmp_path):
    write(tmp_path, {"train.py": TRAIN_ARGPARSE})
    ctx = CodemodContext(root=tmp_path, sites=[site_of(TRAIN_ARGPARSE, num_workers=0)], params={"value": 2})
    result = apply_codemod("set_num_workers", ctx)
    assert result.files == {"train.py": TRAIN_ARGPARSE.replace("type=int, default=0)", "type=int, default=2)")}
    assert result.location == "train.py:8" and "--num-workers" in result.summary
    write(tmp_path, result.files)
    run = subprocess.run([sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["32", "2"]


TRAIN_FROM_FILE = TRAIN_ARGPARSE.replace("argparse.ArgumentParser()", 'argparse.ArgumentParser(fromfile_prefix_chars="@")')


@pytest.mark.parametrize("written", ["--batch-size=4\n--num-workers=0\n", "--num-workers\n0\n--batch-size\n4\n",
                                     "--verbose-free\n--batch-size=4\n--num-workers=0"])
def test_an_arguments_file_is_edited_where_it_gives_the_value_and_the_pipeline_runs(tmp_path, written):
    """`python train.py @args.txt` with `fromfile_prefix_chars="@"`: one argument per line, `--name=value` or the value
    on the next line; only the value's own text changes, and argparse reads the new one."""
    source = TRAIN_FROM_FILE.replace('default=4)\n', 'default=4)\nparser.add_argument("--verbose-free", '
                                     'action="store_true")\n', 1)
    write(tmp_path, {"train.py": source, "args.txt": written})
    ctx = CodemodContext(root=tmp_path, config_path="args.txt", sites=[site_of(source, num_workers=0)],
                         params={"value": 2})
    result = apply_codemod("set_num_workers", ctx)
    assert list(result.files) == ["args.txt"]
    assert result.files["args.txt"] == written.replace("workers=0", "workers=2").replace("workers\n0", "workers\n2")
    assert (result.old_value, result.new_value) == (0, 2)
    write(tmp_path, result.files)
    run = subprocess.run([sys.executable, "train.py", "@args.txt"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["32", "2"]


def test_a_text_file_that_is_not_arguments_says_it_cannot_be_read(tmp_path):
    write(tmp_path, {"train.py": TRAIN_FROM_FILE, "notes.txt": "batch size four\n"})
    ctx = CodemodContext(root=tmp_path, config_path="notes.txt", sites=[site_of(TRAIN_FROM_FILE, num_workers=0)],
                         params={"value": 2})
    with pytest.raises(NotApplicable, match="cannot parse notes.txt: line 1: `batch size four` is not an option"):
        apply_codemod("set_num_workers", ctx)


def test_argparse_default_refused_when_the_command_passes_the_flag(tmp_path):
    write(tmp_path, {"train.py": TRAIN_ARGPARSE})
    ctx = CodemodContext(root=tmp_path, sites=[site_of(TRAIN_ARGPARSE, num_workers=1)], params={"value": 2})
    with pytest.raises(NotApplicable, match="the command passes the flag"):
        apply_codemod("set_num_workers", ctx)


TRAIN_HF = """\
from transformers import Trainer, TrainingArguments

args = TrainingArguments(
    output_dir="out",
    per_device_train_batch_size=16,
    dataloader_num_workers=0,  # set by hand
)
Trainer(model=model, args=args, train_dataset=ds).train()
"""


def test_training_arguments_keyword_is_edited_without_a_site_in_the_target(tmp_path):
    write(tmp_path, {"train.py": TRAIN_HF})
    ctx = CodemodContext(root=tmp_path, params={"value": 2})
    result = apply_codemod("set_num_workers", ctx)
    assert result.files == {"train.py": TRAIN_HF.replace("dataloader_num_workers=0,", "dataloader_num_workers=2,")}
    assert result.location == "train.py:3"


def test_training_arguments_keyword_is_added_in_the_call_style(tmp_path):
    source = TRAIN_HF.replace("    dataloader_num_workers=0,  # set by hand\n", "")
    write(tmp_path, {"train.py": source})
    result = apply_codemod("set_pin_memory", CodemodContext(root=tmp_path, params={"value": False}))
    assert result.files == {"train.py": source.replace(
        "    per_device_train_batch_size=16,\n",
        "    per_device_train_batch_size=16,\n    dataloader_pin_memory=False,\n")}
    assert result.old_value is True  # TrainingArguments pins memory unless told otherwise


TRAIN_HF_SPLAT = """\
import json

from transformers import Trainer, TrainingArguments

cfg = json.load(open("configs/train.json"))
args = TrainingArguments(output_dir="out", report_to=[], **cfg["training"])
Trainer(model=model, args=args, train_dataset=ds).train()
"""
HF_CONFIG = """{
  "data": {"num_examples": 512},
  "training": {
    "per_device_train_batch_size": 32,
    "dataloader_num_workers": 0
  }
}
"""


def test_training_arguments_from_config_splat_edits_the_config_key(tmp_path):
    # TrainingArguments(**cfg["training"]) names no loader keyword: the config's
    # dataloader_num_workers is what the Trainer's DataLoader gets.
    write(tmp_path, {"train.py": TRAIN_HF_SPLAT, "configs/train.json": HF_CONFIG})
    ctx = CodemodContext(root=tmp_path, config_path="configs/train.json", params={"value": 2})
    result = apply_codemod("set_num_workers", ctx)
    assert result.files == {"configs/train.json": HF_CONFIG.replace(
        '"dataloader_num_workers": 0', '"dataloader_num_workers": 2')}
    assert "training.dataloader_num_workers" in result.summary and result.old_value == 0


def test_training_arguments_splat_without_the_config_key_is_refused(tmp_path):
    config = HF_CONFIG.replace(',\n    "dataloader_num_workers": 0', "")
    write(tmp_path, {"train.py": TRAIN_HF_SPLAT, "configs/train.json": config})
    ctx = CodemodContext(root=tmp_path, config_path="configs/train.json", params={"value": 2})
    with pytest.raises(NotApplicable, match="passes \\*\\*kwargs that may already set dataloader_num_workers"):
        apply_codemod("set_num_workers", ctx)


TRAIN_LIGHTNING = """\
import lightning as L
from torch.utils.data import DataLoader


class Digits(L.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=64, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=64)
"""


def test_lightning_train_dataloader_is_found_by_its_method(tmp_path):
    write(tmp_path, {"train.py": TRAIN_LIGHTNING})
    result = apply_codemod("set_num_workers", CodemodContext(root=tmp_path, params={"value": 2}))
    assert result.files == {"train.py": TRAIN_LIGHTNING.replace(
        "batch_size=64, shuffle=True)", "batch_size=64, shuffle=True, num_workers=2)")}
    assert result.location == "train.py:7"


def test_argparse_flag_followed_through_a_variable_and_an_explicit_dest(tmp_path):
    source = TRAIN_ARGPARSE.replace('"--num-workers", type=int, default=0', '"-j", "--jobs", dest="loader_workers", default=0') \
        .replace("num_workers=args.num_workers", "num_workers=workers") \
        .replace('if __name__ == "__main__":\n', 'workers = args.loader_workers\n\nif __name__ == "__main__":\n')
    write(tmp_path, {"train.py": source})
    ctx = CodemodContext(root=tmp_path, sites=[site_of(source, num_workers=0)], params={"value": 2})
    result = apply_codemod("set_num_workers", ctx)
    assert result.files == {"train.py": source.replace('dest="loader_workers", default=0', 'dest="loader_workers", default=2')}
    assert "--jobs" in result.summary


LIGHTNING_INIT = """\
import lightning as L
from torch.utils.data import DataLoader


class Digits(L.LightningDataModule):
    def __init__(self, batch_size: int = 64, workers: int = 0):
        super().__init__()
        self.batch_size = batch_size
        self.num_workers = workers

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, num_workers=self.num_workers)
"""


def test_lightning_init_default_behind_self_attribute(tmp_path):
    write(tmp_path, {"train.py": LIGHTNING_INIT})
    result = apply_codemod("set_num_workers", CodemodContext(root=tmp_path, params={"value": 2}))
    assert result.files == {"train.py": LIGHTNING_INIT.replace("workers: int = 0", "workers: int = 2")}
    assert "Digits.__init__" in result.summary
