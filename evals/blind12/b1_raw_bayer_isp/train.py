"""Train a small CNN on RAW captures developed by a minimal ISP (WB -> bilinear demosaic -> sRGB)."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset

import evalkit
from rawio import pack_raw, simulate_capture, synth_scene, unpack_raw
from transforms import BilinearDemosaic, Compose, RandomCrop, RandomHFlip, SRGBGamma, ToTensor, WhiteBalance


class RawSceneDataset(Dataset):
    def __init__(self, blobs, labels, transform):
        self.blobs = blobs
        self.labels = labels
        self.transform = transform

    def __len__(self):
        return len(self.blobs)

    def __getitem__(self, idx):
        raw, meta = unpack_raw(self.blobs[idx])
        return self.transform({"raw": raw, "meta": meta, "label": self.labels[idx]})


def build_captures(cfg, rng):
    d = cfg["data"]
    blobs, labels = [], []
    for i in range(d["num_frames"]):
        label = i % cfg["model"]["num_classes"]
        rgb = synth_scene(rng, label, d["frame_size"])
        mosaic, wb = simulate_capture(rng, rgb, d["black_level"], d["white_level"], d["cfa"])
        blobs.append(pack_raw(mosaic, d["black_level"], d["white_level"], d["cfa"], wb))
        labels.append(label)
    return blobs, labels


class SceneNet(nn.Module):
    def __init__(self, width, num_classes):
        super().__init__()
        self.c1 = nn.Conv2d(3, width, 3, stride=2, padding=1)
        self.c2 = nn.Conv2d(width, 2 * width, 3, stride=2, padding=1)
        self.head = nn.Linear(2 * width, num_classes)

    def forward(self, x):
        x = F.relu(self.c1(x))
        x = F.relu(self.c2(x))
        return self.head(x.mean(dim=(2, 3)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    blobs, labels = build_captures(cfg, np.random.default_rng(seed))
    aug_rng = np.random.default_rng(seed + 1)
    d = cfg["data"]
    transform = Compose([
        RandomCrop(d["crop"], aug_rng),
        WhiteBalance(),
        BilinearDemosaic(),
        SRGBGamma(),
        RandomHFlip(d["hflip_p"], aug_rng),
        ToTensor(),
    ])
    dataset = RawSceneDataset(blobs, labels, transform)
    lc = cfg["loader"]
    loader = DataLoader(dataset, batch_size=lc["batch_size"], shuffle=lc["shuffle"],
                        num_workers=lc["num_workers"], drop_last=lc["drop_last"],
                        generator=torch.Generator().manual_seed(seed))

    model = SceneNet(cfg["model"]["width"], cfg["model"]["num_classes"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
    meter = evalkit.Meter()
    correct = seen = 0
    for epoch in range(cfg["optim"]["epochs"]):
        model.train()
        for images, targets in loader:
            meter.batch((images, targets))
            logits = model(images)
            loss = F.cross_entropy(logits, targets)
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += int((logits.argmax(1) == targets).sum())
            seen += targets.numel()
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"train_acc": correct / max(seen, 1), "epochs_started": epoch + 1})


if __name__ == "__main__":
    main()
