"""Nowcasting: will it rain at this station in the next 6 hours?"""
import argparse
import configparser

import torch
import torch.nn as nn
import torch.nn.functional as F

from evalkit import Meter
from wx.data import WeatherDataModule
from wx.lite import Callback, LiteModule, Trainer


class RainNowcaster(LiteModule):
    def __init__(self, channels, lr):
        super().__init__()
        self.lr = lr
        self.encoder = nn.Sequential(
            nn.Conv1d(10, channels, 5, padding=2), nn.GELU(),
            nn.Conv1d(channels, channels, 5, padding=2, stride=2), nn.GELU())
        self.head = nn.Linear(channels, 1)

    def forward(self, obs, calendar):
        h = self.encoder(torch.cat([obs, calendar], dim=1))
        return self.head(h.mean(-1)).squeeze(-1)

    def training_step(self, batch, batch_idx):
        logits = self(batch["inputs"]["obs"], batch["inputs"]["calendar"])
        loss = F.binary_cross_entropy_with_logits(logits, batch["target"])
        with torch.no_grad():
            acc = ((logits > 0).float() == batch["target"]).float().mean()
        self.log("train_loss", loss.item())
        self.log("train_acc", acc.item())
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.lr, weight_decay=1e-4)


class MeterCallback(Callback):
    def __init__(self):
        self.meter = Meter()

    def on_train_batch_start(self, trainer, batch, batch_idx):
        self.meter.batch(batch)

    def on_train_batch_end(self, trainer, loss, batch_idx):
        self.meter.step(loss)
        if self.meter.done():
            trainer.should_stop = True

    def on_fit_end(self, trainer, module):
        acc = module.logged.get("train_acc", [])
        chunks = [sum(acc[i:i + 25]) / len(acc[i:i + 25]) for i in range(0, len(acc), 25)]
        self.meter.report(extra={"acc_per_25_steps": chunks, "steps": trainer.global_step})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="wx.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    torch.manual_seed(cfg.getint("experiment", "seed"))
    torch.set_num_threads(1)
    model = RainNowcaster(cfg.getint("model", "channels"), cfg.getfloat("trainer", "lr"))
    trainer = Trainer(cfg.getint("trainer", "max_steps"), callbacks=[MeterCallback()],
                      log_every_n_steps=cfg.getint("trainer", "log_every_n_steps"))
    trainer.fit(model, WeatherDataModule(cfg))


if __name__ == "__main__":
    main()
