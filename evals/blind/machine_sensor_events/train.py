import argparse
import json
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import evalkit
from data import SensorWindows, simulate_recording


class EventNet(nn.Module):
    def __init__(self, channels, n_classes=4):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(channels, 16, 7, stride=2), nn.ReLU(),
            nn.Conv1d(16, 32, 5, stride=2), nn.ReLU(),
            nn.AdaptiveMaxPool1d(1), nn.Flatten(), nn.Linear(32, n_classes))

    def forward(self, x):
        return self.net(x)


def main(config_path):
    with open(config_path) as fh:
        C = json.load(fh)
    random.seed(C["seed"])
    np.random.seed(C["seed"])
    torch.manual_seed(C["seed"])
    torch.set_num_threads(1)

    sig, lab = simulate_recording(C["series"]["channels"], C["series"]["length"],
                                  C["series"]["event_rate"], C["seed"])
    w = C["window"]
    ds = SensorWindows(sig, lab, w["size"], w["stride"], w["clip"])
    loader = torch.utils.data.DataLoader(ds, batch_size=C["loader"]["batch_size"], shuffle=True,
                                         num_workers=C["loader"]["num_workers"],
                                         generator=torch.Generator().manual_seed(C["seed"]))
    model = EventNet(C["series"]["channels"])
    opt = torch.optim.RMSprop(model.parameters(), lr=C["optimizer"]["lr"])

    meter = evalkit.Meter()
    n_correct = n_total = 0
    event_hits = 0
    i = 0
    for _epoch in range(C["optimizer"]["epochs"]):
        for xb, yb in loader:
            meter.batch([xb, yb])
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            pred = logits.argmax(dim=1)
            n_correct += (pred == yb).sum().item()
            n_total += len(yb)
            event_hits += ((pred == yb) & (yb > 0)).sum().item()
            i += 1
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break
    print(f"{i} steps, acc {n_correct / max(n_total, 1):.3f}")
    meter.report(extra={"correct": n_correct, "total": n_total, "event_hits": event_hits})


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    main(p.parse_args().config)
