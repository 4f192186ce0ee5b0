import numpy as np
import torch
from torch.utils.data import Dataset

from .segment import label_regions, robust_threshold
from .synth import render_tile


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample

    def __repr__(self):
        return "Compose(" + ", ".join(type(t).__name__ for t in self.transforms) + ")"


class ThresholdMask:
    """Fixed camera-count threshold, or median + k * MAD when `threshold` is None."""

    def __init__(self, threshold=None, k=4.0):
        self.threshold = threshold
        self.k = k

    def __call__(self, sample):
        image = sample["image"]
        level = self.threshold if self.threshold is not None else robust_threshold(image, self.k)
        sample["mask"] = image > level
        return sample


class RegionProps:
    """Label nuclei and summarise each one: area, centroid, mean intensity."""

    def __init__(self, connectivity=8, min_area=1):
        self.connectivity = connectivity
        self.min_area = min_area

    def __call__(self, sample):
        _, regions = label_regions(sample["image"], sample["mask"], self.connectivity)
        sample["regions"] = [r for r in regions if r.area >= self.min_area]
        return sample


class PackTargets:
    def __init__(self, max_objects, tile_size, bit_depth):
        self.max_objects = max_objects
        self.tile_size = tile_size
        self.scale = float(2 ** bit_depth - 1)

    def __call__(self, sample):
        regions = sample["regions"][: self.max_objects]
        table = np.zeros((self.max_objects, 4), dtype=np.float64)
        if regions:
            arr = np.array([[r.area, r.centroid_y, r.centroid_x, r.mean_intensity] for r in regions],
                           dtype=np.float64)
            arr[:, 0] /= 100.0
            arr[:, 1:3] /= self.tile_size
            arr[:, 3] /= self.scale
            table[: len(regions)] = arr
        image = sample["image"].astype(np.float32) / np.float32(self.scale)
        return {
            "image": torch.from_numpy(image).unsqueeze(0),
            "objects": torch.from_numpy(table.astype(np.float32)),
            "n_objects": torch.tensor(len(regions), dtype=torch.long),
        }


def build_transforms(cfg):
    seg, data = cfg["segmentation"], cfg["data"]
    return Compose([
        ThresholdMask(seg.get("threshold"), seg.get("threshold_k", 4.0)),
        RegionProps(seg["connectivity"], seg["min_area"]),
        PackTargets(seg["max_objects"], data["tile_size"], data["bit_depth"]),
    ])


class NucleiTiles(Dataset):
    """Tile i is rendered from its own seed, so the stack is fixed and order-independent."""

    def __init__(self, cfg, transform=None):
        self.cfg = cfg["data"]
        self.seed = cfg["seed"]
        self.transform = transform
        # the acquisition stack is rendered once and kept in memory, like a loaded .npy stack
        self.tiles = np.stack([self._render(i) for i in range(self.cfg["num_tiles"])])

    def _render(self, idx):
        c = self.cfg
        rng = np.random.default_rng([self.seed, idx])
        return render_tile(rng, c["tile_size"], c["nuclei_per_tile"], c["radius_range"],
                           c["background"], c["peak_intensity"], c["bit_depth"])

    def __len__(self):
        return self.cfg["num_tiles"]

    def __getitem__(self, idx):
        sample = {"image": self.tiles[idx], "index": idx}
        return self.transform(sample) if self.transform is not None else sample
