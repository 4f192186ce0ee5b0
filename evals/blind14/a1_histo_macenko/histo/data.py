"""Synthetic H&E slides cut into tiles: stains vary per slide, like scans from different labs."""
import numpy as np
from torch.utils.data import Dataset

HE_TRUE = np.array([[0.60, 0.24], [0.70, 0.80], [0.39, 0.55]])


def _blobs(rng, h, w, n, radius):
    yy, xx = np.mgrid[0:h, 0:w]
    field = np.zeros((h, w))
    for _ in range(n):
        cy, cx = rng.uniform(0, h), rng.uniform(0, w)
        r = rng.uniform(0.6, 1.4) * radius
        field += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
    return field


def make_slides(n_slides, slide_size, seed):
    """Render slides by Beer-Lambert from hematoxylin / eosin concentration maps."""
    rng = np.random.default_rng(seed)
    slides = []
    for s in range(n_slides):
        stains = HE_TRUE * rng.uniform(0.8, 1.25, size=(3, 2))
        stains /= np.linalg.norm(stains, axis=0, keepdims=True)
        tumour = s % 2 == 1
        h_map = 1.4 * _blobs(rng, slide_size, slide_size, 60 if tumour else 22, 2.2 if tumour else 1.6)
        e_map = 0.9 + 0.5 * _blobs(rng, slide_size, slide_size, 14, 9.0)
        tissue = _blobs(rng, slide_size, slide_size, 9, 40.0) > 0.2
        conc = np.stack([h_map, e_map], axis=-1) * tissue[..., None] * rng.uniform(0.7, 1.3)
        od = conc @ stains.T
        rgb = 240.0 * np.exp(-od) + rng.normal(0.0, 3.0, size=od.shape)
        slides.append((np.clip(np.rint(rgb), 0, 255).astype(np.uint8), int(tumour)))
    return slides


class TileDataset(Dataset):
    """Map-style dataset of non-overlapping tiles, each labelled with its slide's class."""

    def __init__(self, slides, tile_size, transform=None, min_tissue=0.5):
        self.transform = transform
        self.tiles = []
        for slide, label in slides:
            size = slide.shape[0]
            for y in range(0, size - tile_size + 1, tile_size):
                for x in range(0, size - tile_size + 1, tile_size):
                    tile = slide[y:y + tile_size, x:x + tile_size]
                    if (tile.min(axis=-1) < 200).mean() >= min_tissue:
                        self.tiles.append((np.ascontiguousarray(tile), label))

    def __len__(self):
        return len(self.tiles)

    def __getitem__(self, idx):
        tile, label = self.tiles[idx]
        img = self.transform(tile) if self.transform is not None else tile
        return img, label
