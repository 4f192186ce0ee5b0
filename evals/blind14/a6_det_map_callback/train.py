"""A tiny anchor-free detector on synthetic shapes, with mAP@0.5 logged every step.

    python train.py @train.args
"""
import argparse
import math
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit
from metrics import DetectionMAP

COLOURS = np.array([[0.85, 0.25, 0.2], [0.2, 0.75, 0.3], [0.25, 0.35, 0.9]])


class ShapesDetection(Dataset):
    """Images with 1-4 filled rectangles (class = colour); targets torchvision-style."""

    def __init__(self, n_images, size, n_classes, seed):
        rng = np.random.default_rng(seed)
        self.images, self.targets = [], []
        for _ in range(n_images):
            img = 0.5 + 0.08 * rng.standard_normal((size, size, 3))
            boxes, labels = [], []
            for _ in range(rng.integers(1, 5)):
                w, h = rng.integers(8, 25, size=2)
                x1, y1 = rng.integers(0, size - w), rng.integers(0, size - h)
                c = int(rng.integers(0, n_classes))
                img[y1:y1 + h, x1:x1 + w] = COLOURS[c] + 0.05 * rng.standard_normal(3)
                boxes.append([float(x1), float(y1), float(x1 + w), float(y1 + h)])
                labels.append(c)
            self.images.append(torch.from_numpy(img.transpose(2, 0, 1).astype(np.float32)))
            self.targets.append({"boxes": torch.tensor(boxes, dtype=torch.float32),
                                 "labels": torch.tensor(labels, dtype=torch.long)})

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img, tgt = self.images[idx], self.targets[idx]
        if torch.rand(1).item() < 0.5:  # horizontal flip
            w = img.shape[-1]
            img = img.flip(-1)
            b = tgt["boxes"]
            tgt = {"boxes": torch.stack([w - b[:, 2], b[:, 1], w - b[:, 0], b[:, 3]], dim=1), "labels": tgt["labels"]}
        return img, tgt


class CenterAssigner:
    """collate_fn: stack images, and give each ground-truth box to the grid cell holding its centre."""

    def __init__(self, n_classes, stride, size, anchor):
        self.n_classes, self.stride, self.grid, self.anchor = n_classes, stride, size // stride, anchor

    def __call__(self, samples):
        images = torch.stack([s[0] for s in samples])
        b = len(samples)
        cls_t = torch.zeros(b, self.n_classes, self.grid, self.grid)
        box_t = torch.zeros(b, 4, self.grid, self.grid)
        pos = torch.zeros(b, self.grid, self.grid, dtype=torch.bool)
        for i, (_, tgt) in enumerate(samples):
            for (x1, y1, x2, y2), c in zip(tgt["boxes"].tolist(), tgt["labels"].tolist()):
                cx, cy = (x1 + x2) / 2 / self.stride, (y1 + y2) / 2 / self.stride
                gx, gy = min(int(cx), self.grid - 1), min(int(cy), self.grid - 1)
                cls_t[i, c, gy, gx] = 1.0
                box_t[i, :, gy, gx] = torch.tensor([cx - gx, cy - gy, math.log((x2 - x1) / self.anchor),
                                                    math.log((y2 - y1) / self.anchor)])
                pos[i, gy, gx] = True
        return [images, cls_t, box_t, pos, [s[1] for s in samples]]


