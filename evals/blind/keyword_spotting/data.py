import torch
from torch.utils.data import Dataset

import features
from audio import synth_clips


class KeywordClips(Dataset):
    def __init__(self, cfg, seed):
        d, f = cfg["dataset"], cfg["features"]
        self.pcm, self.labels = synth_clips(d["clips"], d["sample_rate"], d["clip_seconds"],
                                            d["keywords"], seed)
        self.frame_length = f["frame_length"]
        self.hop_length = f["hop_length"]
        self.window = features.hann(self.frame_length)
        self.bands = features.band_edges(self.frame_length // 2 + 1, f["n_bands"])
        self.log_floor = f["log_floor"]

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        samples = features.pcm_to_float(self.pcm[i].tolist())
        rows = features.band_energies(samples, self.frame_length, self.hop_length,
                                      self.bands, self.window)
        spec = torch.tensor(rows, dtype=torch.float32).t()          # (bands, frames)
        spec = torch.log(spec + self.log_floor)
        spec = (spec - spec.mean()) / (spec.std() + 1e-5)
        return spec, torch.tensor(self.labels[i])
