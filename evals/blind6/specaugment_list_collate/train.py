"""Small keyword-spotting model (1-D conv over mel channels) with SpecAugment in the collate."""
import argparse
import tomllib
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit


def synth_logmels(n, n_mels, min_frames, max_frames, n_keywords, seed):
    rng = np.random.default_rng(seed)
    templates = rng.normal(0.0, 1.0, size=(n_keywords, n_mels, 24)).astype(np.float32)
    utts, labels = [], []
    for i in range(n):
        k = i % n_keywords
        frames = int(rng.integers(min_frames, max_frames + 1))
        idx = np.linspace(0, 23, frames).round().astype(int)
        spec = templates[k][:, idx] * rng.uniform(0.7, 1.3) + rng.normal(0, 0.8, size=(n_mels, frames))
        utts.append(spec.astype(np.float32))
        labels.append(k)
    return utts, labels


@dataclass
class KwsBatch:
    feats: torch.Tensor
    lengths: torch.Tensor
    labels: torch.Tensor


class SpecAugmentCollate:
    """Pad to the longest utterance, then zero `freq_masks` mel bands and `time_masks` frame spans."""

    def __init__(self, cfg, generator):
        self.freq_masks = cfg["freq_masks"]
        self.freq_width = cfg["freq_width"]
        self.time_masks = cfg["time_masks"]
        self.time_width = cfg["time_width"]
        self.g = generator

    def _randint(self, high):
        return int(torch.randint(0, high, (1,), generator=self.g))

    def __call__(self, samples):
        max_t = max(spec.shape[1] for spec, _ in samples)
        feats, lengths, labels = [], [], []
        for spec, label in samples:
            n_mels, t = spec.shape
            rows = [row + [0.0] * (max_t - t) for row in spec.tolist()]
            for _ in range(self.freq_masks):
                width = self._randint(self.freq_width + 1)
                f0 = self._randint(n_mels - width + 1)
                for f in range(f0, f0 + width):
                    for j in range(max_t):
                        rows[f][j] = 0.0
            for _ in range(self.time_masks):
                width = self._randint(self.time_width + 1)
                t0 = self._randint(t - width + 1)
                for row in rows:
                    for j in range(t0, t0 + width):
                        row[j] = 0.0
            feats.append(rows)
            lengths.append(t)
            labels.append(label)
        return KwsBatch(torch.tensor(feats, dtype=torch.float32), torch.tensor(lengths), torch.tensor(labels))


class KwsNet(nn.Module):
    def __init__(self, n_mels, n_classes):
        super().__init__()
        self.conv1 = nn.Conv1d(n_mels, 48, 3, stride=2, padding=1)
        self.conv2 = nn.Conv1d(48, 48, 3, stride=2, padding=1)
        self.out = nn.Linear(48, n_classes)

    def forward(self, x, lengths):
        h = F.relu(self.conv1(x))
        h = F.relu(self.conv2(h))
        valid = (torch.arange(h.shape[-1]) < ((lengths + 3) // 4).unsqueeze(1)).float()
        h = (h * valid.unsqueeze(1)).sum(-1) / valid.sum(-1, keepdim=True)
        return self.out(h)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="kws.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    fc = cfg["features"]
    utts, labels = synth_logmels(fc["utterances"], fc["n_mels"], fc["min_frames"], fc["max_frames"],
                                 fc["keywords"], cfg["seed"])
    dataset = list(zip(utts, labels))
    collate = SpecAugmentCollate(cfg["specaugment"], torch.Generator().manual_seed(cfg["seed"] + 1))
    loader = DataLoader(dataset, batch_size=cfg["train"]["batch_size"], shuffle=True, collate_fn=collate,
                        drop_last=True, generator=torch.Generator().manual_seed(cfg["seed"]))

    model = KwsNet(fc["n_mels"], fc["keywords"])
    opt = torch.optim.SGD(model.parameters(), lr=cfg["train"]["lr"] * 10, momentum=0.9, nesterov=True)
    meter = evalkit.Meter()
    max_steps = cfg["train"]["max_steps"]
    step, log = 0, []
    it = iter(loader)
    while step < max_steps and not meter.done():
        try:
            batch = next(it)
        except StopIteration:
            it = iter(loader)
            continue
        meter.batch(batch.__dict__)
        logits = model(batch.feats, batch.lengths)
        loss = F.cross_entropy(logits, batch.labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        meter.step(loss)
        step += 1
        if step % cfg["train"]["log_interval"] == 0:
            acc = (logits.argmax(-1) == batch.labels).float().mean().item()
            log.append({"step": step, "loss": round(loss.item(), 5), "acc": round(acc, 5)})
            print(log[-1], flush=True)
    meter.report(extra={"log": log})


if __name__ == "__main__":
    main()
