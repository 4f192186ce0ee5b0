import numpy as np
from torch.utils.data import Dataset

from .simulate import FrameSimulator


class StarFieldDataset(Dataset):
    """Frame i is rendered from its own seed, so the dataset is the same on every run."""

    def __init__(self, num_frames, simulator: FrameSimulator, transform=None, seed=0):
        self.num_frames = int(num_frames)
        self.simulator = simulator
        self.transform = transform
        self.seed = int(seed)

    def __len__(self):
        return self.num_frames

    def __getitem__(self, index):
        rng = np.random.default_rng([self.seed, index])
        raw, transparency = self.simulator.render(rng)
        sample = {"raw": raw, "transparency": transparency, "index": index}
        if self.transform is not None:
            sample = self.transform(sample)
        return sample
