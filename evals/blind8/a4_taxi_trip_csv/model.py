import torch.nn as nn


def make_mlp(in_dim, hidden, depth, dropout):
    layers = []
    d = in_dim
    for _ in range(depth):
        layers += [nn.Linear(d, hidden), nn.SiLU(), nn.Dropout(dropout)]
        d = hidden
    layers.append(nn.Linear(d, 1))
    return nn.Sequential(*layers)
