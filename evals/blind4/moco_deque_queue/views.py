import torch
from torch.utils.data import Dataset


class TwoViewTable(Dataset):
    """Rows from a Gaussian mixture; each access returns two noisy, feature-dropped views."""

    def __init__(self, rows, dim, clusters, noise, drop_p, seed):
        g = torch.Generator().manual_seed(seed)
        centers = torch.randn(clusters, dim, generator=g) * 2
        self.assign = torch.randint(0, clusters, (rows,), generator=g)
        self.x = centers[self.assign] + torch.randn(rows, dim, generator=g)
        self.noise, self.drop_p = noise, drop_p
        self.g = torch.Generator().manual_seed(seed + 1)

    def __len__(self):
        return len(self.x)

    def _view(self, row):
        keep = (torch.rand(row.shape, generator=self.g) >= self.drop_p).float()
        return (row + self.noise * torch.randn(row.shape, generator=self.g)) * keep

    def __getitem__(self, i):
        row = self.x[i]
        return {"views": [self._view(row), self._view(row)], "cluster": self.assign[i]}
