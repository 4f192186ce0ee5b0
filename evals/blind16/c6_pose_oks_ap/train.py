"""Multi-person keypoint regression (slot-based) with COCO-style OKS AP and PCK logged every step."""
import argparse
import bisect
import collections
import math
import random
import runpy

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import evalkit

K = 17
# COCO keypoint sigmas: nose, eyes, ears, shoulders, elbows, wrists, hips, knees, ankles
SIGMAS = [.26, .25, .25, .35, .35, .79, .79, .72, .72, .62, .62, 1.07, 1.07, .87, .87, .89, .89]
KAPPA2 = [(2 * s / 10.0) ** 2 for s in SIGMAS]
TEMPLATE = np.array([  # (x, y) in person-height units, origin at the hips' midpoint
    [0.0, -0.88], [-0.03, -0.91], [0.03, -0.91], [-0.07, -0.89], [0.07, -0.89],
    [-0.17, -0.70], [0.17, -0.70], [-0.22, -0.45], [0.22, -0.45], [-0.24, -0.22], [0.24, -0.22],
    [-0.10, 0.0], [0.10, 0.0], [-0.11, 0.27], [0.11, 0.27], [-0.12, 0.52], [0.12, 0.52]])
RECALL_THRESHOLDS = np.linspace(0.0, 1.0, 101).tolist()


class SyntheticPoseDataset(Dataset):
    """Images with 1-3 people: blobs at visible keypoints over noise; targets sorted left to right."""

    def __init__(self, cfg):
        self.cfg = cfg

    def __len__(self):
        return self.cfg["NUM_IMAGES"]

    def __getitem__(self, idx):
        cfg = self.cfg
        size = cfg["IMAGE_SIZE"]
        rng = np.random.default_rng([cfg["SEED"], idx])
        n = int(rng.integers(1, cfg["MAX_PERSONS"] + 1))
        people = []
        for _ in range(n):
            height = rng.uniform(14.0, 30.0)
            angle = rng.normal(0.0, 0.25)
            rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
            pose = TEMPLATE + rng.normal(0.0, 0.03, size=TEMPLATE.shape)
            kp = pose @ rot.T * height + rng.uniform([6.0, 12.0], [size - 6.0, size - 8.0])
            vis = (rng.random(K) > 0.12) & (kp[:, 0] >= 0) & (kp[:, 0] < size) & (kp[:, 1] >= 0) & (kp[:, 1] < size)
            people.append((kp, vis))
        people.sort(key=lambda p: float(p[0][:, 0].mean()))
        axis = np.arange(size, dtype=np.float64)
        img = rng.normal(0.0, 0.1, size=(size, size))
        for kp, vis in people:
            pts = kp[vis]
            if len(pts):   # separable Gaussian blobs: sum_k g_y(k) g_x(k)^T
                gx = np.exp(-((axis[None] - pts[:, :1]) ** 2) / 2.0)
                gy = np.exp(-((axis[None] - pts[:, 1:]) ** 2) / 2.0)
                img += gy.T @ gx
        slots = self.cfg["SLOTS"]
        keypoints = np.zeros((slots, K, 2), dtype=np.float32)
        visible = np.zeros((slots, K), dtype=np.float32)
        present = np.zeros(slots, dtype=np.float32)
        for s, (kp, vis) in enumerate(people):
            keypoints[s] = kp / size
            visible[s] = vis
            present[s] = 1.0
        return torch.from_numpy(img.astype(np.float32))[None], torch.from_numpy(keypoints), \
            torch.from_numpy(visible), torch.from_numpy(present)


def collate(items):
    return [torch.stack(t) for t in zip(*items)]   # [images, keypoints, visible, present]