class DetectorModule(nn.Module):
    """Lightning-style module: forward, training_step, configure_optimizers, predict."""

    def __init__(self, n_classes, width, stride, anchor, lr):
        super().__init__()
        self.stride, self.anchor, self.lr = stride, anchor, lr
        self.backbone = nn.Sequential(
            nn.Conv2d(3, width, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU())
        self.cls_head = nn.Conv2d(width, n_classes, 1)
        self.box_head = nn.Conv2d(width, 4, 1)
        nn.init.constant_(self.cls_head.bias, -2.0)

    def forward(self, images):
        f = self.backbone(images)
        return self.cls_head(f), self.box_head(f)

    def predict(self, cls_logits, box_raw):
        """-> scores (B, C, G*G) and boxes (B, G*G, 4) in pixels (x1, y1, x2, y2)."""
        b, _, g, _ = cls_logits.shape
        gy, gx = torch.meshgrid(torch.arange(g), torch.arange(g), indexing="ij")
        cx = (gx + torch.sigmoid(box_raw[:, 0])) * self.stride
        cy = (gy + torch.sigmoid(box_raw[:, 1])) * self.stride
        w = torch.exp(box_raw[:, 2].clamp(max=4.0)) * self.anchor
        h = torch.exp(box_raw[:, 3].clamp(max=4.0)) * self.anchor
        boxes = torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1).reshape(b, g * g, 4)
        return torch.sigmoid(cls_logits).flatten(2), boxes

    def training_step(self, batch):
        images, cls_t, box_t, pos, _ = batch
        cls_logits, box_raw = self(images)
        cls_loss = F.binary_cross_entropy_with_logits(cls_logits, cls_t, reduction="sum") / max(int(pos.sum()), 1)
        pred_off = torch.cat([torch.sigmoid(box_raw[:, :2]), box_raw[:, 2:]], dim=1)
        box_loss = (pred_off - box_t).abs().sum(1)[pos].mean() if pos.any() else box_raw.sum() * 0.0
        loss = cls_loss + 2.0 * box_loss
        with torch.no_grad():
            scores, boxes = self.predict(cls_logits.detach(), box_raw.detach())
        return {"loss": loss, "scores": scores, "boxes": boxes}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


class Callback:
    def on_train_batch_end(self, trainer, module, outputs, batch, step):
        pass


class MeanAPLogger(Callback):
    """Logs training-batch mAP@0.5 every step (what a dashboard would plot)."""

    def __init__(self, n_classes):
        self.metric = DetectionMAP(n_classes)
        self.history = []

    def on_train_batch_end(self, trainer, module, outputs, batch, step):
        self.history.append(self.metric(outputs["scores"], outputs["boxes"], batch[4]))


class MeterHook(Callback):
    def __init__(self, meter):
        self.meter = meter

    def on_train_batch_end(self, trainer, module, outputs, batch, step):
        self.meter.step(outputs["loss"])
        if self.meter.done():
            trainer.should_stop = True


class Trainer:
    def __init__(self, max_epochs, callbacks, meter):
        self.max_epochs, self.callbacks, self.meter = max_epochs, callbacks, meter
        self.should_stop = False
        self.global_step = 0

    def fit(self, module, loader):
        opt = module.configure_optimizers()
        module.train()
        for _ in range(self.max_epochs):
            for batch in loader:
                self.meter.batch(batch)
                outputs = module.training_step(batch)
                opt.zero_grad()
                outputs["loss"].backward()
                opt.step()
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, module, outputs, batch, self.global_step)
                self.global_step += 1
                if self.should_stop:
                    return


def main():
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-images", type=int, default=512)
    ap.add_argument("--image-size", type=int, default=64)
    ap.add_argument("--classes", type=int, default=3)
    ap.add_argument("--stride", type=int, default=4)
    ap.add_argument("--anchor", type=float, default=16.0)
    ap.add_argument("--width", type=int, default=24)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--num-workers", type=int, default=0)
    args = ap.parse_args()

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    dataset = ShapesDetection(args.n_images, args.image_size, args.classes, args.seed)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True,
                        num_workers=args.num_workers,
                        collate_fn=CenterAssigner(args.classes, args.stride, args.image_size, args.anchor),
                        generator=torch.Generator().manual_seed(args.seed))
    module = DetectorModule(args.classes, args.width, args.stride, args.anchor, args.lr)
    meter = evalkit.Meter()
    map_logger = MeanAPLogger(args.classes)
    Trainer(args.epochs, [map_logger, MeterHook(meter)], meter).fit(module, loader)
    meter.report({"map50": map_logger.history, "best_map50": max(map_logger.history)})


if __name__ == "__main__":
    main()
