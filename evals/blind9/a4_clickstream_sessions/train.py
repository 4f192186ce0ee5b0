"""GRU4Rec-style next-item model trained with sampled softmax on sessionised click-streams."""
import argparse
import configparser
import random
import time
from collections import defaultdict, deque

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from clicklog import EVENT_TYPES, make_export
from evalkit import Meter
from sessions import NextItemDataset, collate_sessions


class SmoothedValue:
    def __init__(self, window=20):
        self.values = deque(maxlen=window)
        self.total = 0.0
        self.count = 0

    def update(self, v):
        self.values.append(v)
        self.total += v
        self.count += 1

    @property
    def avg(self):
        return sum(self.values) / len(self.values)

    @property
    def global_avg(self):
        return self.total / self.count


class GRU4Rec(nn.Module):
    def __init__(self, num_items, embed_dim, hidden_dim):
        super().__init__()
        self.item_emb = nn.Embedding(num_items + 1, embed_dim, padding_idx=0)
        self.type_emb = nn.Embedding(len(EVENT_TYPES) + 1, 8, padding_idx=0)
        self.gru = nn.GRU(embed_dim + 8 + 1, hidden_dim, batch_first=True)
        self.proj = nn.Linear(hidden_dim, embed_dim)

    def forward(self, batch):
        x = torch.cat([self.item_emb(batch.items), self.type_emb(batch.types), batch.dwell.unsqueeze(-1)], -1)
        out, _ = self.gru(x)
        user = self.proj(out[:, -1])  # histories are left-padded: the last step is the latest event
        cands = torch.cat([batch.target.unsqueeze(1), batch.negatives], 1)
        return torch.einsum("bd,bkd->bk", user, self.item_emb(cands))  # column 0 is the positive


def train_one_epoch(model, optimizer, loader, meter, epoch, max_steps, log_every, history):
    model.train()
    metrics = defaultdict(SmoothedValue)
    start = time.time()
    for batch in loader:
        meter.batch(batch.as_dict())
        logits = model(batch)
        loss = F.cross_entropy(logits, torch.zeros(len(logits), dtype=torch.long))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.step(loss)

        with torch.no_grad():
            rank = (logits[:, 1:] > logits[:, :1]).sum(1)
            metrics["loss"].update(loss.item())
            metrics["hr@5"].update((rank < 5).float().mean().item())
            metrics["mrr"].update((1.0 / (rank + 1).float()).mean().item())
        history["step"] += 1
        if history["step"] % log_every == 0:
            print(f"Epoch: [{epoch}] [{history['step']}]  " +
                  "  ".join(f"{k}: {m.avg:.4f} ({m.global_avg:.4f})" for k, m in metrics.items()) +
                  f"  time: {time.time() - start:.1f}s", flush=True)
        if history["step"] >= max_steps or meter.done():
            break
    for k, m in metrics.items():
        history[k].append(m.global_avg)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="recsys.ini")
    args = ap.parse_args()
    cp = configparser.ConfigParser(inline_comment_prefixes=("#",))
    cp.read(args.config)
    d, se, sa, m, o = (cp[s] for s in ("data", "sessionization", "sampling", "model", "optim"))

    seed = d.getint("seed")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    lines = make_export(d.getint("num_users"), d.getint("num_items"), d.getint("min_events"),
                        d.getint("max_events"), seed)
    dataset = NextItemDataset(lines, d.getint("num_items"), se.getfloat("gap_seconds"),
                              se.getint("max_history"), se.getfloat("dwell_cap_seconds"),
                              sa.getint("num_negatives"), sa.getfloat("popularity_power"), seed + 1)
    print(f"{len(lines)} users, {len(dataset)} next-item samples", flush=True)
    g = torch.Generator().manual_seed(seed)
    loader = DataLoader(dataset, batch_size=o.getint("batch_size"), shuffle=True, generator=g,
                        num_workers=d.getint("num_workers"), collate_fn=collate_sessions, drop_last=True)
    model = GRU4Rec(d.getint("num_items"), m.getint("embed_dim"), m.getint("hidden_dim"))
    optimizer = torch.optim.Adam(model.parameters(), lr=o.getfloat("lr"))

    meter = Meter()
    max_steps = o.getint("max_steps")
    history = defaultdict(list)
    history["step"] = 0
    epoch = 0
    while history["step"] < max_steps and not meter.done():
        train_one_epoch(model, optimizer, loader, meter, epoch, max_steps, o.getint("log_every"), history)
        epoch += 1
    meter.report(extra={k: [round(v, 6) for v in vals] for k, vals in history.items() if k != "step"})


if __name__ == "__main__":
    main()
