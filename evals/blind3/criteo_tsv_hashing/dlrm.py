import torch
from torch import nn


def mlp(sizes, final_act=True):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2 or final_act:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class TinyDLRM(nn.Module):
    """DLRM-style: bottom MLP on dense features, one shared hashed embedding table, dot interactions, top MLP."""

    def __init__(self, n_dense, n_cat, buckets, dim, bottom, top):
        super().__init__()
        self.bottom = mlp([n_dense] + bottom[:-1] + [dim])
        self.emb = nn.Embedding(buckets, dim)
        n = n_cat + 1
        self.top = mlp([dim + n * (n - 1) // 2] + top, final_act=False)
        self.register_buffer("iu", torch.triu_indices(n, n, offset=1))

    def forward(self, dense, cats):
        d = self.bottom(dense)
        feats = torch.cat([d.unsqueeze(1), self.emb(cats)], 1)
        inter = torch.bmm(feats, feats.transpose(1, 2))[:, self.iu[0], self.iu[1]]
        return self.top(torch.cat([d, inter], 1)).squeeze(1)
