import numpy as np
from torch.utils.data import Dataset

from .simulate import affine_flow, simulate_slice


class EventFlowDataset(Dataset):
    """Raw event slices (x, y, t, p) with a dense optical-flow target at 1/stride resolution.

    The recordings are held in memory (as if read from an HDF5 file once); each item is a
    raw stream, optionally flipped; binning happens in the collate function.
    """

    def __init__(self, args):
        self.args = args
        self.epoch = 0
        self.recordings = []
        for idx in range(args.num_sequences):
            rng = np.random.default_rng([args.seed, idx])
            n = int(rng.integers(args.min_events, args.max_events + 1))
            events, params = simulate_slice(rng, args.height, args.width, n)
            self.recordings.append((events, affine_flow(params, args.height, args.width, args.flow_stride)))

    def __len__(self):
        return len(self.recordings)

    def __getitem__(self, idx):
        a = self.args
        events, flow = self.recordings[idx]
        aug = np.random.default_rng([a.seed, 7, self.epoch, idx])
        if aug.random() < 0.5:  # horizontal flip
            events = dict(events, x=(a.width - 1 - events["x"]).astype(np.int16))
            flow = flow[:, :, ::-1].copy()
            flow[0] = -flow[0]
        return events, flow
