"""Train a tiny lesion / no-lesion classifier on simulated B-mode frames.

    python train.py --config bmode.yaml
"""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset

import evalkit
import us_transforms as T


def simulate_frame(rng, depth, lines, atten_db_per_sample):
    """Envelope of a linear-array acquisition: Rayleigh speckle over an echogenicity map, depth attenuation,
    optionally one anechoic cyst; quantised to uint16 counts like the scanner's output."""
    echo = np.ones((depth, lines))
    # a few bright specular layers (fascia)
    for _ in range(rng.integers(1, 4)):
        d0 = rng.integers(10, depth - 10)
        echo[d0:d0 + rng.integers(2, 5)] *= rng.uniform(2.0, 4.0)
    has_cyst = bool(rng.random() < 0.5)
    if has_cyst:
        cz, cx = rng.uniform(0.25, 0.8) * depth, rng.uniform(0.2, 0.8) * lines
        rz, rx = rng.uniform(10, 24), rng.uniform(6, 14)
        zz, xx = np.mgrid[0:depth, 0:lines]
        inside = ((zz - cz) / rz) ** 2 + ((xx - cx) / rx) ** 2 < 1.0
        echo[inside] *= 0.08
    iq = rng.normal(size=(depth, lines)) + 1j * rng.normal(size=(depth, lines))
    att = 10.0 ** (-atten_db_per_sample * np.arange(depth) / 20.0)[:, None]
    env = np.abs(iq) * np.sqrt(echo) * att * 9000.0
    return np.clip(env, 0, 65535).astype(np.uint16), int(has_cyst)


class BModeDataset(Dataset):
    def __init__(self, cfg, seed, transform=None):
        rng = np.random.default_rng(seed)
        d = cfg["data"]
        cm_per_sample = d["sound_speed"] * 100.0 / (2.0 * d["sample_rate_mhz"] * 1e6) * 4
        self.cm_per_sample = cm_per_sample
        atten = d["attenuation_db_cm"] * 5.0 * 2.0 * cm_per_sample  # ~5 MHz, round trip
        self.frames, self.labels = [], []
        for _ in range(d["num_frames"]):
            env, label = simulate_frame(rng, d["depth_samples"], d["scan_lines"], atten)
            self.frames.append(env)
            self.labels.append(label)
        self.transform = transform

    def __len__(self):
        return len(self.frames)

    def __getitem__(self, idx):
        frame = self.frames[idx]
        if self.transform is not None:
            frame = self.transform(frame)
        return frame, self.labels[idx]


class SpeckleNet(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 5, stride=2, padding=2)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.head = nn.Linear(16, n_classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.head(x.mean(dim=(2, 3)))


def build_transform(cfg, cm_per_sample):
    t = cfg["transforms"]
    return T.Compose([
        T.LogCompress(t["dynamic_range_db"]),
        T.TimeGainCompensation(t["tgc_db_per_cm"], cm_per_sample, t["dynamic_range_db"]),
        T.RandomDepthCrop(t["crop_depth"]),
        T.RandomLateralFlip(t["flip_p"]),
        T.SpeckleMedian3x3(),
        T.Standardize(0.45, 0.2),
        T.ToTensor(),
    ])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="bmode.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    dataset = BModeDataset(cfg, seed)
    dataset.transform = build_transform(cfg, dataset.cm_per_sample)
    lc = cfg["loader"]
    loader = DataLoader(dataset, batch_size=lc["batch_size"], shuffle=lc["shuffle"],
                        num_workers=lc["num_workers"], drop_last=True,
                        generator=torch.Generator().manual_seed(seed))

    model = SpeckleNet()
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["train"]["lr"],
                            weight_decay=cfg["train"]["weight_decay"])
    meter = evalkit.Meter()
    correct = seen = 0
    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        for frames, labels in loader:
            meter.batch((frames, labels))
            logits = model(frames)
            loss = F.cross_entropy(logits, labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((logits.argmax(1) == labels).sum())
            seen += labels.numel()
            if meter.done():
                break
        if meter.done():
            break
        print(f"epoch {epoch} running acc {correct / max(seen, 1):.3f}", flush=True)
    meter.report({"train_acc": round(correct / max(seen, 1), 6), "frames_seen": seen})


if __name__ == "__main__":
    main()
