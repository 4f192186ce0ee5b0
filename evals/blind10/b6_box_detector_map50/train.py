"""Train a tiny single-shot box detector on synthetic shapes, logging a sliding-window mAP@0.5 every step.

    python train.py @train_args.txt
"""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from detdata import CLASSES, DetectionCollate, ShapesDetection
from metrics import SlidingWindowMAP


class GridDetector(nn.Module):
    """A 8x8 grid; each cell predicts objectness, class logits and a box (centre offset, log size)."""

    def __init__(self, num_classes, stride):
        super().__init__()
        self.stride = stride
        self.backbone = nn.Sequential(
            nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.head = nn.Conv2d(32, 1 + num_classes + 4, 1)

    def forward(self, x):
        return self.head(self.backbone(x)).permute(0, 2, 3, 1)  # [B, G, G, 1 + C + 4]


class DetectorModule:
    """Lightning-style module without Lightning: training_step / configure_optimizers / decode."""

    def __init__(self, hparams):
        self.hparams = hparams
        self.model = GridDetector(len(CLASSES), hparams.stride)

    def configure_optimizers(self):
        return torch.optim.Adam(self.model.parameters(), lr=self.hparams.lr)

    def encode_targets(self, targets, grid):
        s = self.hparams.stride
        obj = torch.zeros(len(targets), grid, grid)
        cls = torch.full((len(targets), grid, grid), -100, dtype=torch.long)
        box = torch.zeros(len(targets), grid, grid, 4)
        for b, t in enumerate(targets):
            for (x1, y1, x2, y2), label in zip(t["boxes"].tolist(), t["labels"].tolist()):
                cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
                gx, gy = min(int(cx // s), grid - 1), min(int(cy // s), grid - 1)
                obj[b, gy, gx] = 1.0
                cls[b, gy, gx] = label
                box[b, gy, gx] = torch.tensor([cx / s - gx, cy / s - gy, np.log(x2 - x1), np.log(y2 - y1)])
        return obj, cls, box

    def training_step(self, batch, batch_idx):
        images, targets = batch
        out = self.model(images)
        obj, cls, box = self.encode_targets(targets, out.shape[1])
        pos = obj > 0
        loss = F.binary_cross_entropy_with_logits(out[..., 0], obj)
        loss = loss + F.cross_entropy(out[..., 1:1 + len(CLASSES)][pos], cls[pos])
        loss = loss + F.smooth_l1_loss(out[..., -4:][pos], box[pos])
        return {"loss": loss, "raw": out.detach()}

    @torch.no_grad()
    def decode(self, raw, top_k):
        s = self.hparams.stride
        b, g = raw.shape[0], raw.shape[1]
        gy, gx = torch.meshgrid(torch.arange(g), torch.arange(g), indexing="ij")
        probs = torch.softmax(raw[..., 1:1 + len(CLASSES)], dim=-1)
        cls_p, labels = probs.max(-1)
        scores = torch.sigmoid(raw[..., 0]) * cls_p
        cx = (gx + raw[..., -4].clamp(0, 1)) * s
        cy = (gy + raw[..., -3].clamp(0, 1)) * s
        w, h = raw[..., -2].clamp(0, 4).exp(), raw[..., -1].clamp(0, 4).exp()
        boxes = torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1).reshape(b, -1, 4)
        scores, labels = scores.reshape(b, -1), labels.reshape(b, -1)
        keep = scores.topk(top_k, dim=1).indices
        return [{"boxes": boxes[i, keep[i]], "scores": scores[i, keep[i]], "labels": labels[i, keep[i]]} for i in range(b)]


class Callback:
    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        pass


class MAPLogger(Callback):
    def __init__(self, window_batches, top_k, every):
        self.metric = SlidingWindowMAP(len(CLASSES), window_batches, iou_threshold=0.5)
        self.top_k = top_k
        self.every = every
        self.history = []

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        self.metric.update(module.decode(outputs["raw"], self.top_k), batch[1])
        self.history.append(self.metric.compute())
        if trainer.global_step % self.every == 0:
            print(f"step {trainer.global_step} loss {outputs['loss'].item():.4f} mAP@0.5 {self.history[-1]:.4f}")


class Trainer:
    def __init__(self, max_epochs, callbacks, meter):
        self.max_epochs = max_epochs
        self.callbacks = callbacks
        self.meter = meter
        self.global_step = 0

    def fit(self, module, loader):
        optimizer = module.configure_optimizers()
        for _epoch in range(self.max_epochs):
            for batch_idx, batch in enumerate(loader):
                self.meter.batch(batch)
                outputs = module.training_step(batch, batch_idx)
                optimizer.zero_grad()
                outputs["loss"].backward()
                optimizer.step()
                self.global_step += 1
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, module, outputs, batch, batch_idx)
                self.meter.step(outputs["loss"])
                if self.meter.done():
                    return


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], fromfile_prefix_chars="@")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--n-images", type=int, default=512)
    p.add_argument("--image-size", type=int, default=64)
    p.add_argument("--stride", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--map-window", type=int, default=40, help="batches in the sliding mAP window")
    p.add_argument("--top-k", type=int, default=20)
    p.add_argument("--log-every", type=int, default=10)
    return p.parse_args()


def main():
    args = parse_args()
    torch.set_num_threads(1)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    dataset = ShapesDetection(args.n_images, args.image_size, args.seed)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True,
                        collate_fn=DetectionCollate(), num_workers=args.num_workers,
                        generator=torch.Generator().manual_seed(args.seed))
    module = DetectorModule(args)
    logger = MAPLogger(args.map_window, args.top_k, args.log_every)
    meter = evalkit.Meter()
    Trainer(args.epochs, [logger], meter).fit(module, loader)
    meter.report(extra={"map50_history": logger.history})


if __name__ == "__main__":
    main()
