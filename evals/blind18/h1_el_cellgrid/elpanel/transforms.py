"""torchvision-style transforms over an EL sample dict: grid detection, crack masks, per-cell statistics."""
import math

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


def _gap_centres(profile, frac):
    """Centres of the runs of the profile that fall below frac * max (the dark gaps)."""
    limit = frac * max(profile)
    centres, start = [], None
    for i, v in enumerate(profile):
        if v < limit:
            if start is None:
                start = i
        elif start is not None:
            centres.append((start + i - 1) // 2)
            start = None
    if start is not None:
        centres.append((start + len(profile) - 1) // 2)
    return centres


def _edges(centres, n, length):
    """n+1 cell borders from the gap centres; uniform split when the count is off."""
    if len(centres) == n + 1:
        return centres
    inner = [c for c in centres if 0 < c < length - 1]
    if len(inner) == n - 1:
        return [0] + inner + [length - 1]
    step = length / n
    return [int(round(k * step)) for k in range(n + 1)]


class GridDetect:
    """Find the cell grid from the row and column intensity profiles."""

    def __init__(self, rows, cols, gap_fraction):
        self.rows, self.cols, self.frac = rows, cols, gap_fraction

    def __call__(self, sample):
        px = sample["image"].tolist()
        h, w = len(px), len(px[0])
        row_prof = [sum(row) for row in px]
        col_prof = [sum(px[y][x] for y in range(h)) for x in range(w)]
        # 3-tap box smoothing (integer, edges repeated)
        row_prof = [row_prof[max(i - 1, 0)] + row_prof[i] + row_prof[min(i + 1, h - 1)] for i in range(h)]
        col_prof = [col_prof[max(i - 1, 0)] + col_prof[i] + col_prof[min(i + 1, w - 1)] for i in range(w)]
        ys = _edges(_gap_centres(row_prof, self.frac), self.rows, h)
        xs = _edges(_gap_centres(col_prof, self.frac), self.cols, w)
        sample["pixels"] = px
        sample["grid"] = (ys, xs)
        sample["grid_ok"] = int(len(ys) == self.rows + 1 and len(xs) == self.cols + 1)
        return sample


class CellCrackMask:
    """Per cell: a pixel is cracked when it is darker than its 3x3 local mean by delta and
    darker than median_ratio times the cell's (lower) median."""

    def __init__(self, delta, median_ratio, margin):
        self.delta, self.margin = delta, margin
        self.num, self.den = int(round(median_ratio * 10)), 10

    def _cell_mask(self, cell):
        h, w = len(cell), len(cell[0])
        flat = sorted(v for row in cell for v in row)
        med = flat[len(flat) // 2]
        mask = []
        for y in range(h):
            line = []
            for x in range(w):
                s = 0
                for dy in (-1, 0, 1):
                    yy = min(max(y + dy, 0), h - 1)
                    r = cell[yy]
                    for dx in (-1, 0, 1):
                        s += r[min(max(x + dx, 0), w - 1)]
                p = cell[y][x]
                line.append(1 if (9 * p < s - 9 * self.delta and self.den * p < self.num * med) else 0)
            mask.append(line)
        return mask

    def __call__(self, sample):
        px = sample["pixels"]
        ys, xs = sample["grid"]
        m = self.margin
        cells, masks = [], []
        for y0, y1 in zip(ys[:-1], ys[1:]):
            for x0, x1 in zip(xs[:-1], xs[1:]):
                cell = [row[x0 + m + 1:x1 - m] for row in px[y0 + m + 1:y1 - m]]
                if not cell or not cell[0]:
                    cell = [[0]]
                cells.append(cell)
                masks.append(self._cell_mask(cell))
        sample["cells"], sample["masks"] = cells, masks
        return sample


def _blobs(mask):
    """4-connected components of a 0/1 mask: (count, largest size)."""
    h, w = len(mask), len(mask[0])
    seen = set()
    count = largest = 0
    for y in range(h):
        for x in range(w):
            if mask[y][x] and (y, x) not in seen:
                count += 1
                size, stack = 0, [(y, x)]
                seen.add((y, x))
                while stack:
                    cy, cx = stack.pop()
                    size += 1
                    for ny, nx in ((cy - 1, cx), (cy + 1, cx), (cy, cx - 1), (cy, cx + 1)):
                        if 0 <= ny < h and 0 <= nx < w and mask[ny][nx] and (ny, nx) not in seen:
                            seen.add((ny, nx))
                            stack.append((ny, nx))
                largest = max(largest, size)
    return count, largest


class CellStats:
    """Six numbers per cell: mean, std, crack fraction, blob count, largest blob share, dark share."""

    def __call__(self, sample):
        feats = []
        for cell, mask in zip(sample["cells"], sample["masks"]):
            n = len(cell) * len(cell[0])
            s = sum(sum(row) for row in cell)
            s2 = sum(v * v for row in cell for v in row)
            cracked = sum(sum(row) for row in mask)
            dark = sum(1 for row in cell for v in row if v < 64)
            count, largest = _blobs(mask)
            mean = s / n
            std = math.sqrt(max(n * s2 - s * s, 0)) / n
            feats.append([mean / 255.0, std / 64.0, cracked / n, count / 8.0, largest / n, dark / n])
        sample["features"] = feats
        return sample


class ToTensor:
    def __call__(self, sample):
        return {
            "cells": torch.tensor(sample["features"], dtype=torch.float32),
            "grid_ok": torch.tensor(sample["grid_ok"], dtype=torch.int64),
            "label": torch.tensor(sample["label"], dtype=torch.int64),
        }
