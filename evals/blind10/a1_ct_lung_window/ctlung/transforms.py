"""torchvision-style transforms over a sample dict: {"blob": bytes, ...} -> {"image": Tensor, ...}."""
from collections import deque

import numpy as np
import torch

from .dicomlite import read_slice


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample

    def __repr__(self):
        body = "".join(f"\n    {t!r}," for t in self.transforms)
        return f"{self.__class__.__name__}({body}\n)"


class DecodeSlice:
    """Parse the DCML header and pixel block."""

    def __call__(self, sample):
        header, pixels = read_slice(sample.pop("blob"))
        sample["header"] = header
        sample["pixels"] = pixels
        return sample


class ToHounsfield:
    """HU = stored * RescaleSlope + RescaleIntercept (float64), clipped to the scanner range."""

    def __init__(self, lo=-1024.0, hi=3071.0):
        self.lo, self.hi = lo, hi

    def __call__(self, sample):
        h = sample["header"]
        hu = sample.pop("pixels").astype(np.float64) * h.slope + h.intercept
        sample["hu"] = np.clip(hu, self.lo, self.hi)
        return sample


class LungMask:
    """Lung segmentation by region growing, then hole filling.

    Seeds: on a few rows around the middle, walk from the image centre outwards on each side
    until the first pixel in the lung HU range. From each seed, grow the 8-connected region of
    pixels with low <= HU <= high; regions smaller than `min_region` are dropped. Vessels and
    nodules leave holes in the grown mask: every non-lung pixel that the image border cannot
    reach (4-connected, through non-lung pixels) is filled in.
    """

    GROW = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
    FILL = ((-1, 0), (1, 0), (0, -1), (0, 1))

    def __init__(self, low=-1000.0, high=-400.0, seed_rows=(-8, 0, 8), min_region=50):
        self.low, self.high = low, high
        self.seed_rows = seed_rows
        self.min_region = min_region

    def find_seeds(self, hu):
        rows, cols = hu.shape
        mid_r, mid_c = rows // 2, cols // 2
        seeds = []
        for dr in self.seed_rows:
            r = mid_r + dr
            for step in (-1, 1):
                c = mid_c
                while 0 <= c < cols:
                    if self.low <= hu[r, c] <= self.high:
                        seeds.append((r, c))
                        break
                    c += step
        return seeds

    def grow(self, hu, seed, taken):
        rows, cols = hu.shape
        region = []
        queue = deque([seed])
        taken.add(seed)
        while queue:
            r, c = queue.popleft()
            region.append((r, c))
            for dr, dc in self.GROW:
                nr, nc = r + dr, c + dc
                if 0 <= nr < rows and 0 <= nc < cols and (nr, nc) not in taken \
                        and self.low <= hu[nr, nc] <= self.high:
                    taken.add((nr, nc))
                    queue.append((nr, nc))
        return region

    def fill_holes(self, mask):
        rows, cols = mask.shape
        outside = np.zeros_like(mask)
        queue = deque()
        for r in range(rows):
            for c in (0, cols - 1):
                if not mask[r, c] and not outside[r, c]:
                    outside[r, c] = True
                    queue.append((r, c))
        for c in range(cols):
            for r in (0, rows - 1):
                if not mask[r, c] and not outside[r, c]:
                    outside[r, c] = True
                    queue.append((r, c))
        while queue:
            r, c = queue.popleft()
            for dr, dc in self.FILL:
                nr, nc = r + dr, c + dc
                if 0 <= nr < rows and 0 <= nc < cols and not outside[nr, nc] and not mask[nr, nc]:
                    outside[nr, nc] = True
                    queue.append((nr, nc))
        return ~outside

    def __call__(self, sample):
        hu = sample["hu"]
        mask = np.zeros(hu.shape, dtype=bool)
        taken = set()
        regions = []
        for seed in self.find_seeds(hu):
            if seed in taken:
                continue
            region = self.grow(hu, seed, taken)
            if len(region) >= self.min_region:
                regions.append(region)
        for region in regions:
            rr, cc = zip(*region)
            mask[list(rr), list(cc)] = True
        sample["lung_mask"] = self.fill_holes(mask)
        sample["n_regions"] = len(regions)
        return sample

    def __repr__(self):
        return f"LungMask(low={self.low}, high={self.high}, seed_rows={self.seed_rows})"


class RandomWindow:
    """Window/level from the header, jittered: center +- `center_jitter` HU, width * (1 +- `width_jitter`)."""

    def __init__(self, center_jitter=40.0, width_jitter=0.1):
        self.center_jitter, self.width_jitter = center_jitter, width_jitter

    def __call__(self, sample):
        h = sample["header"]
        u = torch.rand(2, dtype=torch.float64).tolist()
        center = h.window_center + (2.0 * u[0] - 1.0) * self.center_jitter
        width = h.window_width * (1.0 + (2.0 * u[1] - 1.0) * self.width_jitter)
        lo = center - width / 2.0
        sample["image"] = np.clip((sample.pop("hu") - lo) / width, 0.0, 1.0)
        return sample


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, sample):
        if torch.rand(1).item() < self.p:
            sample["image"] = sample["image"][:, ::-1]
            sample["lung_mask"] = sample["lung_mask"][:, ::-1]
        return sample


class ToTensor:
    """image + lung mask -> float32 [2, H, W]; the header is dropped."""

    def __call__(self, sample):
        img = np.stack([sample.pop("image"), sample["lung_mask"]]).astype(np.float32)
        mask = sample.pop("lung_mask")
        sample.pop("header")
        sample["image"] = torch.from_numpy(np.ascontiguousarray(img))
        sample["lung_fraction"] = torch.tensor(float(mask.mean()), dtype=torch.float32)
        return sample
