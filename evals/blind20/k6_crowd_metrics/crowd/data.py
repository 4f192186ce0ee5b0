"""Synthetic crowd scenes: head positions -> Gaussian density map (sums to the head count) and an image.

The scenes are rendered once when the dataset is built (like loading a prepared .npz of images and
density maps); __getitem__ only applies the random flip.
"""
import numpy as np
import torch
from torch.utils.data import Dataset


def gaussian_matrix(size, sigma):
    idx = np.arange(size)
    k = np.exp(-0.5 * ((idx[:, None] - idx[None, :]) / sigma) ** 2)
    return k / k.sum(axis=0, keepdims=True)


def render_scene(rng, size, mean_heads, kernel, blur):
    n = int(rng.poisson(mean_heads))
    centres = rng.uniform(10, size - 10, size=(3, 2))
    which = rng.integers(0, 3, size=n)
    pts = np.clip(centres[which] + rng.normal(0, size / 8, size=(n, 2)), 0, size - 1e-3)
    heads, _, _ = np.histogram2d(pts[:, 0], pts[:, 1], bins=size, range=[[0, size], [0, size]])
    density = kernel @ heads @ kernel.T
    image = 0.25 + 0.6 * (blur @ heads @ blur.T) + rng.normal(0, 0.05, size=heads.shape)
    return image.astype(np.float32), density.astype(np.float32), n


class CrowdScenes(Dataset):
    def __init__(self, num_images, size, mean_heads, sigma, seed, hflip=0.5):
        kernel, blur = gaussian_matrix(size, sigma), gaussian_matrix(size, 1.2)
        images, densities, counts = [], [], []
        for idx in range(num_images):
            rng = np.random.default_rng([seed, idx])
            image, density, n = render_scene(rng, size, mean_heads[idx % len(mean_heads)], kernel, blur)
            images.append(image)
            densities.append(density)
            counts.append(n)
        self.images = torch.from_numpy(np.stack(images)).unsqueeze(1)
        self.densities = torch.from_numpy(np.stack(densities)).unsqueeze(1)
        self.counts = torch.tensor(counts, dtype=torch.float32)
        self.hflip = hflip

    def __len__(self):
        return len(self.counts)

    def __getitem__(self, idx):
        image, density = self.images[idx], self.densities[idx]
        if torch.rand(1).item() < self.hflip:
            image, density = image.flip(-1), density.flip(-1)
        return {"image": image, "density": density, "count": self.counts[idx]}
