import math
from dataclasses import dataclass

import torch


@dataclass
class SpeechBatch:
    feats: torch.Tensor        # (B, T_max, n_mels), utterance-level CMVN applied
    feat_lens: torch.Tensor    # (B,)
    targets: torch.Tensor      # (sum of target lengths,)
    target_lens: torch.Tensor  # (B,)

    def as_tuple(self):
        return (self.feats, self.feat_lens, self.targets, self.target_lens)


def cmvn(frames):
    """Per-utterance cepstral mean and variance normalisation, dimension by dimension."""
    rows = frames.tolist()
    n = len(rows)
    out = [[0.0] * len(rows[0]) for _ in range(n)]
    for d in range(len(rows[0])):
        col = [r[d] for r in rows]
        mean = sum(col) / n
        var = sum((x - mean) * (x - mean) for x in col) / n
        std = math.sqrt(var) + 1e-5
        for t, x in enumerate(col):
            out[t][d] = (x - mean) / std
    return out


class CMVNCollate:
    def __call__(self, items):
        items = sorted(items, key=lambda it: -len(it[0]))      # longest first, like packed RNN inputs
        lens = [len(f) for f, _ in items]
        B, T, D = len(items), max(lens), items[0][0].shape[1]
        feats = torch.zeros(B, T, D)
        for b, (f, _) in enumerate(items):
            feats[b, :len(f)] = torch.tensor(cmvn(f))
        targets = torch.tensor([tok for _, text in items for tok in text], dtype=torch.long)
        return SpeechBatch(feats, torch.tensor(lens), targets,
                           torch.tensor([len(text) for _, text in items]))
