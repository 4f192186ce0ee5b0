"""Train a wide classifier on pre-built feature shards, copying each shard to the GPU."""
import argparse
import random

import numpy as np
import torch
import yaml
from torch import nn
from torch.utils.data import DataLoader, Dataset

import evalkit


class FeatureShards(Dataset):
    """Pre-built float32 shards, one batch each: reading one is a view, no per-sample work."""

    def __init__(self, n_shards, shard_rows, n_features, n_classes, seed):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randn(n_shards, shard_rows, n_features, generator=g)
        teacher = torch.randn(n_features, n_classes, generator=g)
        self.y = (self.x @ teacher).argmax(dim=-1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def build_model(n_in, hidden, n_out):
    return nn.Sequential(nn.Linear(n_in, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(),
                         nn.Linear(hidden, n_out))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    d = cfg["data"]
    shards = FeatureShards(d["n_shards"], d["shard_rows"], d["n_features"], d["n_classes"], seed)
    # batch_size=None: each shard already is a batch.
    loader = DataLoader(shards, batch_size=None, shuffle=True, num_workers=d["num_workers"],
                        pin_memory=d["pin_memory"], generator=torch.Generator().manual_seed(seed))

    model = build_model(d["n_features"], cfg["model"]["hidden"], d["n_classes"]).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])

    meter = evalkit.Meter()
    stride = cfg["train"]["digest_stride"]
    for epoch in range(cfg["train"]["epochs"]):
        for xb, yb in loader:
            # Every stride-th feature column: hashing all 32 MB of a shard would cost more than the copy.
            meter.batch((xb[:, ::stride], yb))
            xb = xb.to(device)
            yb = yb.to(device)
            loss = nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            if meter.steps % cfg["train"]["log_every"] == 0:
                print(f"epoch {epoch} step {meter.steps} loss {loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report()


if __name__ == "__main__":
    main()
