import math

import torch


class TfidfCollate:
    """Turns a list of (tokens, tags) into an L2-normalised TF-IDF matrix and a multi-hot tag matrix."""

    def __init__(self, vocab, idf, n_tags):
        self.vocab, self.idf, self.n_tags = vocab, idf, n_tags

    def vectorize(self, tokens):
        vec = [0.0] * len(self.vocab)
        for tok in tokens:
            j = self.vocab.get(tok)
            if j is not None:
                vec[j] += self.idf[tok]
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def __call__(self, samples):
        x = torch.tensor([self.vectorize(tokens) for tokens, _ in samples], dtype=torch.float32)
        y = torch.tensor([[1.0 if t in tags else 0.0 for t in range(self.n_tags)] for _, tags in samples])
        return x, y
