"""Claim severity (log paid amount) from parsed claim fields and target-encoded categories.

    python train.py claims.toml
"""
import sys
import time
import tomllib

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from claimskit import ClaimsCollator, ClaimsDataset, SmoothedTargetEncoder, generate_claims_csv
from claimskit.data import NUMERIC, read_records, target_of


class SeverityMLP(nn.Module):
    def __init__(self, n_numeric, n_encoded, hidden=64):
        super().__init__()
        self.norm = nn.BatchNorm1d(n_numeric + n_encoded)
        self.net = nn.Sequential(nn.Linear(n_numeric + n_encoded, hidden), nn.SiLU(),
                                 nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, numeric, encoded):
        x = torch.cat([numeric, encoded], dim=1)
        return self.net(self.norm(x)).squeeze(1)


class Callback:
    def on_train_begin(self, trainer): pass
    def on_step_end(self, trainer, batch, loss): pass
    def on_train_end(self, trainer): pass


class MeterCallback(Callback):
    def __init__(self):
        self.meter = evalkit.Meter()

    def on_batch(self, batch):
        self.meter.batch(batch.as_tuple())

    def on_step_end(self, trainer, batch, loss):
        self.meter.step(loss)
        if self.meter.done():
            trainer.should_stop = True


class LossLogger(Callback):
    def __init__(self, every):
        self.every, self.window, self.history = every, [], []

    def on_train_begin(self, trainer):
        self.t0 = time.perf_counter()

    def on_step_end(self, trainer, batch, loss):
        self.window.append(loss.item())
        if trainer.global_step % self.every == 0:
            avg = sum(self.window) / len(self.window)
            self.history.append(avg)
            print(f"step {trainer.global_step:4d}  mse {avg:.4f}  ({time.perf_counter() - self.t0:.1f}s)")
            self.window = []


class Trainer:
    def __init__(self, model, loader, optimizer, epochs, callbacks):
        self.model, self.loader, self.optimizer, self.epochs = model, loader, optimizer, epochs
        self.callbacks = callbacks
        self.global_step = 0
        self.should_stop = False

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def fit(self):
        self._emit("on_train_begin")
        loss_fn = nn.MSELoss()
        for epoch in range(self.epochs):
            self.model.train()
            for batch in self.loader:
                for cb in self.callbacks:
                    if hasattr(cb, "on_batch"):
                        cb.on_batch(batch)
                pred = self.model(batch.numeric, batch.encoded)
                loss = loss_fn(pred, batch.target)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.global_step += 1
                self._emit("on_step_end", batch, loss)
                if self.should_stop:
                    break
            if self.should_stop:
                break
        self._emit("on_train_end")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "claims.toml"
    with open(path, "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["seed"]
    torch.set_num_threads(1)
    np.random.seed(seed)
    torch.manual_seed(seed)

    d = cfg["data"]
    history = read_records(generate_claims_csv(d["n_history"], seed))
    encoder = SmoothedTargetEncoder(d["categorical"], cfg["encoder"]["smoothing"], cfg["encoder"]["min_samples_leaf"])
    encoder.fit(history, [target_of(row) for row in history])
    train_lines = generate_claims_csv(d["n_train"], seed + 1, start_id=d["n_history"])
    dataset = ClaimsDataset(train_lines, encoder)

    lc = cfg["loader"]
    loader = DataLoader(dataset, batch_size=lc["batch_size"], shuffle=lc["shuffle"], num_workers=lc["num_workers"],
                        drop_last=lc["drop_last"], collate_fn=ClaimsCollator(),
                        generator=torch.Generator().manual_seed(seed))
    model = SeverityMLP(len(NUMERIC), len(d["categorical"]))
    opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
    meter_cb, logger = MeterCallback(), LossLogger(cfg["train"]["log_every"])
    Trainer(model, loader, opt, cfg["train"]["epochs"], [meter_cb, logger]).fit()
    meter_cb.meter.report(extra={"mse_history": logger.history, "prior": encoder.prior_})


if __name__ == "__main__":
    main()
