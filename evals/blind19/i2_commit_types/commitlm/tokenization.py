"""fastText-style hashed character n-grams over split identifiers.

Python's hash() is salted per process, so buckets come from a stable FNV-1a hash.
"""
import re

WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

FNV_OFFSET = 0x811C9DC5
FNV_PRIME = 0x01000193


def fnv1a_32(text):
    h = FNV_OFFSET
    for byte in text.encode("utf-8"):
        h ^= byte
        h = (h * FNV_PRIME) & 0xFFFFFFFF
    return h


def split_identifier(word):
    """`parseHTTPResponse` -> parse, http, response; `user_session_id` -> user, session, id."""
    pieces = []
    for chunk in word.split("_"):
        if chunk:
            pieces.extend(m.group(0).lower() for m in CAMEL_RE.finditer(chunk))
    return pieces


class HashingSubwordTokenizer:
    pad_token_id = 0
    cls_token_id = 1
    sep_token_id = 2
    num_special = 3

    def __init__(self, num_buckets=20000, min_n=3, max_n=5, max_length=256):
        self.num_buckets = num_buckets
        self.min_n = min_n
        self.max_n = max_n
        self.max_length = max_length

    @property
    def vocab_size(self):
        return self.num_special + 2 * self.num_buckets

    def word_id(self, word):
        return self.num_special + fnv1a_32(word) % self.num_buckets

    def subword_ids(self, word):
        """Whole-word bucket followed by the buckets of the char n-grams of `<word>`."""
        ids = [self.word_id(word)]
        token = f"<{word}>"
        for n in range(self.min_n, self.max_n + 1):
            for i in range(len(token) - n + 1):
                ids.append(self.num_special + self.num_buckets + fnv1a_32(token[i:i + n]) % self.num_buckets)
        return ids

    def tokenize(self, text):
        pieces = []
        for word in WORD_RE.findall(text):
            pieces.extend(split_identifier(word))
        return pieces

    def encode(self, text, text_pair=None):
        ids = [self.cls_token_id]
        for piece in self.tokenize(text):
            ids.extend(self.subword_ids(piece))
        if text_pair is not None:
            ids.append(self.sep_token_id)
            for piece in self.tokenize(text_pair):
                ids.extend(self.subword_ids(piece))
        return ids[: self.max_length]

    def __call__(self, text, text_pair=None):
        input_ids = self.encode(text, text_pair)
        return {"input_ids": input_ids, "attention_mask": [1] * len(input_ids)}
