from torch import nn


class FastTextClassifier(nn.Module):
    def __init__(self, buckets, embed_dim, hidden, num_classes):
        super().__init__()
        self.bag = nn.EmbeddingBag(buckets, embed_dim, mode="mean", padding_idx=0)
        self.fc = nn.Sequential(nn.Linear(embed_dim, hidden), nn.ReLU(), nn.Linear(hidden, num_classes))

    def forward(self, ngram_ids):
        return self.fc(self.bag(ngram_ids))
