import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from .preprocess import level_arc, mapping_function
from .simulate import simulate_arc


class TecWindowDataset(Dataset):
    """Windows of levelled slant TEC along a pass; target is the vertical TEC at the window end."""

    def __init__(self, arcs, index, cfg):
        self.arcs = arcs
        self.index = index
        self.window = cfg["data"]["window"]
        self.pp = cfg["preprocess"]

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        arc_no, end = self.index[i]
        obs = self.arcs[arc_no]
        stec, valid, arc_id = level_arc(obs, self.pp["slip_threshold_tecu"], self.pp["max_gap_s"],
                                        self.pp["min_arc_epochs"])
        sl = slice(end - self.window + 1, end + 1)
        mf = mapping_function(obs["elev"][sl], self.pp["shell_height_km"])
        scale = self.pp["scale_tecu"]
        new_arc = np.concatenate([[0.0], (np.diff(arc_id[sl]) != 0).astype(np.float64)])
        x = np.stack([stec[sl] / scale, stec[sl] / mf / scale, obs["elev"][sl] / 90.0,
                      valid[sl].astype(np.float64), new_arc])
        y = obs["vtec"][end] / scale
        return torch.from_numpy(x.astype(np.float32)), torch.tensor([y], dtype=torch.float32)


class GnssDataModule:
    def __init__(self, cfg, seed):
        self.cfg, self.seed = cfg, seed

    def setup(self):
        d = self.cfg["data"]
        self.arcs = [simulate_arc(a, self.cfg, self.seed) for a in range(d["num_arcs"])]
        rng = np.random.default_rng(self.seed)
        index = []
        for _ in range(d["samples_per_epoch"]):
            a = int(rng.integers(len(self.arcs)))
            end = int(rng.integers(d["window"] - 1, len(self.arcs[a]["t"])))
            index.append((a, end))
        self.train_set = TecWindowDataset(self.arcs, index, self.cfg)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.cfg["trainer"]["batch_size"], shuffle=True,
                          generator=torch.Generator().manual_seed(self.seed), num_workers=0, drop_last=True)
