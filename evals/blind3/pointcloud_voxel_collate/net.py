import torch
from torch import nn


class VoxelPointNet(nn.Module):
    """Shared MLP over occupied voxels, mean-pooled per cloud."""

    def __init__(self, width, num_classes, voxel_size):
        super().__init__()
        self.voxel_size = voxel_size
        self.mlp = nn.Sequential(nn.Linear(7, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.head = nn.Linear(width, num_classes)

    def forward(self, coords, feats, batch_size):
        centers = (coords[:, 1:].float() + 0.5) * self.voxel_size
        x = torch.cat([feats[:, :3] - centers, centers, torch.log1p(feats[:, 3:])], 1)
        h = self.mlp(x)
        idx = coords[:, 0]
        pooled = torch.zeros(batch_size, h.shape[1]).index_add_(0, idx, h)
        count = torch.zeros(batch_size).index_add_(0, idx, torch.ones(len(idx)))
        return self.head(pooled / count[:, None])
