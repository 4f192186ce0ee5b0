"""torchvision-style transforms on HWC numpy images, driven by an explicit random.Random."""
import math

import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img


class ToFloat:
    def __call__(self, img):
        return img.astype(np.float64) / 255.0


class RandomCrop:
    def __init__(self, size, rng):
        self.size, self.rng = size, rng

    def __call__(self, img):
        h, w = img.shape[:2]
        top = self.rng.randint(0, h - self.size)
        left = self.rng.randint(0, w - self.size)
        return img[top:top + self.size, left:left + self.size]


class RandomFlip:
    def __init__(self, p, axis, rng):
        self.p, self.axis, self.rng = p, axis, rng

    def __call__(self, img):
        if self.rng.random() < self.p:
            return np.flip(img, axis=self.axis)
        return img


def gaussian_kernel1d(kernel_size, sigma):
    """Same construction as torchvision's _get_gaussian_kernel1d, in float64."""
    half = (kernel_size - 1) * 0.5
    xs = [-half + i for i in range(kernel_size)]
    pdf = [math.exp(-0.5 * (x / sigma) ** 2) for x in xs]
    total = sum(pdf)
    return [p / total for p in pdf]


def _reflect(seq, r):
    return seq[r:0:-1] + seq + seq[-2:-r - 2:-1]


def _conv1d(seq, kernel):
    k = len(kernel)
    padded = _reflect(seq, k // 2)
    return [sum(w * v for w, v in zip(kernel, padded[i:i + k])) for i in range(len(seq))]


def blur_channel(rows, kernel):
    """Separable blur of one channel given as a list of rows (reflect padding)."""
    horizontal = [_conv1d(row, kernel) for row in rows]
    columns = [_conv1d(list(col), kernel) for col in zip(*horizontal)]
    return [list(row) for row in zip(*columns)]


class RandomGaussianBlur:
    def __init__(self, kernel_size, sigma, p, rng):
        self.kernel_size, self.sigma, self.p, self.rng = kernel_size, sigma, p, rng

    def __call__(self, img):
        if self.rng.random() >= self.p:
            return img
        sigma = self.rng.uniform(self.sigma[0], self.sigma[1])
        kernel = gaussian_kernel1d(self.kernel_size, sigma)
        channels = [blur_channel(img[:, :, c].tolist(), kernel) for c in range(img.shape[2])]
        return np.stack([np.array(ch, dtype=np.float64) for ch in channels], axis=-1)


class ToTensorNormalize:
    def __init__(self, mean, std):
        self.mean = torch.tensor(mean, dtype=torch.float32).view(-1, 1, 1)
        self.std = torch.tensor(std, dtype=torch.float32).view(-1, 1, 1)

    def __call__(self, img):
        t = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))).float()
        return (t - self.mean) / self.std
