"""torchvision-style transforms that take an explicit numpy Generator.

Every transform is `t(img, rng)`: img is an HxWxC numpy array, rng a np.random.Generator
owned by the caller, so a sample's augmentation is a pure function of (seed, epoch, index).
"""
import colorsys

import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img, rng):
        for t in self.transforms:
            img = t(img, rng)
        return img

    def __repr__(self):
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n{body}\n)"


class RandomCrop:
    def __init__(self, size, padding=0):
        self.size = size
        self.padding = padding

    def __call__(self, img, rng):
        if self.padding:
            p = self.padding
            img = np.pad(img, ((p, p), (p, p), (0, 0)), mode="reflect")
        h, w = img.shape[:2]
        top = int(rng.integers(0, h - self.size + 1))
        left = int(rng.integers(0, w - self.size + 1))
        return img[top:top + self.size, left:left + self.size]

    def __repr__(self):
        return f"RandomCrop(size={self.size}, padding={self.padding})"


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img, rng):
        if rng.random() < self.p:
            return img[:, ::-1]
        return img

    def __repr__(self):
        return f"RandomHorizontalFlip(p={self.p})"


class HueSaturationJitter:
    """Shift hue and scale saturation in HSV space (uint8 RGB in, float32 RGB in [0, 1] out)."""

    def __init__(self, hue=0.05, saturation=0.3):
        self.hue = hue
        self.saturation = saturation

    def __call__(self, img, rng):
        dh = rng.uniform(-self.hue, self.hue)
        ds = rng.uniform(1.0 - self.saturation, 1.0 + self.saturation)
        out = []
        for r, g, b in img.reshape(-1, 3).tolist():
            h, s, v = colorsys.rgb_to_hsv(r / 255.0, g / 255.0, b / 255.0)
            h = (h + dh) % 1.0
            s = min(1.0, s * ds)
            out.append(colorsys.hsv_to_rgb(h, s, v))
        return np.asarray(out, dtype=np.float32).reshape(img.shape)

    def __repr__(self):
        return f"HueSaturationJitter(hue={self.hue}, saturation={self.saturation})"


class ToTensor:
    def __call__(self, img, rng):
        return torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))

    def __repr__(self):
        return "ToTensor()"


class Normalize:
    def __init__(self, mean, std):
        self.mean = torch.tensor(mean, dtype=torch.float32).view(-1, 1, 1)
        self.std = torch.tensor(std, dtype=torch.float32).view(-1, 1, 1)

    def __call__(self, tensor, rng):
        return (tensor - self.mean) / self.std

    def __repr__(self):
        return f"Normalize(mean={self.mean.flatten().tolist()}, std={self.std.flatten().tolist()})"
