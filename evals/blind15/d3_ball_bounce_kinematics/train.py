"""Classify shot type (lob / drive / smash) from smoothed ball trajectories.

    python train.py track.toml
"""
import sys
import tomllib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from balltrack import SHOT_TYPES, TrackStream


class TrajectoryCNN(nn.Module):
    def __init__(self, in_ch=8, hidden=16, n_shots=len(SHOT_TYPES), n_bounce=4):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv1d(in_ch, hidden, 5, stride=2, padding=2), nn.ReLU(),
            nn.Conv1d(hidden, hidden, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.shot_head = nn.Linear(hidden, n_shots)
        self.bounce_head = nn.Linear(hidden, n_bounce)

    def forward(self, x):
        h = self.body(x).amax(dim=-1)
        return self.shot_head(h), self.bounce_head(h)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "track.toml"
    with open(path, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.manual_seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.set_num_threads(1)

    stream = TrackStream(cfg, cfg["seed"])
    loader = DataLoader(stream, batch_size=cfg["loader"]["batch_size"], num_workers=cfg["loader"]["num_workers"])
    model = TrajectoryCNN()
    opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
    meter = evalkit.Meter()
    history = []
    for epoch in range(cfg["train"]["epochs"]):
        correct = total = 0
        for batch in loader:
            meter.batch(batch)
            shot_logits, bounce_logits = model(batch.features)
            loss = F.cross_entropy(shot_logits, batch.shot) + 0.5 * F.cross_entropy(bounce_logits, batch.bounces)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((shot_logits.argmax(1) == batch.shot).sum())
            total += batch.shot.numel()
            if meter.done():
                break
        history.append(round(correct / max(total, 1), 6))
        if meter.done():
            break
    print("shot accuracy per epoch:", history, flush=True)
    meter.report({"shot_acc_per_epoch": history})


if __name__ == "__main__":
    main()
