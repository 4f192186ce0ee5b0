"""Next-week demand from weekly price / promotion features of retail price-change logs.

    python train.py retail.toml
"""
import random
import sys
import tomllib

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, RandomSampler

import evalkit
from pricefeat import PriceWindowDataset, collate_weekly, synth_catalog


class DemandMLP(nn.Module):
    def __init__(self, weeks, n_feat, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(weeks * (n_feat + 1), hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, features, mask):
        x = torch.cat([features, mask.unsqueeze(-1)], dim=-1).flatten(1)
        return self.net(x).squeeze(-1)


def main():
    with open(sys.argv[1], "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["seed"]
    torch.set_num_threads(1)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    cat = cfg["catalog"]
    catalog = synth_catalog(cat["skus"], cat["start_date"], cat["days"], seed)
    ds = PriceWindowDataset(catalog, cat["start_date"], cat["days"], cfg["window"]["weeks"],
                            cfg["window"]["min_history_days"], torch.Generator().manual_seed(seed + 1))
    ld = cfg["loader"]
    sampler = RandomSampler(ds, num_samples=ld["samples_per_epoch"], generator=torch.Generator().manual_seed(seed + 2))
    loader = DataLoader(ds, batch_size=ld["batch_size"], sampler=sampler, collate_fn=collate_weekly,
                        num_workers=ld["num_workers"])

    model = DemandMLP(cfg["window"]["weeks"], 5, cfg["train"]["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
    meter = evalkit.Meter()
    promo_weeks = 0.0
    for epoch in range(cfg["train"]["epochs"]):
        for batch in loader:
            meter.batch((batch.features, batch.week_mask, batch.target, batch.skus))
            pred = model(batch.features, batch.week_mask)
            loss = nn.functional.mse_loss(pred, batch.target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            promo_weeks += float(batch.features[:, :, 2].sum())
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"epochs": epoch + 1, "promo_share_sum": round(promo_weeks, 4)})


if __name__ == "__main__":
    main()
