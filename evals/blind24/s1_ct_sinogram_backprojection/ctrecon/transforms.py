"""torchvision-style transforms operating on dict samples."""
import numpy as np
import torch

from .fbp import backproject, ramp_filter


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample

    def __repr__(self):
        return "Compose(" + ", ".join(type(t).__name__ for t in self.transforms) + ")"


class FilteredBackprojection:
    def __init__(self, theta, det, size, window="ram-lak"):
        self.theta, self.det, self.size, self.window = theta, det, size, window

    def __call__(self, sample):
        filtered = ramp_filter(sample["sinogram"], self.window)
        sample["image"] = backproject(filtered, self.theta, self.det, self.size)
        return sample


class HUWindow:
    """Map reconstructed attenuation to [0, 1] with a soft-tissue window."""

    def __init__(self, level, width):
        self.lo = level - width / 2.0
        self.width = width

    def __call__(self, sample):
        sample["image"] = np.clip((sample["image"] - self.lo) / self.width, 0.0, 1.0)
        return sample


class RandomFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, sample):
        img = sample["image"]
        if torch.rand(1).item() < self.p:
            img = img[:, ::-1]
        if torch.rand(1).item() < self.p:
            img = img[::-1, :]
        sample["image"] = img
        return sample


class ToTensor:
    def __call__(self, sample):
        img = torch.from_numpy(np.ascontiguousarray(sample["image"], dtype=np.float32))
        return img.unsqueeze(0), torch.tensor(sample["label"], dtype=torch.long)
