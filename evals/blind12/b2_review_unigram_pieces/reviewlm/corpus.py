"""Synthetic product reviews: Zipf-distributed words from syllables, rating-dependent sentiment words."""
import numpy as np

_ONSETS = ["b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v", "w", "ch", "st", "tr", "pl", "gr"]
_VOWELS = ["a", "e", "i", "o", "u", "ea", "ou", "ai"]
_CODAS = ["", "", "n", "r", "s", "t", "l", "ng", "ck"]
_SUFFIXES = ["", "", "", "s", "ed", "ing", "ly", "er", "able", "ness"]
POSITIVE = ["great", "excellent", "love", "perfect", "sturdy", "comfortable", "recommend", "amazing", "works"]
NEGATIVE = ["broke", "terrible", "refund", "flimsy", "disappointed", "returned", "useless", "cheap", "stopped"]
PRODUCTS = ["XR-200", "Model 3b", "v2.1", "USB-C", "4K", "AA", "12V"]


def _make_word(rng):
    n = int(rng.integers(1, 4))
    parts = []
    for _ in range(n):
        parts.append(_ONSETS[rng.integers(len(_ONSETS))] + _VOWELS[rng.integers(len(_VOWELS))]
                     + _CODAS[rng.integers(len(_CODAS))])
    return "".join(parts) + _SUFFIXES[rng.integers(len(_SUFFIXES))]


def make_reviews(rng, num_reviews, num_word_types, min_words, max_words):
    words = []
    seen = set()
    while len(words) < num_word_types:
        w = _make_word(rng)
        if w not in seen:
            seen.add(w)
            words.append(w)
    ranks = np.arange(1, len(words) + 1)
    probs = 1.0 / ranks ** 1.05
    probs /= probs.sum()
    reviews = []
    for _ in range(num_reviews):
        rating = int(rng.integers(1, 6))
        n = int(rng.integers(min_words, max_words + 1))
        idx = rng.choice(len(words), size=n, p=probs)
        toks = [words[i] for i in idx]
        n_sent = max(1, n // 12)
        pos_share = (rating - 1) / 4.0
        for _ in range(n_sent):
            pool = POSITIVE if rng.random() < pos_share else NEGATIVE
            toks.insert(int(rng.integers(0, len(toks) + 1)), pool[rng.integers(len(pool))])
        if rng.random() < 0.4:
            toks.insert(int(rng.integers(0, len(toks) + 1)), PRODUCTS[rng.integers(len(PRODUCTS))])
        out, cap = [], True
        for i, t in enumerate(toks):
            out.append(t.capitalize() if cap else t)
            cap = False
            if i % 11 == 10:
                out[-1] += "." if rng.random() < 0.8 else "!"
                cap = True
            elif rng.random() < 0.04:
                out[-1] += ","
        reviews.append({"stars": rating, "text": " ".join(out)})
    return reviews
