import re

from .spelling import SpellCorrector

_SPLIT = re.compile(r"[^0-9a-zA-Z]+")


class QueryTokenizer:
    """Whitespace/punctuation tokenizer with spelling correction, HF-style call signature."""

    pad_token_id = 0
    unk_token_id = 1

    def __init__(self, vocab, max_distance=2, max_length=8, lowercase=True):
        self.vocab = {word: i + 2 for i, word in enumerate(vocab)}
        self.corrector = SpellCorrector(vocab, max_distance)
        self.max_length = max_length
        self.lowercase = lowercase

    def tokenize(self, text):
        if self.lowercase:
            text = text.lower()
        return [t for t in _SPLIT.split(text) if t]

    def convert_tokens_to_ids(self, tokens):
        ids = []
        for token in tokens:
            fixed = self.corrector.correct(token)
            ids.append(self.vocab[fixed] if fixed is not None else self.unk_token_id)
        return ids

    def __call__(self, text, truncation=True):
        ids = self.convert_tokens_to_ids(self.tokenize(text))
        if truncation:
            ids = ids[: self.max_length]
        return {"input_ids": ids, "attention_mask": [1] * len(ids)}
