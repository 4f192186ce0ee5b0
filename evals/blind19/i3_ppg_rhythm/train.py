"""Wrist-PPG rhythm classification with a small Lightning-style module/trainer."""
import argparse
import configparser
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from ppgkit import RHYTHMS, PPGWindowStream


class PPGClassifier(nn.Module):
    def __init__(self, num_features=6, num_classes=len(RHYTHMS), lr=2e-3, weight_decay=0.0):
        super().__init__()
        self.lr, self.weight_decay = lr, weight_decay
        self.encoder = nn.Sequential(
            nn.Conv1d(1, 8, 7, stride=2, padding=3), nn.ReLU(),
            nn.Conv1d(8, 16, 5, stride=2, padding=2), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1), nn.Flatten(),
        )
        self.head = nn.Sequential(nn.Linear(16 + num_features, 32), nn.ReLU(), nn.Linear(32, num_classes))

    def forward(self, signal, features):
        return self.head(torch.cat([self.encoder(signal), features], dim=1))

    def training_step(self, batch, batch_idx):
        logits = self(batch["signal"], batch["features"])
        loss = F.cross_entropy(logits, batch["label"])
        acc = (logits.argmax(1) == batch["label"]).float().mean()
        return {"loss": loss, "acc": acc.item()}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr, weight_decay=self.weight_decay)


class Callback:
    def on_train_batch_start(self, trainer, module, batch, batch_idx):
        pass

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        pass


class EvalKitCallback(Callback):
    def __init__(self):
        self.meter = evalkit.Meter()

    def on_train_batch_start(self, trainer, module, batch, batch_idx):
        self.meter.batch(batch)

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        self.meter.step(outputs["loss"])
        if self.meter.done():
            trainer.should_stop = True


class ProgressCallback(Callback):
    def __init__(self, every):
        self.every, self.t0 = every, time.time()
        self.history = []

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        self.history.append(outputs["acc"])
        if (trainer.global_step) % self.every == 0:
            recent = self.history[-self.every:]
            print(f"step {trainer.global_step} loss {outputs['loss'].item():.4f} "
                  f"acc@{self.every} {sum(recent) / len(recent):.3f} "
                  f"peaks/window {batch['n_peaks'].float().mean().item():.1f} ({time.time() - self.t0:.1f}s)",
                  flush=True)


class Trainer:
    def __init__(self, max_epochs=1, callbacks=()):
        self.max_epochs = max_epochs
        self.callbacks = list(callbacks)
        self.global_step = 0
        self.should_stop = False

    def _call(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def fit(self, module, train_dataloader):
        optimizer = module.configure_optimizers()
        module.train()
        for epoch in range(self.max_epochs):
            train_dataloader.dataset.set_epoch(epoch)
            for batch_idx, batch in enumerate(train_dataloader):
                self._call("on_train_batch_start", module, batch, batch_idx)
                outputs = module.training_step(batch, batch_idx)
                optimizer.zero_grad()
                outputs["loss"].backward()
                optimizer.step()
                self.global_step += 1
                self._call("on_train_batch_end", module, outputs, batch, batch_idx)
                if self.should_stop:
                    return
            if self.should_stop:
                return


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="ppg.ini")
    args = parser.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["data"].getint("seed"))

    stream = PPGWindowStream(cfg["data"], cfg["dsp"])
    loader = DataLoader(stream, batch_size=cfg["loader"].getint("batch_size"),
                        num_workers=cfg["loader"].getint("num_workers"))
    module = PPGClassifier(lr=cfg["optim"].getfloat("lr"), weight_decay=cfg["optim"].getfloat("weight_decay"))
    kit = EvalKitCallback()
    progress = ProgressCallback(cfg["trainer"].getint("log_every_n_steps"))
    trainer = Trainer(max_epochs=cfg["trainer"].getint("max_epochs"), callbacks=[kit, progress])
    trainer.fit(module, loader)
    kit.meter.report(extra={"train_acc": progress.history})


if __name__ == "__main__":
    main()
