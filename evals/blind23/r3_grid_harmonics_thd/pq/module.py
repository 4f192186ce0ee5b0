import torch
from torch import nn


class DisturbanceClassifier(nn.Module):
    """Lightning-style module: training_step / configure_optimizers."""

    def __init__(self, windows, per_window, num_classes, hidden=64, dropout=0.1, lr=1e-3, weight_decay=0.0):
        super().__init__()
        self.lr, self.weight_decay = lr, weight_decay
        self.norm = nn.LayerNorm(per_window)
        self.window_mlp = nn.Sequential(nn.Linear(per_window, hidden), nn.ReLU())
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(hidden * windows, num_classes))
        self.loss = nn.CrossEntropyLoss()

    def forward(self, feats):
        h = self.window_mlp(self.norm(feats))
        return self.head(h.flatten(1))

    def training_step(self, batch, batch_idx):
        feats, labels = batch
        logits = self(feats)
        loss = self.loss(logits, labels)
        acc = (logits.argmax(-1) == labels).float().mean()
        return {"loss": loss, "acc": acc.detach()}

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.lr, weight_decay=self.weight_decay)
