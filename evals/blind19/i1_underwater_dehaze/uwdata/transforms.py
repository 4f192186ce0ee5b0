"""torchvision-style transforms on float HxWxC numpy images."""
import random

import numpy as np
import torch

from .dehaze import dehaze, grey_world


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        lines = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n{lines}\n)"


class RandomCrop:
    def __init__(self, size):
        self.size = size

    def __call__(self, img):
        h, w = img.shape[:2]
        top = random.randint(0, h - self.size)
        left = random.randint(0, w - self.size)
        return img[top:top + self.size, left:left + self.size]

    def __repr__(self):
        return f"RandomCrop(size={self.size})"


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        if random.random() < self.p:
            return img[:, ::-1]
        return img

    def __repr__(self):
        return f"RandomHorizontalFlip(p={self.p})"


class DarkChannelDehaze:
    def __init__(self, patch_size=15, omega=0.95, t0=0.1, top_percent=0.001):
        self.patch_size = patch_size
        self.omega = omega
        self.t0 = t0
        self.top_percent = top_percent

    def __call__(self, img):
        return dehaze(img, self.patch_size, self.omega, self.t0, self.top_percent)

    def __repr__(self):
        return (f"DarkChannelDehaze(patch_size={self.patch_size}, omega={self.omega}, "
                f"t0={self.t0}, top_percent={self.top_percent})")


class GreyWorld:
    def __call__(self, img):
        return grey_world(img)

    def __repr__(self):
        return "GreyWorld()"


class ToTensor:
    """HWC float64 in [0, 1] -> CHW float32 tensor."""

    def __call__(self, img):
        return torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))).float()

    def __repr__(self):
        return "ToTensor()"


class Normalize:
    def __init__(self, mean, std):
        self.mean = torch.tensor(mean, dtype=torch.float32)[:, None, None]
        self.std = torch.tensor(std, dtype=torch.float32)[:, None, None]

    def __call__(self, tensor):
        return (tensor - self.mean) / self.std

    def __repr__(self):
        return f"Normalize(mean={self.mean.flatten().tolist()}, std={self.std.flatten().tolist()})"
