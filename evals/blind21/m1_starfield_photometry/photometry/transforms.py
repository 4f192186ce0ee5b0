"""Frame -> star catalogue transforms (torchvision style: callables chained by Compose)."""
import math
import statistics

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


class CalibrateFrame:
    """Bias subtraction; the frame becomes float64 ADU."""

    def __init__(self, bias=100.0):
        self.bias = float(bias)

    def __call__(self, sample):
        sample["image"] = sample["raw"].astype(np.float64) - self.bias
        return sample

    def __repr__(self):
        return f"CalibrateFrame(bias={self.bias})"


class DetectStars:
    """Stars are local maxima (3x3) above sky + threshold_sigma * robust sigma.

    Peaks closer than `border` pixels to the frame edge are skipped so that every
    annulus lies inside the frame.
    """

    def __init__(self, threshold_sigma=5.0, border=7):
        self.threshold_sigma = float(threshold_sigma)
        self.border = int(border)

    def __call__(self, sample):
        img = sample["image"]
        grid = img[::4, ::4]  # sparse grid is plenty for a robust sky estimate
        sky = float(np.median(grid))
        mad = float(np.median(np.abs(grid - sky)))
        threshold = sky + self.threshold_sigma * 1.4826 * mad
        height, width = img.shape
        b = self.border
        peaks = []
        for y in range(b, height - b):
            for x in range(b, width - b):
                v = img[y, x]
                if v <= threshold:
                    continue
                neighbourhood = img[y - 1:y + 2, x - 1:x + 2]
                if v >= neighbourhood.max():
                    peaks.append((y, x))
        sample["peaks"] = peaks
        sample["sky"] = sky
        return sample

    def __repr__(self):
        return f"DetectStars(threshold_sigma={self.threshold_sigma}, border={self.border})"


class AperturePhotometry:
    """Circular aperture sum minus the median of a background annulus, per star."""

    def __init__(self, aperture_radius=3, annulus_inner=5, annulus_outer=7):
        self.r_ap = int(aperture_radius)
        self.r_in = int(annulus_inner)
        self.r_out = int(annulus_outer)

    def measure(self, img, cy, cx):
        r_ap2, r_in2, r_out2 = self.r_ap ** 2, self.r_in ** 2, self.r_out ** 2
        aperture_sum = 0.0
        n_ap = 0
        annulus = []
        for y in range(cy - self.r_out, cy + self.r_out + 1):
            for x in range(cx - self.r_out, cx + self.r_out + 1):
                d2 = (y - cy) ** 2 + (x - cx) ** 2
                if d2 <= r_ap2:
                    aperture_sum += img[y, x]
                    n_ap += 1
                elif r_in2 <= d2 <= r_out2:
                    annulus.append(img[y, x])
        background = statistics.median(annulus)
        flux = aperture_sum - background * n_ap
        return flux, background

    def __call__(self, sample):
        img = sample["image"]
        catalogue = []
        for cy, cx in sample["peaks"]:
            flux, background = self.measure(img, cy, cx)
            catalogue.append((flux, background, cy, cx))
        sample["catalogue"] = catalogue
        return sample

    def __repr__(self):
        return f"AperturePhotometry(r_ap={self.r_ap}, annulus=({self.r_in}, {self.r_out}))"


class CatalogToTensor:
    """Brightest `max_stars` stars -> (max_stars, 5) float32: inst. mag, log bkg, y, x, valid."""

    def __init__(self, max_stars=48, frame_size=160):
        self.max_stars = int(max_stars)
        self.frame_size = float(frame_size)

    def __call__(self, sample):
        rows = sorted(sample["catalogue"], key=lambda r: -r[0])[: self.max_stars]
        table = np.zeros((self.max_stars, 5), dtype=np.float32)
        for i, (flux, background, cy, cx) in enumerate(rows):
            table[i, 0] = -2.5 * math.log10(max(flux, 1.0)) + 20.0
            table[i, 1] = math.log1p(max(background, 0.0))
            table[i, 2] = cy / self.frame_size
            table[i, 3] = cx / self.frame_size
            table[i, 4] = 1.0
        return {
            "catalogue": torch.from_numpy(table),
            "n_stars": torch.tensor(len(sample["catalogue"]), dtype=torch.int64),
            "target": torch.tensor([sample["transparency"]], dtype=torch.float32),
        }

    def __repr__(self):
        return f"CatalogToTensor(max_stars={self.max_stars})"
