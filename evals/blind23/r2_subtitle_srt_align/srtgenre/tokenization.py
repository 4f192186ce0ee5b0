"""A small word-level tokenizer with a frequency-built vocabulary."""
from collections import Counter

PAD, UNK, BOS = "[PAD]", "[UNK]", "[BOS]"


class WordTokenizer:
    def __init__(self, vocab):
        self.vocab = list(vocab)
        self.pad_token_id = self.vocab.index(PAD)
        self.unk_token_id = self.vocab.index(UNK)
        self.bos_token_id = self.vocab.index(BOS)

    @classmethod
    def train(cls, texts, min_frequency=1):
        counts = Counter(w for t in texts for w in t.split())
        words = sorted(w for w, c in counts.items() if c >= min_frequency)
        return cls([PAD, UNK, BOS] + words)

    def __len__(self):
        return len(self.vocab)

    def convert_tokens_to_ids(self, tokens):
        return [self.vocab.index(t) if t in self.vocab else self.unk_token_id for t in tokens]

    def __call__(self, text, max_length=None):
        ids = [self.bos_token_id] + self.convert_tokens_to_ids(text.split())
        if max_length is not None:
            ids = ids[:max_length]
        return {"input_ids": ids, "attention_mask": [1] * len(ids)}
