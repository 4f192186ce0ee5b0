"""Breathing-pattern classification from respiration-belt windows."""
import argparse
import tomllib

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, WeightedRandomSampler

from evalkit import Meter
from respiro import BeltWindowDataset, BreathNet


class Callback:
    def on_train_batch_end(self, trainer, batch, loss):
        pass

    def on_train_end(self, trainer):
        pass


class MeterCallback(Callback):
    def __init__(self, meter):
        self.meter = meter

    def on_train_batch_end(self, trainer, batch, loss):
        self.meter.step(loss)
        if self.meter.done():
            trainer.should_stop = True


class RunningLoss(Callback):
    def __init__(self, every=20):
        self.every, self.total, self.n = every, 0.0, 0

    def on_train_batch_end(self, trainer, batch, loss):
        self.total += float(loss)
        self.n += 1
        if trainer.global_step % self.every == 0:
            print(f"step {trainer.global_step} running loss {self.total / self.n:.4f}", flush=True)


class Trainer:
    def __init__(self, max_epochs, callbacks):
        self.max_epochs = max_epochs
        self.callbacks = callbacks
        self.global_step = 0
        self.should_stop = False

    def fit(self, model, loader, optimizer, meter):
        for epoch in range(self.max_epochs):
            loader.dataset.epoch = epoch
            model.train()
            for batch in loader:
                meter.batch(batch)
                logits = model(batch["breaths"], batch["breath_mask"], batch["summary"])
                loss = F.cross_entropy(logits, batch["label"])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                self.global_step += 1
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, batch, loss.detach())
                if self.should_stop:
                    return
        for cb in self.callbacks:
            cb.on_train_end(self)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])

    ds = BeltWindowDataset(cfg, cfg["seed"])
    lc = cfg["loader"]
    g = torch.Generator().manual_seed(cfg["seed"])
    sampler = WeightedRandomSampler(ds.sample_weights(), num_samples=len(ds), replacement=True, generator=g) \
        if lc["balanced"] else None
    loader = DataLoader(ds, batch_size=lc["batch_size"], sampler=sampler, shuffle=sampler is None,
                        num_workers=lc["num_workers"], drop_last=True)
    model = BreathNet()
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
    meter = Meter()
    running = RunningLoss()
    trainer = Trainer(cfg["optim"]["epochs"], [MeterCallback(meter), running])
    trainer.fit(model, loader, opt, meter)
    meter.report(extra={"running_loss": running.total / max(running.n, 1)})


if __name__ == "__main__":
    main()
