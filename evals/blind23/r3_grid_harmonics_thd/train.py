"""Power-quality disturbance classification from harmonic features of grid voltage windows."""
import argparse
import configparser

import torch

from evalkit import Meter
from pq.datamodule import GridDataModule
from pq.engine import Trainer
from pq.module import DisturbanceClassifier
from pq.waveforms import CLASSES


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    tr = cfg["trainer"]
    torch.manual_seed(cfg["data"].getint("seed"))
    torch.set_num_threads(tr.getint("torch_threads"))

    dm = GridDataModule(cfg["data"], cfg["features"], tr)
    per_window = cfg["features"].getint("max_harmonic") - 1 + 3
    module = DisturbanceClassifier(cfg["data"].getint("windows_per_record"), per_window, len(CLASSES),
                                   cfg["model"].getint("hidden"), cfg["model"].getfloat("dropout"),
                                   tr.getfloat("lr"), tr.getfloat("weight_decay"))
    meter = Meter()
    trainer = Trainer(tr.getint("max_epochs"), meter)
    trainer.fit(module, dm)
    tail = trainer.history[-20:]
    meter.report({"train_acc_last20": sum(tail) / len(tail)})


if __name__ == "__main__":
    main()
