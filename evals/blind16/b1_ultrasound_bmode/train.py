"""Train a tiny B-mode tissue classifier on simulated ultrasound frames.

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
from transforms import (Compose, LogCompression, RandomDepthCrop, SpeckleMedian3x3,
                        TimeGainCompensation, ToTensor)


def simulate_envelope(rng, depth, lines, tissue):
    """Rayleigh speckle over a tissue-dependent echogenicity map, attenuated with depth, as uint16 counts."""
    z = np.linspace(0.0, 1.0, depth)[:, None]
    x = np.linspace(-1.0, 1.0, lines)[None, :]
    echo = np.full((depth, lines), 1.0)
    if tissue == 1:  # hypoechoic cyst
        cz, cx, r = rng.uniform(0.3, 0.7), rng.uniform(-0.5, 0.5), rng.uniform(0.12, 0.25)
        echo[((z - cz) ** 2 + (x - cx) ** 2 * 0.25) < r * r] = 0.08
    elif tissue == 2:  # layered muscle with bright fascia
        for _ in range(rng.integers(3, 6)):
            zz = rng.uniform(0.1, 0.9)
            echo[np.abs(z[:, 0] - zz) < 0.015, :] = 4.0
    speckle = rng.rayleigh(1.0, size=(depth, lines))
    atten = np.exp(-2.2 * z)
    env = echo * speckle * atten * 9000.0 + rng.normal(0.0, 25.0, size=(depth, lines))
    return np.clip(env, 0, 65535).astype(np.uint16)


class BModeDataset(Dataset):
    def __init__(self, num_frames, depth, lines, transform, seed):
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, 3, size=num_frames).tolist()
        self.frames = [simulate_envelope(rng, depth, lines, t) for t in self.labels]
        self.transform = transform

    def __len__(self):
        return len(self.frames)

    def __getitem__(self, idx):
        return self.transform(self.frames[idx]), self.labels[idx]


class TinyBModeNet(nn.Module):
    def __init__(self, channels, num_classes):
        super().__init__()
        c1, c2 = channels
        self.conv1 = nn.Conv2d(1, c1, 3, padding=1)
        self.conv2 = nn.Conv2d(c1, c2, 3, padding=1, stride=2)
        self.head = nn.Linear(c2, num_classes)

    def forward(self, x):
        x = F.avg_pool2d(x, 2)  # 224x128 -> 112x64 before the convs
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        return self.head(x.mean(dim=(2, 3)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="bmode.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    d, ld, tr = cfg["data"], cfg["loader"], cfg["train"]
    aug_gen = torch.Generator().manual_seed(seed + 1)
    transform = Compose([
        LogCompression(d["dynamic_range_db"]),
        TimeGainCompensation(d["tgc_db_per_cm"], d["depth_cm"], d["tgc_jitter_db"], generator=aug_gen),
        SpeckleMedian3x3(),
        RandomDepthCrop(d["crop_depth"], generator=aug_gen),
        ToTensor(),
    ])
    ds = BModeDataset(d["num_frames"], d["depth_samples"], d["scan_lines"], transform, seed)
    loader = DataLoader(ds, batch_size=ld["batch_size"], shuffle=ld["shuffle"], num_workers=ld["num_workers"],
                        drop_last=ld["drop_last"], generator=torch.Generator().manual_seed(seed + 2))

    model = TinyBModeNet(cfg["model"]["channels"], cfg["model"]["num_classes"])
    opt = torch.optim.AdamW(model.parameters(), lr=tr["lr"], weight_decay=tr["weight_decay"])
    meter = evalkit.Meter()

    seen = correct = 0
    for epoch in range(tr["epochs"]):
        model.train()
        for images, labels in loader:
            meter.batch((images, labels))
            logits = model(images)
            loss = F.cross_entropy(logits, labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            seen += labels.numel()
            correct += int((logits.argmax(1) == labels).sum())
            if meter.done():
                break
        print(f"epoch {epoch}: last loss {meter.losses[-1]:.4f}")
        if meter.done():
            break
    meter.report({"train_acc": round(correct / max(seen, 1), 6), "epochs_run": epoch + 1, "last_batch_mean": float(images.mean())})


if __name__ == "__main__":
    main()
