"""Doodle classifier on QuickDraw-style stroke-3 sketches, rasterised on the fly."""
import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit

CLASSES = ["circle", "square", "triangle", "star", "zigzag", "spiral"]


def synth_drawing(rng, label):
    """Return stroke-3 data: a list of [dx, dy, pen_up] integer triples (sketch-rnn format)."""
    pts = []
    n = 24 + int(torch.randint(0, 16, (1,), generator=rng))
    r = 40 + float(torch.rand(1, generator=rng)) * 60
    cx, cy = 128.0, 128.0
    for i in range(n):
        t = i / (n - 1)
        if label == 0:
            a = 2 * math.pi * t
            x, y = cx + r * math.cos(a), cy + r * math.sin(a)
        elif label == 1:
            s = 4 * t
            k = int(s) % 4
            f = s - int(s)
            corners = [(-1, -1), (1, -1), (1, 1), (-1, 1), (-1, -1)]
            x = cx + r * (corners[k][0] + (corners[k + 1][0] - corners[k][0]) * f)
            y = cy + r * (corners[k][1] + (corners[k + 1][1] - corners[k][1]) * f)
        elif label == 2:
            s = 3 * t
            k = min(int(s), 2)
            f = s - k
            corners = [(0, -1), (0.87, 0.5), (-0.87, 0.5), (0, -1)]
            x = cx + r * (corners[k][0] + (corners[k + 1][0] - corners[k][0]) * f)
            y = cy + r * (corners[k][1] + (corners[k + 1][1] - corners[k][1]) * f)
        elif label == 3:
            a = 2 * math.pi * t
            rr = r * (1.0 if i % 2 == 0 else 0.45)
            x, y = cx + rr * math.cos(a), cy + rr * math.sin(a)
        elif label == 4:
            x = cx - r + 2 * r * t
            y = cy + (r * 0.5 if i % 2 else -r * 0.5)
        else:
            a = 5 * math.pi * t
            x, y = cx + r * t * math.cos(a), cy + r * t * math.sin(a)
        jx, jy = (torch.randn(2, generator=rng) * 3).tolist()
        pts.append((int(round(x + jx)), int(round(y + jy))))
    strokes, prev = [], (0, 0)
    cut = n // 2 if label in (4, 5) else n + 1
    for i, (x, y) in enumerate(pts):
        strokes.append([x - prev[0], y - prev[1], 1 if i == cut - 1 or i == n - 1 else 0])
        prev = (x, y)
    return strokes


def strokes_to_lines(strokes):
    """stroke-3 deltas -> list of polylines in absolute coordinates."""
    lines, cur, x, y = [], [], 0, 0
    for dx, dy, pen_up in strokes:
        x += dx
        y += dy
        cur.append((x, y))
        if pen_up:
            lines.append(cur)
            cur = []
    if cur:
        lines.append(cur)
    return lines


def bresenham(x0, y0, x1, y1):
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
    err = dx + dy
    while True:
        yield x0, y0
        if x0 == x1 and y0 == y1:
            return
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy


def rasterize(strokes, size, brush):
    lines = strokes_to_lines(strokes)
    xs = [p[0] for line in lines for p in line]
    ys = [p[1] for line in lines for p in line]
    minx, miny = min(xs), min(ys)
    span = max(max(xs) - minx, max(ys) - miny, 1)
    scale = (size - 2 * brush - 1) / span
    img = [[0.0] * size for _ in range(size)]
    for line in lines:
        pts = [(int((px - minx) * scale) + brush, int((py - miny) * scale) + brush) for px, py in line]
        for (x0, y0), (x1, y1) in zip(pts, pts[1:] or pts):
            for x, y in bresenham(x0, y0, x1, y1):
                for oy in range(-brush, brush + 1):
                    for ox in range(-brush, brush + 1):
                        yy, xx = y + oy, x + ox
                        if 0 <= yy < size and 0 <= xx < size:
                            img[yy][xx] = 1.0
    return img


class QuickDrawStrokes(Dataset):
    def __init__(self, drawings, labels, size, brush, hflip_prob, generator):
        self.drawings = drawings
        self.labels = labels
        self.size = size
        self.brush = brush
        self.hflip_prob = hflip_prob
        self.generator = generator

    def __len__(self):
        return len(self.drawings)

    def __getitem__(self, index):
        img = torch.tensor(rasterize(self.drawings[index], self.size, self.brush)).unsqueeze(0)
        if torch.rand(1, generator=self.generator).item() < self.hflip_prob:
            img = img.flip(-1)
        return img, self.labels[index]


class SketchNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.c1 = nn.Conv2d(1, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 8 * 8, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="sketch.json")
    args = ap.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    gen = torch.Generator().manual_seed(cfg["seed"])
    labels = [i % len(CLASSES) for i in range(cfg["num_drawings"])]
    drawings = [synth_drawing(gen, y) for y in labels]
    aug_gen = torch.Generator().manual_seed(cfg["seed"] + 1)
    ds = QuickDrawStrokes(drawings, labels, cfg["canvas"], cfg["brush"], cfg["hflip_prob"], aug_gen)
    loader = DataLoader(ds, batch_size=cfg["batch_size"], shuffle=True,
                        generator=torch.Generator().manual_seed(cfg["seed"] + 2))

    model = SketchNet(len(CLASSES))
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    meter = evalkit.Meter()
    epoch_acc = []
    it = 0
    for epoch in range(cfg["epochs"]):
        correct = seen = 0
        t0 = time.time()
        for images, targets in loader:
            meter.batch((images, targets))
            logits = model(images)
            loss = F.cross_entropy(logits, targets)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += (logits.argmax(1) == targets).sum().item()
            seen += targets.numel()
            it += 1
            if it % cfg["print_freq"] == 0:
                print(f"[{epoch}][{it}] loss {loss.item():.4f} acc {correct / seen:.3f}", flush=True)
            if meter.done():
                break
        epoch_acc.append(round(correct / max(seen, 1), 5))
        print(f"epoch {epoch} acc {epoch_acc[-1]:.4f} ({time.time() - t0:.1f}s)")
        if meter.done():
            break
    meter.report(extra={"epoch_acc": epoch_acc})


if __name__ == "__main__":
    main()
