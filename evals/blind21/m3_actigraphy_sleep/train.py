"""Per-epoch sleep/wake from actigraphy counts and the Cole-Kripke index."""
import argparse
import time
import tomllib

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import ActigraphyWindows
from evalkit import Meter


class SleepNet(nn.Module):
    def __init__(self, channels=3, hidden=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(channels, hidden, 5, padding=2), nn.ReLU(),
            nn.Conv1d(hidden, hidden, 5, padding=4, dilation=2), nn.ReLU(),
            nn.Conv1d(hidden, 2, 1))

    def forward(self, x):
        return self.net(x)


class Callback:
    def on_train_batch_end(self, trainer, step, loss):
        pass

    def on_train_end(self, trainer):
        pass


class PrintProgress(Callback):
    def __init__(self, every):
        self.every = every
        self.t0 = time.perf_counter()

    def on_train_batch_end(self, trainer, step, loss):
        if step % self.every == 0:
            print(f"step {step:4d}  loss {loss.item():.4f}  {time.perf_counter() - self.t0:.1f}s", flush=True)


class EvalMeter(Callback):
    def __init__(self):
        self.meter = Meter()
        self.sleep_fraction = []

    def on_train_batch_end(self, trainer, step, loss):
        self.meter.step(loss)
        self.sleep_fraction.append(float(trainer.last_batch[0][:, 2].mean()))

    def on_train_end(self, trainer):
        self.meter.report(extra={"scored_sleep_fraction": self.sleep_fraction})


class Trainer:
    def __init__(self, max_epochs, callbacks):
        self.max_epochs = max_epochs
        self.callbacks = callbacks
        self.last_batch = None

    def fit(self, model, loader, optimizer, meter):
        step = 0
        for _ in range(self.max_epochs):
            for batch in loader:
                self.last_batch = batch
                meter.batch(batch)
                x, y = batch
                loss = F.cross_entropy(model(x), y)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                step += 1
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, step, loss)
                if meter.done():
                    break
            if meter.done():
                break
        for cb in self.callbacks:
            cb.on_train_end(self)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="actigraphy.toml")
    args = parser.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])

    loader = DataLoader(ActigraphyWindows(cfg), batch_size=cfg["loader"]["batch_size"],
                        num_workers=cfg["loader"]["num_workers"])
    model = SleepNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["trainer"]["lr"])
    eval_cb = EvalMeter()
    trainer = Trainer(cfg["trainer"]["max_epochs"], [eval_cb, PrintProgress(cfg["trainer"]["log_every_n_steps"])])
    trainer.fit(model, loader, optimizer, eval_cb.meter)


if __name__ == "__main__":
    main()
