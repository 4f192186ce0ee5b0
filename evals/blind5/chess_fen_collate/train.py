"""Probe: predict the material-balance bucket of a chess position from its FEN."""
import argparse
import tomllib
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from chessenc import encode_fen, mirror
from evalkit import Meter
from positions import make_positions

Batch = namedtuple("Batch", ["planes", "meta", "label"])


class FenDataset(Dataset):
    def __init__(self, n, seed):
        self.fens, self.labels = make_positions(n, seed)

    def __len__(self):
        return len(self.fens)

    def __getitem__(self, idx):
        return self.fens[idx], self.labels[idx]


class FenCollate:
    """Encodes the FEN strings of a batch; random colour flip per position."""

    def __init__(self, seed, flip_prob):
        self.gen = torch.Generator()
        self.gen.manual_seed(seed)
        self.flip_prob = flip_prob

    def __call__(self, samples):
        flips = (torch.rand(len(samples), generator=self.gen) < self.flip_prob).tolist()
        planes, metas, labels = [], [], []
        for (fen, label), flip in zip(samples, flips):
            p, m = encode_fen(fen)
            if flip:
                p, m = mirror(p, m)
                label = 4 - label
            planes.append(p)
            metas.append(m)
            labels.append(label)
        return Batch(torch.tensor(planes), torch.tensor(metas), torch.tensor(labels))


class BoardNet(nn.Module):
    def __init__(self, channels, hidden):
        super().__init__()
        self.conv1 = nn.Conv2d(14, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.fc = nn.Linear(channels * 64 + 6, hidden)
        self.out = nn.Linear(hidden, 5)

    def forward(self, planes, meta):
        x = F.relu(self.conv1(planes))
        x = F.relu(self.conv2(x))
        x = torch.cat([x.flatten(1), meta], dim=1)
        return self.out(F.relu(self.fc(x)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)

    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    ds = FenDataset(cfg["data"]["positions"], cfg["seed"])
    g = torch.Generator()
    g.manual_seed(cfg["seed"] + 1)
    loader = DataLoader(ds, batch_size=cfg["loader"]["batch_size"], shuffle=True, drop_last=True,
                        num_workers=cfg["loader"]["num_workers"], generator=g,
                        collate_fn=FenCollate(cfg["seed"] + 2, cfg["data"]["flip_prob"]))
    model = BoardNet(cfg["model"]["channels"], cfg["model"]["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    meter = Meter()

    max_steps = cfg["optim"]["max_steps"]
    step, epoch = 0, 0
    it = iter(loader)
    log = {"step": [], "loss": [], "acc": []}
    while step < max_steps:
        try:
            batch = next(it)
        except StopIteration:
            epoch += 1
            it = iter(loader)
            continue
        meter.batch(batch)
        logits = model(batch.planes, batch.meta)
        loss = F.cross_entropy(logits, batch.label)
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        step += 1
        if step % cfg["optim"]["log_interval"] == 0:
            acc = (logits.argmax(1) == batch.label).float().mean().item()
            log["step"].append(step)
            log["loss"].append(round(loss.item(), 6))
            log["acc"].append(acc)
            print(f"step {step} epoch {epoch} loss {loss.item():.4f} acc {acc:.3f}")
        if meter.done():
            break
    meter.report(extra=log)


if __name__ == "__main__":
    main()
