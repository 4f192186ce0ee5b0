"""Map-style dataset of (SKU, week-ending day) windows with a batched __getitems__."""
import dataclasses
import datetime as dt
import math
from typing import List

import torch
from torch.utils.data import Dataset

from .csvlog import forward_fill, parse_price_log, parse_sales_log
from .features import weekly_features


@dataclasses.dataclass
class WeeklyBatch:
    features: torch.Tensor   # (B, weeks, 5)
    week_mask: torch.Tensor  # (B, weeks) 1 = observed
    target: torch.Tensor     # (B,) log1p units of the following week
    skus: List[str]


class PriceWindowDataset(Dataset):
    def __init__(self, catalog, start, days, weeks, min_history, generator):
        self.catalog = catalog
        self.start = dt.date.fromisoformat(start)
        self.weeks = weeks
        self.ends = list(range(min_history, days - 7))
        self.generator = generator

    def __len__(self):
        return len(self.catalog) * len(self.ends)

    def _window(self, index):
        item = self.catalog[index // len(self.ends)]
        end = self.ends[index % len(self.ends)]
        rows = parse_price_log(item["price_csv"])
        units = parse_sales_log(item["sales_csv"])
        n_days = 7 * self.weeks
        first = self.start + dt.timedelta(days=end - n_days)
        prices = forward_fill(rows, first, n_days)
        daily_units = [units.get(first + dt.timedelta(days=k), 0) for k in range(n_days)]
        nxt = sum(units.get(first + dt.timedelta(days=n_days + k), 0) for k in range(7))
        return item["sku"], weekly_features(prices, daily_units, self.weeks), math.log1p(nxt)

    def __getitem__(self, index):
        return self.__getitems__([index])[0]

    def __getitems__(self, indices):
        # one stockout week per window is hidden from the model (random per draw)
        hidden = torch.randint(0, self.weeks, (len(indices),), generator=self.generator).tolist()
        out = []
        for index, h in zip(indices, hidden):
            sku, feats, target = self._window(index)
            mask = [0.0 if w == h else 1.0 for w in range(self.weeks)]
            feats = [f if m else [0.0] * len(f) for f, m in zip(feats, mask)]
            out.append({"sku": sku, "features": feats, "mask": mask, "target": target})
        return out


def collate_weekly(samples):
    return WeeklyBatch(
        features=torch.tensor([s["features"] for s in samples], dtype=torch.float32),
        week_mask=torch.tensor([s["mask"] for s in samples], dtype=torch.float32),
        target=torch.tensor([s["target"] for s in samples], dtype=torch.float32),
        skus=[s["sku"] for s in samples],
    )
