import torch
from torch.utils.data import Dataset


class SyntheticLETOR(Dataset):
    """MSLR-like query groups: (docs_per_query, features) float32 and graded relevance 0..4."""

    def __init__(self, n_queries, n_docs, n_feat, seed):
        g = torch.Generator().manual_seed(seed)
        w = torch.randn(n_feat, generator=g)
        w2 = torch.randn(n_feat, generator=g) * 0.5
        self.x = torch.randn(n_queries, n_docs, n_feat, generator=g)
        q_shift = torch.randn(n_queries, 1, generator=g) * 0.5
        latent = self.x @ w + torch.tanh(self.x @ w2) * 2 + q_shift + 2.0 * torch.randn(n_queries, n_docs, generator=g)
        cuts = torch.tensor([2.0, 3.5, 4.5, 5.5])
        self.rel = torch.bucketize(latent, cuts).clamp(max=4)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"features": self.x[i], "relevance": self.rel[i]}
