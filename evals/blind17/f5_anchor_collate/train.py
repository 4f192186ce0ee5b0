"""Train a tiny single-stage (RetinaNet-like) detector on synthetic street scenes.

    python train.py @detector.args
"""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from anchors import generate_anchors
from data import CLASSES, AnchorMatchingCollator, SyntheticScenes


def csv_of(kind):
    return lambda text: [kind(v) for v in text.split(",")]


def parse_args(argv=None):
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@", description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--image-size", type=int, default=96)
    ap.add_argument("--n-images", type=int, default=512)
    ap.add_argument("--strides", type=csv_of(int), default=[8, 16])
    ap.add_argument("--anchor-sizes", type=csv_of(float), default=[16.0, 32.0])
    ap.add_argument("--aspect-ratios", type=csv_of(float), default=[0.5, 1.0, 2.0])
    ap.add_argument("--fg-iou", type=float, default=0.5)
    ap.add_argument("--bg-iou", type=float, default=0.4)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--max-epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--log-every", type=int, default=10)
    return ap.parse_args(argv)


class TinyDetector(nn.Module):
    def __init__(self, n_classes, anchors_per_cell):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 24, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(24, 32, 3, stride=2, padding=1), nn.ReLU())           # stride 8
        self.down = nn.Sequential(nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU())  # stride 16
        self.cls_head = nn.Conv2d(32, anchors_per_cell * n_classes, 3, padding=1)
        self.box_head = nn.Conv2d(32, anchors_per_cell * 4, 3, padding=1)
        self.n_classes, self.k = n_classes, anchors_per_cell

    def _flat(self, x, width):
        b, _, h, w = x.shape
        return x.view(b, self.k, width, h, w).permute(0, 3, 4, 1, 2).reshape(b, h * w * self.k, width)

    def forward(self, images):
        p3 = self.stem(images)
        p4 = self.down(p3)
        cls = torch.cat([self._flat(self.cls_head(p), self.n_classes) for p in (p3, p4)], dim=1)
        box = torch.cat([self._flat(self.box_head(p), 4) for p in (p3, p4)], dim=1)
        return cls, box


class DetectionModule(nn.Module):
    """LightningModule-style: training_step / configure_optimizers, driven by fit() below."""

    def __init__(self, args):
        super().__init__()
        self.args = args
        self.model = TinyDetector(len(CLASSES), 3 * len(args.aspect_ratios))

    def training_step(self, batch, batch_idx):
        images, cls_t, box_t, pos = batch
        cls_logits, box_pred = self.model(images)
        cls_loss = F.cross_entropy(cls_logits.reshape(-1, len(CLASSES)), cls_t.reshape(-1),
                                   ignore_index=-1, reduction="sum")
        box_loss = F.smooth_l1_loss(box_pred[pos], box_t[pos], beta=1 / 9, reduction="sum")
        n_pos = max(int(pos.sum()), 1)
        return {"loss": (cls_loss + box_loss) / n_pos, "n_pos": n_pos}

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.args.lr, momentum=0.9, weight_decay=1e-4)


def fit(module, loader, max_epochs, meter, log_every):
    optimizer = module.configure_optimizers()
    module.train()
    stats = {"steps": 0, "positives": 0}
    for epoch in range(max_epochs):
        for batch_idx, batch in enumerate(loader):
            meter.batch(batch)
            out = module.training_step(batch, batch_idx)
            optimizer.zero_grad()
            out["loss"].backward()
            torch.nn.utils.clip_grad_norm_(module.parameters(), 10.0)
            optimizer.step()
            meter.step(out["loss"])
            stats["steps"] += 1
            stats["positives"] += out["n_pos"]
            if stats["steps"] % log_every == 0:
                print(f"epoch {epoch} step {stats['steps']}: loss {out['loss'].item():.4f}")
            if meter.done():
                return stats
    return stats


def main():
    args = parse_args()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    dataset = SyntheticScenes(args.n_images, args.image_size, args.seed)
    anchors = generate_anchors(args.image_size, args.strides, args.anchor_sizes, args.aspect_ratios)
    collate = AnchorMatchingCollator(anchors, high=args.fg_iou, low=args.bg_iou)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True,
                        num_workers=args.num_workers, collate_fn=collate,
                        generator=torch.Generator().manual_seed(args.seed))
    module = DetectionModule(args)
    meter = evalkit.Meter()
    stats = fit(module, loader, args.max_epochs, meter, args.log_every)
    meter.report(stats)


if __name__ == "__main__":
    main()
