import torch.nn as nn


class GenreTagger(nn.Module):
    def __init__(self, in_dim, hidden, num_genres, dropout):
        super().__init__()
        layers, d = [], in_dim
        for h in hidden:
            layers += [nn.Linear(d, h), nn.GELU(), nn.Dropout(dropout)]
            d = h
        self.backbone = nn.Sequential(*layers)
        self.classifier = nn.Linear(d, num_genres)

    def forward(self, x):
        return self.classifier(self.backbone(x))
