import random

import numpy as np
import torch

from . import ops


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img, rng):
        for t in self.transforms:
            img = t(img, rng)
        return img


class RandomApply:
    def __init__(self, fn, p):
        self.fn, self.p = fn, p

    def __call__(self, img, rng):
        if rng.random() < self.p:
            img = self.fn(img)
        return img


class RandomHorizontalFlip:
    def __init__(self, p):
        self.p = p

    def __call__(self, img, rng):
        if rng.random() < self.p:
            img = np.ascontiguousarray(img[:, ::-1])
        return img


class ToTensor:
    def __call__(self, img, rng):
        return torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))).float().div_(255.0)


class Normalize:
    def __init__(self, mean, std):
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def __call__(self, x, rng):
        return (x - self.mean) / self.std


def build_train_transform(cfg):
    a = cfg["augment"]
    return Compose([
        RandomApply(ops.autocontrast, a["autocontrast_p"]),
        RandomApply(ops.equalize, a["equalize_p"]),
        RandomApply(lambda im: ops.solarize(im, a["solarize_threshold"]), a["solarize_p"]),
        RandomApply(lambda im: ops.posterize(im, a["posterize_bits"]), a["posterize_p"]),
        RandomHorizontalFlip(a["hflip_p"]),
        ToTensor(),
        Normalize(cfg["mean"], cfg["std"]),
    ])
