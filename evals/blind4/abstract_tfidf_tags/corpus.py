"""Synthetic paper abstracts with multi-label subject tags, and a scikit-learn-like TF-IDF vocabulary."""
import math
import random
from collections import Counter


def make_abstracts(cfg, seed):
    rng = random.Random(seed)
    syll = ["al", "be", "cor", "di", "en", "fa", "gi", "hy", "io", "ju", "ka", "lu", "mo", "ne",
            "or", "pi", "qu", "ra", "si", "to", "ur", "vi", "wa", "xe", "yo", "ze"]

    def word():
        return "".join(rng.choice(syll) for _ in range(rng.randint(2, 4)))

    shared = [word() for _ in range(cfg["shared_words"])]
    topic_words = [[word() for _ in range(cfg["words_per_topic"])] for _ in range(cfg["topics"])]
    docs, tags = [], []
    for _ in range(cfg["documents"]):
        k = rng.choice([1, 1, 2, 2, 3])
        doc_tags = sorted(rng.sample(range(cfg["topics"]), k))
        n = rng.randint(cfg["min_len"], cfg["max_len"])
        toks = []
        for _ in range(n):
            if rng.random() < 0.35:
                toks.append(rng.choice(topic_words[rng.choice(doc_tags)]))
            else:
                toks.append(rng.choice(shared))
        docs.append(toks)
        tags.append(doc_tags)
    return docs, tags


def fit_vocabulary(docs, max_features, min_df):
    df = Counter()
    for doc in docs:
        df.update(set(doc))
    kept = sorted((w for w, c in df.items() if c >= min_df), key=lambda w: (-df[w], w))[:max_features]
    vocab = {w: i for i, w in enumerate(sorted(kept))}
    n = len(docs)
    idf = {w: math.log((1 + n) / (1 + df[w])) + 1.0 for w in vocab}
    return vocab, idf
