from torch import nn


class ConvNet1d(nn.Module):
    """Three strided 1-D convs, global average pooling, linear head."""

    def __init__(self, in_ch, hidden, num_classes):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(in_ch, hidden, 5, stride=2, padding=2), nn.ReLU(),
                                  nn.Conv1d(hidden, hidden, 5, stride=2, padding=2), nn.ReLU(),
                                  nn.Conv1d(hidden, hidden, 3, stride=2, padding=1), nn.ReLU(),
                                  nn.AdaptiveAvgPool1d(1))
        self.fc = nn.Linear(hidden, num_classes)

    def forward(self, x):  # B, C, T
        return self.fc(self.conv(x).flatten(1))
