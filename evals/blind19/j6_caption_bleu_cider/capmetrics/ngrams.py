from collections import Counter


def ngram_counts(words, n_max=4):
    """Counter of all 1..n_max-grams (as tuples) of a token list."""
    counts = Counter()
    for n in range(1, n_max + 1):
        for i in range(len(words) - n + 1):
            counts[tuple(words[i:i + n])] += 1
    return counts
