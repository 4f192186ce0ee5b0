"""torchvision-style transforms operating on (image, rng) pairs of numpy arrays."""
import numpy as np
import torch

from .color import rgb_to_hsv_image
from .morphology import binary_open


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, sample, rng):
        for t in self.transforms:
            sample = t(sample, rng)
        return sample

    def __repr__(self):
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n{body}\n)"


class RandomFlip:
    def __init__(self, hflip_p=0.5, vflip_p=0.5):
        self.hflip_p = hflip_p
        self.vflip_p = vflip_p

    def __call__(self, sample, rng):
        img = sample["image"]
        if rng.random() < self.hflip_p:
            img = img[:, ::-1]
        if rng.random() < self.vflip_p:
            img = img[::-1, :]
        sample["image"] = np.ascontiguousarray(img)
        return sample

    def __repr__(self):
        return f"RandomFlip(h={self.hflip_p}, v={self.vflip_p})"


class RandomBrightness:
    """uint8 RGB -> float64 RGB in [0, 1], scaled by a random factor."""

    def __init__(self, amount):
        self.amount = amount

    def __call__(self, sample, rng):
        factor = 1.0 + rng.uniform(-self.amount, self.amount)
        img = sample["image"].astype(np.float64) / 255.0
        sample["image"] = np.clip(img * factor, 0.0, 1.0)
        return sample

    def __repr__(self):
        return f"RandomBrightness({self.amount})"


class ToHSV:
    def __call__(self, sample, rng):
        sample["hsv"] = rgb_to_hsv_image(sample["image"])
        return sample

    def __repr__(self):
        return "ToHSV()"


class LesionMask:
    """Pixels whose hue falls in one of the lesion ranges, saturated enough and not too bright."""

    def __init__(self, hue_ranges, min_saturation, max_value, morph_iterations=1):
        self.hue_ranges = [tuple(r) for r in hue_ranges]
        self.min_saturation = min_saturation
        self.max_value = max_value
        self.morph_iterations = morph_iterations

    def _is_lesion(self, h, s, v):
        if s < self.min_saturation or v > self.max_value:
            return 0
        for lo, hi in self.hue_ranges:
            if lo <= h <= hi:
                return 1
        return 0

    def __call__(self, sample, rng):
        hsv = sample["hsv"]
        mask = [[self._is_lesion(h, s, v) for h, s, v in row] for row in hsv.tolist()]
        if self.morph_iterations:
            mask = binary_open(mask, self.morph_iterations)
        sample["mask"] = np.asarray(mask, dtype=np.uint8)
        return sample

    def __repr__(self):
        return f"LesionMask(hues={self.hue_ranges}, s>={self.min_saturation}, v<={self.max_value})"


class ToTensor:
    def __call__(self, sample, rng):
        hsv = torch.from_numpy(sample["hsv"].transpose(2, 0, 1).astype(np.float32))
        mask = torch.from_numpy(sample["mask"].astype(np.float32))[None]
        area = int(sample["mask"].sum())
        return {
            "pixels": torch.cat([hsv, mask], dim=0),
            "lesion_frac": torch.tensor(area / sample["mask"].size, dtype=torch.float32),
            "label": torch.tensor(sample["label"], dtype=torch.long),
        }

    def __repr__(self):
        return "ToTensor()"


def build_transforms(cfg):
    d, a = cfg["data"], cfg["augment"]
    return Compose([
        RandomFlip(a["hflip_p"], a["vflip_p"]),
        RandomBrightness(a["brightness"]),
        ToHSV(),
        LesionMask(d["lesion_hue_ranges"], d["min_saturation"], d["max_value"], d["morph_iterations"]),
        ToTensor(),
    ])
