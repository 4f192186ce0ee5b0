"""Train a small CNN to classify flattened OCT B-scans (normal / drusen / CNV / DME)."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
from octflat import (BScanDataset, Compose, DetectLayer, FlattenToLayer, RandomCrop,
                     RandomSpeckle, ToFloat, ToTensor, collate_bscans)
from octflat.data import CLASSES


class RetinaNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d((4, 4)),
        )
        self.head = nn.Linear(16 * 16 + 1, n_classes)

    def forward(self, image, layer_range):
        h = self.features(image).flatten(1)
        return self.head(torch.cat([h, layer_range[:, None]], dim=1))


def build_transform(cfg):
    t = cfg["transforms"]
    return Compose([
        ToFloat(),
        RandomSpeckle(t["speckle_sigma"], tuple(t["gain"])),
        DetectLayer(t["smooth_sigma"], t["smooth_radius"], t["min_row"], t["max_row"],
                    t["median_width"]),
        FlattenToLayer(t["target_row"]),
        RandomCrop(t["crop"]),
        ToTensor(),
    ])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="oct.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    d = cfg["data"]
    dataset = BScanDataset(d["n_scans"], d["depth"], d["width"], seed, build_transform(cfg))
    lc = cfg["loader"]
    loader = DataLoader(dataset, batch_size=lc["batch_size"], shuffle=lc["shuffle"],
                        num_workers=lc["num_workers"], drop_last=lc["drop_last"],
                        collate_fn=collate_bscans,
                        generator=torch.Generator().manual_seed(seed))

    model = RetinaNet(len(CLASSES))
    oc = cfg["optim"]
    opt = torch.optim.AdamW(model.parameters(), lr=oc["lr"], weight_decay=oc["weight_decay"])
    meter = evalkit.Meter()

    correct = seen = 0
    for epoch in range(oc["epochs"]):
        model.train()
        for batch in loader:
            meter.batch(batch)
            layer_range = batch["layer"].max(dim=1).values.float() / d["depth"]
            logits = model(batch["image"], layer_range)
            loss = F.cross_entropy(logits, batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((logits.argmax(1) == batch["label"]).sum())
            seen += len(batch["label"])
            if meter.done():
                break
        print(f"epoch {epoch}: loss {loss.item():.4f} acc {correct / max(seen, 1):.3f}")
        if meter.done():
            break
    meter.report({"train_acc": correct / max(seen, 1), "epochs_run": epoch + 1})


if __name__ == "__main__":
    main()
