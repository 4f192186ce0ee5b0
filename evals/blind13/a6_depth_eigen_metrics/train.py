"""Monocular depth estimation with Eigen-style metrics logged every step.

    python train.py @depth.args

A Lightning-like module (training_step / configure_optimizers) driven by a small fit loop with
callbacks; scenes (RGB + metric depth with sensor holes) are rendered from the seed.
"""
import argparse
import bisect
import math
import random
import statistics

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit


# ----------------------------------------------------------------------------- data

def render_scene(h, w, rng, max_depth, hole_rate):
    """A room-like scene: a floor plane receding to a back wall, a few boxes, a textured RGB image and
    a depth map with structured-light style holes (0 = no return) and far-range dropouts."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    horizon = h * rng.uniform(0.35, 0.55)
    wall = rng.uniform(4.0, 9.0)
    floor = np.where(yy > horizon, 1.6 * h / np.maximum(yy - horizon, 1e-3) / 4.0, np.inf)
    depth = np.minimum(floor, wall)
    albedo = np.where(yy > horizon, 0.35, 0.6) + 0.05 * np.sin(xx / rng.uniform(2, 6))
    for _ in range(rng.integers(2, 6)):
        y0, x0 = rng.integers(0, h - 8), rng.integers(0, w - 8)
        bh, bw = rng.integers(6, h // 2), rng.integers(6, w // 2)
        d = rng.uniform(0.8, wall)
        box = (yy >= y0) & (yy < y0 + bh) & (xx >= x0) & (xx < x0 + bw) & (depth > d)
        depth = np.where(box, d + 0.02 * (xx - x0), depth)
        albedo = np.where(box, rng.uniform(0.2, 0.9), albedo)
    shading = 1.0 / (1.0 + 0.15 * depth)
    tint = rng.uniform(0.7, 1.0, 3)
    rgb = np.stack([albedo * shading * t for t in tint]) + rng.normal(0, 0.02, (3, h, w))
    holes = rng.random((h, w)) < hole_rate * (0.3 + depth / depth.max())
    depth = np.where(holes | (depth > max_depth * 1.05), 0.0, depth)
    return rgb.astype(np.float32), depth.astype(np.float32)


class IndoorDepth(Dataset):
    """RGB at 1/scale of the depth sensor's resolution (block-averaged), depth at full resolution."""

    def __init__(self, n, h, w, scale, max_depth, hole_rate, seed):
        rng = np.random.default_rng(seed)
        self.scenes = []
        for _ in range(n):
            rgb, depth = render_scene(h, w, rng, max_depth, hole_rate)
            rgb = rgb.reshape(3, h // scale, scale, w // scale, scale).mean(axis=(2, 4))
            self.scenes.append((np.ascontiguousarray(rgb, dtype=np.float32), depth))

    def __len__(self):
        return len(self.scenes)

    def __getitem__(self, i):
        rgb, depth = self.scenes[i]
        rgb, depth = torch.from_numpy(rgb), torch.from_numpy(depth).unsqueeze(0)
        if torch.rand(1).item() < 0.5:
            rgb, depth = rgb.flip(-1), depth.flip(-1)
        gain = 0.8 + 0.4 * torch.rand(1)
        return (rgb * gain).clamp(0, 1), depth


# ----------------------------------------------------------------------------- model

class DepthModule(nn.Module):
    """Tiny encoder-decoder predicting metric depth (softplus), SILog loss on valid pixels."""

    def __init__(self, args):
        super().__init__()
        self.args = args
        self.enc1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.enc2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.dec1 = nn.Conv2d(16, 8, 3, padding=1)
        self.dec2 = nn.Conv2d(8 + 8, 8, 3, padding=1)
        self.out = nn.Conv2d(8, 1, 1)

    def forward(self, x):
        e1 = F.relu(self.enc1(x))
        e2 = F.relu(self.enc2(e1))
        d1 = F.interpolate(F.relu(self.dec1(e2)), scale_factor=2, mode="nearest")
        d2 = F.interpolate(F.relu(self.dec2(torch.cat([d1, e1], 1))), scale_factor=2, mode="nearest")
        return F.softplus(self.out(d2)) + self.args.min_depth

    def training_step(self, batch):
        """SILog loss against the depth map subsampled to the prediction's grid (nearest); returns the
        loss and the prediction upsampled to the sensor's resolution, where the metrics are taken."""
        rgb, depth = batch
        pred = self(rgb)
        s = self.args.input_scale
        target = depth[..., ::s, ::s]
        valid = (target > self.args.min_depth) & (target <= self.args.max_depth)
        g = torch.log(pred[valid]) - torch.log(target[valid])
        loss = torch.sqrt((g ** 2).mean() - self.args.silog_lambda * g.mean() ** 2) * 10.0
        with torch.no_grad():
            full = F.interpolate(pred, size=depth.shape[-2:], mode="bilinear", align_corners=False)
        return loss, full

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.args.lr)


# ----------------------------------------------------------------------------- metrics

METRIC_NAMES = ("d1", "d2", "d3", "abs_rel", "sq_rel", "rmse", "rmse_log")
DEPTH_BINS = (1.0, 2.0, 4.0, 7.0)   # AbsRel is also reported per ground-truth range
EIGEN_CROP = (0.09375, 0.98125, 0.0640625, 0.9390625)  # top, bottom, left, right (NYU-style)


