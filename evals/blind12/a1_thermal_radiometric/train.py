"""Train a small CNN on radiometric thermal frames (object-presence classification)."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset

import evalkit
from thermal import (CameraCalibration, Compose, DecodeRaw, Normalize, RadiometricCalibration,
                     RandomCrop, RandomHorizontalFlip, ReplaceDeadPixels, ToTensor, synthesize_sequence)


class ThermalFrames(Dataset):
    def __init__(self, frames, labels, transform):
        self.frames, self.labels, self.transform = frames, labels, transform

    def __len__(self):
        return len(self.frames)

    def __getitem__(self, idx):
        sample = self.transform({"raw": self.frames[idx]})
        return sample["image"], self.labels[idx], sample["n_fixed"]


class SmallThermalNet(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.c1 = nn.Conv2d(1, 8, 5, stride=2, padding=2)
        self.c2 = nn.Conv2d(8, 16, 3, padding=1)
        self.c3 = nn.Conv2d(16, 24, 3, padding=1)
        self.head = nn.Linear(24, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = F.relu(self.c3(x))
        return self.head(x.mean(dim=(2, 3)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="thermal.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    d = cfg["data"]
    calib = CameraCalibration.factory(d["height"], d["width"], np.random.default_rng(seed))
    frames, labels = synthesize_sequence(d["n_frames"], d["height"], d["width"], calib, seed + 1)

    aug_gen = torch.Generator().manual_seed(seed + 2)
    transform = Compose([
        DecodeRaw(),
        RadiometricCalibration(calib),
        ReplaceDeadPixels(),
        ToTensor(),
        RandomCrop(tuple(d["crop"]), aug_gen),
        RandomHorizontalFlip(d["hflip_p"], aug_gen),
        Normalize(d["mean_c"], d["std_c"]),
    ])
    ds = ThermalFrames(frames, labels, transform)
    lc = cfg["loader"]
    loader = DataLoader(ds, batch_size=lc["batch_size"], shuffle=lc["shuffle"], num_workers=lc["num_workers"],
                        drop_last=lc["drop_last"], generator=torch.Generator().manual_seed(seed + 3))

    model = SmallThermalNet()
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
    meter = evalkit.Meter()
    fixed_total, correct, seen = 0, 0, 0
    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        for images, targets, n_fixed in loader:
            meter.batch((images, targets, n_fixed))
            logits = model(images)
            loss = F.cross_entropy(logits, targets)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            fixed_total += int(n_fixed.sum())
            correct += int((logits.argmax(1) == targets).sum())
            seen += len(targets)
            if meter.steps % cfg["train"]["log_every"] == 0:
                print(f"epoch {epoch} step {meter.steps} loss {loss.item():.4f}", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"pixels_replaced": fixed_total, "train_acc": round(correct / max(seen, 1), 6)})


if __name__ == "__main__":
    main()
