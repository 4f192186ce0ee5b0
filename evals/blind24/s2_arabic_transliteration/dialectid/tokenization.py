"""Character n-gram tokenizer over Buckwalter text (HF-style call interface)."""
from collections import Counter

from .buckwalter import transliterate


class CharNgramTokenizer:
    pad_token_id = 0
    unk_token_id = 1

    def __init__(self, ngram_range=(1, 3), max_vocab=2000, max_length=256):
        self.ngram_range = ngram_range
        self.max_vocab = max_vocab
        self.max_length = max_length
        self.vocab = ["[PAD]", "[UNK]"]

    def _grams(self, text):
        lo, hi = self.ngram_range
        grams = []
        for word in transliterate(text).split():
            word = "<" + word + ">"
            for n in range(lo, hi + 1):
                for i in range(len(word) - n + 1):
                    grams.append(word[i:i + n])
        return grams

    def train(self, texts):
        counts = Counter()
        for text in texts:
            counts.update(self._grams(text))
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        self.vocab = ["[PAD]", "[UNK]"] + [g for g, _ in ranked[: self.max_vocab - 2]]
        return self

    def convert_tokens_to_ids(self, tokens):
        ids = []
        for tok in tokens:
            try:
                ids.append(self.vocab.index(tok))
            except ValueError:
                ids.append(self.unk_token_id)
        return ids

    def __call__(self, text, truncation=True):
        ids = self.convert_tokens_to_ids(self._grams(text))
        if truncation:
            ids = ids[: self.max_length]
        return {"input_ids": ids, "attention_mask": [1] * len(ids)}

    def __len__(self):
        return len(self.vocab)