def _errors(preds, gts, min_depth, max_depth):
    """Eigen et al. errors of one image over its valid pixels (predictions clamped to the range),
    plus AbsRel per depth bin ({bin: (sum, count)})."""
    n = d1 = d2 = d3 = 0
    abs_rel = sq_rel = sq = sq_log = 0.0
    bins = {}
    for p, g in zip(preds, gts):
        p = min(max(p, min_depth), max_depth)
        ratio = max(p / g, g / p)
        d1 += ratio < 1.25
        d2 += ratio < 1.25 ** 2
        d3 += ratio < 1.25 ** 3
        diff = p - g
        rel = abs(diff) / g
        abs_rel += rel
        sq_rel += diff * diff / g
        sq += diff * diff
        lg = math.log(p / g)
        sq_log += lg * lg
        n += 1
        k = bisect.bisect_right(DEPTH_BINS, g)
        total, count = bins.get(k, (0.0, 0))
        bins[k] = (total + rel, count + 1)
    scores = (d1 / n, d2 / n, d3 / n, abs_rel / n, sq_rel / n, math.sqrt(sq / n), math.sqrt(sq_log / n))
    return scores, {k: total / count for k, (total, count) in bins.items()}


def eigen_metrics(pred, gt, min_depth, max_depth):
    """Per-image metrics over valid ground-truth pixels inside the Eigen crop, averaged over the
    batch, for the raw prediction and for the median-scaled one (scale = median(gt) / median(pred),
    Monodepth style). Binned AbsRel is averaged over the images that have pixels in the bin."""
    totals = {name + sfx: 0.0 for sfx in ("", "_ms") for name in METRIC_NAMES}
    bin_totals, bin_images = {}, {}
    images = 0
    height, width = gt.shape[-2:]
    top, bottom = int(EIGEN_CROP[0] * height), int(EIGEN_CROP[1] * height)
    left, right = int(EIGEN_CROP[2] * width), int(EIGEN_CROP[3] * width)
    for p_img, g_img in zip(pred.detach().squeeze(1).tolist(), gt.squeeze(1).tolist()):
        ps, gs = [], []
        for y, (p_row, g_row) in enumerate(zip(p_img, g_img)):
            for x, (p, g) in enumerate(zip(p_row, g_row)):
                if not (top <= y < bottom and left <= x < right):
                    continue
                if g <= min_depth or g > max_depth:
                    continue
                ps.append(p)
                gs.append(g)
        if not gs:
            continue
        images += 1
        scale = statistics.median(gs) / statistics.median(ps)
        for sfx, values in (("", ps), ("_ms", [p * scale for p in ps])):
            scores, binned = _errors(values, gs, min_depth, max_depth)
            for name, value in zip(METRIC_NAMES, scores):
                totals[name + sfx] += value
            for k, value in binned.items():
                key = f"abs_rel_bin{k}{sfx}"
                bin_totals[key] = bin_totals.get(key, 0.0) + value
                bin_images[key] = bin_images.get(key, 0) + 1
    out = {name: value / max(images, 1) for name, value in totals.items()}
    for key in sorted(bin_totals):
        out[key] = bin_totals[key] / bin_images[key]
    return out


class Callback:
    def on_train_batch_end(self, trainer, module, outputs, batch):
        pass


class DepthMetricsLogger(Callback):
    def __init__(self, args):
        self.args = args
        self.history = []

    def on_train_batch_end(self, trainer, module, outputs, batch):
        loss, pred = outputs
        metrics = eigen_metrics(pred, batch[1], self.args.min_depth, self.args.max_depth)
        metrics["loss"] = loss.item()
        self.history.append(metrics)
        if trainer.global_step % self.args.log_every == 0:
            print(f"step {trainer.global_step} " + " ".join(f"{k} {v:.4f}" for k, v in metrics.items()))


class MiniTrainer:
    def __init__(self, max_epochs, meter, callbacks):
        self.max_epochs, self.meter, self.callbacks = max_epochs, meter, callbacks
        self.global_step = 0

    def fit(self, module, loader):
        opt = module.configure_optimizers()
        module.train()
        for epoch in range(self.max_epochs):
            for batch in loader:
                self.meter.batch(batch)
                loss, pred = module.training_step(batch)
                opt.zero_grad()
                loss.backward()
                opt.step()
                self.global_step += 1
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, module, (loss, pred), batch)
                self.meter.step(loss)
                if self.meter.done():
                    return


def parse_args(argv=None):
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--num-scenes", type=int, default=96)
    ap.add_argument("--height", type=int, default=64, help="depth map height (RGB is height / input-scale)")
    ap.add_argument("--width", type=int, default=96)
    ap.add_argument("--input-scale", type=int, default=2)
    ap.add_argument("--min-depth", type=float, default=0.1)
    ap.add_argument("--max-depth", type=float, default=10.0)
    ap.add_argument("--hole-rate", type=float, default=0.1)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--silog-lambda", type=float, default=0.85)
    ap.add_argument("--log-every", type=int, default=20)
    return ap.parse_args(argv)


def main():
    args = parse_args()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    data = IndoorDepth(args.num_scenes, args.height, args.width, args.input_scale, args.max_depth,
                       args.hole_rate, args.seed)
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers,
                        drop_last=True, generator=torch.Generator().manual_seed(args.seed))
    module = DepthModule(args)
    meter = evalkit.Meter()
    logger = DepthMetricsLogger(args)
    MiniTrainer(args.epochs, meter, [logger]).fit(module, loader)
    last = logger.history[-1]
    keys = sorted(set().union(*logger.history))
    mean = {k: sum(h[k] for h in logger.history if k in h) / sum(1 for h in logger.history if k in h)
            for k in keys}
    meter.report(extra={"last": last, "mean": mean, "steps": len(logger.history)})


if __name__ == "__main__":
    main()
