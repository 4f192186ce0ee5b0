"""Key classification from chromagrams of synthetic piano-like clips (24 classes: 12 major, 12 minor)."""
import argparse
import dataclasses
import math
import random
import tomllib

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import evalkit
from chroma import ConstantQFilterbank, chromagram, estimate_key

MAJOR_STEPS = (0, 2, 4, 5, 7, 9, 11)
MINOR_STEPS = (0, 2, 3, 5, 7, 8, 10)


def render_clip(rng, key, sample_rate, seconds):
    """Chords on scale degrees of `key` with decaying harmonic partials; int16 little-endian PCM bytes."""
    tonic, minor = key % 12, key >= 12
    steps = MINOR_STEPS if minor else MAJOR_STEPS
    n = int(sample_rate * seconds)
    audio = np.zeros(n)
    t = np.arange(n) / sample_rate
    n_chords = rng.integers(4, 8)
    bounds = np.linspace(0, n, n_chords + 1).astype(int)
    for c in range(n_chords):
        degree = int(rng.choice([0, 0, 3, 4, 4, 5, 1]))
        lo, hi = bounds[c], bounds[c + 1]
        for third in (0, 2, 4):
            step = steps[(degree + third) % 7] + 12 * ((degree + third) // 7)
            midi = 48 + tonic + step + 12 * int(rng.integers(0, 2))
            f0 = 440.0 * 2 ** ((midi - 69) / 12)
            env = np.exp(-(t[lo:hi] - t[lo]) * rng.uniform(1.5, 4.0))
            for h in range(1, 5):
                if f0 * h < sample_rate / 2:
                    audio[lo:hi] += env * (0.6 ** h) * np.sin(2 * np.pi * f0 * h * t[lo:hi] + rng.uniform(0, 6.28))
    audio += rng.normal(0, 0.02, n)
    audio *= 0.3 / max(np.abs(audio).max(), 1e-9)
    return (np.round(audio * 32767).astype("<i2")).tobytes()


class KeyClipDataset(Dataset):
    """Map-style dataset with a batched fetch (`__getitems__`): random frame-aligned crop, chroma,
    random transposition (chroma rolled, key shifted)."""

    def __init__(self, cfg, seed):
        rng = np.random.default_rng(seed)
        d = cfg["data"]
        self.sample_rate = d["sample_rate"]
        self.hop = d["hop_length"]
        self.n_frames = d["n_frames"]
        self.max_transpose = d["max_transpose"]
        self.keys = [int(k) for k in rng.integers(0, 24, d["n_clips"])]
        self.clips = [render_clip(rng, k, self.sample_rate, d["seconds"]) for k in self.keys]
        self.filterbank = ConstantQFilterbank(self.sample_rate, d["midi_min"], d["n_bins"], d["frame_length"])
        self.generator = torch.Generator().manual_seed(seed + 17)

    def __len__(self):
        return len(self.clips)

    def _item(self, idx):
        pcm = np.frombuffer(self.clips[idx], dtype="<i2")
        samples = (pcm / 32768.0).tolist()
        span = (self.n_frames - 1) * self.hop + self.filterbank.frame_length
        max_start = (len(samples) - span) // self.hop
        start = self.hop * int(torch.randint(0, max_start + 1, (1,), generator=self.generator))
        shift = int(torch.randint(-self.max_transpose, self.max_transpose + 1, (1,), generator=self.generator))
        frames = chromagram(samples, self.filterbank, self.hop, self.n_frames, offset=start)
        frames = [f[-shift % 12:] + f[:-shift % 12] for f in frames]  # pitch class pc -> pc + shift
        key = self.keys[idx]
        key = (key // 12) * 12 + (key % 12 + shift) % 12
        return frames, key, estimate_key(frames)

    def __getitems__(self, indices):
        return [self._item(i) for i in indices]

    def __getitem__(self, idx):
        return self._item(idx)


@dataclasses.dataclass
class ChromaBatch:
    chroma: torch.Tensor        # (B, 12, T)
    key: torch.Tensor           # (B,)
    template_key: torch.Tensor  # (B,) Krumhansl-Schmuckler estimate


def collate(items):
    frames, keys, est = zip(*items)
    chroma = torch.tensor(frames, dtype=torch.float32).transpose(1, 2).contiguous()
    return ChromaBatch(chroma, torch.tensor(keys), torch.tensor(est))


class KeyNet(nn.Module):
    def __init__(self, hidden=32, n_keys=24):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(12, hidden, 3, padding=1), nn.ReLU(),
                                  nn.Conv1d(hidden, hidden, 3, padding=1), nn.ReLU())
        self.fc = nn.Linear(hidden, n_keys)

    def forward(self, x):
        return self.fc(self.conv(x).mean(-1))


class Trainer:
    def __init__(self, model, loader, cfg, meter):
        self.model, self.loader, self.meter = model, loader, meter
        t = cfg["train"]
        self.epochs = t["epochs"]
        self.optimizer = torch.optim.SGD(model.parameters(), lr=t["lr"], momentum=t["momentum"], nesterov=True)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=self.epochs * len(loader))
        self.criterion = nn.CrossEntropyLoss(label_smoothing=t["label_smoothing"])
        self.stats = {"template_hits": 0, "model_hits": 0, "seen": 0}

    def training_step(self, batch):
        logits = self.model(batch.chroma)
        loss = self.criterion(logits, batch.key)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.scheduler.step()
        self.stats["model_hits"] += int((logits.argmax(1) == batch.key).sum())
        self.stats["template_hits"] += int((batch.template_key == batch.key).sum())
        self.stats["seen"] += len(batch.key)
        return loss

    def fit(self):
        for epoch in range(self.epochs):
            self.model.train()
            for batch in self.loader:
                self.meter.batch(vars(batch))
                loss = self.training_step(batch)
                self.meter.step(loss)
                if self.meter.done():
                    return
            s = self.stats
            print(f"epoch {epoch} loss {loss.item():.4f} model acc {s['model_hits'] / s['seen']:.3f} "
                  f"template acc {s['template_hits'] / s['seen']:.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="chroma.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    dataset = KeyClipDataset(cfg, cfg["seed"])
    loader = DataLoader(dataset, batch_size=cfg["loader"]["batch_size"], shuffle=True,
                        num_workers=cfg["loader"]["num_workers"], drop_last=True, collate_fn=collate,
                        generator=torch.Generator().manual_seed(cfg["seed"]))
    meter = evalkit.Meter()
    trainer = Trainer(KeyNet(), loader, cfg, meter)
    trainer.fit()
    s = trainer.stats
    meter.report(extra={k: v for k, v in s.items()} | {"lr_final": trainer.scheduler.get_last_lr()[0]})


if __name__ == "__main__":
    main()
