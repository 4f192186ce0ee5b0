"""Wind-profile regression from Doppler lidar spectra (DBS scans)."""
import argparse
import random
import tomllib

import numpy as np
import torch

import evalkit
from dopplerwind.datamodule import LidarDataModule
from dopplerwind.module import Callback, PrintLoss, Trainer, WindProfileModule


class MeterCallback(Callback):
    def __init__(self, meter):
        self.meter = meter

    def on_train_batch_start(self, trainer, module, batch, batch_idx):
        self.meter.batch(batch)

    def on_train_batch_end(self, trainer, module, loss, batch_idx):
        self.meter.step(loss)
        if self.meter.done():
            trainer.should_stop = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="lidar.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    inst = cfg["instrument"]
    dm = LidarDataModule(cfg, seed)
    module = WindProfileModule(len(inst["beams"]), inst["num_gates"], lr=cfg["trainer"]["lr"])
    meter = evalkit.Meter()
    trainer = Trainer(cfg["trainer"]["max_epochs"],
                      callbacks=[MeterCallback(meter), PrintLoss(cfg["trainer"]["log_every_n_steps"])])
    trainer.fit(module, dm)
    meter.report({"global_step": trainer.global_step})


if __name__ == "__main__":
    main()
