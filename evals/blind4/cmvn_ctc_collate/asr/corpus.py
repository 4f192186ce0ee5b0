import numpy as np
from torch.utils.data import Dataset


class SyntheticSpeech(Dataset):
    """Log-mel-like utterances: each token is a noisy num_mels-dim template held for 3-8 frames."""

    def __init__(self, num_utts, num_mels, vocab, min_tokens, max_tokens, seed):
        rng = np.random.default_rng(seed)
        templates = rng.normal(0, 1.0, size=(vocab, num_mels))
        self.utts, self.texts = [], []
        for _ in range(num_utts):
            n_tok = int(rng.integers(min_tokens, max_tokens + 1))
            tokens = rng.integers(1, vocab, size=n_tok)
            durs = rng.integers(3, 9, size=n_tok)
            frames = np.repeat(templates[tokens], durs, axis=0)
            gain = rng.normal(2.0, 0.5)          # channel offset, what CMVN removes
            frames = frames * rng.uniform(0.6, 1.6) + gain + rng.normal(0, 0.4, size=frames.shape)
            self.utts.append(frames.astype(np.float32))
            self.texts.append(tokens.tolist())

    def __len__(self):
        return len(self.utts)

    def __getitem__(self, i):
        return self.utts[i], self.texts[i]
