"""State-of-health regression from EIS sweeps.

    python train.py eis.ini
"""
import configparser
import sys

import torch

from eis.datamodule import EISDataModule
from eis.fit import Trainer
from eis.module import SOHRegressor


def main(path):
    cfg = configparser.ConfigParser()
    cfg.read(path)
    tr = cfg["trainer"]
    torch.set_num_threads(tr.getint("num_threads", fallback=1))
    torch.manual_seed(tr.getint("seed"))
    dm = EISDataModule(cfg)
    m = cfg["model"]
    module = SOHRegressor(width=m.getint("width"), lr=m.getfloat("lr"), weight_decay=m.getfloat("weight_decay"))
    trainer = Trainer(max_epochs=tr.getint("max_epochs"), gradient_clip_val=tr.getfloat("gradient_clip_val"),
                      log_every_n_steps=tr.getint("log_every_n_steps"))
    meter = trainer.fit(module, dm)
    print(f"val MAE (SOH) {trainer.val_history[-1]:.4f}")
    meter.report({"val_mae": trainer.val_history[-1], "train_mae_tail": module.logged["train_mae"][-10:]})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "eis.ini")
