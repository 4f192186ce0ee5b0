"""DeepSurv-style Cox model on a registry cohort, with survival metrics logged every step by a callback.

    python train.py settings.py
"""
import math
import runpy
import sys

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from cohort import SurvivalDataset, collate_list, parse_registry, synth_registry
from metrics import breslow_cumhazard, brier_ipcw, harrell_c


def cox_ph_loss(risk, time, event):
    """Negative Breslow partial log-likelihood (no tie correction beyond Breslow's)."""
    order = torch.argsort(time, descending=True, stable=True)
    risk, event = risk[order], event[order]
    log_risk_set = torch.logcumsumexp(risk, dim=0)
    return -((risk - log_risk_set) * event).sum() / event.sum().clamp(min=1.0)


class CoxModule(nn.Module):
    """Lightning-like module: training_step and configure_optimizers, no Lightning."""

    def __init__(self, n_in, hidden, lr):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Dropout(0.1), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)

    def training_step(self, batch):
        x, time, event = batch
        return cox_ph_loss(self(x), time, event)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


class Callback:
    def on_train_batch_end(self, trainer, module, loss, batch, step):
        pass


class SurvivalMetricsCallback(Callback):
    """Scores the monitor cohort after every optimiser step and logs C-index and Brier(t)."""

    def __init__(self, x, time, event, brier_times):
        self.x = x
        self.time = [int(t) for t in time.tolist()]
        self.event = [int(e) for e in event.tolist()]
        self.brier_times = brier_times

    @torch.no_grad()
    def on_train_batch_end(self, trainer, module, loss, batch, step):
        was_training = module.training
        module.eval()
        risk = module(self.x).tolist()
        module.train(was_training)
        exp_risk = [math.exp(r) for r in risk]
        cindex = harrell_c(self.time, self.event, risk)
        event_times, cumhaz = breslow_cumhazard(self.time, self.event, exp_risk)
        briers = [brier_ipcw(self.time, self.event, exp_risk, event_times, cumhaz, t) for t in self.brier_times]
        ibs = 0.0
        for (t0, b0), (t1, b1) in zip(zip(self.brier_times, briers), zip(self.brier_times[1:], briers[1:])):
            ibs += 0.5 * (b0 + b1) * (t1 - t0)
        ibs /= self.brier_times[-1] - self.brier_times[0]
        trainer.log({"c_index": cindex, "ibs": ibs, **{f"brier@{t}": b for t, b in zip(self.brier_times, briers)}})


class MeterCallback(Callback):
    def __init__(self, meter):
        self.meter = meter

    def on_train_batch_end(self, trainer, module, loss, batch, step):
        self.meter.step(loss)
        if self.meter.done():
            trainer.should_stop = True


class Trainer:
    def __init__(self, max_epochs, max_steps, callbacks, meter):
        self.max_epochs, self.max_steps = max_epochs, max_steps
        self.callbacks = callbacks
        self.meter = meter
        self.history = []
        self.global_step = 0
        self.should_stop = False

    def log(self, metrics):
        self.history.append(dict(metrics, step=self.global_step))

    def fit(self, module, loader):
        opt = module.configure_optimizers()
        module.train()
        for epoch in range(self.max_epochs):
            for batch in loader:
                self.meter.batch(batch)
                loss = module.training_step(batch)
                opt.zero_grad()
                loss.backward()
                opt.step()
                self.global_step += 1
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, module, loss, batch, self.global_step)
                if self.should_stop or self.global_step >= self.max_steps:
                    return


def main():
    cfg = runpy.run_path(sys.argv[1] if len(sys.argv) > 1 else "settings.py")
    torch.set_num_threads(1)
    torch.manual_seed(cfg["SEED"])
    rng = np.random.default_rng(cfg["SEED"])
    n_bio = cfg["N_FEATURES"] - 6
    train_x, train_t, train_e = parse_registry(synth_registry(rng, cfg["N_TRAIN"], n_bio))
    mon_x, mon_t, mon_e = parse_registry(synth_registry(rng, cfg["N_MONITOR"], n_bio))

    loader = DataLoader(SurvivalDataset(train_x, train_t, train_e), batch_size=cfg["BATCH_SIZE"], shuffle=True,
                        drop_last=True, collate_fn=collate_list, num_workers=cfg["NUM_WORKERS"],
                        generator=torch.Generator().manual_seed(cfg["SEED"] + 1))
    module = CoxModule(cfg["N_FEATURES"], cfg["HIDDEN"], cfg["LR"])
    meter = evalkit.Meter()
    trainer = Trainer(cfg["MAX_EPOCHS"], cfg["MAX_STEPS"],
                      [SurvivalMetricsCallback(mon_x, mon_t, mon_e, cfg["BRIER_TIMES"]), MeterCallback(meter)], meter)
    trainer.fit(module, loader)
    last = trainer.history[-1]
    meter.report({
        "final": {k: v for k, v in last.items()},
        "mean_c_index": sum(h["c_index"] for h in trainer.history) / len(trainer.history),
        "mean_ibs": sum(h["ibs"] for h in trainer.history) / len(trainer.history),
    })


if __name__ == "__main__":
    main()
