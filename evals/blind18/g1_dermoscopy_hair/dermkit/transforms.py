"""Dermoscopy transforms, torchvision style: callables on a sample dict, chained by Compose."""
import math

import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample

    def __repr__(self):
        return "Compose(" + ", ".join(type(t).__name__ for t in self.transforms) + ")"


class RandomCrop:
    def __init__(self, size, generator):
        self.size = size
        self.generator = generator

    def __call__(self, sample):
        img = sample["image"]
        h, w = img.shape[:2]
        top = int(torch.randint(0, h - self.size + 1, (1,), generator=self.generator))
        left = int(torch.randint(0, w - self.size + 1, (1,), generator=self.generator))
        sample["image"] = img[top:top + self.size, left:left + self.size]
        return sample


class RandomFlip:
    def __init__(self, generator, p=0.5):
        self.generator = generator
        self.p = p

    def __call__(self, sample):
        img = sample["image"]
        if float(torch.rand((), generator=self.generator)) < self.p:
            img = img[:, ::-1]
        if float(torch.rand((), generator=self.generator)) < self.p:
            img = img[::-1, :]
        sample["image"] = np.ascontiguousarray(img)
        return sample


def disk_offsets(radius):
    return [(dy, dx) for dy in range(-radius, radius + 1) for dx in range(-radius, radius + 1)
            if dy * dy + dx * dx <= radius * radius]


def luminance(rgb):
    rgb = rgb.astype(np.int32)
    return (rgb[..., 0] * 299 + rgb[..., 1] * 587 + rgb[..., 2] * 114) // 1000


def _grey_morph(patch, offsets, reduce):
    """Grey dilation (reduce=max) or erosion (reduce=min) with the window clipped to the patch."""
    h, w = len(patch), len(patch[0])
    out = []
    for y in range(h):
        row = []
        for x in range(w):
            row.append(reduce(patch[y + dy][x + dx] for dy, dx in offsets
                              if 0 <= y + dy < h and 0 <= x + dx < w))
        out.append(row)
    return out


def black_hat(lum, patch_size, offsets):
    """Closing minus image, computed independently on each patch_size x patch_size tile."""
    h, w = lum.shape
    out = np.zeros_like(lum)
    for py in range(0, h, patch_size):
        for px in range(0, w, patch_size):
            tile = lum[py:py + patch_size, px:px + patch_size].tolist()
            closed = _grey_morph(_grey_morph(tile, offsets, max), offsets, min)
            out[py:py + patch_size, px:px + patch_size] = np.asarray(closed, dtype=lum.dtype)
    return out - lum


class HairRemoval:
    """DullRazor-like hair removal: dark thin structures found by a black-hat, then filled."""

    def __init__(self, patch_size=16, se_radius=2, threshold=18):
        self.patch_size = patch_size
        self.offsets = disk_offsets(se_radius)
        self.threshold = threshold

    def __call__(self, sample):
        img = sample["image"]
        lum = luminance(img)
        bh = black_hat(lum, self.patch_size, self.offsets)
        hair = bh > self.threshold
        filled = img.astype(np.int32) + np.where(hair, bh, 0)[..., None]
        sample["image"] = np.clip(filled, 0, 255).astype(np.uint8)
        sample["hair_fraction"] = float(hair.mean())
        return sample


class ShadesOfGrey:
    """Finlayson shades-of-grey colour constancy with Minkowski norm p."""

    def __init__(self, power=6):
        self.power = power

    def __call__(self, sample):
        img = sample["image"].astype(np.float64) / 255.0
        illum = np.power(np.mean(np.power(img, self.power), axis=(0, 1)), 1.0 / self.power)
        illum = illum / np.sqrt(np.sum(illum * illum))
        img = img / (illum * math.sqrt(3.0))
        sample["image"] = np.clip(img, 0.0, 1.0).astype(np.float32)
        return sample


class BorderIrregularity:
    """Compactness index P^2 / (4 pi A) of the thresholded lesion mask, plus asymmetry."""

    def __call__(self, sample):
        img = sample["image"]
        grey = img.mean(axis=2)
        mask = grey < grey.mean() - 0.5 * grey.std()
        area = float(mask.sum())
        edges = (mask[1:, :] != mask[:-1, :]).sum() + (mask[:, 1:] != mask[:, :-1]).sum()
        compact = float(edges) ** 2 / (4.0 * math.pi * area) if area > 0 else 0.0
        asym = float((mask != mask[:, ::-1]).sum()) / area if area > 0 else 0.0
        sample["features"] = torch.tensor([compact / 10.0, asym, sample.get("hair_fraction", 0.0)],
                                          dtype=torch.float32)
        return sample


class ToTensor:
    def __call__(self, sample):
        sample["image"] = torch.from_numpy(np.ascontiguousarray(sample["image"].transpose(2, 0, 1)))
        return sample
