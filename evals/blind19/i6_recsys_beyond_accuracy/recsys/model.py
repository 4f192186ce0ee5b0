import torch
import torch.nn as nn
import torch.nn.functional as F


class MatrixFactorization(nn.Module):
    def __init__(self, num_users, num_items, dim):
        super().__init__()
        self.user_emb = nn.Embedding(num_users, dim)
        self.item_emb = nn.Embedding(num_items, dim)
        nn.init.normal_(self.user_emb.weight, std=0.1)
        nn.init.normal_(self.item_emb.weight, std=0.1)

    def forward(self, users, items):
        return (self.user_emb(users) * self.item_emb(items)).sum(-1)

    def bpr_loss(self, users, pos, neg):
        diff = self(users, pos) - self(users, neg)
        return -F.logsigmoid(diff).mean()

    @torch.no_grad()
    def recommend(self, users, k):
        scores = self.user_emb(users) @ self.item_emb.weight.T
        return scores.topk(k, dim=1).indices
