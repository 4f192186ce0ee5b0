"""Synthetic 2 m temperature cases: raw NWP ensemble statistics on a small grid -> observed temperature."""
import torch


def make_cases(n, grid, channels, lead_hours, seed):
    g = torch.Generator().manual_seed(seed)
    h, w = grid
    yy, xx = torch.meshgrid(torch.linspace(0, 1, h), torch.linspace(0, 1, w), indexing="ij")
    orography = 0.8 * torch.exp(-((yy - 0.3) ** 2 + (xx - 0.6) ** 2) / 0.05)
    season = torch.rand(n, 1, 1, generator=g) * 6.283
    truth = 10 + 8 * torch.sin(season) - 6.5 * orography + 2.0 * torch.randn(n, h, w, generator=g)
    err = (0.5 + lead_hours / 48.0) * torch.randn(n, h, w, generator=g)
    raw_mean = truth + err + 1.2 * orography   # raw model is warm-biased over the mountain
    raw_std = (0.6 + 0.3 * torch.rand(n, h, w, generator=g)) * (1 + lead_hours / 96.0)
    feats = torch.stack([raw_mean / 10, raw_std, orography.expand(n, h, w), torch.sin(season).expand(n, h, w),
                         torch.cos(season).expand(n, h, w), yy.expand(n, h, w)], dim=1)[:, :channels]
    return feats.contiguous(), truth.contiguous()


class CaseBatches:
    """Shuffled mini-batches over in-memory cases, reshuffled every pass."""

    def __init__(self, feats, obs, batch_size, seed):
        self.feats, self.obs = feats, obs
        self.batch_size = batch_size
        self.g = torch.Generator().manual_seed(seed)

    def __iter__(self):
        while True:
            order = torch.randperm(len(self.obs), generator=self.g)
            for i in range(0, len(order) - self.batch_size + 1, self.batch_size):
                idx = order[i:i + self.batch_size]
                yield {"x": self.feats[idx], "obs": self.obs[idx]}
