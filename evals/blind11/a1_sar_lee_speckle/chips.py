"""Synthetic GRD amplitude chips, stored as they come off a tiler: a small header + big-endian uint16."""
import struct
import zlib

import numpy as np
import torch
from torch.utils.data import Dataset

MAGIC = b"SARC"
HEADER = struct.Struct(">4sHHBB")  # magic, height, width, looks, class id
CLASSES = ("water", "urban", "forest", "cropland")


def _scene(rng, cls, size):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    if cls == 0:  # calm water: very dark, some wind streaks
        sigma = 18.0 + 6.0 * np.sin(xx / rng.uniform(6, 14) + rng.uniform(0, 6.28))
        sigma[rng.random((size, size)) < 0.04] = 0.0
    elif cls == 1:  # urban: bright blocks and point scatterers
        sigma = np.full((size, size), 140.0)
        for _ in range(rng.integers(4, 9)):
            y0, x0 = rng.integers(0, size - 8, 2)
            sigma[y0:y0 + rng.integers(4, 12), x0:x0 + rng.integers(4, 12)] = rng.uniform(300, 900)
        pts = rng.integers(0, size, (30, 2))
        sigma[pts[:, 0], pts[:, 1]] = 2500.0
    elif cls == 2:  # forest: medium, textured canopy
        sigma = 160.0 + 40.0 * rng.standard_normal((size, size)).cumsum(axis=1) / np.sqrt(size)
    else:  # cropland: parcels with stripes
        angle = rng.uniform(0, np.pi)
        sigma = 120.0 + 60.0 * (np.sin((np.cos(angle) * xx + np.sin(angle) * yy) / 3.0) > 0)
    return np.clip(sigma, 0.0, None)


def make_chip(rng, cls, size, looks):
    sigma = _scene(rng, cls, size)
    # multilook intensity speckle ~ Gamma(L, 1/L); amplitude = sqrt(intensity)
    speckle = rng.gamma(looks, 1.0 / looks, (size, size))
    amp = np.sqrt(sigma ** 2 * speckle)
    dn = np.clip(np.rint(amp), 0, 4095).astype(">u2")
    return zlib.compress(HEADER.pack(MAGIC, size, size, looks, cls) + dn.tobytes(), 6)


def decode_chip(blob):
    raw = zlib.decompress(blob)
    magic, h, w, looks, cls = HEADER.unpack_from(raw)
    if magic != MAGIC:
        raise ValueError("not a SAR chip")
    dn = np.frombuffer(raw, dtype=">u2", offset=HEADER.size, count=h * w).reshape(h, w)
    return dn.astype(np.int64), cls


class SARChipDataset(Dataset):
    def __init__(self, num_chips, chip_size, looks, num_classes, seed, transform=None):
        rng = np.random.default_rng(seed)
        self.blobs = []
        for k in range(num_chips):
            cls = k % num_classes
            self.blobs.append(make_chip(rng, cls, chip_size, looks))
        self.transform = transform

    def __len__(self):
        return len(self.blobs)

    def __getitem__(self, idx):
        dn, cls = decode_chip(self.blobs[idx])
        img = self.transform(dn) if self.transform is not None else torch.from_numpy(dn).float()
        return img, cls
