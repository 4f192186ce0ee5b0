"""Lesion archive: images stored as zlib-compressed RGB blobs with a small struct header."""
import struct
import zlib

import numpy as np
from torch.utils.data import Dataset

_HEADER = struct.Struct("<4sHHB")  # magic, height, width, channels


def encode_image(rgb):
    h, w, c = rgb.shape
    return _HEADER.pack(b"DRM1", h, w, c) + zlib.compress(rgb.tobytes(), 6)


def decode_image(blob):
    magic, h, w, c = _HEADER.unpack_from(blob)
    if magic != b"DRM1":
        raise ValueError("not a DRM1 blob")
    raw = zlib.decompress(blob[_HEADER.size:])
    return np.frombuffer(raw, dtype=np.uint8).reshape(h, w, c).copy()


def _synth_lesion(rng, size, malignant):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    cy, cx = size / 2 + rng.normal(0, 3, 2)
    theta = np.arctan2(yy - cy, xx - cx)
    r = np.hypot(yy - cy, xx - cx)
    base = rng.uniform(0.22, 0.32) * size
    wobble = 0.0
    n_harm = 6 if malignant else 2
    for k in range(2, 2 + n_harm):
        amp = rng.uniform(0.02, 0.12 if malignant else 0.04)
        wobble = wobble + amp * np.cos(k * theta + rng.uniform(0, 2 * np.pi))
    inside = r < base * (1.0 + wobble)
    skin = np.array([214, 168, 140], dtype=np.float64) + rng.normal(0, 8, 3)
    lesion = np.array([112, 72, 50], dtype=np.float64) + rng.normal(0, 10, 3)
    img = np.where(inside[..., None], lesion, skin)
    img = img + rng.normal(0, 4, (size, size, 3))
    # hairs: thin dark quadratic curves
    for _ in range(int(rng.integers(2, 7))):
        x0, y0 = rng.uniform(0, size, 2)
        ang = rng.uniform(0, np.pi)
        bend = rng.normal(0, 0.01)
        t = np.linspace(-size, size, 6 * size)
        px = x0 + t * np.cos(ang)
        py = y0 + t * np.sin(ang) + bend * t * t
        ok = (px >= 0) & (px < size) & (py >= 0) & (py < size)
        img[py[ok].astype(int), px[ok].astype(int)] = rng.uniform(25, 60)
    cast = rng.uniform(0.85, 1.15, 3)  # camera / illuminant colour cast
    return np.clip(img * cast, 0, 255).astype(np.uint8)


class LesionArchive:
    """In-memory archive of (blob, label) records, as read from a dermoscopy export."""

    def __init__(self, num_images, size, seed):
        rng = np.random.default_rng(seed)
        self.records = []
        for i in range(num_images):
            malignant = bool(rng.random() < 0.4)
            self.records.append({"id": f"ISIC_{1000000 + i:07d}", "blob": encode_image(_synth_lesion(rng, size, malignant)),
                                 "label": int(malignant)})

    def __len__(self):
        return len(self.records)


class LesionDataset(Dataset):
    def __init__(self, archive, transform=None):
        self.archive = archive
        self.transform = transform

    def __len__(self):
        return len(self.archive)

    def __getitem__(self, index):
        rec = self.archive.records[index]
        sample = {"image": decode_image(rec["blob"]), "label": rec["label"]}
        if self.transform is not None:
            sample = self.transform(sample)
        return sample["image"], sample["features"], sample["label"]
