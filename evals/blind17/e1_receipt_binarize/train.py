"""Train a tiny CNN to tell receipt chains apart from single binarised, deskewed print lines."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

import evalkit
from receipts import ReceiptScans, build_transform
from receipts.synth import STORES


class LineNet(nn.Module):
    def __init__(self, n_classes, width):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.head = nn.Linear(16 * 4 * (width // 4), n_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("-c", "--config", default="receipts.yaml")
    return ap.parse_args()


def main():
    args = parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    seed = cfg["seed"]
    torch.set_num_threads(1)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    dcfg, lcfg = cfg["data"], cfg["loader"]
    dataset = ReceiptScans(dcfg["n_scans"], dcfg["height"], dcfg["width"], build_transform(dcfg), seed)
    loader = DataLoader(dataset, batch_size=lcfg["batch_size"], shuffle=lcfg["shuffle"],
                        drop_last=lcfg["drop_last"], num_workers=lcfg["num_workers"],
                        generator=torch.Generator().manual_seed(seed))
    model = LineNet(STORES, dcfg["width"])
    optim = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                              weight_decay=cfg["optim"]["weight_decay"])
    loss_fn = nn.CrossEntropyLoss()
    meter = evalkit.Meter()

    step, correct, seen, lines_seen = 0, 0, 0, 0
    for epoch in range(cfg["epochs"]):
        model.train()
        for images, labels, n_lines in loader:
            meter.batch((images, labels, n_lines))
            logits = model(images)
            loss = loss_fn(logits, labels)
            optim.zero_grad(set_to_none=True)
            loss.backward()
            optim.step()
            meter.step(loss)
            step += 1
            correct += int((logits.argmax(1) == labels).sum())
            seen += labels.numel()
            lines_seen += int(n_lines.sum())
            if step % cfg["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} acc {correct / seen:.3f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"train_acc": correct / max(seen, 1), "lines_seen": lines_seen, "epochs": epoch + 1})


if __name__ == "__main__":
    main()
