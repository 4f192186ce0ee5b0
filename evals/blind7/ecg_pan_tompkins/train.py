"""Rhythm classification from single beats: detect QRS complexes, cut one beat, add RR features."""
import argparse
import configparser

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from ecgsynth import ADC_GAIN, ADC_ZERO, RHYTHMS, make_records
from evalkit import Meter
from qrs import detect_qrs


class BeatDataset(Dataset):
    """One random detected beat of a record per access, with its RR context."""

    def __init__(self, records, labels, fs, pre_r, post_r, seed):
        self.records = records
        self.labels = labels
        self.fs = fs
        self.pre_r = pre_r
        self.post_r = post_r
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.records)

    def __getitem__(self, index):
        rec = self.records[index]
        n = rec.shape[0]
        r = detect_qrs(rec.tolist(), self.fs)
        if len(r) >= 3:
            k = int(self.rng.integers(1, len(r) - 1))
            center = r[k]
            pre_rr = (r[k] - r[k - 1]) / self.fs
            post_rr = (r[k + 1] - r[k]) / self.fs
            mean_rr = (r[-1] - r[0]) / (len(r) - 1) / self.fs
        else:
            center = n // 2
            pre_rr = post_rr = mean_rr = 0.0
        idx = np.clip(np.arange(center - self.pre_r, center + self.post_r), 0, n - 1)
        beat = (rec[idx].astype(np.float64) - ADC_ZERO) / ADC_GAIN
        rr = [pre_rr, post_rr, mean_rr, len(r) * self.fs / n]
        return {
            "beat": torch.from_numpy(beat.astype(np.float32)).unsqueeze(0),
            "rr": torch.tensor(rr, dtype=torch.float32),
            "label": int(self.labels[index]),
        }


class BeatNet(nn.Module):
    def __init__(self, channels, hidden, n_classes):
        super().__init__()
        c1, c2, c3 = channels
        self.conv = nn.Sequential(
            nn.Conv1d(1, c1, 7, stride=2, padding=3), nn.ReLU(),
            nn.Conv1d(c1, c2, 5, stride=2, padding=2), nn.ReLU(),
            nn.Conv1d(c2, c3, 5, stride=2, padding=2), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1),
        )
        self.head = nn.Sequential(nn.Linear(c3 + 4, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))

    def forward(self, beat, rr):
        h = self.conv(beat).squeeze(-1)
        return self.head(torch.cat([h, rr], dim=1))


class Trainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.epochs = cfg.getint("epochs")
        self.log_interval = cfg.getint("log_interval")
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.getfloat("lr"),
                                           weight_decay=cfg.getfloat("weight_decay"))
        self.meter = Meter()
        self.history = []

    def train_epoch(self, epoch):
        self.model.train()
        total, correct, loss_sum = 0, 0, 0.0
        for i, batch in enumerate(self.loader):
            self.meter.batch(batch)
            logits = self.model(batch["beat"], batch["rr"])
            loss = F.cross_entropy(logits, batch["label"])
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += batch["label"].numel()
            correct += int((logits.argmax(1) == batch["label"]).sum())
            loss_sum += float(loss) * batch["label"].numel()
            if i % self.log_interval == 0:
                print(f"[{epoch}][{i}/{len(self.loader)}] loss {loss.item():.4f}")
            self.meter.step(loss)
            if self.meter.done():
                break
        self.history.append({"epoch": epoch, "loss": loss_sum / total, "acc": correct / total})
        return not self.meter.done()

    def fit(self):
        for epoch in range(self.epochs):
            if not self.train_epoch(epoch):
                break
        self.meter.report(extra={"history": self.history})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="ecg.ini")
    args = parser.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    data = cfg["data"]

    torch.set_num_threads(1)
    seed = data.getint("seed")
    torch.manual_seed(seed)

    fs = data.getint("fs")
    records, labels = make_records(data.getint("records"), fs, data.getfloat("duration_s"), seed)
    dataset = BeatDataset(records, labels, fs, data.getint("pre_r"), data.getint("post_r"), seed + 1)
    loader = DataLoader(dataset, batch_size=cfg["train"].getint("batch_size"), shuffle=True,
                        num_workers=0, generator=torch.Generator().manual_seed(seed))

    channels = [int(c) for c in cfg["model"]["channels"].split(",")]
    model = BeatNet(channels, cfg["model"].getint("hidden"), len(RHYTHMS))
    Trainer(model, loader, cfg["train"]).fit()


if __name__ == "__main__":
    main()
