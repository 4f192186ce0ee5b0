"""MoCo-v2-style contrastive pretraining on a table, with a FIFO queue of negative keys."""
import argparse
import copy
from collections import deque

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
from views import TwoViewTable


def encoder(dim, hidden, emb):
    return nn.Sequential(nn.Linear(dim, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Linear(hidden, emb))


class MoCo(nn.Module):
    def __init__(self, dim, hidden, emb, queue_size, momentum, temperature, seed):
        super().__init__()
        self.q_enc = encoder(dim, hidden, emb)
        self.k_enc = copy.deepcopy(self.q_enc)
        for p in self.k_enc.parameters():
            p.requires_grad_(False)
        self.m, self.t = momentum, temperature
        g = torch.Generator().manual_seed(seed)
        init = F.normalize(torch.randn(queue_size, emb, generator=g), dim=1)
        self.queue = deque(init.tolist(), maxlen=queue_size)

    @torch.no_grad()
    def momentum_update(self):
        for pq, pk in zip(self.q_enc.parameters(), self.k_enc.parameters()):
            pk.mul_(self.m).add_(pq.detach(), alpha=1 - self.m)

    def forward(self, v1, v2):
        q = F.normalize(self.q_enc(v1), dim=1)
        with torch.no_grad():
            self.momentum_update()
            k = F.normalize(self.k_enc(v2), dim=1)
        negatives = torch.tensor(list(self.queue))
        l_pos = (q * k).sum(1, keepdim=True)
        l_neg = q @ negatives.T
        logits = torch.cat([l_pos, l_neg], dim=1) / self.t
        labels = torch.zeros(len(q), dtype=torch.long)
        loss = F.cross_entropy(logits, labels)
        self.queue.extend(k.tolist())   # enqueue newest keys, oldest fall off
        return loss, l_pos.detach().mean()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="moco.yaml")
    with open(ap.parse_args().config) as fh:
        cfg = yaml.safe_load(fh)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    d, m, mc, o = cfg["data"], cfg["model"], cfg["moco"], cfg["optim"]
    ds = TwoViewTable(d["rows"], d["dim"], d["clusters"], d["noise"], d["drop_p"], cfg["seed"])
    loader = DataLoader(ds, batch_size=o["batch_size"], shuffle=True, drop_last=True,
                        generator=torch.Generator().manual_seed(cfg["seed"]))
    model = MoCo(d["dim"], m["hidden"], m["emb"], mc["queue_size"], mc["momentum"], mc["temperature"],
                 cfg["seed"] + 2)
    opt = torch.optim.SGD(model.q_enc.parameters(), lr=o["lr"], momentum=0.9, weight_decay=1e-4)
    meter = evalkit.Meter()
    per_epoch = []
    for epoch in range(o["epochs"]):
        losses, pos = [], []
        for batch in loader:
            meter.batch(batch)
            v1, v2 = batch["views"]
            loss, l_pos = model(v1, v2)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            losses.append(loss.item())
            pos.append(l_pos.item())
            if meter.done():
                break
        per_epoch.append({"loss": sum(losses) / len(losses), "pos_sim": sum(pos) / len(pos)})
        print(epoch, per_epoch[-1])
        if meter.done():
            break
    meter.report(extra={"epochs": per_epoch})


if __name__ == "__main__":
    main()
