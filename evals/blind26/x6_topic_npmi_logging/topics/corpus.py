"""LDA-generated synthetic corpus, kept both as a bag-of-words matrix and as token documents."""
import numpy as np


def generate_corpus(n_docs, vocab_size, true_topics, doc_length, alpha, eta, seed):
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(vocab_size, eta), size=true_topics)
    cdf = np.cumsum(phi, axis=1)
    cdf /= cdf[:, -1:]
    docs = []
    bow = np.zeros((n_docs, vocab_size), dtype=np.float32)
    for d in range(n_docs):
        theta = rng.dirichlet(np.full(true_topics, alpha))
        n = int(rng.integers(doc_length[0], doc_length[1] + 1))
        z = rng.choice(true_topics, size=n, p=theta)
        u = rng.random(n)
        words = np.empty(n, dtype=np.int64)
        for k in np.unique(z):
            sel = z == k
            words[sel] = np.searchsorted(cdf[k], u[sel], side="right")
        words = np.minimum(words, vocab_size - 1)
        np.add.at(bow[d], words, 1.0)
        docs.append(words.tolist())
    return bow, docs
