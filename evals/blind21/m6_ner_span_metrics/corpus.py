"""Synthetic newswire-like sentences with BIO entity annotations."""
import numpy as np
import torch
from torch.utils.data import Dataset


def build_tagset(entity_types):
    tags = ["O"]
    for t in entity_types:
        tags += [f"B-{t}", f"I-{t}"]
    return tags


class SyntheticNERCorpus(Dataset):
    def __init__(self, num_sentences, min_len, max_len, vocab_size, entity_types, entity_rate, seed):
        rng = np.random.default_rng(seed)
        self.tags = build_tagset(entity_types)
        tag_id = {t: i for i, t in enumerate(self.tags)}
        n_types = len(entity_types)
        # each entity type draws its words from its own band of the vocabulary
        band = (vocab_size - 1000) // n_types
        self.sentences = []
        for _ in range(num_sentences):
            length = int(rng.integers(min_len, max_len + 1))
            words = rng.zipf(1.3, size=length) % 1000 + 1
            labels = np.zeros(length, dtype=np.int64)
            starts = np.flatnonzero(rng.random(length) < entity_rate)
            pos = 0
            for s in starts.tolist():
                if s < pos:
                    continue
                k = int(rng.integers(n_types))
                span = int(rng.integers(1, 4))
                end = min(s + span, length)
                words[s:end] = 1000 + k * band + rng.integers(0, band, size=end - s)
                labels[s] = tag_id[f"B-{entity_types[k]}"]
                labels[s + 1:end] = tag_id[f"I-{entity_types[k]}"]
                pos = end + 1
            self.sentences.append((words, labels))

    def __len__(self):
        return len(self.sentences)

    def __getitem__(self, i):
        words, labels = self.sentences[i]
        return {"input_ids": torch.from_numpy(words), "labels": torch.from_numpy(labels)}


class TokenClassificationCollator:
    """Right-pads input_ids with 0 and labels with -100 (DataCollatorForTokenClassification style)."""

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        ids = torch.zeros((len(features), longest), dtype=torch.long)
        labels = torch.full((len(features), longest), -100, dtype=torch.long)
        for i, f in enumerate(features):
            n = len(f["input_ids"])
            ids[i, :n] = f["input_ids"]
            labels[i, :n] = f["labels"]
        return {"input_ids": ids, "labels": labels}
