"""Synthetic corpus: syllable words, Zipf unigram frequencies and a sticky bigram structure."""
import itertools
import random

SYLLABLES = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "du", "ga", "zo", "bi", "fe", "hu", "ya"]


def make_words(n, rng):
    words, seen = [], set()
    while len(words) < n:
        w = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def make_corpus(n_sentences, n_words, min_len, max_len, seed):
    rng = random.Random(seed)
    words = make_words(n_words, rng)
    cum_weights = list(itertools.accumulate(1.0 / (r + 1) ** 1.05 for r in range(n_words)))
    follow = {w: rng.sample(words[:200], 3) for w in words}  # each word prefers three successors
    sentences = []
    for _ in range(n_sentences):
        n = rng.randint(min_len, max_len)
        out = rng.choices(words, cum_weights=cum_weights, k=1)
        while len(out) < n:
            if rng.random() < 0.5:
                out.append(rng.choice(follow[out[-1]]))
            else:
                out.append(rng.choices(words, cum_weights=cum_weights, k=1)[0])
        sentences.append(" ".join(out))
    return words, sentences
