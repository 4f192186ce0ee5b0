import numpy as np
import torch
from torch.utils.data import Dataset

from augment import jitter_and_scale, quantize_deadzone


def synth_gestures(n, axes, steps, n_gestures, seed):
    rs = np.random.RandomState(seed)
    y = rs.randint(0, n_gestures, size=n)
    t = np.linspace(0, 1, steps)
    freq = 1.0 + np.arange(n_gestures)[:, None] * 0.7
    phase = rs.uniform(0, np.pi, size=(n_gestures, axes))
    x = np.empty((n, axes, steps), dtype=np.float32)
    for i in range(n):
        g = y[i]
        amp = rs.uniform(0.5, 1.0, size=(axes, 1))
        x[i] = amp * np.sin(2 * np.pi * freq[g] * t[None, :] + phase[g][:, None]) + rs.normal(0, 0.1, (axes, steps))
    return torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))


class GestureWindows(Dataset):
    def __init__(self, x, y, aug_cfg):
        self.x, self.y = x, y
        self.aug = aug_cfg

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        a = self.aug
        sample = jitter_and_scale(self.x[i], a["noise_std"], a["scale_range"])
        sample = quantize_deadzone(sample, a["deadzone"], a["levels"])
        return sample, self.y[i]
