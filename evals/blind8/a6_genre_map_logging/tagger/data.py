"""Synthetic "plot embedding" -> genre tags. Each genre has a prototype direction; a movie
mixes the prototypes of its 1-4 genres (co-occurrence follows a few clusters) plus noise."""
import torch
from torch.utils.data import TensorDataset

GENRE_CLUSTERS = [[0, 1, 2], [3, 4], [5, 6, 7, 8], [9, 10], [11, 12, 13], [14, 15, 16, 17], [18, 19], [20, 21, 22, 23]]


def make_movies(num_movies, embed_dim, num_genres, label_noise, seed):
    g = torch.Generator().manual_seed(seed)
    protos = torch.randn(num_genres, embed_dim, generator=g)
    pop = torch.linspace(2.0, 0.3, num_genres)  # long-tailed genre frequencies
    y = torch.zeros(num_movies, num_genres)
    for i in range(num_movies):
        k = int(torch.randint(1, 5, (1,), generator=g))
        first = int(torch.multinomial(pop, 1, generator=g))
        y[i, first] = 1.0
        cluster = next(c for c in GENRE_CLUSTERS if first in c)
        for _ in range(k - 1):
            if torch.rand(1, generator=g).item() < 0.7:
                j = cluster[int(torch.randint(len(cluster), (1,), generator=g))]
            else:
                j = int(torch.multinomial(pop, 1, generator=g))
            y[i, j] = 1.0
    weights = y / y.sum(1, keepdim=True)
    x = weights @ protos + 0.9 * torch.randn(num_movies, embed_dim, generator=g)
    flip = torch.rand(num_movies, num_genres, generator=g) < label_noise
    y = torch.where(flip, 1.0 - y, y)
    return TensorDataset(x, y)
