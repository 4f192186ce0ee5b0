import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyTDNN(nn.Module):
    def __init__(self, n_mels, channels, embed_dim, num_speakers):
        super().__init__()
        self.frames = nn.Sequential(
            nn.Conv1d(n_mels, channels, 5, padding=2), nn.ReLU(), nn.BatchNorm1d(channels),
            nn.Conv1d(channels, channels, 3, padding=2, dilation=2), nn.ReLU(), nn.BatchNorm1d(channels),
        )
        self.embed = nn.Linear(2 * channels, embed_dim)
        self.classifier = nn.Linear(embed_dim, num_speakers)

    def forward(self, x):
        h = self.frames(x)
        stats = torch.cat([h.mean(-1), h.std(-1)], dim=-1)  # statistics pooling
        emb = self.embed(stats)
        return emb, self.classifier(F.relu(emb))
