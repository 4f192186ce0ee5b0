import random

import numpy as np
import torch


def make_corpus(num_speakers, utts_per_speaker, n_mels, num_frames, seed):
    """Log-mel-like features: a per-speaker spectral envelope, per-utterance channel tilt, noise."""
    rng = np.random.default_rng(seed)
    mel = np.arange(n_mels, dtype=np.float32)[:, None]
    envelopes = rng.normal(0, 1.0, (num_speakers, n_mels, 1)).astype(np.float32)
    envelopes = np.cumsum(envelopes, axis=1) * 0.3
    n = num_speakers * utts_per_speaker
    spk = np.repeat(np.arange(num_speakers), utts_per_speaker)
    tilt = rng.normal(0, 0.02, (n, 1, 1)).astype(np.float32) * mel[None]
    frames = rng.normal(0, 1.0, (n, n_mels, num_frames)).astype(np.float32)
    feats = envelopes[spk] + tilt + frames
    return torch.from_numpy(feats), torch.from_numpy(spk.astype(np.int64))


class PKBatchSampler:
    """Class-balanced batches: P speakers, K utterances each (the usual sampler for metric losses)."""

    def __init__(self, labels, p, k, seed):
        self.by_spk = {}
        for i, s in enumerate(labels.tolist()):
            self.by_spk.setdefault(s, []).append(i)
        self.p, self.k = p, k
        self.rng = random.Random(seed)

    def __iter__(self):
        speakers = sorted(self.by_spk)
        while True:
            batch = []
            for s in self.rng.sample(speakers, self.p):
                batch.extend(self.rng.sample(self.by_spk[s], self.k))
            yield batch
