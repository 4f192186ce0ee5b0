import torch.nn as nn


class LesionNet(nn.Module):
    def __init__(self, widths, num_classes, in_ch=3):
        super().__init__()
        layers = []
        c = in_ch
        for w in widths:
            layers += [nn.Conv2d(c, w, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2)]
            c = w
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(c, num_classes)

    def forward(self, x):
        x = self.features(x)
        return self.head(x.mean(dim=(2, 3)))
