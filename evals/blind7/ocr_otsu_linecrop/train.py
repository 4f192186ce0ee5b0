#!/usr/bin/env python
"""Fixed-length serial-number OCR on synthetic gray line crops (6 characters, one head per slot)."""
import argparse
import json
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from preprocess import LineCrop

ALPHABET = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"


def make_glyphs(rng):
    """One random 7x5 bitmap per character (distinct), scaled x2 to 14x10."""
    seen = set()
    glyphs = []
    while len(glyphs) < len(ALPHABET):
        g = (rng.random((7, 5)) < 0.45).astype(np.uint8)
        g[rng.integers(0, 7), :] = 1  # a bar, so no glyph is nearly empty
        key = g.tobytes()
        if key in seen:
            continue
        seen.add(key)
        glyphs.append(np.kron(g, np.ones((2, 2), dtype=np.uint8)))
    return glyphs


def render_lines(n, height, width, n_chars, rng):
    glyphs = make_glyphs(rng)
    images = np.empty((n, height, width), dtype=np.uint8)
    labels = rng.integers(0, len(ALPHABET), size=(n, n_chars))
    for i in range(n):
        bg = rng.uniform(160, 235)
        ink = rng.uniform(15, 95)
        canvas = np.full((height, width), bg)
        canvas += np.linspace(0, rng.uniform(-30, 30), width)[None, :]  # uneven lighting
        x = int(rng.integers(2, 22))
        y = int(rng.integers(2, height - 14 - 1))
        for k in labels[i]:
            g = glyphs[k]
            region = canvas[y:y + 14, x:x + 10]
            region[g == 1] = ink + rng.normal(0, 8, size=int(g.sum()))
            x += 10 + int(rng.integers(1, 4))
        # specks and sensor noise
        specks = rng.random((height, width)) < 0.004
        canvas[specks] = rng.uniform(40, 120, size=int(specks.sum()))
        canvas += rng.normal(0, 10, size=canvas.shape)
        images[i] = np.clip(np.rint(canvas), 0, 255).astype(np.uint8)
    return images, labels


class SerialLines(Dataset):
    def __init__(self, images, labels, transform):
        self.images = images
        self.labels = torch.as_tensor(labels, dtype=torch.long)
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return self.transform(self.images[idx]), self.labels[idx]


class SlotCNN(nn.Module):
    def __init__(self, n_slots, n_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(32, 48, 3, stride=(2, 1), padding=1), nn.ReLU(inplace=True),
        )
        self.pool = nn.AdaptiveAvgPool2d((1, n_slots))
        self.classifier = nn.Linear(48, n_classes)

    def forward(self, x):
        h = self.pool(self.features(x)).squeeze(2)  # (B, 48, slots)
        return self.classifier(h.transpose(1, 2))  # (B, slots, classes)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="ocr.json")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    dcfg, tcfg = cfg["data"], cfg["train"]

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    rng = np.random.default_rng(cfg["seed"])

    t0 = time.time()
    images, labels = render_lines(dcfg["num_lines"], dcfg["height"], dcfg["width"], dcfg["chars_per_line"], rng)
    print(f"rendered {len(images)} lines in {time.time() - t0:.1f}s")

    transform = LineCrop(dcfg["crop_width"], tuple(dcfg["gain_range"]), tuple(dcfg["bias_range"]),
                         rng=np.random.default_rng(cfg["seed"] + 7))
    train_set = SerialLines(images, labels, transform)
    loader = DataLoader(train_set, batch_size=tcfg["batch_size"], shuffle=True,
                        generator=torch.Generator().manual_seed(cfg["seed"]))

    model = SlotCNN(dcfg["chars_per_line"], len(ALPHABET))
    optimizer = torch.optim.Adam(model.parameters(), lr=tcfg["lr"])

    meter = Meter()
    epoch_stats = []
    stop = False
    for epoch in range(tcfg["epochs"]):
        model.train()
        correct_chars = correct_lines = seen = 0
        running = 0.0
        for it, (x, y) in enumerate(loader):
            meter.batch((x, y))
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

            pred = logits.argmax(-1)
            correct_chars += int((pred == y).sum())
            correct_lines += int((pred == y).all(dim=1).sum())
            seen += y.size(0)
            running += loss.item()
            if (it + 1) % tcfg["print_freq"] == 0:
                print(f"epoch {epoch} it {it + 1} loss {running / (it + 1):.4f}")
            meter.step(loss)
            if meter.done():
                stop = True
                break
        epoch_stats.append({
            "epoch": epoch,
            "char_acc": correct_chars / max(1, seen * y.size(1)),
            "line_acc": correct_lines / max(1, seen),
        })
        print(epoch_stats[-1])
        if stop:
            break

    meter.report(extra={"epochs": epoch_stats})


if __name__ == "__main__":
    main()
