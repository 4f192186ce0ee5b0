"""Classify EEG epochs (rest / arithmetic / drowsy / N2) from relative band powers.

    python train.py eeg.toml
"""
import random
import sys
import tomllib
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import evalkit
from eeg_data import STATES, read_record, synthesize_epochs
from features import BandPower, apply_baseline, set_average_reference


@dataclass
class EEGBatch:
    features: torch.Tensor   # (B, n_channels * n_bands)
    labels: torch.Tensor     # (B,)
    onsets: torch.Tensor     # (B,) seconds
    shifts: torch.Tensor     # (B,) window start in samples after the cue

    def as_dict(self):
        return {"features": self.features, "labels": self.labels, "onsets": self.onsets, "shifts": self.shifts}


class EpochsDataset(Dataset):
    """Epochs -> re-referenced, baseline-corrected band powers of a randomly shifted 1 s window."""

    def __init__(self, records, gain, offset, cfg, seed):
        rec, pre, feat = cfg["recording"], cfg["preprocessing"], cfg["features"]
        self.records, self.gain, self.offset = records, gain, offset
        self.sfreq = rec["sfreq"]
        n_times = int(round((rec["tmax"] - rec["tmin"]) * self.sfreq))
        self.times = rec["tmin"] + np.arange(n_times) / self.sfreq
        self.baseline = tuple(pre["baseline"])
        self.cue = int(np.searchsorted(self.times, 0.0))
        self.window, self.max_shift = pre["window_samples"], pre["max_shift"]
        self.bandpower = BandPower(self.sfreq, feat["bands"], relative=feat["relative"]).fit(self.window)
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.records)

    def _one(self, idx):
        code, onset, data = read_record(self.records[idx], self.gain, self.offset)
        data = set_average_reference(data)
        data = apply_baseline(data, self.times, self.baseline)
        shift = int(self.rng.integers(0, self.max_shift + 1))
        seg = data[:, self.cue + shift:self.cue + shift + self.window]
        return {"features": self.bandpower.transform(seg).ravel(), "label": code, "onset": onset, "shift": shift}

    def __getitems__(self, indices):
        return [self._one(i) for i in indices]

    def __getitem__(self, idx):
        return self._one(idx)


def collate_epochs(items):
    return EEGBatch(
        features=torch.from_numpy(np.stack([it["features"] for it in items])).float(),
        labels=torch.tensor([it["label"] for it in items], dtype=torch.long),
        onsets=torch.tensor([it["onset"] for it in items], dtype=torch.float64),
        shifts=torch.tensor([it["shift"] for it in items], dtype=torch.long),
    )


class Trainer:
    def __init__(self, model, optimizer, loader, meter, epochs):
        self.model, self.optimizer, self.loader, self.meter, self.epochs = model, optimizer, loader, meter, epochs
        self.loss_fn = nn.CrossEntropyLoss()
        self.history = []

    def training_step(self, batch):
        logits = self.model(batch.features)
        loss = self.loss_fn(logits, batch.labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss, (logits.argmax(1) == batch.labels).float().mean().item()

    def fit(self):
        for epoch in range(self.epochs):
            self.model.train()
            accs = []
            for batch in self.loader:
                self.meter.batch(batch.as_dict())
                loss, acc = self.training_step(batch)
                self.meter.step(loss)
                accs.append(acc)
                if self.meter.done():
                    break
            self.history.append(round(sum(accs) / max(len(accs), 1), 6))
            print(f"epoch {epoch}: train acc {self.history[-1]:.3f}", flush=True)
            if self.meter.done():
                break
        return self.history


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "eeg.toml"
    with open(path, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.set_num_threads(1)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    rec = cfg["recording"]
    n_times = int(round((rec["tmax"] - rec["tmin"]) * rec["sfreq"]))
    records, labels, gain, offset = synthesize_epochs(rec["n_epochs"], rec["channels"], rec["sfreq"], n_times, seed)
    ds = EpochsDataset(records, gain, offset, cfg, seed + 1)
    lc = cfg["loader"]
    loader = DataLoader(ds, batch_size=lc["batch_size"], shuffle=lc["shuffle"], num_workers=lc["num_workers"],
                        collate_fn=collate_epochs, generator=torch.Generator().manual_seed(seed + 2))
    n_in = len(rec["channels"]) * len(cfg["features"]["bands"])
    model = nn.Sequential(nn.Linear(n_in, 64), nn.GELU(), nn.Dropout(0.1), nn.Linear(64, len(STATES)))
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    meter = evalkit.Meter()
    history = Trainer(model, opt, loader, meter, cfg["optim"]["epochs"]).fit()
    meter.report(extra={"epoch_acc": history, "n_features": n_in})


if __name__ == "__main__":
    main()
