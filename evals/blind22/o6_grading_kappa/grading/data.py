import torch


def make_grading_data(n, n_features, n_grades, noise, seed):
    """Tabular exam features driven by a latent severity; the grade is the binned severity."""
    g = torch.Generator().manual_seed(seed)
    severity = torch.rand(n, generator=g) ** 1.6 * n_grades
    loadings = torch.randn(n_features, generator=g)
    x = severity[:, None] * loadings[None, :] / n_grades + 0.8 * torch.randn(n, n_features, generator=g)
    noisy = severity + noise * torch.randn(n, generator=g)
    y = noisy.clamp(0, n_grades - 1e-3).floor().long()
    return x.float(), y


class FastTensorDataLoader:
    """A DataLoader-alike for tensors already in memory: slices instead of per-row __getitem__."""

    def __init__(self, *tensors, batch_size=32, shuffle=False, generator=None, drop_last=False):
        assert all(t.shape[0] == tensors[0].shape[0] for t in tensors)
        self.tensors = tensors
        self.n = tensors[0].shape[0]
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.generator = generator
        self.drop_last = drop_last

    def __iter__(self):
        order = torch.randperm(self.n, generator=self.generator) if self.shuffle else torch.arange(self.n)
        stop = self.n - self.batch_size + 1 if self.drop_last else self.n
        for i in range(0, stop, self.batch_size):
            idx = order[i:i + self.batch_size]
            yield tuple(t[idx] for t in self.tensors)

    def __len__(self):
        return self.n // self.batch_size if self.drop_last else -(-self.n // self.batch_size)
