"""A synthetic search log: a vocabulary of product-ish words, intents with topic words, typo'd queries."""
import numpy as np

_ONSETS = ["b", "br", "c", "ch", "d", "f", "g", "gr", "k", "l", "m", "n", "p", "pl", "r", "s", "sh", "st",
           "t", "tr", "v", "w", "z"]
_NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "oo"]
_CODAS = ["", "", "n", "r", "s", "t", "ck", "ll", "nd"]
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def build_vocabulary(size, rng):
    words, seen = [], set()
    while len(words) < size:
        n_syl = int(rng.integers(1, 4))
        word = "".join(_ONSETS[rng.integers(len(_ONSETS))] + _NUCLEI[rng.integers(len(_NUCLEI))]
                       + _CODAS[rng.integers(len(_CODAS))] for _ in range(n_syl))
        if 3 <= len(word) <= 10 and word not in seen:
            seen.add(word)
            words.append(word)
    return words


def add_typo(word, rng):
    kind = int(rng.integers(4))
    pos = int(rng.integers(len(word)))
    if kind == 0 and len(word) > 3:  # deletion
        return word[:pos] + word[pos + 1:]
    if kind == 1:  # substitution
        return word[:pos] + _ALPHABET[rng.integers(26)] + word[pos + 1:]
    if kind == 2 and pos < len(word) - 1:  # transposition
        return word[:pos] + word[pos + 1] + word[pos] + word[pos + 2:]
    return word[:pos] + _ALPHABET[rng.integers(26)] + word[pos:]  # insertion


def build_query_log(vocab, cfg, rng):
    n_int, per = cfg["num_intents"], cfg["topic_words_per_intent"]
    topics = [rng.choice(len(vocab), size=per, replace=False) for _ in range(n_int)]
    queries, intents = [], []
    for _ in range(cfg["num_queries"]):
        intent = int(rng.integers(n_int))
        n_words = int(rng.integers(cfg["min_words"], cfg["max_words"] + 1))
        words = []
        for _ in range(n_words):
            if rng.random() < 0.7:
                word = vocab[topics[intent][rng.integers(per)]]
            else:
                word = vocab[rng.integers(len(vocab))]
            if rng.random() < cfg["typo_rate"]:
                word = add_typo(word, rng)
            words.append(word.upper() if rng.random() < 0.05 else word)
        queries.append(" ".join(words))
        intents.append(intent)
    return queries, intents
