import torch.nn as nn
import torch.nn.functional as F


class ConvCTC(nn.Module):
    """Two 1-D convolutions over time (the first subsamples by 2) and a per-frame classifier
    (log-probabilities, [T', B, V])."""

    def __init__(self, n_mels, hidden, vocab):
        super().__init__()
        self.conv1 = nn.Conv1d(n_mels, hidden, kernel_size=5, stride=2, padding=2)
        self.conv2 = nn.Conv1d(hidden, hidden, kernel_size=5, padding=2)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, feats):
        x = F.gelu(self.conv1(feats.transpose(1, 2)))
        x = F.gelu(self.conv2(x)).transpose(1, 2)
        return F.log_softmax(self.out(x), dim=-1).transpose(0, 1)

    @staticmethod
    def output_lengths(lengths):
        return (lengths - 1) // 2 + 1
