"""torchvision-style transforms for photographed pages.

Each transform takes and returns a `sample` dict: {"image": HxW array, "meta": {...}}.
"""
import math

import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample

    def __repr__(self):
        lines = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n{lines}\n)"


class RandomCurvatureJitter:
    """The capture app's curvature estimate is noisy: train on perturbed estimates."""

    def __init__(self, rel, seed=0):
        self.rel = rel
        self.rng = np.random.default_rng(seed)

    def __call__(self, sample):
        meta = dict(sample["meta"])
        meta["curvature"] = meta["curvature"] * (1.0 + self.rng.uniform(-self.rel, self.rel))
        return {**sample, "meta": meta}

    def __repr__(self):
        return f"RandomCurvatureJitter(rel={self.rel})"


class CylinderDewarp:
    """Flatten a page photographed around a vertical cylinder of curvature k = 1/R.

    For every pixel of the flattened page the mesh gives the point of the photo it
    came from (x along the arc, y scaled by the perspective of the curl's depth);
    the value there is sampled bilinearly. Points outside the photo get `fill`.
    """

    def __init__(self, fill=1.0):
        self.fill = fill

    def __call__(self, sample):
        img = sample["image"]
        k = sample["meta"]["curvature"]
        persp = sample["meta"]["perspective"]
        h, w = img.shape
        cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
        src = img.tolist()
        out = [[self.fill] * w for _ in range(h)]
        for y in range(h):
            row = out[y]
            for x in range(w):
                # mesh: flat (x, y) -> photo (xs, ys)
                theta = (x - cx) * k
                xs = cx + math.sin(theta) / k
                depth = (1.0 - math.cos(theta)) / k
                ys = cy + (y - cy) / (1.0 + depth * persp)
                if xs < 0.0 or ys < 0.0 or xs > w - 1 or ys > h - 1:
                    continue
                x0 = int(xs)
                y0 = int(ys)
                x1 = min(x0 + 1, w - 1)
                y1 = min(y0 + 1, h - 1)
                fx = xs - x0
                fy = ys - y0
                r0 = src[y0]
                r1 = src[y1]
                top = r0[x0] * (1.0 - fx) + r0[x1] * fx
                bot = r1[x0] * (1.0 - fx) + r1[x1] * fx
                row[x] = top * (1.0 - fy) + bot * fy
        return {**sample, "image": np.asarray(out, dtype=np.float64)}

    def __repr__(self):
        return f"CylinderDewarp(fill={self.fill})"


class MeanThreshold:
    """Binarise ink vs paper against the page mean (keeps the gray page as channel 0)."""

    def __init__(self, offset):
        self.offset = offset

    def __call__(self, sample):
        img = sample["image"]
        ink = (img < img.mean() - self.offset).astype(np.float64)
        return {**sample, "image": np.stack([img, ink])}

    def __repr__(self):
        return f"MeanThreshold(offset={self.offset})"


class ToTensor:
    def __call__(self, sample):
        return {**sample, "image": torch.from_numpy(np.ascontiguousarray(sample["image"], dtype=np.float32))}

    def __repr__(self):
        return "ToTensor()"


def build_transforms(cfg, seed):
    return Compose([
        RandomCurvatureJitter(cfg["curvature_jitter"], seed=seed),
        CylinderDewarp(fill=cfg["fill"]),
        MeanThreshold(cfg["threshold_offset"]),
        ToTensor(),
    ])
