import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, TensorDataset

import evalkit
from beats import SYMBOLS, make_beats
from calibration import RollingCalibration


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--cfg", required=True)
    p.add_argument("--opts", nargs="*", default=[], help="dotted overrides, e.g. train.lr=0.001")
    a = p.parse_args()
    with open(a.cfg) as fh:
        cfg = yaml.safe_load(fh)
    for item in a.opts:
        key, value = item.split("=", 1)
        node = cfg
        *parents, leaf = key.split(".")
        for k in parents:
            node = node[k]
        node[leaf] = yaml.safe_load(value)
    return cfg


class BeatNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, 16, 9, stride=4, padding=4), nn.ReLU(),
            nn.Conv1d(16, 32, 5, stride=2, padding=2), nn.ReLU(),
            nn.AdaptiveMaxPool1d(4), nn.Flatten(),
        )
        self.classifier = nn.Linear(128, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x))


def main():
    cfg = get_args()
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    d, tr, mc = cfg["data"], cfg["train"], cfg["metrics"]
    x, y = make_beats(d["beats"], d["beat_len"], d["class_mix"], cfg["seed"])
    loader = DataLoader(TensorDataset(x, y), batch_size=tr["batch_size"], shuffle=True,
                        generator=torch.Generator().manual_seed(cfg["seed"]))
    model = BeatNet(len(SYMBOLS))
    opt = torch.optim.Adam(model.parameters(), lr=tr["lr"])
    calib = RollingCalibration(len(SYMBOLS), mc["n_bins"], mc["window"])

    meter = evalkit.Meter()
    curve = []
    step = 0
    for epoch in range(tr["epochs"]):
        for xb, yb in loader:
            meter.batch((xb, yb))
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1

            probs = torch.softmax(logits.detach(), dim=1)
            calib.update(probs.tolist(), yb.tolist())
            stats = calib.compute()
            curve.append([stats["ece"], stats["cw_ece"], stats["brier"], stats["accuracy"]])
            if step % 20 == 0:
                rec = " ".join(f"{c}:{r:.2f}" for c, r in zip(SYMBOLS, stats["recall"]) if not math.isnan(r))
                print(f"step {step} loss {loss.item():.4f} ece {stats['ece']:.4f} brier {stats['brier']:.4f} {rec}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"curve": curve, "recall": [None if math.isnan(r) else r for r in stats["recall"]]})


if __name__ == "__main__":
    main()
