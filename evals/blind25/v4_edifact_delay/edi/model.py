import torch.nn as nn


def make_regressor(n_in, hidden, dropout):
    layers, width = [nn.BatchNorm1d(n_in)], n_in
    for h in hidden:
        layers += [nn.Linear(width, h), nn.SiLU(), nn.Dropout(dropout)]
        width = h
    layers.append(nn.Linear(width, 1))
    return nn.Sequential(*layers)
