import torch
import torch.nn as nn
import torch.nn.functional as F


class QueryTower(nn.Module):
    def __init__(self, n_items, dim):
        super().__init__()
        self.history = nn.EmbeddingBag(n_items, dim, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, history, offsets):
        return F.normalize(self.mlp(self.history(history, offsets)), dim=-1)


class ItemTower(nn.Module):
    def __init__(self, n_items, n_categories, dim):
        super().__init__()
        self.item = nn.Embedding(n_items, dim)
        self.category = nn.Embedding(n_categories, dim)
        self.mlp = nn.Sequential(nn.Linear(2 * dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, item, category):
        return F.normalize(self.mlp(torch.cat([self.item(item), self.category(category)], -1)), dim=-1)


class TwoTower(nn.Module):
    def __init__(self, n_items, n_categories, dim, temperature):
        super().__init__()
        self.query_tower = QueryTower(n_items, dim)
        self.item_tower = ItemTower(n_items, n_categories, dim)
        self.temperature = temperature

    def forward(self, batch):
        q = self.query_tower(batch["history"], batch["offsets"])
        d = self.item_tower(batch["item"], batch["category"])
        return q @ d.T / self.temperature
