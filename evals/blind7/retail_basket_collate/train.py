"""Predict which departments a customer's next basket will touch, from the current basket."""
import argparse
import configparser

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from baskets import BasketCollator, make_baskets, make_catalogue
from evalkit import Meter


class NextBasketModel(nn.Module):
    def __init__(self, n_skus, n_departments, n_segments, embed_dim, hidden):
        super().__init__()
        self.sku_proj = nn.Linear(n_skus, embed_dim, bias=False)
        self.segment = nn.Embedding(n_segments, 8)
        self.mlp = nn.Sequential(
            nn.Linear(embed_dim + 8 + 1, hidden), nn.ReLU(), nn.Dropout(0.1),
            nn.Linear(hidden, n_departments),
        )

    def forward(self, qty, segment, size):
        h = self.sku_proj(torch.log1p(qty))
        return self.mlp(torch.cat([h, self.segment(segment), torch.log(size).unsqueeze(1)], dim=1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="retail.ini")
    cfg = configparser.ConfigParser(interpolation=configparser.ExtendedInterpolation())
    cfg.read(parser.parse_args().config)
    data, mcfg, ocfg = cfg["data"], cfg["model"], cfg["optim"]

    torch.set_num_threads(1)
    seed = data.getint("seed")
    torch.manual_seed(seed)
    n_dep, per_dep = data.getint("departments"), data.getint("skus_per_department")
    catalogue = make_catalogue(n_dep, per_dep)
    samples = make_baskets(catalogue, n_dep, per_dep, data.getint("customers"), data.getint("baskets"), seed)

    loader = DataLoader(samples, batch_size=ocfg.getint("batch_size"), shuffle=True,
                        collate_fn=BasketCollator(catalogue, n_dep),
                        generator=torch.Generator().manual_seed(seed))
    model = NextBasketModel(len(catalogue), n_dep, mcfg.getint("segments"), mcfg.getint("embed_dim"),
                            mcfg.getint("hidden"))
    optimizer = torch.optim.Adam(model.parameters(), lr=ocfg.getfloat("lr"))
    print(f"run {cfg['run']['name']}: {len(samples)} baskets, {len(catalogue)} SKUs")

    meter = Meter()
    step = 0
    f1_hist = []
    for epoch in range(ocfg.getint("epochs")):
        model.train()
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["qty"], batch["segment"], batch["size"])
            loss = F.binary_cross_entropy_with_logits(logits, batch["target"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            with torch.no_grad():
                pred = (logits > 0).float()
                tp = (pred * batch["target"]).sum()
                f1 = float(2 * tp / (pred.sum() + batch["target"].sum()).clamp(min=1))
            f1_hist.append(f1)
            if step % ocfg.getint("log_every") == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} micro-F1 {f1:.3f}")
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break

    meter.report(extra={"steps": step, "micro_f1_last10": sum(f1_hist[-10:]) / len(f1_hist[-10:])})


if __name__ == "__main__":
    main()
