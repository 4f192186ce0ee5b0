"""fastText-style hashed character n-gram tokenizer for short address strings."""
import re

from .hashing import murmurhash3_32
from .normalize import normalize_address

_DIGIT = re.compile(r"\d")


class HashedNgramTokenizer:
    pad_token_id = 0

    def __init__(self, ngram_min=3, ngram_max=5, num_buckets=2 ** 14, hash_seed=0, max_length=128,
                 add_word_tokens=True, normalizer=normalize_address):
        self.ngram_min = ngram_min
        self.ngram_max = ngram_max
        self.num_buckets = num_buckets
        self.hash_seed = hash_seed
        self.max_length = max_length
        self.add_word_tokens = add_word_tokens
        self.normalizer = normalizer

    def token_id(self, piece):
        # id 0 is padding
        return 1 + murmurhash3_32(piece, self.hash_seed) % (self.num_buckets - 1)

    def word_ngrams(self, word):
        # house numbers, units and ZIP codes share n-grams by shape: '1200b' -> '<0000b>'
        w = f"<{_DIGIT.sub('0', word)}>"
        grams = []
        if self.add_word_tokens:
            grams.append(w)
        for n in range(self.ngram_min, self.ngram_max + 1):
            for i in range(len(w) - n + 1):
                grams.append(w[i:i + n])
        return grams

    def __call__(self, text, truncation=True):
        normalized = self.normalizer(text) if self.normalizer else text
        ids = []
        for word in normalized.split():
            for gram in self.word_ngrams(word):
                ids.append(self.token_id(gram))
        if truncation:
            ids = ids[:self.max_length]
        return {"input_ids": ids, "attention_mask": [1] * len(ids)}
