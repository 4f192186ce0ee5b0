import numpy as np
from torch.utils.data import Dataset

from .synth import RoadFrameSynth


class BirdsEyeLaneDataset(Dataset):
    """Each index is one warped dash-cam frame, rendered on the fly from (seed, index)."""

    def __init__(self, num_frames, height, width, seed=0, speckle_rate=0.01, dashed_right=True,
                 transform=None):
        self.num_frames = num_frames
        self.seed = seed
        self.synth = RoadFrameSynth(height, width, speckle_rate, dashed_right)
        self.transform = transform

    def __len__(self):
        return self.num_frames

    def __getitem__(self, idx):
        rng = np.random.default_rng((self.seed, idx))
        sample = {"frame": self.synth(rng), "index": idx}
        if self.transform is not None:
            sample = self.transform(sample)
        return sample