class SlotPoseNet(nn.Module):
    def __init__(self, slots):
        super().__init__()
        self.slots = slots
        self.backbone = nn.Sequential(
            nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.head = nn.Linear(128, slots * (2 * K + 1))

    def forward(self, x):
        out = self.head(self.backbone(x).flatten(1)).view(-1, self.slots, 2 * K + 1)
        return torch.sigmoid(out[..., : 2 * K]).view(-1, self.slots, K, 2), out[..., 2 * K]


# ------------------------------------------------------------------------------------------- metrics
def person_area(kp, vis):
    """COCO uses the segment area; for keypoint-only GT we take the visible keypoints' box area."""
    xs = [p[0] for p, v in zip(kp, vis) if v]
    ys = [p[1] for p, v in zip(kp, vis) if v]
    if not xs:
        return 0.0
    return (max(xs) - min(xs)) * (max(ys) - min(ys))


def oks(det, gt, vis, area):
    """Object keypoint similarity of one detection to one ground-truth person (pixels)."""
    s2 = area + 1e-9
    total, count = 0.0, 0
    for (dx, dy), (gx, gy), v, k2 in zip(det, gt, vis, KAPPA2):
        if not v:
            continue
        d2 = (dx - gx) ** 2 + (dy - gy) ** 2
        total += math.exp(-d2 / (2.0 * s2 * k2))
        count += 1
    return total / count if count else 0.0


def match_image(dets, scores, gts, thresholds):
    """COCO greedy matching: detections by score, each takes the best still-free GT with OKS >= t.

    Returns, per threshold, a list of (score, is_tp) for the image's detections.
    """
    order = sorted(range(len(dets)), key=lambda i: scores[i], reverse=True)
    table = [[oks(dets[d], kp, vis, area) for kp, vis, area in gts] for d in order]
    results = []
    for t in thresholds:
        taken = [False] * len(gts)
        rows = []
        for r, d in enumerate(order):
            best, m = min(t, 1 - 1e-10), -1
            for g in range(len(gts)):
                if taken[g] or table[r][g] < best:
                    continue
                best, m = table[r][g], g
            if m >= 0:
                taken[m] = True
            rows.append((scores[d], m >= 0))
        results.append(rows)
    return results


def average_precision(records, n_gt):
    """101-point interpolated AP (COCO) of (score, is_tp) records."""
    ranked = sorted(records, key=lambda r: r[0], reverse=True)
    tp = fp = 0
    recall, precision = [], []
    for _, hit in ranked:
        if hit:
            tp += 1
        else:
            fp += 1
        recall.append(tp / n_gt)
        precision.append(tp / (tp + fp))
    for i in range(len(precision) - 2, -1, -1):
        if precision[i] < precision[i + 1]:
            precision[i] = precision[i + 1]
    total = 0.0
    for r in RECALL_THRESHOLDS:
        k = bisect.bisect_left(recall, r)
        total += precision[k] if k < len(precision) else 0.0
    return total / len(RECALL_THRESHOLDS)


class KeypointMetrics:
    """Callback: OKS AP over the last `window` steps and PCK of the current batch, every step."""

    def __init__(self, cfg):
        self.size = cfg["IMAGE_SIZE"]
        self.thresholds = cfg["OKS_THRESHOLDS"]
        self.alpha = cfg["PCK_ALPHA"]
        self.window = collections.deque(maxlen=cfg["METRIC_WINDOW"])
        self.history = []

    def _to_pixels(self, t):
        return (t * self.size).tolist()

    def on_step_end(self, trainer, batch, outputs):
        _, keypoints, visible, present = batch
        pred_kp, logits = outputs
        self.window.append((pred_kp.detach().clone(), torch.sigmoid(logits.detach()), keypoints, visible, present))
        per_t = [[] for _ in self.thresholds]
        n_gt = 0
        for pk, sc, gk, gv, gp in self.window:
            pk, sc, gk, gv, gp = self._to_pixels(pk), sc.tolist(), self._to_pixels(gk), gv.tolist(), gp.tolist()
            for b in range(len(pk)):
                gts = [(gk[b][s], gv[b][s], person_area(gk[b][s], gv[b][s]))
                       for s in range(len(gp[b])) if gp[b][s] > 0]
                n_gt += len(gts)
                for t_rows, rows in zip(per_t, match_image(pk[b], sc[b], gts, self.thresholds)):
                    t_rows.extend(rows)
        aps = [average_precision(rows, n_gt) for rows in per_t]
        ap = sum(aps) / len(aps)
        pck = self.pck(pred_kp, keypoints, visible, present)
        self.history.append((ap, aps[0], pck))
        if trainer.step % trainer.cfg["LOG_EVERY"] == 0:
            print(f"step {trainer.step} AP {ap:.4f} AP50 {aps[0]:.4f} PCK@{self.alpha} {pck:.4f}")

    def pck(self, pred_kp, keypoints, visible, present):
        pk, gk, gv, gp = self._to_pixels(pred_kp.detach()), self._to_pixels(keypoints), visible.tolist(), present.tolist()
        hits = total = 0
        for b in range(len(pk)):
            for s in range(len(gp[b])):
                if not gp[b][s]:
                    continue
                area = person_area(gk[b][s], gv[b][s])
                ref = self.alpha * math.sqrt(area) if area > 0 else 1.0
                for (px, py), (gx, gy), v in zip(pk[b][s], gk[b][s], gv[b][s]):
                    if v:
                        total += 1
                        hits += math.hypot(px - gx, py - gy) <= ref
        return hits / total if total else 0.0


class Trainer:
    def __init__(self, model, cfg, callbacks, meter):
        self.model = model
        self.cfg = cfg
        self.callbacks = callbacks
        self.meter = meter
        self.opt = torch.optim.AdamW(model.parameters(), lr=cfg["LR"], weight_decay=cfg["WEIGHT_DECAY"])
        self.step = 0

    def compute_loss(self, batch, outputs):
        _, keypoints, visible, present = batch
        pred_kp, logits = outputs
        w = (visible * present[..., None])[..., None]
        coord = ((pred_kp - keypoints).abs() * w).sum() / w.sum().clamp(min=1.0)
        score = nn.functional.binary_cross_entropy_with_logits(logits, present)
        return coord + self.cfg["SCORE_WEIGHT"] * score

    def fit(self, loader):
        self.model.train()
        for _ in range(self.cfg["EPOCHS"]):
            for batch in loader:
                self.meter.batch(batch)
                outputs = self.model(batch[0])
                loss = self.compute_loss(batch, outputs)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                self.step += 1
                for cb in self.callbacks:
                    cb.on_step_end(self, batch, outputs)
                self.meter.step(loss)
                if self.meter.done():
                    return


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    args = ap.parse_args()
    cfg = {k: v for k, v in runpy.run_path(args.settings).items() if k.isupper()}
    random.seed(cfg["SEED"])
    np.random.seed(cfg["SEED"])
    torch.manual_seed(cfg["SEED"])
    torch.set_num_threads(1)

    dataset = SyntheticPoseDataset(cfg)
    loader = DataLoader(dataset, batch_size=cfg["BATCH_SIZE"], shuffle=True, num_workers=cfg["NUM_WORKERS"],
                        collate_fn=collate, generator=torch.Generator().manual_seed(cfg["SEED"]))
    metrics = KeypointMetrics(cfg)
    meter = evalkit.Meter()
    trainer = Trainer(SlotPoseNet(cfg["SLOTS"]), cfg, [metrics], meter)
    trainer.fit(loader)
    meter.report(extra={"ap_ap50_pck": metrics.history})


if __name__ == "__main__":
    main()
