"""URL featurisation: parsed-URL statistics plus fastText-style hashed character n-grams."""
import math
import re
from collections import Counter, namedtuple
from urllib.parse import urlsplit

import numpy as np

ParsedUrl = namedtuple("ParsedUrl", "scheme host port path query fragment")

IPV4_RE = re.compile(r"^\d{1,3}(\.\d{1,3}){3}$")
SHADY_TLDS = frozenset({"xyz", "top", "tk", "info", "club", "online", "site", "live", "icu", "ru"})
SPECIAL_CHARS = frozenset("-_.~!*'();:@&=+$,/?%#[]")

# 32-bit FNV-1a, as fastText hashes its subwords. Python's hash() is salted per process,
# so it cannot be used for a bucket id that has to survive a restart.
FNV_OFFSET = 2166136261
FNV_PRIME = 16777619


def parse_url(url):
    parts = urlsplit(url)
    host = parts.hostname or ""
    return ParsedUrl(parts.scheme, host, parts.port, parts.path, parts.query, parts.fragment)


def shannon_entropy(counts, n):
    """Entropy in bits of a character histogram (a Counter over a string of length n)."""
    if not n:
        return 0.0
    return -sum((c / n) * math.log2(c / n) for c in counts.values())


def fnv1a_32(data):
    h = FNV_OFFSET
    for byte in data:
        h ^= byte
        h = (h * FNV_PRIME) & 0xFFFFFFFF
    return h


def char_ngrams(text, min_n, max_n):
    """fastText subwords: n-grams of '<' + text + '>' for n in [min_n, max_n], by n then position."""
    text = f"<{text}>"
    for n in range(min_n, max_n + 1):
        for i in range(len(text) - n + 1):
            yield text[i:i + n]


def hashed_ngram_counts(text, min_n, max_n, num_buckets):
    """Bag of hashed subwords: how many of the text's n-grams fall in each bucket."""
    counts = np.zeros(num_buckets, dtype=np.float32)
    for gram in char_ngrams(text, min_n, max_n):
        counts[fnv1a_32(gram.encode("utf-8")) % num_buckets] += 1.0
    return counts


class UrlFeaturizer:
    num_dense = 16

    def __init__(self, min_n=3, max_n=6, num_buckets=1024):
        self.min_n = min_n
        self.max_n = max_n
        self.num_buckets = num_buckets

    def dense_features(self, url):
        p = parse_url(url)
        host_labels = p.host.split(".") if p.host else []
        tld = host_labels[-1] if host_labels else ""
        n = max(len(url), 1)
        chars = Counter(url)
        digits = letters = upper = special = 0
        for ch, c in chars.items():
            if ch.isdigit():
                digits += c
            elif ch.isalpha():
                letters += c
                if ch.isupper():
                    upper += c
            elif ch in SPECIAL_CHARS:
                special += c
        return [
            math.log1p(len(url)),
            math.log1p(len(p.host)),
            math.log1p(len(p.path)),
            math.log1p(len(p.query)),
            float(max(len(host_labels) - 2, 0)),
            1.0 if IPV4_RE.match(p.host) else 0.0,
            1.0 if "@" in url else 0.0,
            float(p.host.count("-")),
            1.0 if p.scheme == "https" else 0.0,
            1.0 if tld in SHADY_TLDS else 0.0,
            digits / n,
            letters / n,
            special / n,
            float(upper),
            shannon_entropy(chars, len(url)),
            float(p.query.count("&") + 1 if p.query else 0) + float(p.path.count("/")),
        ]

    def __call__(self, url):
        return {
            "ngram_counts": hashed_ngram_counts(url, self.min_n, self.max_n, self.num_buckets),
            "dense": self.dense_features(url),
        }
