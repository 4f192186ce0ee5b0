"""Train a small CNN on slant-range corrected side-scan swaths.

    python train.py --config sonar.yaml
"""
import argparse

import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from sidescan.dataset import SwathDataset
from sidescan.model import TextureNet
from sidescan.synth import CLASSES


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += int((model(x).argmax(1) == y).sum())
            total += len(y)
    model.train()
    return correct / max(total, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="sonar.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    seed = cfg["seed"]
    torch.set_num_threads(cfg.get("threads", 1))
    torch.manual_seed(seed)
    tcfg = cfg["train"]
    train_set = SwathDataset(cfg, seed, tcfg["swaths"], augment=True)
    val_set = SwathDataset(cfg, seed + 100, tcfg["val_swaths"], augment=False)
    g = torch.Generator().manual_seed(seed)
    train_loader = DataLoader(train_set, batch_size=tcfg["batch_size"], shuffle=True,
                              num_workers=0, generator=g, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=tcfg["batch_size"], num_workers=0)

    model = TextureNet(len(CLASSES))
    opt = torch.optim.AdamW(model.parameters(), lr=tcfg["lr"], weight_decay=tcfg["weight_decay"])
    meter = Meter()
    step = 0
    for epoch in range(tcfg["epochs"]):
        running, seen = 0.0, 0
        for x, y in train_loader:
            meter.batch((x, y))
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            running += loss.item()
            seen += 1
            step += 1
            if meter.done():
                break
        print(f"epoch {epoch} mean loss {running / max(seen, 1):.4f}")
        if meter.done():
            break
    acc = evaluate(model, val_loader)
    print(f"val acc {acc:.3f}")
    meter.report({"val_acc": acc, "steps": step})


if __name__ == "__main__":
    main()
