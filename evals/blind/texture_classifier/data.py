import numpy as np
from torch.utils.data import Dataset


def make_textures(n, size, num_classes, seed):
    """Striped/checkered textures whose orientation and frequency depend on the class."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, num_classes, size=n)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    imgs = np.empty((n, size, size, 3), dtype=np.uint8)
    for k in range(num_classes):
        idx = np.nonzero(labels == k)[0]
        angle = np.pi * k / num_classes
        freq = 0.3 + 0.15 * (k % 4)
        base = np.sin(freq * (np.cos(angle) * xx + np.sin(angle) * yy))
        phase = rng.uniform(0, 2 * np.pi, size=(len(idx), 1, 1))
        pattern = np.sin(np.arcsin(np.clip(base, -1, 1))[None] + phase)
        tint = rng.uniform(0.6, 1.0, size=(len(idx), 1, 1, 3))
        noise = rng.normal(0, 0.15, size=(len(idx), size, size, 3))
        val = 0.5 + 0.4 * pattern[..., None] * tint + noise
        imgs[idx] = np.clip(val * 255.0, 0, 255).astype(np.uint8)
    return imgs, labels.astype(np.int64)


class TextureFolder(Dataset):
    def __init__(self, num_images, image_size, num_classes, seed, transform=None):
        self.images, self.labels = make_textures(num_images, image_size, num_classes, seed)
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        img = self.images[index]
        if self.transform is not None:
            img = self.transform(img)
        return img, int(self.labels[index])
