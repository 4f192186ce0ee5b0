import torch.nn as nn
import torch.nn.functional as F


class PoseTCN(nn.Module):
    """Per-frame embedding, two dilated temporal convolutions, masked mean pooling."""

    def __init__(self, in_dim, n_classes, hidden=16):
        super().__init__()
        self.embed = nn.Linear(in_dim, hidden)
        self.conv1 = nn.Conv1d(hidden, hidden, 3, padding=1)
        self.conv2 = nn.Conv1d(hidden, hidden, 3, padding=2, dilation=2)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, pose, frame_mask):
        h = F.relu(self.embed(pose)).transpose(1, 2)
        h = F.relu(self.conv1(h))
        h = F.relu(self.conv2(h)) + h
        m = frame_mask.unsqueeze(1).to(h.dtype)
        pooled = (h * m).sum(-1) / m.sum(-1).clamp_min(1.0)
        return self.head(pooled)
