import numpy as np
from torch.utils.data import Dataset

from .vocab import BAR, BOS, DUR0, EOS, N_POS, PITCH0, POS0, VEL0


def synth_song(rng, n_bars):
    """A REMI token stream: per bar a Bar token, then notes grouped by onset position."""
    key = int(rng.integers(0, 12))
    scale = [0, 2, 4, 5, 7, 9, 11]
    density = rng.uniform(0.2, 0.6)
    toks = []
    for _ in range(n_bars):
        toks.append(BAR)
        onsets = np.flatnonzero(rng.random(N_POS) < density)
        for p in onsets.tolist():
            toks.append(POS0 + p)
            for _ in range(int(rng.integers(1, 4))):
                pitch = 21 + key + 12 * int(rng.integers(2, 6)) + scale[int(rng.integers(0, 7))]
                toks.append(PITCH0 + min(pitch - 21, 87))
                toks.append(DUR0 + int(rng.integers(0, 16)))
                toks.append(VEL0 + int(rng.integers(4, 14)))
    return toks


class RemiDataset(Dataset):
    def __init__(self, num_songs, min_len, max_len, seed):
        rng = np.random.default_rng(seed)
        self.examples = []
        for _ in range(num_songs):
            song = synth_song(rng, int(rng.integers(16, 40)))
            bars = [i for i, t in enumerate(song) if t == BAR]
            start = bars[int(rng.integers(0, max(1, len(bars) // 2)))]
            length = int(rng.integers(min_len, max_len - 1))
            self.examples.append([BOS] + song[start:start + length] + [EOS])

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        return {"input_ids": self.examples[i]}
