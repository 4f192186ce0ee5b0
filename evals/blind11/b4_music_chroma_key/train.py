"""Musical key recognition from chroma features, with a small trainer and callbacks."""
import argparse
import math
import random
import tomllib
from dataclasses import dataclass, fields

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit
from audio_features import ChromaFold, Spectrogram

MAJOR_STEPS = [0, 2, 4, 5, 7, 9, 11]
PROGRESSIONS = [[0, 3, 4, 0], [0, 5, 3, 4], [0, 4, 5, 3], [5, 3, 0, 4], [0, 3, 0, 4]]


def synth_clip(rng, key, sr, seconds):
    """A I-IV-V-style chord progression in `key`, piano-like partials, as 16-bit PCM bytes."""
    n = int(sr * seconds)
    t = np.arange(n) / sr
    out = np.zeros(n)
    prog = PROGRESSIONS[rng.integers(len(PROGRESSIONS))]
    seg = n // len(prog)
    for i, degree in enumerate(prog):
        root = key + MAJOR_STEPS[degree]
        triad = [root, root + MAJOR_STEPS[(degree + 2) % 7] - MAJOR_STEPS[degree] + (12 if degree + 2 >= 7 else 0),
                 root + MAJOR_STEPS[(degree + 4) % 7] - MAJOR_STEPS[degree] + (12 if degree + 4 >= 7 else 0)]
        octave = 48 + 12 * int(rng.integers(0, 2))
        sl = slice(i * seg, (i + 1) * seg)
        tt = t[sl] - t[i * seg]
        env = np.exp(-tt * rng.uniform(1.5, 4.0))
        for note in triad + [root - 12]:
            f0 = 440.0 * 2 ** ((octave + note - 69) / 12) * (1 + rng.normal(0, 0.002))
            for h in range(1, 6):
                out[sl] += env * (0.6 ** h) * np.sin(2 * np.pi * f0 * h * tt + rng.uniform(0, 2 * np.pi))
    out += rng.normal(0, 0.02, size=n)
    out *= 0.3 / np.max(np.abs(out))
    return (np.clip(out, -1, 1) * 32767).astype("<i2").tobytes()


class KeyClips(Dataset):
    def __init__(self, cfg, generator):
        acfg, fcfg = cfg["audio"], cfg["features"]
        rng = np.random.default_rng(cfg["seed"])
        self.sr = acfg["sample_rate"]
        self.keys = rng.integers(0, 12, size=acfg["num_clips"]).tolist()
        self.pcm = [synth_clip(rng, k, self.sr, acfg["clip_seconds"]) for k in self.keys]
        self.crop = int(acfg["crop_seconds"] * self.sr)
        self.spectrogram = Spectrogram(fcfg["n_fft"], fcfg["hop_length"])
        self.chroma = ChromaFold(self.sr, fcfg["n_fft"], fcfg["fmin"], fcfg["fmax"], fcfg["norm_eps"])
        self.generator = generator

    def __len__(self):
        return len(self.pcm)

    def __getitem__(self, idx):
        wave = torch.from_numpy(np.frombuffer(self.pcm[idx], dtype="<i2").astype(np.float32) / 32768.0)
        start = int(torch.randint(0, wave.numel() - self.crop + 1, (1,), generator=self.generator))
        gain = 0.5 + float(torch.rand(1, generator=self.generator))
        wave = wave[start:start + self.crop] * gain
        return self.chroma(self.spectrogram(wave)), self.keys[idx]


class KeyBalancedSampler(Sampler):
    """Round-robin over keys (each key's clips shuffled), so every batch mixes keys."""

    def __init__(self, keys, generator):
        self.by_key = {}
        for i, k in enumerate(keys):
            self.by_key.setdefault(k, []).append(i)
        self.generator = generator
        self.n = len(keys)

    def __iter__(self):
        queues = {k: [idxs[j] for j in torch.randperm(len(idxs), generator=self.generator).tolist()]
                  for k, idxs in sorted(self.by_key.items())}
        order = []
        while queues:
            for k in list(queues):
                order.append(queues[k].pop())
                if not queues[k]:
                    del queues[k]
        return iter(order)

    def __len__(self):
        return self.n


@dataclass
class ChromaBatch:
    chroma: torch.Tensor  # (B, 12, frames)
    key: torch.Tensor     # (B,)

    def as_dict(self):
        return {f.name: getattr(self, f.name) for f in fields(self)}


def collate_chroma(samples):
    return ChromaBatch(torch.stack([c for c, _ in samples]), torch.tensor([k for _, k in samples]))


class KeyNet(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.conv = nn.Conv1d(12, hidden, 3, padding=1)
        self.out = nn.Linear(hidden, 12)

    def forward(self, chroma):
        return self.out(F.relu(self.conv(chroma)).mean(-1))


class Callback:
    def on_batch_start(self, trainer, batch): ...
    def on_step_end(self, trainer, loss): ...
    def on_epoch_end(self, trainer): ...


class MeterCallback(Callback):
    def __init__(self, meter):
        self.meter = meter

    def on_batch_start(self, trainer, batch):
        self.meter.batch(batch.as_dict())

    def on_step_end(self, trainer, loss):
        self.meter.step(loss)
        if self.meter.done():
            trainer.should_stop = True


class PrintCallback(Callback):
    def __init__(self, every):
        self.every = every

    def on_step_end(self, trainer, loss):
        if trainer.global_step % self.every == 0:
            print(f"step {trainer.global_step} loss {loss.item():.4f}")

    def on_epoch_end(self, trainer):
        print(f"epoch {trainer.epoch} done, running acc {trainer.correct / max(trainer.seen, 1):.3f}")


class Trainer:
    def __init__(self, model, optimizer, max_epochs, callbacks=()):
        self.model, self.optimizer = model, optimizer
        self.max_epochs = max_epochs
        self.callbacks = list(callbacks)
        self.global_step = self.epoch = 0
        self.correct = self.seen = 0
        self.should_stop = False

    def _call(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def training_step(self, batch):
        logits = self.model(batch.chroma)
        self.correct += int((logits.argmax(-1) == batch.key).sum())
        self.seen += batch.key.numel()
        return F.cross_entropy(logits, batch.key)

    def fit(self, loader):
        self.model.train()
        for self.epoch in range(self.max_epochs):
            for batch in loader:
                self._call("on_batch_start", batch)
                loss = self.training_step(batch)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.global_step += 1
                self._call("on_step_end", loss)
                if self.should_stop:
                    return
            self._call("on_epoch_end")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="chroma.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    dataset = KeyClips(cfg, torch.Generator().manual_seed(seed + 1))
    sampler = KeyBalancedSampler(dataset.keys, torch.Generator().manual_seed(seed + 2))
    loader = DataLoader(dataset, batch_size=cfg["loader"]["batch_size"], sampler=sampler,
                        num_workers=cfg["loader"]["num_workers"], collate_fn=collate_chroma, drop_last=True)
    model = KeyNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["trainer"]["lr"])
    meter = evalkit.Meter()
    trainer = Trainer(model, optimizer, cfg["trainer"]["max_epochs"],
                      callbacks=[MeterCallback(meter), PrintCallback(cfg["trainer"]["log_every"])])
    trainer.fit(loader)
    meter.report({"train_acc": round(trainer.correct / max(trainer.seen, 1), 6), "steps": trainer.global_step})


if __name__ == "__main__":
    main()
