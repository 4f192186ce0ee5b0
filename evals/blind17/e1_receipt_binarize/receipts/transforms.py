"""Document transforms in the torchvision style: callables composed left to right.

Each transform takes and returns a dict sample {"image": ..., "label": ...}; the random ones
draw from the `random.Random` the dataset hands them (one stream, in call order).
"""
import math

import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, sample, rng):
        for t in self.transforms:
            sample = t(sample, rng)
        return sample

    def __repr__(self):
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{type(self).__name__}(\n{body}\n)"


class RandomShade:
    """Scanner exposure: scale the RGB scan by a random gain."""

    def __init__(self, low=0.85, high=1.1):
        self.low, self.high = low, high

    def __call__(self, sample, rng):
        gain = rng.uniform(self.low, self.high)
        img = sample["image"].astype(np.float64) * gain
        sample["image"] = np.clip(img, 0, 255).astype(np.uint8)
        return sample

    def __repr__(self):
        return f"RandomShade({self.low}, {self.high})"


class ToGrayscale:
    """ITU-R BT.601 luma in integer arithmetic, rounded half up."""

    def __call__(self, sample, rng):
        rgb = sample["image"].tolist()
        sample["image"] = [[(299 * r + 587 * g + 114 * b + 500) // 1000 for r, g, b in row] for row in rgb]
        return sample

    def __repr__(self):
        return "ToGrayscale()"


class AdaptiveBinarize:
    """Local-mean thresholding (Bradley-Roth style): ink where the pixel is `offset` below its window mean.

    The window is (2*radius+1)^2, clipped at the border; sums come from an integral image.
    Returns the ink mask as rows of 0/1.
    """

    def __init__(self, radius=4, offset=12.0):
        self.radius = radius
        self.offset = offset

    def __call__(self, sample, rng):
        gray = sample["image"]
        h, w = len(gray), len(gray[0])
        integral = [[0] * (w + 1) for _ in range(h + 1)]
        for y in range(h):
            run = 0
            row, above, cur = gray[y], integral[y], integral[y + 1]
            for x in range(w):
                run += row[x]
                cur[x + 1] = above[x + 1] + run
        r = self.radius
        ink = []
        for y in range(h):
            y0, y1 = max(0, y - r), min(h, y + r + 1)
            out = []
            for x in range(w):
                x0, x1 = max(0, x - r), min(w, x + r + 1)
                s = integral[y1][x1] - integral[y0][x1] - integral[y1][x0] + integral[y0][x0]
                area = (y1 - y0) * (x1 - x0)
                out.append(1 if gray[y][x] < s / area - self.offset else 0)
            ink.append(out)
        sample["image"] = ink
        return sample

    def __repr__(self):
        return f"AdaptiveBinarize(radius={self.radius}, offset={self.offset})"


class ProjectionDeskew:
    """Estimate the skew from horizontal projection profiles and shear the columns back.

    For every candidate angle, each column is shifted by round((x - w//2) * tan(angle)) and the ink is
    counted per row; the sharpest profile (largest sum of squared row-to-row differences) wins, the
    first one on ties.
    """

    def __init__(self, max_angle=6.0, step=1.0):
        n = int(round(max_angle / step))
        self.angles = [step * k for k in range(-n, n + 1)]
        self.max_angle, self.step = max_angle, step

    @staticmethod
    def _shifts(width, angle):
        slope = math.tan(math.radians(angle))
        return [round((x - width // 2) * slope) for x in range(width)]

    def __call__(self, sample, rng):
        ink = sample["image"]
        h, w = len(ink), len(ink[0])
        best_score, best_shifts = None, None
        for angle in self.angles:
            shifts = self._shifts(w, angle)
            profile = [0] * h
            for y, row in enumerate(ink):
                for x, v in enumerate(row):
                    if v:
                        yy = y - shifts[x]
                        if 0 <= yy < h:
                            profile[yy] += 1
            score = sum((b - a) ** 2 for a, b in zip(profile, profile[1:]))
            if best_score is None or score > best_score:
                best_score, best_shifts = score, shifts
        out = [[0] * w for _ in range(h)]
        for x, s in enumerate(best_shifts):
            for y in range(h):
                yy = y + s
                if 0 <= yy < h:
                    out[y][x] = ink[yy][x]
        sample["image"] = out
        return sample

    def __repr__(self):
        return f"ProjectionDeskew(max_angle={self.max_angle}, step={self.step})"


class RandomLineCrop:
    """Pick one printed line (a run of rows with enough ink) at random and crop a band around it."""

    def __init__(self, height=16, min_ink=3, max_jitter=2):
        self.height, self.min_ink, self.max_jitter = height, min_ink, max_jitter

    def __call__(self, sample, rng):
        ink = sample["image"]
        h = len(ink)
        counts = [sum(row) for row in ink]
        runs, y = [], 0
        while y < h:
            if counts[y] >= self.min_ink:
                start = y
                while y < h and counts[y] >= self.min_ink:
                    y += 1
                runs.append((start, y))
            else:
                y += 1
        if runs:
            start, stop = runs[rng.randrange(len(runs))]
            centre = (start + stop) // 2
        else:
            centre = h // 2
        centre += rng.randint(-self.max_jitter, self.max_jitter)
        top = min(max(0, centre - self.height // 2), h - self.height)
        sample["image"] = ink[top:top + self.height]
        sample["n_lines"] = len(runs)
        return sample

    def __repr__(self):
        return f"RandomLineCrop(height={self.height}, min_ink={self.min_ink})"


class ToTensor:
    def __call__(self, sample, rng):
        sample["image"] = torch.tensor(sample["image"], dtype=torch.float32).unsqueeze(0)
        return sample

    def __repr__(self):
        return "ToTensor()"
