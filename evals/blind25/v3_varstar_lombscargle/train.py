"""Variable-star classification from Lomb-Scargle features (Lightning-style).

    python train.py -c lightcurves.ini
"""
import argparse
import configparser

import torch

from evalkit import Meter
from lcurves import lit
from lcurves.datamodule import LightCurveDataModule
from lcurves.model import VariableStarClassifier
from lcurves.simulate import CLASSES


class EvalMeterCallback(lit.Callback):
    def __init__(self, meter):
        self.meter = meter
        self.epoch_acc = []

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        self.meter.batch(batch)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self.meter.step(outputs["loss"])
        if self.meter.done():
            trainer.should_stop = True

    def on_train_epoch_end(self, trainer, pl_module):
        self.epoch_acc.append(round(trainer.callback_metrics.get("train_acc", 0.0), 4))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="lightcurves.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)

    seed = cfg.getint("experiment", "seed")
    torch.set_num_threads(cfg.getint("experiment", "threads", fallback=1))
    torch.manual_seed(seed)
    survey = {"n_stars": cfg.getint("survey", "n_stars"),
              "baseline_days": cfg.getfloat("survey", "baseline_days"),
              "min_obs": cfg.getint("survey", "min_obs"),
              "max_obs": cfg.getint("survey", "max_obs")}
    feats = {"f_min": cfg.getfloat("features", "f_min"), "f_max": cfg.getfloat("features", "f_max"),
             "n_freq": cfg.getint("features", "n_freq"),
             "n_phase_bins": cfg.getint("features", "n_phase_bins"),
             "drop_fraction": cfg.getfloat("features", "drop_fraction")}
    tr = cfg["trainer"]
    batch_size = tr.getint("batch_size")
    max_epochs = tr.getint("max_epochs")

    dm = LightCurveDataModule(seed, survey, feats, batch_size)
    model = VariableStarClassifier(
        dm.n_features, len(CLASSES), hidden=cfg.getint("model", "hidden"),
        dropout=cfg.getfloat("model", "dropout"), lr=tr.getfloat("lr"),
        weight_decay=tr.getfloat("weight_decay"),
        total_steps=max_epochs * (survey["n_stars"] // batch_size))

    meter = Meter()
    cb = EvalMeterCallback(meter)
    trainer = lit.Trainer(max_epochs=max_epochs, callbacks=[cb],
                          gradient_clip_val=tr.getfloat("gradient_clip_val"),
                          log_every_n_steps=tr.getint("log_every_n_steps"))
    trainer.fit(model, datamodule=dm)
    meter.report({"epoch_train_acc": cb.epoch_acc,
                  "last_train_loss": round(trainer.callback_metrics.get("train_loss", 0.0), 5)})


if __name__ == "__main__":
    main()
