"""Batching of variable-length event streams into voxel grids."""
import numpy as np
import torch


def events_to_voxel_grid(events, num_bins, height, width):
    """Temporal voxel grid (Zhu et al., 2019): each event spreads its polarity over the two
    nearest time bins with linear (bilinear-in-time) weights."""
    voxel = np.zeros((num_bins, height, width), dtype=np.float32)
    ts = events["t"]
    t0, t1 = int(ts[0]), int(ts[-1])
    span = t1 - t0 if t1 > t0 else 1
    for x, y, t, p in zip(events["x"].tolist(), events["y"].tolist(), ts.tolist(), events["p"].tolist()):
        tn = (t - t0) / span * (num_bins - 1)
        left = int(tn)
        w_right = tn - left
        pol = 1.0 if p > 0 else -1.0
        voxel[left, y, x] += pol * (1.0 - w_right)
        if left + 1 < num_bins:
            voxel[left + 1, y, x] += pol * w_right
    return voxel


class VoxelGridCollate:
    def __init__(self, num_bins, height, width):
        self.num_bins, self.height, self.width = num_bins, height, width

    def __call__(self, samples):
        grids = [events_to_voxel_grid(ev, self.num_bins, self.height, self.width) for ev, _ in samples]
        return {
            "voxel": torch.from_numpy(np.stack(grids)),
            "flow": torch.from_numpy(np.stack([flow for _, flow in samples])),
            "num_events": torch.tensor([len(ev["t"]) for ev, _ in samples]),
        }
