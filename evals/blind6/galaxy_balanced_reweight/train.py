import argparse
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, TensorDataset

import evalkit


def make_catalogue(cfg):
    rng = np.random.default_rng(cfg["seed"])
    ratios = np.array(cfg["class_counts_ratio"]) / np.sum(cfg["class_counts_ratio"])
    labels = rng.choice(len(ratios), size=cfg["n_galaxies"], p=ratios)
    centers = rng.normal(0, 1.5, size=(len(ratios), cfg["n_features"]))
    feats = centers[labels] + rng.normal(0, 1.0, size=(cfg["n_galaxies"], cfg["n_features"]))
    mags = feats[:, :5]
    colors = mags[:, :-1] - mags[:, 1:]  # u-g, g-r, r-i, i-z
    x = np.concatenate([feats, colors], axis=1).astype(np.float32)
    x = (x - x.mean(0)) / x.std(0)
    return torch.from_numpy(x), torch.from_numpy(labels.astype(np.int64))


def class_balanced_weights(labels, num_classes, beta):
    """Per-class weights (1 - beta) / (1 - beta ** n_c), normalised to sum to num_classes."""
    counts = [0] * num_classes
    for y in labels:
        counts[y] += 1
    weights = []
    for n in counts:
        effective = (1.0 - math.pow(beta, n)) / (1.0 - beta) if n > 0 else 1.0
        weights.append(1.0 / effective)
    total = sum(weights)
    return [w * num_classes / total for w in weights]


class MLP(nn.Module):
    def __init__(self, d_in, hidden, n_out, dropout):
        super().__init__()
        layers, d = [], d_in
        for h in hidden:
            layers += [nn.Linear(d, h), nn.GELU(), nn.Dropout(dropout)]
            d = h
        layers.append(nn.Linear(d, n_out))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="hparams.yaml")
    cfg = yaml.safe_load(open(ap.parse_args().config))
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    x, y = make_catalogue(cfg)
    train_set = TensorDataset(x, y)
    loader = DataLoader(train_set, batch_size=cfg["batch_size"], shuffle=True,
                        generator=torch.Generator().manual_seed(cfg["seed"]))
    num_classes = len(cfg["class_names"])
    model = MLP(x.shape[1], cfg["hidden"], num_classes, cfg["dropout"])
    optim = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    meter = evalkit.Meter()

    step = 0
    logs = []
    for epoch in range(cfg["epochs"]):
        model.train()
        for xb, yb in loader:
            meter.batch((xb, yb))
            # class-balanced weighting from the label distribution of the training set
            labels = [int(t) for _, t in train_set]
            weights = torch.tensor(class_balanced_weights(labels, num_classes, cfg["cb_beta"]),
                                   dtype=torch.float32)
            logits = model(xb)
            loss = F.cross_entropy(logits, yb, weight=weights)
            optim.zero_grad()
            loss.backward()
            optim.step()
            meter.step(loss)
            step += 1
            if step % cfg["log_every"] == 0:
                pred = logits.argmax(1)
                recall = [((pred == c) & (yb == c)).sum().item() / max((yb == c).sum().item(), 1)
                          for c in range(num_classes)]
                logs.append({"step": step, "loss": round(loss.item(), 6),
                             "balanced_recall": round(sum(recall) / num_classes, 6)})
                print(logs[-1], flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"logs": logs, "class_weights": [round(w, 6) for w in weights.tolist()]})


if __name__ == "__main__":
    main()
