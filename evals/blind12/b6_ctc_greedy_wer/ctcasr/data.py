import random

import numpy as np
import torch
from torch.utils.data import Dataset, Sampler

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def build_corpus(rng, num_utterances, vocab_words, min_words, max_words):
    """Cased, punctuated sentences: Zipf-distributed words, some names, numbers and clock times."""
    words = set()
    while len(words) < vocab_words:
        n = int(rng.integers(2, 8))
        w = "".join(_LETTERS[i] for i in rng.integers(0, 26, size=n))
        if rng.random() < 0.1:
            w = w.capitalize()  # a proper name
        elif rng.random() < 0.05:
            w += "'s"
        words.add(w)
    words = sorted(words)
    freq = 1.0 / np.arange(1, len(words) + 1)
    freq /= freq.sum()
    texts = []
    for _ in range(num_utterances):
        k = int(rng.integers(min_words, max_words + 1))
        toks = [words[i] for i in rng.choice(len(words), size=k, p=freq)]
        if rng.random() < 0.3:
            toks.insert(int(rng.integers(0, k)), f"{rng.integers(1, 13)}:{rng.integers(0, 60):02d}"
                        if rng.random() < 0.5 else str(int(rng.integers(2, 500))))
        toks[0] = toks[0][0].upper() + toks[0][1:]
        for j in range(len(toks) - 1):
            if rng.random() < 0.12:
                toks[j] += ","
        toks[-1] += "." if rng.random() < 0.7 else ("?" if rng.random() < 0.6 else "!")
        texts.append(" ".join(toks))
    return texts


class SyntheticSpeech(Dataset):
    """Log-mel-like frames: each character is 2-4 frames of its prototype spectrum plus noise, with
    short silences between words and at both ends. Features are rendered once, from the seed."""

    def __init__(self, texts, tokenizer, n_mels, seed):
        rng = np.random.default_rng(seed)
        chars = sorted(set("".join(texts)) - {" "})
        protos = dict(zip(chars, rng.normal(0.0, 1.0, size=(len(chars), n_mels)).astype(np.float32)))
        silence = np.full(n_mels, -2.0, dtype=np.float32)
        self.items = []
        for text in texts:
            frames = [silence] * int(rng.integers(2, 6))
            for ch in text:
                if ch == " ":
                    frames.extend([silence] * int(rng.integers(1, 4)))
                    continue
                frames.extend([protos[ch]] * int(rng.integers(2, 5)))
            frames.extend([silence] * int(rng.integers(2, 6)))
            feats = np.stack(frames) + rng.normal(0.0, 0.3, size=(len(frames), n_mels)).astype(np.float32)
            self.items.append((torch.from_numpy(feats.astype(np.float32)), tokenizer.encode(text), text))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


class BucketBatchSampler(Sampler):
    """Sort by frame count, cut into batches, shuffle the batch order every epoch (ESPnet-style)."""

    def __init__(self, lengths, batch_size, seed):
        order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
        self.batches = [order[i:i + batch_size] for i in range(0, len(order) - batch_size + 1, batch_size)]
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.batches)

    def __iter__(self):
        batches = self.batches[:]
        self.rng.shuffle(batches)
        yield from batches


class SpeechCollator:
    def __call__(self, items):
        feats = torch.nn.utils.rnn.pad_sequence([it[0] for it in items], batch_first=True)
        feat_lens = torch.tensor([it[0].shape[0] for it in items], dtype=torch.long)
        targets = torch.tensor([t for it in items for t in it[1]], dtype=torch.long)
        target_lens = torch.tensor([len(it[1]) for it in items], dtype=torch.long)
        texts = [it[2] for it in items]
        return feats, feat_lens, targets, target_lens, texts
