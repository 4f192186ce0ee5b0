"""Synthetic 'acoustic' frames for spelled-out words: every character has a prototype vector and
lasts 2-3 frames; words are separated by a space symbol and short silences. Every frame carries
its label (0 = silence), as from a forced alignment."""
from dataclasses import dataclass

import numpy as np
import torch
from torch.utils.data import Dataset

ALPHABET = " abcdefghijklmnopqrstuvwxyz'"   # index + 1 = label, 0 = silence
SPACE = 1


def make_lexicon(rng, n=150):
    letters = ALPHABET[1:-1]
    return ["".join(rng.choice(list(letters), size=rng.integers(2, 6))) for _ in range(n)]


@dataclass
class Utterances:
    feats: torch.Tensor         # [B, T, F]
    feat_lens: torch.Tensor     # [B]
    frame_labels: torch.Tensor  # [B, T] padded with -100
    targets: torch.Tensor       # [B, S] padded with 0
    target_lens: torch.Tensor   # [B]

    def tensors(self):
        return (self.feats, self.feat_lens, self.frame_labels, self.targets, self.target_lens)


class SpelledWords(Dataset):
    def __init__(self, cfg):
        rng = np.random.default_rng(cfg.seed)
        self.lexicon = make_lexicon(rng)
        protos = rng.normal(0, 1, (len(ALPHABET) + 1, cfg.feature_dim))  # row 0 = silence
        self.items = []
        lo, hi = cfg.words_per_utterance
        while len(self.items) < cfg.utterances:
            words = [self.lexicon[i] for i in rng.integers(0, len(self.lexicon), rng.integers(lo, hi + 1))]
            text = " ".join(words)
            frames = [0] * int(rng.integers(1, 4))
            for ch in text:
                frames += [ALPHABET.index(ch) + 1] * int(rng.integers(2, 4))
                if ch == " ":
                    frames += [0] * int(rng.integers(0, 2))
            frames += [0] * int(rng.integers(1, 4))
            if len(frames) > cfg.max_frames:
                continue
            feats = protos[frames] + rng.normal(0, cfg.noise, (len(frames), cfg.feature_dim))
            label = [ALPHABET.index(ch) + 1 for ch in text]
            self.items.append((torch.tensor(feats, dtype=torch.float32), torch.tensor(frames), torch.tensor(label)))
        self.max_frames = cfg.max_frames

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate_utterances(batch):
    feats, frames, labels = zip(*batch)
    T = max(f.shape[0] for f in feats)
    S = max(l.shape[0] for l in labels)
    x = torch.zeros(len(batch), T, feats[0].shape[1])
    fl = torch.full((len(batch), T), -100, dtype=torch.long)
    y = torch.zeros(len(batch), S, dtype=torch.long)
    for i, (f, a, l) in enumerate(batch):
        x[i, :f.shape[0]] = f
        fl[i, :a.shape[0]] = a
        y[i, :l.shape[0]] = l
    return Utterances(x, torch.tensor([f.shape[0] for f in feats]), fl, y,
                      torch.tensor([l.shape[0] for l in labels]))
