"""Click-through model on hashed categorical fields, with a per-step gradient monitor."""
import argparse
import json
import random

import numpy as np
import torch
from torch import nn

import evalkit
from monitor import GradMonitor


def synth_clicks(rows, fields, buckets, seed):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, buckets, (rows, fields), generator=g)
    w = torch.randn(buckets, generator=g) * 0.8
    logit = w[ids].sum(1) / fields ** 0.5 - 0.5
    y = (torch.rand(rows, generator=g) < torch.sigmoid(logit)).float()
    return ids, y


class FieldEmbeddingCTR(nn.Module):
    def __init__(self, fields, buckets, dim):
        super().__init__()
        self.emb = nn.Embedding(buckets, dim)
        self.lin = nn.Embedding(buckets, 1)
        self.mlp = nn.Sequential(nn.Linear(fields * dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, ids):
        e = self.emb(ids).flatten(1)
        return (self.mlp(e) + self.lin(ids).sum(1)).squeeze(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    cfg = json.load(open(ap.parse_args().config))
    random.seed(cfg["seed"]); np.random.seed(cfg["seed"]); torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    ids, y = synth_clicks(cfg["rows"], cfg["n_fields"], cfg["hash_buckets"], cfg["seed"])
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(ids, y),
                                         batch_size=cfg["batch_size"], shuffle=True,
                                         num_workers=cfg["num_workers"],
                                         generator=torch.Generator().manual_seed(cfg["seed"]))
    model = FieldEmbeddingCTR(cfg["n_fields"], cfg["hash_buckets"], cfg["embed_dim"])
    opt = torch.optim.Adagrad(model.parameters(), lr=cfg["lr"])
    mon = GradMonitor(cfg["monitor"]["bins"], cfg["monitor"]["range"])

    meter = evalkit.Meter()
    step = 0
    for epoch in range(cfg["epochs"]):
        for batch_ids, batch_y in loader:
            meter.batch((batch_ids, batch_y))
            loss = nn.functional.binary_cross_entropy_with_logits(model(batch_ids), batch_y)
            opt.zero_grad()
            loss.backward()
            if step % cfg["monitor"]["every"] == 0:
                gmax = mon.observe(model.named_parameters())
                if step % 25 == 0:
                    print(f"step {step}: loss {loss.item():.4f} max|g| {gmax:.2e}")
            opt.step()
            step += 1
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra=mon.summary())


if __name__ == "__main__":
    main()
