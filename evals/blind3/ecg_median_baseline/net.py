from torch import nn


def conv_bn(cin, cout, k, stride):
    return nn.Sequential(nn.Conv1d(cin, cout, k, stride, k // 2, bias=False), nn.BatchNorm1d(cout), nn.ReLU())


class RhythmNet(nn.Module):
    def __init__(self, channels, num_classes):
        super().__init__()
        c = channels
        self.features = nn.Sequential(conv_bn(1, c, 7, 2), conv_bn(c, c, 5, 2), conv_bn(c, 2 * c, 5, 2),
                                      nn.AdaptiveAvgPool1d(1))
        self.fc = nn.Linear(2 * c, num_classes)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))
