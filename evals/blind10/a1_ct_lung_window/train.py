"""Train a small CNN to flag slices with a lung nodule (image + lung-mask channels)."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
from ctlung import CTSliceDataset, build_transforms


class NoduleNet(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(2, width, 4, stride=4), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, width * 2, 3, stride=2, padding=1), nn.BatchNorm2d(width * 2), nn.ReLU(inplace=True),
            nn.Conv2d(width * 2, width * 2, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(width * 2 + 1, 2)

    def forward(self, image, lung_fraction):
        x = self.features(image).flatten(1)
        return self.head(torch.cat([x, lung_fraction[:, None]], dim=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="ct.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    dcfg = cfg["data"]
    dataset = CTSliceDataset(dcfg["n_slices"], dcfg["size"], cfg["seed"], transform=build_transforms(dcfg))
    lcfg = cfg["loader"]
    loader = DataLoader(dataset, batch_size=lcfg["batch_size"], shuffle=lcfg["shuffle"],
                        num_workers=lcfg["num_workers"], drop_last=lcfg["drop_last"],
                        generator=torch.Generator().manual_seed(cfg["seed"]))

    model = NoduleNet()
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
    meter = evalkit.Meter()
    step, correct, seen, regions = 0, 0, 0, 0
    for epoch in range(cfg["epochs"]):
        model.train()
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["image"], batch["lung_fraction"])
            loss = F.cross_entropy(logits, batch["label"])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            correct += int((logits.argmax(1) == batch["label"]).sum())
            seen += len(batch["label"])
            regions += int(batch["n_regions"].sum())
            if step % cfg["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} acc {correct / seen:.3f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"train_acc": correct / max(seen, 1), "regions_per_slice": regions / max(seen, 1)})


if __name__ == "__main__":
    main()
