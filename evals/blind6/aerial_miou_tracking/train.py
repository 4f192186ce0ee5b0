"""Aerial land-use segmentation (tiny encoder-decoder) with running mIoU logged every iteration."""
import argparse
import runpy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import evalkit
from metrics import SegMetrics


def make_scenes(n, size, seed):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    images = np.zeros((n, 3, size, size), np.float32)
    masks = np.zeros((n, size, size), np.int64)
    for k in range(n):
        m = np.zeros((size, size), np.int64)
        if rng.random() < 0.6:  # water body
            cx, cy, r = rng.uniform(0, size, 2).tolist() + [rng.uniform(8, 20)]
            m[(xx - cx) ** 2 + (yy - cy) ** 2 < r * r] = 3
        for _ in range(int(rng.integers(1, 3))):  # roads
            if rng.random() < 0.5:
                y0 = int(rng.integers(0, size - 4))
                m[y0:y0 + 4] = 1
            else:
                x0 = int(rng.integers(0, size - 4))
                m[:, x0:x0 + 4] = 1
        for _ in range(int(rng.integers(2, 6))):  # buildings
            x0, y0 = rng.integers(0, size - 10, 2)
            w, h = rng.integers(4, 10, 2)
            m[y0:y0 + h, x0:x0 + w] = 2
        palette = np.array([[0.35, 0.45, 0.25], [0.55, 0.55, 0.55], [0.75, 0.4, 0.35], [0.1, 0.2, 0.5]])
        img = palette[m].transpose(2, 0, 1) + rng.normal(0, 0.08, (3, size, size))
        images[k] = img
        masks[k] = m
    return torch.from_numpy(images), torch.from_numpy(masks)


class TinySegNet(nn.Module):
    """Patch-embedding encoder (stride 4) with a residual 3x3 mixing layer; predicts at 1/4 resolution."""

    def __init__(self, num_classes, dim=8):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 4, stride=4)
        self.mix = nn.Conv2d(dim, dim, 3, padding=1)
        self.cls = nn.Conv2d(dim, num_classes, 1)

    def forward(self, x):
        h = F.relu(self.patch(x))
        h = F.relu(self.mix(h)) + h
        return self.cls(h)  # logits at 1/4 resolution


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="settings.py")
    args = parser.parse_args()
    cfg = runpy.run_path(args.config)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    images, masks = make_scenes(cfg["num_images"], cfg["image_size"], cfg["seed"])
    dataset = torch.utils.data.TensorDataset(images, masks)
    loader = torch.utils.data.DataLoader(dataset, batch_size=cfg["batch_size"], shuffle=True,
                                         generator=torch.Generator().manual_seed(cfg["seed"]))
    model = TinySegNet(cfg["num_classes"])
    o = cfg["optimizer"]
    optimizer = torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"],
                                weight_decay=o["weight_decay"])
    metrics = SegMetrics(cfg["num_classes"])
    meter = evalkit.Meter()
    log = []
    it = 0
    for epoch in range(cfg["max_epochs"]):
        metrics.reset()
        for imgs, gts in loader:
            meter.batch([imgs, gts])
            logits = model(imgs)
            # loss at the output stride against nearest-downsampled labels (cell centres)
            loss = F.cross_entropy(logits, gts[:, 2::4, 2::4])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                _, preds = torch.max(logits, 1)
                preds = preds.repeat_interleave(4, dim=1).repeat_interleave(4, dim=2)  # full-resolution labels
                batch_stats = metrics.update(preds, gts)
            meter.step(loss)
            it += 1
            if it % cfg["log_interval"] == 0:
                run = metrics.summary()
                log.append({"iter": it, "batch_mIoU": round(batch_stats["mIoU"], 6),
                            "batch_acc": round(batch_stats["acc"], 6), "img_mIoU": round(batch_stats["img_mIoU"], 6),
                            "mIoU": round(run["mIoU"], 6), "aAcc": round(run["aAcc"], 6)})
                print(f"Iter [{it}] loss: {loss.item():.4f} mIoU: {run['mIoU']:.4f} aAcc: {run['aAcc']:.4f}",
                      flush=True)
            if meter.done():
                break
        if meter.done():
            break
    final = metrics.summary()
    meter.report(extra={"log": log, "confusion": metrics.confusion,
                        "IoU": [round(v, 6) for v in final["IoU"]]})


if __name__ == "__main__":
    main()
