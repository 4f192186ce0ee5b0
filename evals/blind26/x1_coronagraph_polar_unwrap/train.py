"""Train a small CME detector on polar-unwrapped synthetic coronagraph frames."""
import argparse

import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from lasco.dataset import CoronagraphPolarDataset


class PolarCNN(nn.Module):
    def __init__(self, channels):
        super().__init__()
        layers, cin = [], 1
        for cout in channels:
            stride = 2 if cin == 1 else 1
            layers += [nn.Conv2d(cin, cout, 3, stride=stride, padding=1), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2)]
            cin = cout
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(cin, 2)

    def forward(self, x):
        return self.head(self.features(x).mean(dim=(2, 3)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="coronagraph.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    torch.set_num_threads(cfg["num_threads"])
    torch.manual_seed(cfg["seed"])
    ds = CoronagraphPolarDataset(cfg, cfg["seed"])
    tcfg = cfg["train"]
    gen = torch.Generator().manual_seed(cfg["seed"])
    loader = DataLoader(ds, batch_size=tcfg["batch_size"], shuffle=True, num_workers=0,
                        drop_last=True, generator=gen)
    model = PolarCNN(cfg["model"]["channels"])
    opt = torch.optim.AdamW(model.parameters(), lr=tcfg["lr"], weight_decay=tcfg["weight_decay"])
    loss_fn = nn.CrossEntropyLoss()
    meter = Meter()
    correct = seen = 0
    for epoch in range(tcfg["epochs"]):
        ds.set_epoch(epoch)
        model.train()
        for x, y in loader:
            meter.batch((x, y))
            logits = model(x)
            loss = loss_fn(logits, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((logits.argmax(1) == y).sum())
            seen += len(y)
            if meter.done():
                break
        print(f"epoch {epoch} loss {loss.item():.4f} acc {correct / max(seen, 1):.3f}")
        if meter.done():
            break
    meter.report({"train_acc": round(correct / max(seen, 1), 4)})


if __name__ == "__main__":
    main()
