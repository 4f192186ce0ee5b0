"""Street-scene toy data for panoptic segmentation.

Classes: 0 sky (stuff), 1 road (stuff), 2 car (thing), 3 pedestrian (thing).
`semantic` holds the class of every pixel, `instance` the instance id (1..k) of thing pixels
and 0 elsewhere.
"""
import numpy as np
import torch
from torch.utils.data import Dataset

CLASS_NAMES = ["sky", "road", "car", "pedestrian"]
THING_CLASSES = (2, 3)
STUFF_CLASSES = (0, 1)
COLOURS = np.array([[0.45, 0.65, 0.95], [0.35, 0.33, 0.32], [0.85, 0.15, 0.1], [0.95, 0.8, 0.3]],
                   dtype=np.float32)


def render_scene(rng, size, max_things):
    yy, xx = np.mgrid[0:size, 0:size]
    horizon = int(rng.integers(size // 3, size // 2))
    semantic = np.where(yy >= horizon, 1, 0).astype(np.int64)
    instance = np.zeros((size, size), dtype=np.int64)
    image = COLOURS[semantic].copy()
    image[..., 2] += (0.25 * (1.0 - yy / size) * (semantic == 0)).astype(np.float32)
    n_things = int(rng.integers(1, max_things + 1))
    for inst in range(1, n_things + 1):
        cls = int(rng.choice(THING_CLASSES))
        cy = int(rng.integers(horizon, size - 8))
        cx = int(rng.integers(8, size - 8))
        if cls == 2:
            h, w = int(rng.integers(10, 20)), int(rng.integers(20, 40))
            mask = (np.abs(yy - cy) <= h // 2) & (np.abs(xx - cx) <= w // 2)
        else:
            ry, rx = rng.uniform(9, 17), rng.uniform(4, 7)
            mask = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1.0
        semantic[mask] = cls
        instance[mask] = inst
        image[mask] = COLOURS[cls] + rng.normal(0.0, 0.08, size=3).astype(np.float32)
    # occlusion can swallow an instance completely: renumber the survivors 1..k
    ids = [i for i in range(1, n_things + 1) if (instance == i).any()]
    remap = np.zeros(n_things + 1, dtype=np.int64)
    remap[ids] = np.arange(1, len(ids) + 1)
    instance = remap[instance]
    image = image + rng.normal(0.0, 0.06, size=image.shape).astype(np.float32)
    image = np.clip(np.rint(image * 255.0), 0, 255).astype(np.uint8)     # stored like a PNG
    return image.transpose(2, 0, 1).copy(), semantic.astype(np.uint8), instance.astype(np.uint8)


class StreetScenes(Dataset):
    def __init__(self, num_images, size, max_things, seed):
        rng = np.random.default_rng(seed)
        self.items = [render_scene(rng, size, max_things) for _ in range(num_images)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        image, semantic, instance = self.items[i]
        return {"image": torch.from_numpy(image), "semantic": torch.from_numpy(semantic),
                "instance": torch.from_numpy(instance)}
