"""torchvision-style transforms over a sample dict {"raw", "exptime", "sources", ...}."""
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
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{type(self).__name__}(\n{body}\n)"


class Calibrate:
    """(raw - bias - dark * t) / flat, in float64 ADU."""

    def __init__(self, masters):
        self.masters = masters

    def __call__(self, sample):
        m = self.masters
        raw = sample.pop("raw").astype(np.float64)
        sample["image"] = (raw - m.bias - m.dark * sample["exptime"]) / m.flat
        return sample

    def __repr__(self):
        return f"Calibrate(shape={self.masters.bias.shape})"


def median3x3(rows):
    """Median of each pixel's 3x3 neighbourhood (edges replicated), on a list of rows."""
    h, w = len(rows), len(rows[0])
    out = []
    for y in range(h):
        r0 = rows[y - 1 if y > 0 else 0]
        r1 = rows[y]
        r2 = rows[y + 1 if y < h - 1 else h - 1]
        orow = []
        for x in range(w):
            xl = x - 1 if x > 0 else 0
            xr = x + 1 if x < w - 1 else w - 1
            window = sorted((r0[xl], r0[x], r0[xr], r1[xl], r1[x], r1[xr], r2[xl], r2[x], r2[xr]))
            orow.append(window[4])
        out.append(orow)
    return out


class CosmicRayReject:
    """Iterative sigma clipping against the local median (L.A.Cosmic-lite).

    A pixel is a hit when it exceeds its 3x3 median by `sigclip` times the noise expected at the
    median level (Poisson + read noise, in ADU) and is `objlim` times brighter than that median
    (which spares the cores of stars); hits are replaced by the median and the pass is
    repeated on the cleaned frame until nothing new is flagged or `max_iter` passes are done.
    """

    def __init__(self, gain, read_noise, sigclip=5.0, objlim=3.0, max_iter=3):
        self.gain = gain
        self.objlim = objlim
        self.rn2 = (read_noise / gain) ** 2
        self.sigclip = sigclip
        self.max_iter = max_iter

    def __call__(self, sample):
        rows = sample["image"].tolist()
        total = 0
        passes = 0
        while passes < self.max_iter:
            med = median3x3(rows)
            flagged = 0
            cleaned = []
            for row, mrow in zip(rows, med):
                new = []
                for v, m in zip(row, mrow):
                    sig = math.sqrt(max(m, 0.0) / self.gain + self.rn2)
                    if v - m > self.sigclip * sig and v > self.objlim * m:
                        new.append(m)
                        flagged += 1
                    else:
                        new.append(v)
                cleaned.append(new)
            rows = cleaned
            passes += 1
            total += flagged
            if not flagged:
                break
        sample["image"] = np.array(rows, dtype=np.float64)
        sample["n_cr"] = total
        return sample

    def __repr__(self):
        return f"CosmicRayReject(sigclip={self.sigclip}, max_iter={self.max_iter})"


class SourceCutout:
    """Cut a size x size stamp around one catalogue source (zero-padded at the frame edge)."""

    def __init__(self, size, rng):
        self.size = size
        self.rng = rng

    def __call__(self, sample):
        img = sample.pop("image")
        y, x, kind = sample["sources"][int(self.rng.integers(len(sample["sources"])))]
        half = self.size // 2
        stamp = np.zeros((self.size, self.size), dtype=np.float64)
        y0, x0 = y - half, x - half
        ys, xs = max(y0, 0), max(x0, 0)
        ye, xe = min(y0 + self.size, img.shape[0]), min(x0 + self.size, img.shape[1])
        stamp[ys - y0:ye - y0, xs - x0:xe - x0] = img[ys:ye, xs:xe]
        sample["stamp"] = stamp
        sample["label"] = kind
        return sample


class RandomFlip:
    def __init__(self, p, rng):
        self.p = p
        self.rng = rng

    def __call__(self, sample):
        stamp = sample["stamp"]
        if self.rng.random() < self.p:
            stamp = stamp[:, ::-1]
        if self.rng.random() < self.p:
            stamp = stamp[::-1, :]
        sample["stamp"] = stamp
        return sample


class AsinhStretch:
    """Background-subtracted asinh stretch (Lupton et al.)."""

    def __init__(self, softening):
        self.softening = softening

    def __call__(self, sample):
        stamp = sample["stamp"]
        sky = float(np.median(stamp[stamp != 0.0])) if np.any(stamp != 0.0) else 0.0
        sample["stamp"] = np.arcsinh((stamp - sky) / self.softening)
        return sample


class ToTensor:
    def __call__(self, sample):
        sample["stamp"] = torch.from_numpy(np.ascontiguousarray(sample["stamp"], dtype=np.float32))[None]
        return sample
