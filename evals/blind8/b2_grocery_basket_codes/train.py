import json
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from catalog import build_catalog, build_orders
from dataset import NextDepartmentDataset


class BasketModel(nn.Module):
    def __init__(self, n_items, n_aisles, n_ctx, n_dept, emb, hidden):
        super().__init__()
        self.item_emb = nn.Embedding(n_items + 1, emb, padding_idx=0)
        self.aisle_emb = nn.Embedding(n_aisles + 1, emb // 2, padding_idx=0)
        self.mlp = nn.Sequential(
            nn.Linear(emb + emb // 2 + n_ctx + n_dept, hidden), nn.ReLU(),
            nn.Linear(hidden, n_dept),
        )

    def forward(self, b):
        mask = (b["items"] > 0).unsqueeze(-1).float()
        denom = b["length"].clamp(min=1).unsqueeze(-1).float()
        items = (self.item_emb(b["items"]) * mask).sum(1) / denom
        aisles = (self.aisle_emb(b["aisles"]) * mask).sum(1) / denom
        return self.mlp(torch.cat([items, aisles, b["context"], b["dept_share"]], dim=1))


def main(path):
    with open(path) as fh:
        cfg = json.load(fh)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    products, aisles, departments = build_catalog(cfg["catalog"], cfg["seed"])
    orders = build_orders(cfg["orders"], products, aisles, cfg["seed"])
    lc = cfg["loader"]
    ds = NextDepartmentDataset(orders, products, aisles, departments,
                               lc["max_len"], lc["item_dropout"], cfg["seed"])
    loader = DataLoader(ds, batch_size=lc["batch_size"], shuffle=lc["shuffle"],
                        num_workers=lc["num_workers"],
                        generator=torch.Generator().manual_seed(cfg["seed"]))

    n_ctx = len(ds.context_features(orders[0]))
    model = BasketModel(len(ds.product_vocab), len(ds.aisle_vocab), n_ctx, len(departments),
                        cfg["model"]["emb_dim"], cfg["model"]["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])

    meter = evalkit.Meter()
    history = []
    step = 0
    for epoch in range(cfg["optim"]["epochs"]):
        correct = seen = 0
        total = 0.0
        for batch in loader:
            meter.batch(batch)
            logits = model(batch)
            loss = F.cross_entropy(logits, batch["target"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            correct += int((logits.argmax(1) == batch["target"]).sum())
            seen += batch["target"].numel()
            total += loss.item()
            if meter.done():
                break
        history.append({"epoch": epoch, "acc": correct / max(seen, 1), "loss": total})
        print(f"epoch {epoch} step {step} acc {correct / max(seen, 1):.3f}")
        if meter.done():
            break
    meter.report(extra={"history": history, "vocab": len(ds.product_vocab)})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "basket.json")
