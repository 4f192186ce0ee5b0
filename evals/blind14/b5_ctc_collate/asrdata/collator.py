"""Padding collator for character CTC (in the spirit of HF's DataCollatorCTCWithPadding)."""
import torch

from .text import TranscriptNormalizer


class CharVocab:
    def __init__(self, alphabet="abcdefghijklmnopqrstuvwxyz'", blank="<blank>", unk="<unk>", delimiter="|"):
        self.tokens = [blank, unk, delimiter] + list(alphabet)
        self.blank_id, self.unk_id, self.delimiter = 0, 1, delimiter

    def __len__(self):
        return len(self.tokens)

    def encode(self, text):
        ids = []
        for ch in text:
            ch = self.delimiter if ch == " " else ch
            ids.append(self.tokens.index(ch) if ch in self.tokens else self.unk_id)
        return ids


class DataCollatorCTCWithPadding:
    """Sorts the batch by length (longest first, stable), normalises and encodes transcripts, pads the
    features to a multiple of `pad_to_multiple_of`, and applies one SpecAugment-style time mask per
    utterance. Returns a dict with input_values (B, T, F), input_lengths, flat targets and target_lengths."""

    def __init__(self, vocab, pad_to_multiple_of=8, max_time_mask=20, subsample=2, generator=None):
        self.vocab = vocab
        self.normalizer = TranscriptNormalizer()
        self.pad_to_multiple_of = pad_to_multiple_of
        self.max_time_mask = max_time_mask
        self.subsample = subsample
        self.generator = generator

    def __call__(self, features):
        features = sorted(features, key=lambda f: len(f["input_values"]), reverse=True)
        lengths = [len(f["input_values"]) for f in features]
        longest = lengths[0]
        m = self.pad_to_multiple_of
        padded_len = (longest + m - 1) // m * m
        n_mels = features[0]["input_values"].shape[1]

        batch_rows, targets, target_lengths = [], [], []
        for f, length in zip(features, lengths):
            rows = f["input_values"].tolist()
            width = int(torch.randint(0, self.max_time_mask + 1, (1,), generator=self.generator))
            t0 = int(torch.randint(0, max(1, length - width), (1,), generator=self.generator))
            for t in range(t0, min(length, t0 + width)):
                rows[t] = [0.0] * n_mels
            rows.extend([0.0] * n_mels for _ in range(padded_len - length))
            batch_rows.append(rows)
            ids = self.vocab.encode(self.normalizer(f["text"]))
            targets.extend(ids)
            target_lengths.append(len(ids))

        return {
            "input_values": torch.tensor(batch_rows, dtype=torch.float32),
            "input_lengths": torch.tensor([(n + self.subsample - 1) // self.subsample for n in lengths]),
            "labels": torch.tensor(targets, dtype=torch.long),
            "label_lengths": torch.tensor(target_lengths, dtype=torch.long),
            "ids": [f["id"] for f in features],
        }
