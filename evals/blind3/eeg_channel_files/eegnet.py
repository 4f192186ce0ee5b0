from torch import nn


class EEGNet1d(nn.Module):
    """A light EEGNet-like model for CPU: spatial mixing (1x1), temporal conv, pooling, linear head."""

    def __init__(self, n_channels, n_classes, F1=8, D=2):
        super().__init__()
        F2 = F1 * D
        self.spatial = nn.Sequential(nn.Conv1d(n_channels, F2, 1, bias=False), nn.BatchNorm1d(F2))
        self.temporal = nn.Sequential(
            nn.Conv1d(F2, F2, 15, stride=4, padding=7, groups=F1, bias=False), nn.BatchNorm1d(F2), nn.ELU(),
            nn.AvgPool1d(4), nn.Dropout(0.25))
        self.classify = nn.LazyLinear(n_classes)

    def forward(self, x):
        x = self.temporal(self.spatial(x))
        return self.classify(x.flatten(1))
